"""Static evaluation: tapered PeSTO piece-square tables, kept up to date by make/unmake.

The middlegame and endgame sums and the game phase live in the state array
(``ST_MG``, ``ST_EG``, ``ST_PHASE``); make/unmake update them from the
``psq`` table built here, so evaluating a position costs a few reads.  The
score blends the two sums by phase (24 = all pieces on, 0 = bare kings and
pawns) and is returned from the side to move's point of view.
"""

from __future__ import annotations

from numba import njit

from transpo.core.board import (
    BISHOP,
    KNIGHT,
    PAWN,
    QUEEN,
    ROOK,
    ST_COUNT,
    ST_EG,
    ST_MG,
    ST_PHASE,
    ST_SIDE,
)
from transpo.engine.pesto import PHASE_MAX, psq_table

TEMPO = 10  # the side to move is a little better off than the sums say

PSQ = psq_table()


@njit(cache=True, inline="always")
def _only_minor_pieces(state, color):
    base = ST_COUNT + (color << 3)
    majors = state[base + PAWN] + state[base + ROOK] + state[base + QUEEN]
    return majors == 0 and state[base + KNIGHT] + state[base + BISHOP] <= 1


@njit("int64(int64[::1])", cache=True, nogil=True, _nrt=False)
def evaluate(state):
    """Score in centipawns for the side to move."""
    if _only_minor_pieces(state, 0) and _only_minor_pieces(state, 1):
        return 0  # no side can force mate: K, K+N, K+B against each other
    phase = min(state[ST_PHASE], PHASE_MAX)
    score = (state[ST_MG] * phase + state[ST_EG] * (PHASE_MAX - phase)) // PHASE_MAX
    return (score if state[ST_SIDE] == 0 else -score) + TEMPO


@njit("void(int8[::1], int64[::1], int32[:, :, ::1])", cache=True, nogil=True, _nrt=False)
def refresh_sums(board, state, psq):
    """Recompute the piece-square sums of the state from scratch with table ``psq``."""
    state[ST_MG] = 0
    state[ST_EG] = 0
    state[ST_PHASE] = 0
    for sq in range(21, 99):
        piece = board[sq]
        if piece > 0:
            state[ST_MG] += psq[piece, sq, 0]
            state[ST_EG] += psq[piece, sq, 1]
            state[ST_PHASE] += psq[piece, sq, 2]
