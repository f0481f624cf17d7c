"""Signature pinning (docs/NUMBA.md, traps 2 and 3): every hot numba entry point has exactly one
compiled signature after the whole suite ran, whatever Python values it was called with.

The file name sorts last so that this runs after the other test files.
"""

from __future__ import annotations

import numpy as np
import pytest

from transpo import Position
from transpo.core import keys, makemove, movegen, perft
from transpo.engine import evaluate, ordering, search, see, table
from transpo.engine.engine import Engine
from transpo.engine.evaluate import PSQ
from transpo.engine.scratch import CTL_NODE_LIMIT, new_scratch

ENTRY_POINTS = {
    "generate_moves": movegen.generate_moves,
    "is_attacked": movegen.is_attacked,
    "in_check": movegen.in_check,
    "make_move": makemove.make_move,
    "unmake_move": makemove.unmake_move,
    "make_null": makemove.make_null,
    "unmake_null": makemove.unmake_null,
    "is_repetition": makemove.is_repetition,
    "perft": perft.perft,
    "compute_key": keys.compute_key,
    "refresh_sums": makemove.refresh_sums,
    "evaluate": evaluate.evaluate,
    "evaluate_features": evaluate.evaluate_features,
    "evaluate_lazy": evaluate.evaluate_lazy,
    "scored_as_draw": evaluate.scored_as_draw,
    "compute_pawn_key": keys.compute_pawn_key,
    "score_moves": ordering.score_moves,
    "negamax": search.negamax,
    "probe": table.probe,
    "store": table.store,
    "hashfull": table.hashfull,
    "is_false_entry": table.is_false_entry,
    "see_ge": see.see_ge,
}


def _exercise_with_python_values() -> None:
    """Call the entry points with Python ints, bools and literals, the way careless callers do."""
    p = Position()
    buf = np.zeros(256, dtype=np.int32)
    movegen.is_attacked(p.board, 25, 1)
    movegen.is_attacked(p.board, np.int64(46), np.int32(0))
    movegen.generate_moves(p.board, p.state, buf, 0, False)
    movegen.generate_moves(p.board, p.state, buf, np.int32(0), True)
    movegen.in_check(p.board, p.state)
    move = p.encoded_moves()[0]
    makemove.make_move(p.board, p.state, p.keys, p.undo, move, p.zobrist, makemove.EMPTY_PSQ)
    makemove.unmake_move(p.board, p.state, p.undo, np.int32(move))
    makemove.make_null(p.state, p.keys, p.undo, p.zobrist)
    makemove.unmake_null(p.state, p.undo)
    makemove.is_repetition(p.state, p.keys, 2)
    keys.compute_key(p.board, p.state, p.zobrist)
    keys.compute_pawn_key(p.board, p.zobrist)
    perft.perft(p.board, p.state, p.keys, p.undo, p.zobrist, makemove.EMPTY_PSQ, np.zeros(512, np.int32), 2, 1)
    arrays = p.snapshot(PSQ)
    makemove.refresh_sums(arrays.board, arrays.state, PSQ)
    tt = Engine(hash_mb=1).table
    scratch = new_scratch()
    evaluate.evaluate(arrays.board, arrays.state, scratch, p.key)
    evaluate.evaluate_features(arrays.board, arrays.state, scratch)
    evaluate.scored_as_draw(arrays.state)
    evaluate.evaluate_lazy(arrays.board, arrays.state, scratch, np.uint64(p.key), -5, np.int32(5))
    scratch.ctl[CTL_NODE_LIMIT] = 10**6
    search.negamax(arrays, tt.arrays, scratch.arena, 2, -100, np.int32(100), 0, 1)
    ordering.score_moves(arrays.board, scratch, 0, 3, 0, np.int16(1), 0)
    table.probe(tt.arrays, p.key, 0, 1)
    table.store(tt.arrays, np.uint64(p.key), np.uint64(0), move, 5, 0, 3, table.BOUND_EXACT, np.int32(2))
    table.hashfull(tt.arrays)
    table.is_false_entry(tt.arrays, p.key, 0)
    see.see_ge(arrays.board, arrays.state, move, 0)
    see.see_ge(arrays.board, arrays.state, np.int32(move), np.int16(-50))


@pytest.mark.parametrize("name", ENTRY_POINTS)
def test_entry_point_has_exactly_one_signature(name):
    _exercise_with_python_values()
    func = ENTRY_POINTS[name]
    assert len(func.signatures) == 1, func.signatures
    assert len(func.nopython_signatures) == 1


def test_wrong_dtype_is_refused_not_compiled():
    """An int16 board or a Fortran-ordered undo stack must raise, not compile a second version."""
    p = Position()
    buf = np.zeros(256, dtype=np.int32)
    with pytest.raises(TypeError):
        movegen.generate_moves(p.board.astype(np.int16), p.state, buf, 0, False)
    with pytest.raises(TypeError):
        movegen.generate_moves(p.board, p.state.astype(np.int32), buf, 0, False)
    with pytest.raises(TypeError):
        keys.compute_key(p.board, p.state, p.zobrist.astype(np.int64))
    with pytest.raises(TypeError):
        makemove.unmake_move(p.board, p.state, np.asfortranarray(p.undo), 0)
    for func in ENTRY_POINTS.values():
        assert len(func.signatures) == 1
