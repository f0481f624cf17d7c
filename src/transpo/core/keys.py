"""Zobrist keys: the key sets, their expansion for the mailbox, and from-scratch hashing.

A *key set* is 781 unsigned 64-bit numbers in PolyGlot's order::

    0..767    piece on square: 64 * kind + 8 * rank + file, where
              kind = 2 * (type - 1) + (1 if white else 0)  (black pawn 0, white pawn 1, ...)
    768..771  castling rights: white O-O, white O-O-O, black O-O, black O-O-O
    772..779  en-passant file a..h (only when a pawn of the side to move can capture)
    780       white to move

With the ``polyglot`` set every key equals the PolyGlot opening-book key.  The
lab compares it with two other sets: ``prng`` (splitmix64, seedable) and
``knuth`` (Knuth's lagged-Fibonacci ``Random32`` as posted in C by Stuart
Cracraft, computer-go mailing list, Nov 1999, see docs/REFERENCES.md; two
draws make one key, the first draw in the high 32 bits).

For the hot path a set is expanded into one flat ``uint64[ZOB_SIZE]`` array
indexed by mailbox squares and piece codes::

    Z_PIECE + 120 * piece_code + square   piece keys (1920 slots, zero for unused codes)
    Z_CASTLE + rights                      the castling keys of a 4-bit rights mask, combined
    Z_EP + file                            en-passant file keys
    Z_SIDE                                 the white-to-move key
    Z_COMBINE                              how keys combine: COMBINE_XOR (0) or COMBINE_ADD (1)

The key of a position combines the keys of its features (pieces on squares,
castling rights, en-passant file, white to move).  Zobrist and PolyGlot combine
them by XOR; the lab can ask for 64-bit wrapping addition instead (David
Eppstein's lecture notes, 1997, suggest it would do as well; see docs/LAB.md).
The combination travels with the expanded set, in its ``Z_COMBINE`` slot, so
every compiled function that hashes already has it and no signature changes; an
additive set's castling slots hold sums instead of XORs.  Under addition a
feature's key is added when the feature appears and subtracted when it goes, all
modulo 2^64 (uint64 arithmetic wraps).
"""

from __future__ import annotations

from importlib import resources

import numpy as np
from numba import njit

from transpo.core.board import PAWN, SQ64_TO_120, ST_CASTLE, ST_EP, ST_SIDE
from transpo.settings import (
    DEFAULT_COMBINE,
    DEFAULT_KEY_SET,
    DEFAULT_PRNG_SEED,
    KEY_COMBINATIONS,
    KEY_SET_NAMES,
    check_choice,
)

RAW_KEYS = 781

Z_PIECE = 0
Z_CASTLE = 16 * 120
Z_EP = Z_CASTLE + 16
Z_SIDE = Z_EP + 8
Z_COMBINE = Z_SIDE + 1
ZOB_SIZE = Z_COMBINE + 1

COMBINE_XOR = 0  # the Z_COMBINE value of each name in transpo.settings.KEY_COMBINATIONS
COMBINE_ADD = 1

MASK64 = (1 << 64) - 1

# The 55 seeds of Random32 as given in Cracraft's post (a copy is
# tests/data/seed_004_random32.txt): Mathematica 2.0, SeedRandom = 1,
# Table[Random[Integer, {0, 2^32 - 1}]].
KNUTH_SEEDS = (
    1410651636, 3012776752, 3497475623, 2892145026, 1571949714,
    3253082284, 3489895018, 387949491, 2597396737, 1981903553,
    3160251843, 129444464, 1851443344, 4156445905, 224604922,
    1455067070, 3953493484, 1460937157, 2528362617, 317430674,
    3229354360, 117491133, 832845075, 1961600170, 1321557429,
    747750121, 545747446, 810476036, 503334515, 4088144633,
    2824216555, 3738252341, 3493754131, 3672533954, 29494241,
    1180928407, 4213624418, 33062851, 3221315737, 1145213552,
    2957984897, 4078668503, 2262661702, 65478801, 2527208841,
    1960622036, 315685891, 1196037864, 804614524, 1421733266,
    2017105031, 3882325900, 810735053, 384606609, 2393861397,
)  # fmt: skip


def knuth_random32(count: int) -> list[int]:
    """The first ``count`` outputs of the posted Random32.

    Knuth's additive generator y(n) = y(n-24) + y(n-55) mod 2^32, written the
    way the post's C code runs it: a 55-word ring updated in place with two
    indices that walk down from 23 and 54.
    """
    y = list(KNUTH_SEEDS)
    j, k = 24 - 1, 55 - 1
    out = []
    for _ in range(count):
        y[k] = (y[k] + y[j]) & 0xFFFFFFFF
        out.append(y[k])
        j = j - 1 if j > 0 else 54
        k = k - 1 if k > 0 else 54
    return out


def splitmix64(seed: int, count: int) -> list[int]:
    """``count`` outputs of Vigna's splitmix64 from ``seed``."""
    out = []
    x = seed & MASK64
    for _ in range(count):
        x = (x + 0x9E3779B97F4A7C15) & MASK64
        z = x
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        out.append(z ^ (z >> 31))
    return out


