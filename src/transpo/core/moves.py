"""Move encoding: one int32 per move.

Bit layout::

    bits  0-6   from square (mailbox index 21..98)
    bits  7-13  to square
    bits 14-16  promotion piece type (0 none, 2 knight, 3 bishop, 4 rook, 5 queen)
    bits 17-20  flags: 1 capture, 2 double pawn push, 4 en passant, 8 castling

``NO_MOVE`` (0) never encodes a real move because square 0 is off the board.
The numba helpers below are tiny and get inlined into the generator and search.
"""

from __future__ import annotations

from numba import njit

from transpo.core.board import square_name

NO_MOVE = 0
FLAG_CAPTURE = 1
FLAG_DOUBLE = 2
FLAG_EP = 4
FLAG_CASTLE = 8

PROMO_SHIFT = 14
FLAG_SHIFT = 17


@njit(cache=True, inline="always")
def encode(frm, to, promo, flags):
    """Pack a move (see the module docstring for the layout)."""
    return (frm | (to << 7) | (promo << PROMO_SHIFT) | (flags << FLAG_SHIFT))


@njit(cache=True, inline="always")
def move_from(m):
    return m & 127


@njit(cache=True, inline="always")
def move_to(m):
    return (m >> 7) & 127


@njit(cache=True, inline="always")
def move_promo(m):
    return (m >> PROMO_SHIFT) & 7


@njit(cache=True, inline="always")
def move_flags(m):
    return (m >> FLAG_SHIFT) & 15


def move_to_uci(move: int) -> str:
    """UCI text of an encoded move, e.g. 'e2e4', 'e7e8q', castling as 'e1g1'."""
    text = square_name(move & 127) + square_name((move >> 7) & 127)
    promo = (move >> PROMO_SHIFT) & 7
    return text + " pnbrq"[promo] if promo else text
