"""The board representation: a 10x12 mailbox of integers and a small state array.

A position lives in plain numpy arrays so numba-compiled code can work on it:

``board``  int8[120]
    The 10x12 mailbox.  Square ``21 + file + 10 * rank`` (rank 0 = rank 1) holds a
    piece code; the two-square border around the 8x8 board holds ``OFF`` so a
    knight or slider stepping off the board meets a sentinel instead of an index
    check.  a1 = 21, h1 = 28, a8 = 91, h8 = 98.

``state``  int64[STATE_SIZE]
    Everything that is not a piece on a square: side to move, castling rights,
    en-passant square, clocks, king squares, the history index, the
    incrementally updated piece-square sums and piece counts (``ST_*`` below).

``keys``   uint64[MAX_HISTORY + 1]
    The Zobrist key of every position since the root of the history;
    ``keys[state[ST_PLY]]`` is the current key.  Make writes the next slot,
    unmake just steps back, so repetition detection reads this array.

``undo``   int64[MAX_HISTORY, UNDO_SIZE]
    What unmake cannot recompute: captured piece, castling rights,
    en-passant square, halfmove clock, the evaluation sums and the pawn key
    before the move.

Piece codes (int8), bit layout ``c ttt``::

    bits 0-2  piece type: 1 pawn, 2 knight, 3 bishop, 4 rook, 5 queen, 6 king
    bit  3    colour: 0 white, 1 black
    0 = empty square, -1 = off-board sentinel

Move encoding (int32), documented beside the constants in :mod:`transpo.core.moves`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

# --- piece codes -----------------------------------------------------------
EMPTY = 0
OFF = -1
PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING = 1, 2, 3, 4, 5, 6
WHITE, BLACK = 0, 1
# piece code = type | (colour << 3): see the module docstring

PIECE_LETTERS = " PNBRQK  pnbrqk"  # index = piece code; used by FEN and str()

# --- state array layout (int64[STATE_SIZE]) ----------------------------------
ST_SIDE = 0  # side to move: WHITE or BLACK
ST_CASTLE = 1  # castling rights, bits: 1 white O-O, 2 white O-O-O, 4 black O-O, 8 black O-O-O
ST_EP = 2  # en-passant target square (mailbox) or 0; set only when a pawn can take it
ST_HALFMOVE = 3  # plies since the last capture or pawn move (fifty-move rule)
ST_FULLMOVE = 4  # full-move number as in FEN
ST_KING = 5  # ST_KING + colour: king squares (two slots)
ST_PLY = 7  # index of the current position in the key history
ST_MG = 8  # middlegame piece-square sum, White's point of view
ST_EG = 9  # endgame piece-square sum, White's point of view
ST_PHASE = 10  # game phase (sum of phase increments of the pieces on the board)
ST_PAWN_KEY = 11  # Zobrist key of the pawns alone (the 64 key bits stored as int64): the pawn hash's key
ST_OCCUPIED = 12  # ST_OCCUPIED + colour: bitboard of that colour's pieces (bit 8 * rank + file, a1 = 0; as int64)
ST_PAWNS = 14  # ST_PAWNS + colour: bitboard of that colour's pawns (same layout)
ST_COUNT = 16  # ST_COUNT + piece code: number of such pieces on the board (16 slots)
STATE_SIZE = 32

# --- undo stack layout (int64[MAX_HISTORY, UNDO_SIZE]) -----------------------
UN_CAPTURED = 0
UN_CASTLE = 1
UN_EP = 2
UN_HALFMOVE = 3
UN_MG = 4
UN_EG = 5
UN_PHASE = 6
UN_PAWN_KEY = 7
UNDO_SIZE = 8

CASTLE_WK, CASTLE_WQ, CASTLE_BK, CASTLE_BQ = 1, 2, 4, 8

MAX_PLY = 128  # deepest search ply
MAX_GAME_PLIES = 2048  # most plies of history a Position keeps before it compacts (any game length is accepted)
HISTORY_KEEP = 256  # plies a compaction keeps: > 100, so repetitions within the fifty-move rule still show
MAX_HISTORY = MAX_GAME_PLIES + MAX_PLY + 8
MAX_MOVES = 256  # more than the 218 legal moves of the richest known position

# --- square tables -------------------------------------------------------------
SQ64_TO_120 = np.array([21 + (s & 7) + 10 * (s >> 3) for s in range(64)], dtype=np.int64)
SQ120_TO_64 = np.full(120, -1, dtype=np.int64)
SQ120_TO_64[SQ64_TO_120] = np.arange(64)
# SQUARE_BB[sq]: the bitboard bit of a mailbox square (int64, like the state slots it goes into), 0 off the board.
SQUARE_BB = np.zeros(120, dtype=np.int64)
SQUARE_BB[SQ64_TO_120] = (np.uint64(1) << np.arange(64, dtype=np.uint64)).view(np.int64)

A1, E1, H1, A8, E8, H8 = 21, 25, 28, 91, 95, 98

KNIGHT_STEPS = np.array([-21, -19, -12, -8, 8, 12, 19, 21], dtype=np.int64)
KING_STEPS = np.array([-11, -10, -9, -1, 1, 9, 10, 11], dtype=np.int64)
BISHOP_STEPS = np.array([-11, -9, 9, 11], dtype=np.int64)
ROOK_STEPS = np.array([-10, -1, 1, 10], dtype=np.int64)



def _reach_masks(steps: np.ndarray, slide: bool) -> np.ndarray:
    """masks[i, sq]: bitboard of the board squares reached from mailbox square sq by steps[i]
    (all the way to the edge when ``slide``, one step otherwise); 0 for off-board sq."""
    on_board = SQ120_TO_64 >= 0
    masks = np.zeros((len(steps), 120), dtype=np.int64)
    for i, step in enumerate(steps):
        for sq in SQ64_TO_120:
            t = int(sq) + int(step)
            while 0 <= t < 120 and on_board[t]:
                masks[i, sq] |= SQUARE_BB[t]
                t = t + int(step) if slide else -1
    return masks


# RAY_BB[i, sq]: the squares beyond mailbox square sq along BISHOP_STEPS[i] (i < 4) or ROOK_STEPS[i - 4];
# KNIGHT_BB[sq], KING_BB[sq]: the squares a knight or king on sq reaches.  (int64 bitboards.)
RAY_BB = np.ascontiguousarray(_reach_masks(np.concatenate((BISHOP_STEPS, ROOK_STEPS)), True))
KNIGHT_BB = np.bitwise_or.reduce(_reach_masks(KNIGHT_STEPS, False), axis=0)
KING_BB = np.bitwise_or.reduce(_reach_masks(KING_STEPS, False), axis=0)

# CASTLE_KEEP[sq]: castling rights that survive a move from or to sq.
CASTLE_KEEP = np.full(120, 15, dtype=np.int64)
CASTLE_KEEP[E1] = 15 & ~(CASTLE_WK | CASTLE_WQ)
CASTLE_KEEP[H1] = 15 & ~CASTLE_WK
CASTLE_KEEP[A1] = 15 & ~CASTLE_WQ
CASTLE_KEEP[E8] = 15 & ~(CASTLE_BK | CASTLE_BQ)
CASTLE_KEEP[H8] = 15 & ~CASTLE_BK
CASTLE_KEEP[A8] = 15 & ~CASTLE_BQ


def _ray_steps() -> np.ndarray:
    """RAY_STEP[delta + 119]: the queen step that leads from a to b = a + delta, else 0.

    Keyed by the difference alone, the table answers "could a and b share a
    line": some differences also join squares that only look aligned through
    the border (h1 and a2 differ by 3, so they get step 1).  Callers therefore
    still walk the ray, and the sentinel border stops a walk that wraps.
    """
    table = np.zeros(239, dtype=np.int64)
    for step in (-11, -10, -9, -1, 1, 9, 10, 11):
        for n in range(1, 8):
            table[step * n + 119] = step
    return table


RAY_STEP = _ray_steps()


def square_name(sq: int) -> str:
    """Algebraic name of a mailbox square, e.g. 21 -> 'a1'."""
    s = int(SQ120_TO_64[sq])
    if s < 0:
        raise ValueError(f"{sq} is not a board square")
    return "abcdefgh"[s & 7] + str((s >> 3) + 1)


def parse_square(name: str) -> int:
    """Mailbox square of an algebraic name, e.g. 'e4' -> 55; ValueError if malformed."""
    if len(name) != 2 or name[0] not in "abcdefgh" or name[1] not in "12345678":
        raise ValueError(f"bad square {name!r}")
    return 21 + "abcdefgh".index(name[0]) + 10 * (int(name[1]) - 1)


def new_arrays() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Fresh (board, state, keys, undo) arrays: an empty board with its border."""
    board = np.full(120, OFF, dtype=np.int8)
    board[SQ64_TO_120] = EMPTY
    state = np.zeros(STATE_SIZE, dtype=np.int64)
    keys = np.zeros(MAX_HISTORY + 1, dtype=np.uint64)
    undo = np.zeros((MAX_HISTORY, UNDO_SIZE), dtype=np.int64)
    return board, state, keys, undo


class PositionArrays(NamedTuple):
    """A position as compiled search code takes it: one value instead of six arguments.

    ``zobrist`` is the expanded key set the keys follow and ``psq`` the
    piece-square table the evaluation sums in ``state`` follow (see
    :mod:`transpo.core.makemove` for the rule).  Built by
    :meth:`transpo.core.position.Position.snapshot`.
    """

    board: np.ndarray  # int8[120]
    state: np.ndarray  # int64[STATE_SIZE]
    keys: np.ndarray  # uint64[MAX_HISTORY + 1]
    undo: np.ndarray  # int64[MAX_HISTORY, UNDO_SIZE]
    zobrist: np.ndarray  # uint64[ZOB_SIZE] (transpo.core.keys)
    psq: np.ndarray  # int32[16, 120, 3]
