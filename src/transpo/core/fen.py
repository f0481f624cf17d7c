"""Reading and writing FEN, with validation that names what is wrong.

``parse_fen`` accepts the six FEN fields, or the first four (EPD style, the
clocks then default to 0 and 1; a fullmove number of 0 is read as 1, as
python-chess does).  It refuses anything a legal game cannot
reach in the ways a user is likely to mistype: the wrong number of fields or
ranks, unknown piece letters, a rank that is not eight squares (or has two
digits in a row, which python-chess refuses too), a missing or
extra king, pawns on the first or last rank, castling rights without the
king and rook at home (unless the caller asks for them to be dropped, as the
UCI front end does), an en-passant square that no double step could have
produced.  One more rule needs the compiled attack test, so this module
(plain Python over numpy, no numba) leaves it to
:class:`~transpo.core.position.Position`: the side that is not to move must
not stand in check.

An en-passant square is kept only when a pawn of the side to move stands beside
the double-stepped pawn (PolyGlot's rule, python-chess's ``en_passant="xfen"``),
so ``fen()`` may drop a square that no pawn could take.
"""

from __future__ import annotations

from itertools import pairwise

import numpy as np

from transpo.core.board import (
    BLACK,
    CASTLE_BK,
    CASTLE_BQ,
    CASTLE_WK,
    CASTLE_WQ,
    EMPTY,
    KING,
    PAWN,
    PIECE_LETTERS,
    ROOK,
    SQ64_TO_120,
    SQUARE_BB,
    ST_CASTLE,
    ST_COUNT,
    ST_EP,
    ST_FULLMOVE,
    ST_HALFMOVE,
    ST_KING,
    ST_OCCUPIED,
    ST_PAWNS,
    ST_SIDE,
    WHITE,
    new_arrays,
    parse_square,
    square_name,
)

_CASTLE_LETTERS = (("K", CASTLE_WK), ("Q", CASTLE_WQ), ("k", CASTLE_BK), ("q", CASTLE_BQ))
# For each right: the king square, the rook square and the colour it belongs to.
_CASTLE_HOMES = {CASTLE_WK: (25, 28, WHITE), CASTLE_WQ: (25, 21, WHITE), CASTLE_BK: (95, 98, BLACK), CASTLE_BQ: (95, 91, BLACK)}


class InvalidFEN(ValueError):
    """A FEN string that does not describe a legal position; the message says why."""


