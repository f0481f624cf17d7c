"""The LLVM intrinsics: popcount against Python's int.bit_count, prefetch changes nothing, as_rows is reshape."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

from transpo.engine.intrinsics import as_rows, popcount, prefetch


@njit(cache=True)
def _count(bits):
    return popcount(bits)


@njit(cache=True)
def _sum_with_prefetch(values, ahead):
    """The sum of ``values``, each element prefetched ``ahead`` places before it is read."""
    total = np.uint64(0)
    n = values.shape[0]
    for i in range(n):
        if i + ahead < n:
            prefetch(values, i + ahead)
        total += values[i]
    return total


@settings(deadline=None)  # the first example compiles
@given(st.integers(min_value=0, max_value=(1 << 64) - 1))
def test_popcount_is_bit_count(value: int) -> None:
    assert _count(np.uint64(value)) == value.bit_count()


def test_popcount_edges() -> None:
    assert _count(np.uint64(0)) == 0
    assert _count(np.uint64((1 << 64) - 1)) == 64
    assert _count(np.uint64(1 << 63)) == 1


def test_prefetch_leaves_results_and_memory_alone() -> None:
    values = np.arange(1, 10_001, dtype=np.uint64)
    before = values.copy()
    for ahead in (0, 1, 8, 64):
        assert _sum_with_prefetch(values, ahead) == values.sum()
    assert np.array_equal(values, before)


@njit(cache=True)
def _rows_then_write(vector, width, row, column, value):
    """View ``vector`` as rows of ``width``, write one element through the view, return the view."""
    matrix = as_rows(vector, width)
    matrix[row, column] = value
    return matrix


@settings(deadline=None)
@given(st.integers(1, 12), st.integers(1, 12), st.data())
def test_as_rows_is_a_reshape_that_shares_the_data(rows, width, data):
    vector = np.arange(rows * width, dtype=np.int32)
    row = data.draw(st.integers(0, rows - 1))
    column = data.draw(st.integers(0, width - 1))
    matrix = _rows_then_write(vector, width, row, column, -7)
    assert matrix.shape == (rows, width) and matrix.flags["C_CONTIGUOUS"]
    expected = np.arange(rows * width, dtype=np.int32)
    expected[row * width + column] = -7
    assert np.array_equal(matrix, expected.reshape(rows, width))
    assert vector[row * width + column] == -7  # a view, not a copy
