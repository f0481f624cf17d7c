"""Static evaluation: tapered PeSTO piece-square tables, kept up to date by make/unmake.

The middlegame and endgame sums and the game phase live in the state array
(``ST_MG``, ``ST_EG``, ``ST_PHASE``); make/unmake update them from the
``psq`` table built here, so evaluating a position costs a few reads (the rule
that keeps them valid is in :mod:`transpo.core.makemove`).  The
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
