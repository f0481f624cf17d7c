"""Small sets of keys with a signed sum of zero: the additive analogue of XOR-dependent subsets.

When a position's key is the sum of its feature keys modulo 2^64 (``combine="add"``), a move adds
the keys of what appears and subtracts the keys of what goes.  Two positions therefore get the
same key by construction when the keys they differ in, each added or subtracted, sum to zero:
``a + b - c - d = 0`` makes adding ``a`` and ``b`` while removing ``c`` and ``d`` invisible.  Each
feature key occurs at most once in a position (a square holds one piece, each castling right and
the side to move are there or not), so every sign is +1 or -1; a set of ``k`` keys has
``2^(k-1)`` sign patterns up to the overall sign, against XOR's one, so uniform keys give about
``2^(k-1)`` times as many zero-sum sets as XOR-dependent ones.

What "zero" means depends on which ``b`` bits of the key are used, and here addition and XOR
differ.  Carries only go up:

* ``low`` (``key mod 2^b``, the table's index): the low bits of a sum are the sum of the low bits
  modulo 2^b, so a set whose signed sum is 0 mod 2^b makes the low ``b`` bits collide in *every*
  position, exactly as an XOR-dependent set does.  The search is exact: signed sum ≡ 0 mod 2^b.
* ``high`` (``key >> (64 - b)``, the signature): the top bits of a sum also depend on the carry
  out of the bits below, so no set forces a collision there.  The top ``b`` bits of ``K`` and
  ``K + D`` can agree only if the 64-bit signed sum ``D`` lies strictly between ``-2^(64-b)`` and
  ``2^(64-b)``, and then they agree in a fraction ``1 - |D| / 2^(64-b)`` of positions (of keys
  ``K``).  The search counts those sets: they are the only ones that can make signatures collide.
* ``full`` (64 bits): the signed sum is 0 mod 2^64.

The search meets in the middle like the XOR one: every pair ``a < b`` gives ``a + b`` and ``a - b``
(the sign of the smallest index is fixed to +), every pair ``c < d`` gives its four signed sums,
and a 4-set ``a < b < c < d`` with a zero signed sum is a pair value of ``(a, b)`` within the
window of one of ``(c, d)``; sorting the second list and searching it finds each such relation once.
"""

from __future__ import annotations

import math

import numpy as np

MAX_SIZE = 4
MAX_MATCHES = 40_000_000  # candidate matches a search may expand; 16-bit signatures need about 23 million
CHUNK_QUERIES = 20_000  # query values searched at once (bounds the memory of one step)

U64 = np.uint64


def zero_sum_window(bits: int, end: str) -> tuple[int, int]:
    """(mask, w) of a truncation: values are taken ``& mask`` and a signed sum ``s`` counts if ``-w <= s <= w``.

    ``low`` and ``full`` are exact (``w = 0``, modulo 2^bits); ``high`` works on the whole 64-bit
    keys with ``w = 2^(64 - bits) - 1`` (see the module docstring).
    """
    if end == "high" and bits < 64:
        return (1 << 64) - 1, (1 << (64 - bits)) - 1
    if end in ("low", "full", "high"):
        return (1 << bits) - 1, 0
    raise ValueError(f"truncation end must be 'high', 'low' or 'full', not {end!r}")


def expected_zero_sums(count: int, size: int, bits: int, end: str) -> float:
    """Zero-sum sets of ``size`` among ``count`` uniform keys: C(count, size) * 2^(size-1) * (2w + 1) / 2^modulus."""
    mask, w = zero_sum_window(bits, end)
    return math.comb(count, size) * 2.0 ** (size - 1) * (2.0 * w + 1) / (mask + 1.0)


