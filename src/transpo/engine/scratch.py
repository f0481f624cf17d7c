"""One searcher's scratch: the arrays a search writes besides the position and the table.

Everything :func:`~transpo.engine.search.negamax` needs that belongs to one
searcher travels as one :class:`Scratch` value: the move lists of every ply,
their ordering scores, the quiet moves tried, the killers and history that
move ordering learns, the principal-variation triangle, the evaluation's
weights, feature counts and pawn hash table (:mod:`transpo.engine.pawns`), and
the control words (``ctl``) through which the Python side limits, stops and
watches the search.
A second search thread needs exactly one more of these.

``ctl`` layout (``int64[CTL_SIZE]``)::

    CTL_STOP             set to 1 (by another thread) to stop the search
    CTL_NODE_LIMIT       stop after this many nodes
    CTL_NODES            nodes searched
    CTL_SELDEPTH         deepest ply reached
    CTL_ABORTED          1 once the search has stopped; the iteration's results are then partial
    CTL_EXCLUDED_COUNT   number of root moves excluded (MultiPV)
    CTL_EXCLUDED + i     the excluded root moves
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import typeof

from transpo.core.board import MAX_MOVES, MAX_PLY
from transpo.engine.memory import large_zeros
from transpo.engine.pawns import PAWN_ENTRIES
from transpo.engine.terms import DEFAULT_WEIGHTS, N_TERMS

CTL_STOP = 0
CTL_NODE_LIMIT = 1
CTL_NODES = 2
CTL_SELDEPTH = 3
CTL_ABORTED = 4
CTL_EXCLUDED_COUNT = 5
CTL_EXCLUDED = 8
CTL_SIZE = CTL_EXCLUDED + MAX_MOVES

PLIES = MAX_PLY + 2  # rows of the per-ply arrays: the deepest ply and one beyond it
HISTORY_SIZE = 16 * 64  # piece code x to-square (0..63): 2 MB of continuation history, one huge page
EVAL_ENTRIES = 1 << 16  # slots of the evaluation cache (a power of two)


class Scratch(NamedTuple):
    """One searcher's working arrays (see the module docstring)."""

    moves: np.ndarray  # int32[PLIES * MAX_MOVES]: ply p's moves start at p * MAX_MOVES
    scores: np.ndarray  # int32[PLIES * MAX_MOVES]: ordering score of each move
    quiets: np.ndarray  # int32[PLIES * MAX_MOVES]: quiet moves tried at each ply (history malus)
    killers: np.ndarray  # int32[PLIES, 2]: two quiet moves that cut off at each ply
    history: np.ndarray  # int32[HISTORY_SIZE]: quiet-move success by piece and to-square
    counter: np.ndarray  # int32[HISTORY_SIZE]: the quiet move that last refuted a move, by its piece and to-square
    continuation: np.ndarray  # int16[HISTORY_SIZE, HISTORY_SIZE]: quiet-move success after a move (row: that move)
    played: np.ndarray  # int32[PLIES]: piece x to-square of the move made at each ply (0: a null move)
    evals: np.ndarray  # int32[PLIES]: static evaluation at each ply (-INF when in check), for "improving"
    excluded: np.ndarray  # int32[PLIES]: the move a singular-extension search leaves out at each ply (0: none)
    gave_check: np.ndarray  # int8[PLIES]: does the side to move at ply p stand in check (1, 0), told by the parent
    #                         that already tested it; -1: not told (the node tests it), and what a node leaves there
    pv: np.ndarray  # int32[PLIES, PLIES]: the triangle; row p is the PV from ply p
    pv_len: np.ndarray  # int32[PLIES]: length of each row of pv
    ctl: np.ndarray  # int64[CTL_SIZE]: control words (module docstring)
    weights: np.ndarray  # int32[N_TERMS, 2]: the evaluation's weights, mg and eg (transpo.engine.terms)
    features: np.ndarray  # int32[N_TERMS]: the feature counts of the last evaluation
    pawn_keys: np.ndarray  # uint64[PAWN_ENTRIES]: pawn hash table (layout in transpo.engine.pawns)
    pawn_bits: np.ndarray  # uint64[PAWN_ENTRIES, 3]
    pawn_scores: np.ndarray  # int32[PAWN_ENTRIES, 2]
    eval_cache: np.ndarray  # uint64[EVAL_ENTRIES]: evaluation cache (layout in transpo.engine.evaluate)


def new_scratch(weights: np.ndarray = DEFAULT_WEIGHTS) -> Scratch:
    """Zeroed scratch for one searcher that evaluates with ``weights`` (default: the shipped ones)."""
    move_list = PLIES * MAX_MOVES
    return Scratch(
        moves=np.zeros(move_list, dtype=np.int32),
        scores=np.zeros(move_list, dtype=np.int32),
        quiets=np.zeros(move_list, dtype=np.int32),
        killers=np.zeros((PLIES, 2), dtype=np.int32),
        history=np.zeros(HISTORY_SIZE, dtype=np.int32),
        counter=np.zeros(HISTORY_SIZE, dtype=np.int32),
        continuation=large_zeros((HISTORY_SIZE, HISTORY_SIZE), np.int16),
        played=np.zeros(PLIES, dtype=np.int32),
        evals=np.zeros(PLIES, dtype=np.int32),
        excluded=np.zeros(PLIES, dtype=np.int32),
        gave_check=np.full(PLIES, -1, dtype=np.int8),
        pv=np.zeros((PLIES, PLIES), dtype=np.int32),
        pv_len=np.zeros(PLIES, dtype=np.int32),
        ctl=np.zeros(CTL_SIZE, dtype=np.int64),
        weights=np.ascontiguousarray(weights, dtype=np.int32),
        features=np.zeros(N_TERMS, dtype=np.int32),
        pawn_keys=np.zeros(PAWN_ENTRIES, dtype=np.uint64),
        pawn_bits=large_zeros((PAWN_ENTRIES, 3), np.uint64),
        pawn_scores=np.zeros((PAWN_ENTRIES, 2), dtype=np.int32),
        eval_cache=large_zeros(EVAL_ENTRIES, np.uint64),
    )


SCRATCH_TYPE = typeof(new_scratch())
