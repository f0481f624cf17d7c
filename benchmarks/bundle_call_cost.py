#!/usr/bin/env python3
"""What a recursive numba call costs by the number of arrays its bundle argument holds.

``negamax`` used to take three NamedTuple bundles of 32 arrays (position,
table, scratch; 16 since the scratch travels as its arena, transpo.engine.scratch);
numba passes every array as its struct fields (pointer, sizes, strides...), so
each recursive call copied some 250 arguments.  This script
times the same tiny recursion (a ternary tree of depth 13, two array writes a
call) once with a bundle of 32 one-dimensional arrays and once with 3, in one
run, and prints nanoseconds per call and their ratio: the price of the bundle
layout per search node, apart from any search work.

    python benchmarks/bundle_call_cost.py
"""

from __future__ import annotations

import time
from collections import namedtuple

import numpy as np
from numba import njit, typeof, types

DEPTH = 13
ROUNDS = 5


def bundle(n_arrays: int):
    """A NamedTuple of ``n_arrays`` int64 arrays, the shape of the search's bundles."""
    fields = namedtuple(f"Bundle{n_arrays}", [f"a{i}" for i in range(n_arrays)])
    return fields(*[np.zeros(DEPTH + 1, dtype=np.int64) for _ in range(n_arrays)])


def recursion(kind):
    """The recursion compiled for one bundle type: touches the first and the last array at every call."""

    @njit(types.int64(kind, types.int64), _nrt=False)
    def walk(b, depth):
        b[0][depth] += 1
        if depth == 0:
            return 1
        leaves = 0
        for _ in range(3):
            leaves += walk(b, depth - 1)
        b[len(b) - 1][depth] += leaves & 1
        return leaves

    return walk


def ns_per_call(n_arrays: int) -> float:
    """Best of ROUNDS: nanoseconds per call of the recursion over a bundle of ``n_arrays`` arrays."""
    values = bundle(n_arrays)
    walk = recursion(typeof(values))
    walk(values, 2)  # compiled above by its signature; one warm call
    calls = (3 ** (DEPTH + 1) - 1) // 2
    best = float("inf")
    for _ in range(ROUNDS):
        started = time.perf_counter()
        walk(values, DEPTH)
        best = min(best, (time.perf_counter() - started) / calls * 1e9)
    return best


def main() -> None:
    wide = ns_per_call(32)
    narrow = ns_per_call(3)
    print(f"32 arrays: {wide:6.1f} ns per call")
    print(f" 3 arrays: {narrow:6.1f} ns per call")
    print(f"ratio {wide / narrow:.2f}x; {wide - narrow:.1f} ns per call for the 29 extra arrays")


if __name__ == "__main__":
    main()