def zero_sum_subsets(
    keys: np.ndarray, bits: int, end: str, max_size: int = MAX_SIZE, max_matches: int = MAX_MATCHES
) -> dict[int, np.ndarray | None]:
    """Every set of at most ``max_size`` (<= 4) key indices with a signed sum of zero at the truncation.

    ``keys`` are the full 64-bit keys; ``bits`` and ``end`` (``high``, ``low``, ``full``) choose the
    truncation and with it what zero means (module docstring).  Returns {size: int64 array of sorted
    index tuples, shape (count, size)}; a size whose search would expand more than ``max_matches``
    candidates (about that many sets, far more than any width the lab reports is made for) is
    ``None`` instead of exhausting memory.
    """
    if not 1 <= max_size <= MAX_SIZE:
        raise ValueError(f"zero-sum sets are searched up to size {MAX_SIZE}")
    mask, w = zero_sum_window(bits, end)
    k = np.asarray(keys, dtype=U64) & U64(mask)
    n = len(k)
    index = np.arange(n, dtype=np.int64)
    found: dict[int, np.ndarray | None] = {1: index[_within(k, mask, w)].reshape(-1, 1)}
    if max_size == 1:
        return found
    # pairs: a - b or a + b within the window, a < b
    signed_k, signed_i = np.concatenate([k, _neg(k, mask)]), np.concatenate([index, index])
    found[2] = _relations(k, (index,), signed_k, (signed_i,), mask, w, max_matches, _distinct_pairs, 2, n)
    if max_size == 2:
        return found
    first, second = np.triu_indices(n, 1)
    pair_values = np.concatenate([(k[first] + k[second]) & U64(mask), (k[first] - k[second]) & U64(mask)])
    pair_index = (np.concatenate([first, first]), np.concatenate([second, second]))
    found[3] = _relations(pair_values, pair_index, signed_k, (signed_i,), mask, w, max_matches, _distinct_triples, 3, n)
    if max_size == 3:
        return found
    all_signs = np.concatenate([pair_values, _neg(pair_values, mask)])
    all_index = (np.concatenate([pair_index[0]] * 2), np.concatenate([pair_index[1]] * 2))
    found[4] = _relations(pair_values, pair_index, all_signs, all_index, mask, w, max_matches, _ordered_quads, 4, n)
    return found


def _neg(values: np.ndarray, mask: int) -> np.ndarray:
    """``-values`` modulo ``mask + 1`` (numpy's uint64 arithmetic wraps modulo 2^64)."""
    return (U64(0) - values) & U64(mask)


def _within(values: np.ndarray, mask: int, w: int) -> np.ndarray:
    """Which values, read as signed numbers modulo ``mask + 1``, lie in ``[-w, w]``."""
    return ((values + U64(w)) & U64(mask)) <= U64(2 * w)


def _relations(queries, query_index, table, table_index, mask, w, max_matches, keep, size, n):
    """Index sets of every (query, table entry) pair whose difference lies in ``[-w, w]`` modulo ``mask + 1``.

    ``keep(query_index_columns, table_index_columns)`` turns the matched index columns into sorted
    sets of ``size`` indices below ``n`` (rows of an int64 array); the result holds each set once.
    ``None`` if the expected number of matches exceeds ``max_matches``.
    """
    expected = len(queries) * len(table) * (2.0 * w + 1) / (mask + 1.0)
    if expected > max_matches:
        return None
    order = np.argsort(table, kind="stable")
    table = table[order]
    table_index = tuple(column[order] for column in table_index)
    place = n ** np.arange(size - 1, -1, -1, dtype=np.int64)  # a set as one number, to drop repeats fast
    codes = [np.empty(0, dtype=np.int64)]
    for start in range(0, len(queries), CHUNK_QUERIES):
        q = queries[start : start + CHUNK_QUERIES]
        owner = np.arange(start, start + len(q))
        low = (q - U64(w)) & U64(mask)
        high = (q + U64(w)) & U64(mask)
        wraps = low > high  # the window runs over the top of the modulus: search [low, mask] and [0, high]
        lows = np.concatenate([low, np.zeros(int(wraps.sum()), dtype=U64)])
        highs = np.concatenate([np.where(wraps, U64(mask), high), high[wraps]])
        owners = np.concatenate([owner, owner[wraps]])
        first = np.searchsorted(table, lows, "left")
        counts = np.searchsorted(table, highs, "right") - first
        total = int(counts.sum())
        who = np.repeat(owners, counts)
        at = np.repeat(first - np.cumsum(counts) + counts, counts) + np.arange(total)  # first + rank within its range
        sets = keep(tuple(column[who] for column in query_index), tuple(column[at] for column in table_index))
        codes.append(sets @ place)
    code = np.unique(np.concatenate(codes))
    return (code[:, None] // place % n).astype(np.int64)


def _distinct_pairs(query, table) -> np.ndarray:
    """Pairs (a, b) with a < b: a key matched with another key (either sign)."""
    a, b = query[0], table[0]
    keep = a < b
    return np.stack([a[keep], b[keep]], axis=1)


def _distinct_triples(query, table) -> np.ndarray:
    """Sorted triples: a pair matched with a third key (either sign) not in the pair."""
    a, b, c = query[0], query[1], table[0]
    keep = (c != a) & (c != b)
    triple = np.stack([a[keep], b[keep], c[keep]], axis=1)
    triple.sort(axis=1)
    return triple


def _ordered_quads(query, table) -> np.ndarray:
    """4-sets a < b < c < d: the pair (a, b) matched with the pair (c, d); other splits are found through this one."""
    a, b, c, d = query[0], query[1], table[0], table[1]
    keep = b < c
    return np.stack([a[keep], b[keep], c[keep], d[keep]], axis=1)
