"""One searcher's scratch: the arrays a search writes besides the position and the table.

Everything :func:`~transpo.engine.search.negamax` needs that belongs to one
searcher travels as one :class:`Scratch` value: the move lists of every ply,
their ordering scores, the quiet moves tried, the killers and history that
move ordering learns, the principal-variation triangle, the evaluation's
weights, feature counts, pawn hash table (:mod:`transpo.engine.pawns`) and
evaluation and material caches, and
the control words (``ctl``) through which the Python side limits, stops and
watches the search.
A second search thread needs exactly one more of these.

Why an arena: numba passes an array to a compiled function as seven or nine
machine words (data pointer, shape, strides and bookkeeping), and a
recursive call pushes all of them for every array it passes: with the twenty
arrays of a scratch as separate arguments, those pushes took a fifth of
negamax's own time.  So the twenty arrays are views into five arena arrays,
one per element type (:class:`ScratchArena`); the recursion passes the arena
alone and :func:`scratch_views` cuts the views out again at the top of each
call, at offsets that are compile-time constants (no memory is read for it).
The Python side holds the same views: ``sc.pv``, ``sc.ctl`` and the others
are ordinary numpy arrays sharing the arena's memory, and ``sc.arena`` is the
arena itself.

``ctl`` layout (``int64[CTL_SIZE]``)::

    CTL_STOP             set to 1 (by another thread) to stop the search
    CTL_NODE_LIMIT       stop after this many nodes
    CTL_NODES            nodes searched
    CTL_SELDEPTH         deepest ply reached
    CTL_ABORTED          1 once the search has stopped; the iteration's results are then partial
    CTL_EXCLUDED_COUNT   number of root moves excluded (MultiPV)
    CTL_WHITE_DRAW       a draw's score for White, in centipawns: minus the contempt when the
                         root side is White, plus it when Black (0: a draw is worth 0 to both)
    CTL_EXCLUDED + i     the excluded root moves
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, typeof

from transpo.core.board import MAX_MOVES, MAX_PLY
from transpo.engine.intrinsics import as_rows
from transpo.engine.memory import large_zeros
from transpo.engine.pawns import PAWN_ENTRIES
from transpo.engine.terms import DEFAULT_WEIGHTS, N_TERMS

CTL_STOP = 0
CTL_NODE_LIMIT = 1
CTL_NODES = 2
CTL_SELDEPTH = 3
CTL_ABORTED = 4
CTL_EXCLUDED_COUNT = 5
CTL_WHITE_DRAW = 6  # slot 7 is free
CTL_EXCLUDED = 8
CTL_SIZE = CTL_EXCLUDED + MAX_MOVES

PLIES = MAX_PLY + 2  # rows of the per-ply arrays: the deepest ply and one beyond it
HISTORY_SIZE = 16 * 64  # piece code x to-square (0..63): 2 MB of continuation history, one huge page
EVAL_ENTRIES = 1 << 16  # slots of the evaluation cache (a power of two)
MATERIAL_ENTRIES = 1 << 10  # slots of the material cache (a power of two): a search meets a few hundred piece counts


class ScratchArena(NamedTuple):
    """The memory of one scratch, one array per element type (the views' offsets are below)."""

    i8: np.ndarray
    i16: np.ndarray
    i32: np.ndarray
    i64: np.ndarray
    u64: np.ndarray


ARENA_TYPES = {"i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64, "u64": np.uint64}


class _Layout:
    """Hands out consecutive, cache-line aligned (start, end) element ranges of the five arenas."""

    def __init__(self) -> None:
        self.used = dict.fromkeys(ARENA_TYPES, 0)

    def take(self, arena: str, count: int) -> tuple[int, int]:
        per_line = 64 // np.dtype(ARENA_TYPES[arena]).itemsize
        start = -(-self.used[arena] // per_line) * per_line
        self.used[arena] = start + count
        return start, start + count


_layout = _Layout()
MOVE_LIST = PLIES * MAX_MOVES
# (start, end) of each view in its arena; a 2-D view is its range seen as rows (as_rows).
MOVES = _layout.take("i32", MOVE_LIST)
SCORES = _layout.take("i32", MOVE_LIST)
QUIETS = _layout.take("i32", MOVE_LIST)
KILLERS = _layout.take("i32", PLIES * 2)
HISTORY = _layout.take("i32", HISTORY_SIZE)
COUNTER = _layout.take("i32", HISTORY_SIZE)
CONTINUATION = _layout.take("i16", HISTORY_SIZE * HISTORY_SIZE)
PLAYED = _layout.take("i32", PLIES)
EVALS = _layout.take("i32", PLIES)
EXCLUDED = _layout.take("i32", PLIES)
GAVE_CHECK = _layout.take("i8", PLIES)
PV = _layout.take("i32", PLIES * PLIES)
PV_LEN = _layout.take("i32", PLIES)
CTL = _layout.take("i64", CTL_SIZE)
WEIGHTS = _layout.take("i32", N_TERMS * 2)
FEATURES = _layout.take("i32", N_TERMS)
PAWN_KEYS = _layout.take("u64", PAWN_ENTRIES)
PAWN_BITS = _layout.take("u64", PAWN_ENTRIES * 3)
PAWN_SCORES = _layout.take("i32", PAWN_ENTRIES * 2)
EVAL_CACHE = _layout.take("u64", EVAL_ENTRIES)
MATERIAL_KEYS = _layout.take("u64", MATERIAL_ENTRIES)
MATERIAL_SCORES = _layout.take("i32", MATERIAL_ENTRIES * 2)
ARENA_SIZES = dict(_layout.used)


class Scratch(NamedTuple):
    """One searcher's working arrays (see the module docstring): views into ``arena``."""

    arena: ScratchArena  # the memory of every view below (what the recursion passes)
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
    features: np.ndarray  # int32[N_TERMS]: the feature counts of the last evaluation made without the caches
    pawn_keys: np.ndarray  # uint64[PAWN_ENTRIES]: pawn hash table (layout in transpo.engine.pawns)
    pawn_bits: np.ndarray  # uint64[PAWN_ENTRIES, 3]
    pawn_scores: np.ndarray  # int32[PAWN_ENTRIES, 2]
    eval_cache: np.ndarray  # uint64[EVAL_ENTRIES]: evaluation cache (layout in transpo.engine.evaluate)
    material_keys: np.ndarray  # uint64[MATERIAL_ENTRIES]: material cache (layout in transpo.engine.evaluate)
    material_scores: np.ndarray  # int32[MATERIAL_ENTRIES, 2]


@njit(cache=True, inline="always")
def scratch_views(arena: ScratchArena) -> Scratch:
    """The scratch whose arrays are views into ``arena`` (compiled: the search calls it at every node)."""
    i32 = arena.i32
    u64 = arena.u64
    return Scratch(
        arena,
        i32[MOVES[0] : MOVES[1]],
        i32[SCORES[0] : SCORES[1]],
        i32[QUIETS[0] : QUIETS[1]],
        as_rows(i32[KILLERS[0] : KILLERS[1]], 2),
        i32[HISTORY[0] : HISTORY[1]],
        i32[COUNTER[0] : COUNTER[1]],
        as_rows(arena.i16[CONTINUATION[0] : CONTINUATION[1]], HISTORY_SIZE),
        i32[PLAYED[0] : PLAYED[1]],
        i32[EVALS[0] : EVALS[1]],
        i32[EXCLUDED[0] : EXCLUDED[1]],
        arena.i8[GAVE_CHECK[0] : GAVE_CHECK[1]],
        as_rows(i32[PV[0] : PV[1]], PLIES),
        i32[PV_LEN[0] : PV_LEN[1]],
        arena.i64[CTL[0] : CTL[1]],
        as_rows(i32[WEIGHTS[0] : WEIGHTS[1]], 2),
        i32[FEATURES[0] : FEATURES[1]],
        u64[PAWN_KEYS[0] : PAWN_KEYS[1]],
        as_rows(u64[PAWN_BITS[0] : PAWN_BITS[1]], 3),
        as_rows(i32[PAWN_SCORES[0] : PAWN_SCORES[1]], 2),
        u64[EVAL_CACHE[0] : EVAL_CACHE[1]],
        u64[MATERIAL_KEYS[0] : MATERIAL_KEYS[1]],
        as_rows(i32[MATERIAL_SCORES[0] : MATERIAL_SCORES[1]], 2),
    )


def new_scratch(weights: np.ndarray = DEFAULT_WEIGHTS) -> Scratch:
    """Zeroed scratch for one searcher that evaluates with ``weights`` (default: the shipped ones)."""
    arena = ScratchArena(*(large_zeros(ARENA_SIZES[name], ARENA_TYPES[name]) for name in ScratchArena._fields))
    sc = scratch_views(arena)
    sc.gave_check[:] = -1
    sc.weights[:] = weights
    return sc


_EXAMPLE = new_scratch()
SCRATCH_TYPE = typeof(_EXAMPLE)
ARENA_TYPE = typeof(_EXAMPLE.arena)
del _EXAMPLE