def parse_fen(fen: str, dropped: list[str] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Board and state arrays of a FEN string; raises :class:`InvalidFEN`.

    Everything in the module docstring is checked except the king of the side
    not to move standing in check (:class:`~transpo.core.position.Position` does that).
    With a ``dropped`` list, a castling right whose king or rook is not at home is
    not an error: it is left out (as python-chess's ``Board(fen)`` does) and its
    letter appended to ``dropped``.
    """
    if not isinstance(fen, str):
        raise InvalidFEN(f"a FEN must be a string, not {type(fen).__name__}")
    fields = fen.split()
    if len(fields) not in (4, 6):
        raise InvalidFEN(f"expected 6 fields (or 4), got {len(fields)} in {fen!r}")
    board, state, _, _ = new_arrays()
    _place_pieces(board, state, fields[0])
    if fields[1] not in ("w", "b"):
        raise InvalidFEN(f"side to move must be 'w' or 'b', not {fields[1]!r}")
    state[ST_SIDE] = WHITE if fields[1] == "w" else BLACK
    state[ST_CASTLE] = _castling_rights(board, fields[2], dropped)
    state[ST_EP] = _en_passant(board, int(state[ST_SIDE]), fields[3])
    if len(fields) == 6:
        state[ST_HALFMOVE] = _counter(fields[4], "halfmove clock", 0)
        # 0 is accepted (python-chess does) and stored, like python-chess, as 1.
        state[ST_FULLMOVE] = max(1, _counter(fields[5], "fullmove number", 0))
    else:
        state[ST_FULLMOVE] = 1
    return board, state


def _place_pieces(board: np.ndarray, state: np.ndarray, placement: str) -> None:
    """Put the pieces of the placement field on ``board`` and count them (and the kings) in ``state``."""
    ranks = placement.split("/")
    if len(ranks) != 8:
        raise InvalidFEN(f"piece placement needs 8 ranks, got {len(ranks)}")
    for row, text in enumerate(ranks):
        rank = 7 - row
        file = 0
        for ch in text:
            if ch in "12345678":
                file += int(ch)
            elif ch in "PNBRQKpnbrqk":
                if file > 7:
                    raise InvalidFEN(f"rank {rank + 1} ({text!r}) covers more than 8 squares")
                code = PIECE_LETTERS.index(ch)
                if code & 7 == PAWN and rank in (0, 7):
                    raise InvalidFEN(f"pawn on rank {rank + 1} ({'abcdefgh'[file]}{rank + 1})")
                sq = int(SQ64_TO_120[rank * 8 + file])
                board[sq] = code
                state[ST_COUNT + code] += 1
                state[ST_OCCUPIED + (code >> 3)] |= SQUARE_BB[sq]
                if code & 7 == PAWN:
                    state[ST_PAWNS + (code >> 3)] |= SQUARE_BB[sq]
                if code & 7 == KING:
                    state[ST_KING + (code >> 3)] = sq
                file += 1
            else:
                raise InvalidFEN(f"unknown piece letter or digit {ch!r} in rank {rank + 1}")
        if file != 8:
            raise InvalidFEN(f"rank {rank + 1} ({text!r}) covers {file} squares, not 8")
        if any(a in "12345678" and b in "12345678" for a, b in pairwise(text)):  # python-chess refuses "44"
            raise InvalidFEN(f"rank {rank + 1} ({text!r}) has two digits in a row")
    for color, name in ((WHITE, "white"), (BLACK, "black")):
        kings = state[ST_COUNT + (KING | color << 3)]
        if kings != 1:
            raise InvalidFEN(f"{name} has {'no' if kings == 0 else kings} king{'s' if kings != 1 else ''}")


def _castling_rights(board: np.ndarray, text: str, dropped: list[str] | None = None) -> int:
    """The rights bit mask of the castling field; each right needs its king and rook at home.

    A right without them raises :class:`InvalidFEN`, or with a ``dropped`` list is
    left out and its letter appended there.
    """
    if text == "-":
        return 0
    seen = rights = 0
    for ch in text:
        bit = dict(_CASTLE_LETTERS).get(ch)
        if bit is None or seen & bit:
            raise InvalidFEN(f"bad castling field {text!r}")
        seen |= bit
        king_sq, rook_sq, color = _CASTLE_HOMES[bit]
        if board[king_sq] != (KING | color << 3) or board[rook_sq] != (ROOK | color << 3):
            if dropped is None:
                raise InvalidFEN(
                    f"castling right {ch!r} needs the king on {square_name(king_sq)} "
                    f"and a rook on {square_name(rook_sq)}"
                )
            dropped.append(ch)
            continue
        rights |= bit
    return rights


def _en_passant(board: np.ndarray, side: int, text: str) -> int:
    """The en-passant square to store (0 if none or if no pawn can take)."""
    if text == "-":
        return 0
    try:
        ep = parse_square(text)
    except ValueError:
        raise InvalidFEN(f"bad en-passant field {text!r}") from None
    # White to move: black just played a pawn two squares, so the square is on rank 6.
    forward = -10 if side == WHITE else 10  # from the ep square towards the moved pawn
    needed_rank = "6" if side == WHITE else "3"
    moved_pawn = PAWN | ((1 - side) << 3)
    if text[1] != needed_rank or board[ep + forward] != moved_pawn or board[ep] != EMPTY or board[ep - forward] != EMPTY:
        raise InvalidFEN(f"impossible en-passant square {text!r}: no pawn can just have passed it")
    own_pawn = PAWN | (side << 3)
    pawn_sq = ep + forward
    return ep if board[pawn_sq - 1] == own_pawn or board[pawn_sq + 1] == own_pawn else 0


MAX_COUNTER = 1_000_000  # far beyond any game, far below int64 overflow


def _counter(text: str, name: str, minimum: int) -> int:
    """A clock field as an int in ``minimum..MAX_COUNTER`` (ASCII digits only)."""
    if not (text.isascii() and text.isdigit()) or not minimum <= int(text) <= MAX_COUNTER:
        raise InvalidFEN(f"{name} must be an integer from {minimum} to {MAX_COUNTER}, not {text!r}")
    return int(text)


def format_fen(board: np.ndarray, state: np.ndarray) -> str:
    """FEN text of a position."""
    rows = []
    for rank in range(7, -1, -1):
        row, gap = "", 0
        for file in range(8):
            piece = int(board[SQ64_TO_120[rank * 8 + file]])
            if piece == EMPTY:
                gap += 1
                continue
            if gap:
                row, gap = row + str(gap), 0
            row += PIECE_LETTERS[piece]
        rows.append(row + (str(gap) if gap else ""))
    castle = "".join(ch for ch, bit in _CASTLE_LETTERS if state[ST_CASTLE] & bit) or "-"
    ep = square_name(int(state[ST_EP])) if state[ST_EP] else "-"
    side = "wb"[int(state[ST_SIDE])]
    return f"{'/'.join(rows)} {side} {castle} {ep} {int(state[ST_HALFMOVE])} {int(state[ST_FULLMOVE])}"
