"""Pawn structure: its terms, computed on 64-bit pawn bitboards, and the pawn hash table that caches them.

Pawns move rarely and many positions of a search share one pawn structure, so
its terms are computed once per structure and cached, like whole positions in
the transposition table: the *pawn key* (the XOR of the pawns' Zobrist keys,
kept incrementally by make/unmake in ``state[ST_PAWN_KEY]``) picks a slot of a
small table, and a slot whose stored key matches holds the result.  Each
searcher has its own table (in its :class:`~transpo.engine.scratch.Scratch`).

Bitboard layout (``uint64``): bit ``8 * rank + file``, a1 = bit 0, h8 = bit 63,
rank 0 = rank 1.  The masks below are pure geometry, so compiled code may read
them as globals (docs/NUMBA.md, trap 5).

Pawn hash slot ``i`` (arrays in the scratch, ``PAWN_ENTRIES`` slots)::

    pawn_keys[i]        uint64  the pawn key stored there
    pawn_bits[i, 0..2]  uint64  white pawns, black pawns, passed pawns (both colours)
    pawn_scores[i, 0..1] int32  middlegame and endgame sum of the pawn-structure terms

A position without pawns has pawn key 0, which also is what an empty slot
holds: the "hit" it scores is the right answer (no pawns, no terms).
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from transpo.core.board import SQ64_TO_120, ST_PAWNS
from transpo.engine.terms import (
    N_PAWN_TERMS,
    PASSED_RANK2,
    PAWN_BACKWARD,
    PAWN_DOUBLED,
    PAWN_ISOLATED,
    PAWN_PHALANX,
    PAWN_SUPPORTED,
)

PAWN_ENTRIES = 1 << 14  # slots of a pawn hash table (a power of two)

BIT = np.array([1 << s for s in range(64)], dtype=np.uint64)
FILE_BB = np.array([sum(1 << (8 * r + f) for r in range(8)) for f in range(8)], dtype=np.uint64)
NOT_FILE_A = np.uint64(~int(FILE_BB[0]) & ((1 << 64) - 1))
NOT_FILE_H = np.uint64(~int(FILE_BB[7]) & ((1 << 64) - 1))
ADJACENT_FILES = np.array(
    [(int(FILE_BB[f - 1]) if f > 0 else 0) | (int(FILE_BB[f + 1]) if f < 7 else 0) for f in range(8)],
    dtype=np.uint64,
)


def _squares(colour: int, square: int, files: tuple[int, ...], ahead: bool, level: bool) -> int:
    """Bitboard of the squares on ``files`` ahead of (or behind) ``square`` for ``colour``, its own rank if ``level``."""
    rank = square >> 3
    bits = 0
    for r in range(8):
        forward = r > rank if colour == 0 else r < rank
        if (forward if ahead else not forward and r != rank) or (level and r == rank):
            for f in files:
                if 0 <= f < 8:
                    bits |= 1 << (8 * r + f)
    return bits


def _span_table(ahead: bool, neighbours: bool, own_file: bool, level: bool) -> np.ndarray:
    table = np.zeros((2, 64), dtype=np.uint64)
    for colour in range(2):
        for s in range(64):
            f = s & 7
            files = ((f - 1, f + 1) if neighbours else ()) + ((f,) if own_file else ())
            table[colour, s] = _squares(colour, s, files, ahead, level)
    return table


FORWARD_FILE = _span_table(ahead=True, neighbours=False, own_file=True, level=False)  # same file, ahead
PASSED_SPAN = _span_table(ahead=True, neighbours=True, own_file=True, level=False)  # enemy pawns here stop a passer
SUPPORT_SPAN = _span_table(ahead=False, neighbours=True, own_file=False, level=True)  # own pawns here can support


@njit(cache=True, nogil=True, inline="always")
def pawn_bitboards(state):
    """(white pawns, black pawns) as bitboards: make/unmake keep them in the state."""
    return np.uint64(state[ST_PAWNS]), np.uint64(state[ST_PAWNS + 1])


@njit(cache=True, nogil=True, inline="always")
def pawn_attacks(pawns, colour):
    """The squares a set of pawns of ``colour`` attacks."""
    if colour == 0:
        return ((pawns & NOT_FILE_A) << np.uint64(7)) | ((pawns & NOT_FILE_H) << np.uint64(9))
    return ((pawns & NOT_FILE_A) >> np.uint64(9)) | ((pawns & NOT_FILE_H) >> np.uint64(7))


@njit(cache=True, nogil=True, inline="always")
def pawn_features(board, white, black, features):
    """Write the pawn-structure features (White minus Black) into ``features[:N_PAWN_TERMS]``; return the passers."""
    for t in range(N_PAWN_TERMS):
        features[t] = 0
    passed = np.uint64(0)
    rest = white | black
    while rest != 0:  # the pawns, a1 first
        s = np.int64(trailing_zeros(rest))
        rest &= rest - np.uint64(1)
        sq = SQ64_TO_120[s]
        p = board[sq]
        colour = p >> 3
        sign = 1 - 2 * colour
        own = white if colour == 0 else black
        enemy = black if colour == 0 else white
        step = 10 if colour == 0 else -10  # forward, in mailbox squares
        f = s & 7
        relative_rank = (s >> 3) if colour == 0 else 7 - (s >> 3)
        neighbours = own & ADJACENT_FILES[f]
        if own & FORWARD_FILE[colour, s]:
            features[PAWN_DOUBLED] += sign
        if neighbours == 0:
            features[PAWN_ISOLATED] += sign
        elif neighbours & SUPPORT_SPAN[colour, s] == 0:
            enemy_pawn = p ^ 8
            stop = sq + step
            if board[stop + step - 1] == enemy_pawn or board[stop + step + 1] == enemy_pawn:
                features[PAWN_BACKWARD] += sign
        if board[sq - step - 1] == p or board[sq - step + 1] == p:
            features[PAWN_SUPPORTED] += sign
        if board[sq - 1] == p or board[sq + 1] == p:
            features[PAWN_PHALANX] += sign
        if enemy & PASSED_SPAN[colour, s] == 0 and own & FORWARD_FILE[colour, s] == 0:
            features[PASSED_RANK2 + relative_rank - 1] += sign
            passed |= BIT[s]
    return passed


@njit(cache=True, nogil=True, inline="always")
def pawn_slot(pawn_key):
    """The pawn hash slot of a pawn key (given as the int64 of ``state[ST_PAWN_KEY]``)."""
    return np.int64(np.uint64(pawn_key) & np.uint64(PAWN_ENTRIES - 1))
