"""The scratch's arrays are disjoint views of its arena, with the shapes and types the search compiles for."""

from __future__ import annotations

from itertools import pairwise

import numpy as np
from numba import typeof

from transpo.engine.scratch import ARENA_TYPE, SCRATCH_TYPE, ScratchArena, new_scratch
from transpo.engine.terms import DEFAULT_WEIGHTS


def test_a_new_scratch_is_zeroed_but_for_the_check_flags_and_weights():
    sc = new_scratch()
    assert (sc.gave_check == -1).all()
    assert np.array_equal(sc.weights, DEFAULT_WEIGHTS)
    for name in ("moves", "killers", "history", "continuation", "pv", "ctl", "pawn_keys", "eval_cache"):
        assert not getattr(sc, name).any(), name


def test_every_view_lies_in_its_arena_and_no_two_overlap():
    sc = new_scratch()
    spans: dict[int, list[tuple[int, int, str]]] = {}
    for name in sc._fields[1:]:
        view = getattr(sc, name)
        owner = next(a for a in sc.arena if np.shares_memory(a, view))
        start = view.ctypes.data - owner.ctypes.data
        assert 0 <= start and start + view.nbytes <= owner.nbytes, name
        assert start % 64 == 0, f"{name} does not start on a cache line"
        spans.setdefault(id(owner), []).append((start, start + view.nbytes, name))
    for ranges in spans.values():
        ranges.sort()
        for (_, end, first), (start, _, second) in pairwise(ranges):
            assert end <= start, f"{first} overlaps {second}"


def test_writes_through_a_view_reach_only_its_own_range():
    sc = new_scratch()
    sc.pv[3, 4] = 11
    sc.killers[5, 1] = 12
    assert sc.pv.sum() == 11 and sc.killers.sum() == 12
    assert sc.moves.sum() == 0 and sc.pv_len.sum() == 0


def test_types_match_what_the_search_was_compiled_for():
    sc = new_scratch()
    assert typeof(sc) == SCRATCH_TYPE
    assert typeof(sc.arena) == ARENA_TYPE
    assert isinstance(sc.arena, ScratchArena)
