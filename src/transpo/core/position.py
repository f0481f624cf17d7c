"""``Position``: the Python face of the array board.

A ``Position`` owns the numpy arrays of :mod:`transpo.core.board` and calls the
compiled generator and make/unmake on them; moves cross the API as UCI strings.
Outside :mod:`transpo.core` (the search engine aside, which runs its own
compiled loop on copies of these arrays) nothing else calls compiled core
code: the command line and the UCI front end go through this class.
It validates everything that comes in: a bad FEN raises :class:`InvalidFEN`, a
malformed or illegal move raises :class:`IllegalMove` and changes nothing.
"""

from __future__ import annotations

import re
from enum import Enum
from functools import lru_cache

import numpy as np

from transpo.core.board import (
    BISHOP,
    HISTORY_KEEP,
    KING,
    KNIGHT,
    MAX_GAME_PLIES,
    MAX_MOVES,
    MAX_PLY,
    PIECE_LETTERS,
    SQ64_TO_120,
    ST_COUNT,
    ST_HALFMOVE,
    ST_KING,
    ST_PAWN_KEY,
    ST_PLY,
    ST_SIDE,
    PositionArrays,
    new_arrays,
)
from transpo.core.fen import InvalidFEN, format_fen, parse_fen
from transpo.core.keys import MASK64, check_combine, compute_key, compute_pawn_key, key_set
from transpo.core.makemove import EMPTY_PSQ, is_repetition, make_move, refresh_sums, unmake_move
from transpo.core.movegen import generate_moves, in_check, is_attacked
from transpo.core.moves import move_to_uci
from transpo.settings import DEFAULT_COMBINE, DEFAULT_KEY_SET, DEFAULT_PRNG_SEED, START_FEN

__all__ = ["Position", "IllegalMove", "InvalidFEN", "Status", "START_FEN"]

_UCI_MOVE = re.compile(r"[a-h][1-8][a-h][1-8][nbrq]?")


class IllegalMove(ValueError):
    """A move that is malformed or not legal in the position; the position is unchanged."""


class Status(str, Enum):
    """How the game stands in a position."""

    ONGOING = "ongoing"
    CHECKMATE = "checkmate"
    STALEMATE = "stalemate"
    FIFTY_MOVE = "fifty-move rule"
    INSUFFICIENT_MATERIAL = "insufficient material"
    THREEFOLD_REPETITION = "threefold repetition"


def _refuse_check_on_side_not_to_move(board: np.ndarray, state: np.ndarray) -> None:
    """Raise :class:`InvalidFEN` if the side that is not to move stands in check.

    Such a position cannot arise in a game (the side to move could take the
    king).  :mod:`transpo.core.fen` checks everything else in plain Python;
    this rule needs the compiled attack test, so it lives here.
    """
    them = 1 - int(state[ST_SIDE])
    if is_attacked(board, int(state[ST_KING + them]), 1 - them):
        raise InvalidFEN(f"the side not to move ({'wb'[them]}) is in check")


@lru_cache(maxsize=None)
def _shared_key_set(name: str, seed: int, combine: str) -> np.ndarray:
    """One expanded table per key set and combination, shared by all positions (never written)."""
    return key_set(name, seed, combine)