def polyglot_keys() -> np.ndarray:
    """PolyGlot's 781 numbers, read from the data file shipped with the package."""
    text = resources.files("transpo.core").joinpath("data/polyglot_random.txt").read_text()
    rows = [line for line in text.splitlines() if line and not line.startswith("#")]
    values = [int(line, 16) for line in rows]
    if len(values) != RAW_KEYS:
        raise RuntimeError(f"polyglot_random.txt holds {len(values)} keys, expected {RAW_KEYS}")
    return np.array(values, dtype=np.uint64)


def raw_key_set(name: str = DEFAULT_KEY_SET, seed: int = DEFAULT_PRNG_SEED) -> np.ndarray:
    """The 781 keys of a named key set (``polyglot``, ``prng`` or ``knuth``)."""
    check_choice("key set", name, KEY_SET_NAMES)
    if name == "polyglot":
        return polyglot_keys()
    if name == "prng":
        return np.array(splitmix64(seed, RAW_KEYS), dtype=np.uint64)
    draws = knuth_random32(2 * RAW_KEYS)
    return np.array([(draws[2 * i] << 32) | draws[2 * i + 1] for i in range(RAW_KEYS)], dtype=np.uint64)


def check_combine(combine: str) -> str:
    """``combine`` if it names a key combination (``xor`` or ``add``); otherwise a one-line ValueError."""
    return check_choice("key combination", combine, KEY_COMBINATIONS)


def expand(raw: np.ndarray, combine: str = DEFAULT_COMBINE) -> np.ndarray:
    """Lay a 781-key set out for mailbox squares and piece codes, combined by ``combine`` (see module docstring)."""
    additive = check_combine(combine) == "add"
    zob = np.zeros(ZOB_SIZE, dtype=np.uint64)
    for color in (0, 1):
        for kind in range(1, 7):
            polyglot_kind = 2 * (kind - 1) + (1 if color == 0 else 0)
            code = kind | (color << 3)
            for s64 in range(64):
                zob[Z_PIECE + 120 * code + SQ64_TO_120[s64]] = raw[64 * polyglot_kind + s64]
    for rights in range(16):
        value = 0  # a Python int: numpy would warn when the sum wraps
        for bit in range(4):
            if rights & (1 << bit):
                key = int(raw[768 + bit])
                value = (value + key) & MASK64 if additive else value ^ key
        zob[Z_CASTLE + rights] = value
    zob[Z_EP : Z_EP + 8] = raw[772:780]
    zob[Z_SIDE] = raw[780]
    zob[Z_COMBINE] = COMBINE_ADD if additive else COMBINE_XOR
    return zob


def key_set(name: str = DEFAULT_KEY_SET, seed: int = DEFAULT_PRNG_SEED, combine: str = DEFAULT_COMBINE) -> np.ndarray:
    """The expanded ``uint64[ZOB_SIZE]`` array of a named key set, combined by ``combine`` (``xor`` or ``add``)."""
    return expand(raw_key_set(name, seed), combine)


@njit("uint64(int8[::1], int64[::1], uint64[::1])", cache=True, nogil=True, _nrt=False)
def compute_key(board, state, zob):
    """The key of a position computed from scratch (make/unmake keep it incrementally).

    Both combinations are accumulated (two instructions per feature) and the set's one is
    returned: simpler than a branch per feature, and this runs only outside the search's
    inner loop (a new position, the audit's check key).
    """
    by_xor = np.uint64(0)
    by_sum = np.uint64(0)
    for sq in range(21, 99):
        p = board[sq]
        if p > 0:
            z = zob[Z_PIECE + 120 * p + sq]
            by_xor ^= z
            by_sum += z
    z = zob[Z_CASTLE + state[ST_CASTLE]]
    by_xor ^= z
    by_sum += z
    ep = state[ST_EP]
    if ep != 0:
        z = zob[Z_EP + (ep - 21) % 10]
        by_xor ^= z
        by_sum += z
    if state[ST_SIDE] == 0:
        z = zob[Z_SIDE]
        by_xor ^= z
        by_sum += z
    return by_sum if zob[Z_COMBINE] == np.uint64(COMBINE_ADD) else by_xor


@njit("uint64(int8[::1], uint64[::1])", cache=True, nogil=True, _nrt=False)
def compute_pawn_key(board, zob):
    """The pawn key from scratch: the pawns' piece keys alone, combined as the set says (make/unmake keep it).

    Positions with the same pawns share it, so the evaluation caches pawn
    structure under it (:mod:`transpo.engine.pawns`).
    """
    by_xor = np.uint64(0)
    by_sum = np.uint64(0)
    for sq in range(21, 99):
        p = board[sq]
        if p > 0 and (p & 7) == PAWN:
            z = zob[Z_PIECE + 120 * p + sq]
            by_xor ^= z
            by_sum += z
    return by_sum if zob[Z_COMBINE] == np.uint64(COMBINE_ADD) else by_xor
