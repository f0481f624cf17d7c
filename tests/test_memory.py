"""Huge-page allocation: the arrays behave exactly like np.zeros, and the big ones start on a 2 MiB boundary."""

from __future__ import annotations

import mmap

import numpy as np
import pytest

from transpo.engine.memory import HUGE_PAGE, SMALL_ARRAY, large_zeros
from transpo.engine.scratch import SCRATCH_TYPE, new_scratch
from transpo.engine.table import TranspositionTable


@pytest.mark.parametrize(
    ("shape", "dtype"),
    [(HUGE_PAGE, np.uint64), ((1024, 1024), np.int16), ((3 * HUGE_PAGE // 24, 3), np.uint64), (10, np.int32)],
)
def test_large_zeros_is_a_zeroed_contiguous_writable_array(shape, dtype):
    array = large_zeros(shape, dtype)
    assert array.shape == (shape if isinstance(shape, tuple) else (shape,))
    assert array.dtype == np.dtype(dtype)
    assert array.flags["C_CONTIGUOUS"] and array.flags["WRITEABLE"]
    assert not array.any()
    array[...] = 7
    assert (array == 7).all()


@pytest.mark.skipif(not hasattr(mmap, "MADV_HUGEPAGE"), reason="no transparent huge pages on this platform")
def test_a_big_array_starts_on_a_huge_page_and_a_small_one_is_plain():
    big = large_zeros(SMALL_ARRAY // 8, np.uint64)
    assert big.ctypes.data % HUGE_PAGE == 0
    small = large_zeros(SMALL_ARRAY // 8 - 1, np.uint64)
    assert small.base is None  # np.zeros owns its memory; a mapped array is a view of its region


def test_a_region_outlives_every_reference_but_the_array():
    array = large_zeros((HUGE_PAGE // 2, 2), np.int16)
    view = array[5]
    del array
    view[:] = 3  # the region is still mapped: the view keeps it alive
    assert view.sum() == 6


def test_tables_and_scratch_keep_their_compiled_types():
    from numba import typeof

    assert typeof(new_scratch()) == SCRATCH_TYPE
    table = TranspositionTable(4)
    assert table.words.dtype == np.uint64 and table.words.flags["C_CONTIGUOUS"]
    assert not table.words.any()