class Position:
    """A chess position with its move history.

    >>> p = Position()
    >>> hex(p.key)
    '0x463b96181691fc9c'
    >>> p.push("e2e4"); hex(p.key)
    '0x823c9b50fd114196'
    """

    def __init__(
        self,
        fen: str = START_FEN,
        keys: str = DEFAULT_KEY_SET,
        seed: int = DEFAULT_PRNG_SEED,
        clean_castling: bool = False,
        combine: str = DEFAULT_COMBINE,
    ) -> None:
        """The position of ``fen`` (default: the start position), hashed with key set ``keys``.

        ``combine`` is how the feature keys make the position's key: ``"xor"`` (Zobrist's
        and PolyGlot's way, the default; the opening book needs it) or ``"add"`` (64-bit
        wrapping addition, a hash-lab option); anything else is a ValueError.
        With ``clean_castling`` a castling right whose king or rook is not at home
        is dropped instead of refused (as python-chess's ``Board(fen)`` does); the
        letters dropped are in :attr:`dropped_castling`.
        """
        self.combine = check_combine(combine)
        self.zobrist = _shared_key_set(keys, seed, combine)
        dropped: list[str] | None = [] if clean_castling else None
        board, state = parse_fen(fen, dropped)
        self.dropped_castling = "".join(dropped or ())  # castling rights the FEN gave and the board contradicts
        _refuse_check_on_side_not_to_move(board, state)
        _, _, self.keys, self.undo = new_arrays()
        self.board, self.state = board, state
        self.keys[0] = compute_key(board, state, self.zobrist)
        state[ST_PAWN_KEY] = np.uint64(compute_pawn_key(board, self.zobrist)).view(np.int64)
        self.moves: list[int] = []  # encoded moves that pop() can take back (the last ones of the game)
        self.dropped_plies = 0  # plies compacted out of the history (see _compact)
        self._buffer = np.zeros(MAX_MOVES, dtype=np.int32)

    @classmethod
    def from_fen(
        cls,
        fen: str,
        keys: str = DEFAULT_KEY_SET,
        seed: int = DEFAULT_PRNG_SEED,
        clean_castling: bool = False,
        combine: str = DEFAULT_COMBINE,
    ) -> Position:
        """The position described by ``fen``; raises :class:`InvalidFEN` naming the fault."""
        return cls(fen, keys, seed, clean_castling, combine)

    def copy(self) -> Position:
        """An independent copy, history included."""
        other = object.__new__(Position)
        other.__dict__.update(self.__dict__)
        for name in ("board", "state", "keys", "undo", "_buffer"):
            setattr(other, name, getattr(self, name).copy())
        other.moves = list(self.moves)
        return other

    def snapshot(self, psq: np.ndarray) -> PositionArrays:
        """Copies of the arrays for a search that evaluates with ``psq``, its sums refreshed for it.

        The position itself is never touched by the search that uses them.
        """
        board, state = self.board.copy(), self.state.copy()
        refresh_sums(board, state, psq)
        return PositionArrays(board, state, self.keys.copy(), self.undo.copy(), self.zobrist, psq)

    # --- queries -------------------------------------------------------------
    @property
    def key(self) -> int:
        """The 64-bit Zobrist key of the position (combined as :attr:`combine` says)."""
        return int(self.keys[self.state[ST_PLY]])

    @property
    def pawn_key(self) -> int:
        """The Zobrist key of the pawns alone (kept incrementally; the evaluation's pawn hash uses it)."""
        return int(self.state[ST_PAWN_KEY]) & MASK64

    def key_with(self, zobrist: np.ndarray) -> int:
        """The key of this position under another expanded key set (:func:`transpo.core.keys.key_set`), from scratch.

        The key set carries its own combination, so this also gives the additive key of an XOR position and back.
        """
        return int(compute_key(self.board, self.state, zobrist))

    @property
    def turn(self) -> str:
        """'w' or 'b'."""
        return "wb"[int(self.state[ST_SIDE])]

    def fen(self) -> str:
        """FEN of the position (en-passant square only when a pawn can take)."""
        return format_fen(self.board, self.state)

    def encoded_moves(self) -> list[int]:
        """Legal moves in the engine's int32 encoding."""
        n = generate_moves(self.board, self.state, self._buffer, 0, False)
        return [int(m) for m in self._buffer[:n]]

    def legal_moves(self) -> list[str]:
        """Legal moves as UCI strings."""
        return [move_to_uci(m) for m in self.encoded_moves()]

    def is_check(self) -> bool:
        """True if the side to move is in check."""
        return bool(in_check(self.board, self.state))

    def is_repetition(self, count: int = 3) -> bool:
        """True if the position has occurred ``count`` times in the history (this time included).

        After a compaction (a game longer than ``MAX_GAME_PLIES``) only the last
        ``HISTORY_KEEP`` plies are looked at; more than 100 plies back the
        fifty-move rule has decided already.
        """
        if count <= 1:
            return True
        return bool(is_repetition(self.state, self.keys, count - 1))

    def is_insufficient_material(self) -> bool:
        """True if neither side can mate: only kings plus at most one minor piece,
        or only bishops all standing on squares of one colour."""
        counts = {code: int(self.state[ST_COUNT + code]) for code in range(16)}
        others = sum(n for code, n in counts.items() if code & 7 not in (0, 7, KING, KNIGHT, BISHOP))
        if others:
            return False
        knights = counts[KNIGHT] + counts[KNIGHT | 8]
        bishops = counts[BISHOP] + counts[BISHOP | 8]
        if knights + bishops <= 1:
            return True
        if knights:
            return False
        shades = {(s64 + (s64 >> 3)) & 1 for s64 in range(64) if self.board[SQ64_TO_120[s64]] & 7 == BISHOP}
        return len(shades) == 1

    def status(self) -> Status:
        """Checkmate, stalemate, a draw by rule, or ongoing."""
        if not self.encoded_moves():
            return Status.CHECKMATE if self.is_check() else Status.STALEMATE
        if self.is_insufficient_material():
            return Status.INSUFFICIENT_MATERIAL
        if self.state[ST_HALFMOVE] >= 100:
            return Status.FIFTY_MOVE
        if self.is_repetition(3):
            return Status.THREEFOLD_REPETITION
        return Status.ONGOING

    # --- moves ---------------------------------------------------------------
    def parse_move(self, uci: str) -> int:
        """The encoded legal move of UCI text; raises :class:`IllegalMove`."""
        if not isinstance(uci, str) or not _UCI_MOVE.fullmatch(uci):
            raise IllegalMove(f"malformed move {uci!r} (expected UCI like e2e4 or e7e8q)")
        for move in self.encoded_moves():
            if move_to_uci(move) == uci:
                return move
        raise IllegalMove(f"illegal move {uci} in {self.fen()}")

    def push(self, uci: str) -> None:
        """Play a move given in UCI notation; raises :class:`IllegalMove` and changes nothing if it is not legal."""
        self.push_encoded(self.parse_move(uci))

    def push_encoded(self, move: int) -> None:
        """Play an encoded move known to be legal (from :meth:`encoded_moves`)."""
        if self.state[ST_PLY] >= MAX_GAME_PLIES:
            self._compact()
        make_move(self.board, self.state, self.keys, self.undo, move, self.zobrist, EMPTY_PSQ)
        self.moves.append(move)

    def _compact(self) -> None:
        """Make room in the fixed-size key history and undo stack: keep only the last plies.

        The arrays hold ``MAX_GAME_PLIES`` plies of game plus ``MAX_PLY`` for a
        search (which copies them and writes keys beyond the current ply).  When
        the game fills them, the last ``HISTORY_KEEP`` plies (more than the 100 of
        the fifty-move rule, so every position a repetition can still involve) are
        shifted down to the start; the older ones are forgotten, and :meth:`pop`
        cannot go back past the kept plies.  Any game length fits this way.
        """
        ply = int(self.state[ST_PLY])
        keep = min(ply, HISTORY_KEEP)
        drop = ply - keep
        self.keys[: keep + 1] = self.keys[drop : ply + 1].copy()
        self.undo[:keep] = self.undo[drop:ply].copy()
        self.state[ST_PLY] = keep
        del self.moves[: len(self.moves) - keep]
        self.dropped_plies += drop

    def pop(self) -> str:
        """Take back the last move and return it in UCI notation."""
        if not self.moves:
            if self.dropped_plies:
                raise IndexError(
                    f"cannot take back more moves: a game this long keeps only its last {HISTORY_KEEP} plies "
                    f"({self.dropped_plies} older plies were dropped)"
                )
            raise IndexError("no move to take back")
        move = self.moves.pop()
        unmake_move(self.board, self.state, self.undo, move)
        return move_to_uci(move)

    # --- perft ---------------------------------------------------------------
    def perft(self, depth: int, bulk: bool = False) -> int:
        """Leaf count of the legal move tree ``depth`` plies deep."""
        if not 0 <= depth <= MAX_PLY:  # the key history has room for MAX_PLY plies beyond the game
            raise ValueError(f"perft depth must be from 0 to {MAX_PLY}, not {depth}")
        buffer = np.zeros(max(depth, 1) * MAX_MOVES, dtype=np.int32)
        from transpo.core.perft import perft  # compiled on first use: a search never needs it (faster cold start)

        return int(perft(self.board, self.state, self.keys, self.undo, self.zobrist, EMPTY_PSQ, buffer, depth, bulk))

    def divide(self, depth: int, bulk: bool = False) -> dict[str, int]:
        """perft split by root move: {uci: leaf count at depth - 1 below it}."""
        if depth < 1:
            raise ValueError("divide needs depth >= 1")
        counts = {}
        for move in self.encoded_moves():
            self.push_encoded(move)
            counts[move_to_uci(move)] = self.perft(depth - 1, bulk)
            self.pop()
        return counts

    def __str__(self) -> str:
        """The board as eight rows of letters (White upper case, '.' empty), rank 8 first, files underneath."""
        rows = []
        for rank in range(7, -1, -1):
            cells = [PIECE_LETTERS[int(self.board[SQ64_TO_120[rank * 8 + f]])].strip() or "." for f in range(8)]
            rows.append(f"{rank + 1} " + " ".join(cells))
        rows.append("  a b c d e f g h")
        return "\n".join(rows)

    def __repr__(self) -> str:
        """``Position('<FEN>')``."""
        return f"Position({self.fen()!r})"
