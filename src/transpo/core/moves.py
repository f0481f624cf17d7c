"""Move encoding: one int32 per move.

Bit layout::

    bits  0-6   from square (mailbox index 21..98)
    bits  7-13  to square
    bits 14-16  promotion piece type (0 none, 2 knight, 3 bishop, 4 rook, 5 queen)
    bits 17-20  flags: 1 capture, 2 double pawn push, 4 en passant, 8 castling

``NO_MOVE`` (0) never encodes a real move because square 0 is off the board.
The low ``MOVE_ID_BITS`` (from, to, promotion) identify a move among the legal
ones; the transposition table stores only those.  The numba helpers below are
tiny and get inlined into make/unmake, move ordering and the search.
"""

from __future__ import annotations

from numba import njit

from transpo.core.board import square_name

NO_MOVE = 0
FLAG_CAPTURE = 1
FLAG_DOUBLE = 2
FLAG_EP = 4
FLAG_CASTLE = 8

SQUARE_MASK = 127  # 7 bits per square
TO_SHIFT = 7
PROMO_SHIFT = 14
PROMO_MASK = 7
FLAG_SHIFT = 17
FLAG_MASK = 15
MOVE_ID_BITS = FLAG_SHIFT  # from, to and promotion: enough to tell legal moves apart
MOVE_ID_MASK = (1 << MOVE_ID_BITS) - 1


@njit(cache=True, inline="always")
def encode(frm, to, promo, flags):
    """Pack a move (see the module docstring for the layout)."""
    return frm | (to << TO_SHIFT) | (promo << PROMO_SHIFT) | (flags << FLAG_SHIFT)


@njit(cache=True, inline="always")
def move_from(m):
    """The from square."""
    return m & SQUARE_MASK


@njit(cache=True, inline="always")
def move_to(m):
    """The to square."""
    return (m >> TO_SHIFT) & SQUARE_MASK


@njit(cache=True, inline="always")
def move_promo(m):
    """The promotion piece type, 0 for none."""
    return (m >> PROMO_SHIFT) & PROMO_MASK


@njit(cache=True, inline="always")
def move_flags(m):
    """The FLAG_* bits."""
    return (m >> FLAG_SHIFT) & FLAG_MASK


@njit(cache=True, inline="always")
def is_quiet(m):
    """Neither a capture nor a promotion."""
    return (move_flags(m) & FLAG_CAPTURE) == 0 and move_promo(m) == 0


def move_to_uci(move: int) -> str:
    """UCI text of an encoded move, e.g. 'e2e4', 'e7e8q', castling as 'e1g1'."""
    text = square_name(move & SQUARE_MASK) + square_name((move >> TO_SHIFT) & SQUARE_MASK)
    promo = (move >> PROMO_SHIFT) & PROMO_MASK
    return text + " pnbrq"[promo] if promo else text
