"""Static exchange evaluation: does a move win at least ``threshold`` centipawns on its square?

Both sides capture on the move's target square, each time with their least
valuable attacker, and either side may stop when going on would lose; the
exchange's value is what the side to move ends up with.  :func:`see_ge` answers
only "is it at least ``threshold``", which needs no list of gains: it keeps one
running balance and flips a result bit per capture (the form Stockfish uses).

The pieces still on the board are an occupancy bitboard (from the state's
colour bitboards): a piece that has captured is taken out of it, so the first
piece along each ray out of the square - found by a bit scan, not a walk - is
the next slider in line, and one behind a piece that has captured (an x-ray:
the rook behind the rook, the bishop behind the queen) joins the exchange in its
turn.  The board itself is only read.  Pins are ignored, as usual for SEE.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from transpo.core.board import (
    BISHOP,
    KING,
    KING_STEPS,
    KNIGHT,
    KNIGHT_STEPS,
    PAWN,
    QUEEN,
    ROOK,
    SQUARE_BB,
    ST_OCCUPIED,
)
from transpo.core.movegen import first_on_ray
from transpo.core.moves import FLAG_CASTLE, FLAG_EP, move_flags, move_from, move_promo, move_to

SEE_VALUE = (0, 100, 320, 330, 500, 900, 20000)  # by piece type (index 0 unused, 6 = king)


@njit(cache=True, inline="always")
def _stands(board, sq, piece, occupied):
    """Whether ``piece`` stands on mailbox square ``sq`` and has not yet taken part in the exchange."""
    return board[sq] == piece and (occupied & np.uint64(SQUARE_BB[sq])) != 0


@njit(cache=True, inline="always")
def _least_attacker(board, to, side, occupied):
    """The square of ``side``'s least valuable piece in ``occupied`` attacking ``to``, or 0.

    Pawns, then knights, then the first piece on each of the eight rays: a
    bishop on a diagonal at once; else the first rook on a line, else the
    first queen (diagonals before lines, in the steps' order), else the king.
    """
    base = side << 3
    pawn = PAWN | base
    behind = -10 if side == 0 else 10  # a white pawn attacks upwards, so it stands below the square
    if _stands(board, to + behind - 1, pawn, occupied):
        return to + behind - 1
    if _stands(board, to + behind + 1, pawn, occupied):
        return to + behind + 1
    knight = KNIGHT | base
    for k in range(8):
        if _stands(board, to + KNIGHT_STEPS[k], knight, occupied):
            return to + KNIGHT_STEPS[k]
    bishop, rook, queen = BISHOP | base, ROOK | base, QUEEN | base
    rook_sq = 0
    queen_sq = 0
    # An empty ray gives square 0, off the board (OFF): it matches no piece.
    for direction in range(4):  # the diagonals (BISHOP_STEPS' order)
        sq = first_on_ray(direction, to, occupied)
        if board[sq] == bishop:
            return sq
        if board[sq] == queen and queen_sq == 0:
            queen_sq = sq
    for direction in range(4, 8):  # the lines (ROOK_STEPS' order)
        sq = first_on_ray(direction, to, occupied)
        if board[sq] == rook:
            rook_sq = sq
            break
        if board[sq] == queen and queen_sq == 0:
            queen_sq = sq
    if rook_sq:
        return rook_sq
    if queen_sq:
        return queen_sq
    king = KING | base
    for k in range(8):
        if _stands(board, to + KING_STEPS[k], king, occupied):
            return to + KING_STEPS[k]
    return 0


@njit("boolean(int8[::1], int64[::1], int64, int64)", cache=True, nogil=True, _nrt=False)
def see_ge(board, state, move, threshold):
    """True if playing ``move`` (legal, side to move's) wins at least ``threshold`` by the exchange on its square."""
    if move_flags(move) & FLAG_CASTLE:
        return threshold <= 0
    frm = move_from(move)
    to = move_to(move)
    promo = move_promo(move)
    us = board[frm] >> 3
    captured_sq = to
    if move_flags(move) & FLAG_EP:
        captured_sq = to - 10 if us == 0 else to + 10
    victim = board[captured_sq] & 7 if board[captured_sq] > 0 else 0
    swap = SEE_VALUE[victim] - threshold
    if promo:
        swap += SEE_VALUE[promo] - SEE_VALUE[PAWN]
    if swap < 0:
        return False
    swap = SEE_VALUE[promo if promo else board[frm] & 7] - swap
    if swap <= 0:
        return True  # even losing the moving piece at once keeps the threshold
    occupied = np.uint64(state[ST_OCCUPIED]) | np.uint64(state[ST_OCCUPIED + 1])
    occupied &= ~np.uint64(SQUARE_BB[frm])
    if captured_sq != to:
        occupied &= ~np.uint64(SQUARE_BB[captured_sq])
    result = 1
    side = us
    while True:
        side = 1 - side
        sq = _least_attacker(board, to, side, occupied)
        if sq == 0:
            break
        result ^= 1
        kind = board[sq] & 7
        if kind == KING:
            if _least_attacker(board, to, 1 - side, occupied) != 0:
                result ^= 1  # the king may not take a defended piece
            break
        swap = SEE_VALUE[kind] - swap
        if swap < result:
            break
        occupied &= ~np.uint64(SQUARE_BB[sq])
    return result == 1
