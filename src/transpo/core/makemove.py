"""Make and unmake moves on the array board, updating the Zobrist key by XOR (numba).

Make pushes what cannot be recomputed onto the undo stack, writes the new key
into ``keys[ply + 1]`` and updates the piece-square sums and piece counts from
the ``psq`` table (``int32[16, 120, 3]``: middlegame, endgame and phase value of
a piece code on a square; perft passes zeros).  Unmake reverses the board and
pops the stack; the old key is still in ``keys[ply]``.

The key follows PolyGlot's rules: the en-passant file is part of the key only
when a pawn of the side to move stands beside the pawn that just made a double
step, and the side key is toggled by every move.  ``state[ST_EP]`` is set under
the same rule, so a position has one key and one FEN whichever way it was reached.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from transpo.core.board import (
    CASTLE_KEEP,
    EMPTY,
    KING,
    PAWN,
    ROOK,
    ST_CASTLE,
    ST_COUNT,
    ST_EG,
    ST_EP,
    ST_FULLMOVE,
    ST_HALFMOVE,
    ST_KING,
    ST_MG,
    ST_PHASE,
    ST_PLY,
    ST_SIDE,
    UN_CAPTURED,
    UN_CASTLE,
    UN_EG,
    UN_EP,
    UN_HALFMOVE,
    UN_MG,
    UN_PHASE,
)
from transpo.core.keys import Z_CASTLE, Z_EP, Z_PIECE, Z_SIDE
from transpo.core.moves import FLAG_CASTLE, FLAG_DOUBLE, FLAG_EP


@njit(cache=True, nogil=True, inline="always")
def _put(board, state, psq, piece, sq):
    board[sq] = piece
    state[ST_MG] += psq[piece, sq, 0]
    state[ST_EG] += psq[piece, sq, 1]
    state[ST_PHASE] += psq[piece, sq, 2]


@njit(cache=True, nogil=True, inline="always")
def _lift(board, state, psq, sq):
    piece = board[sq]
    board[sq] = EMPTY
    state[ST_MG] -= psq[piece, sq, 0]
    state[ST_EG] -= psq[piece, sq, 1]
    state[ST_PHASE] -= psq[piece, sq, 2]
    return piece


@njit(
    "void(int8[::1], int64[::1], uint64[::1], int32[:, ::1], int64, uint64[::1], int32[:, :, ::1])",
    cache=True,
    nogil=True,
)
def make_move(board, state, keys, undo, move, zob, psq):
    """Play a legal ``move`` (from the generator) on the arrays."""
    ply = state[ST_PLY]
    us = state[ST_SIDE]
    frm = move & 127
    to = (move >> 7) & 127
    promo = (move >> 14) & 7
    flags = (move >> 17) & 15
    key = keys[ply]

    u = undo[ply]
    u[UN_CASTLE] = state[ST_CASTLE]
    u[UN_EP] = state[ST_EP]
    u[UN_HALFMOVE] = state[ST_HALFMOVE]
    u[UN_MG] = state[ST_MG]
    u[UN_EG] = state[ST_EG]
    u[UN_PHASE] = state[ST_PHASE]

    if state[ST_EP] != 0:
        key ^= zob[Z_EP + (state[ST_EP] - 21) % 10]
        state[ST_EP] = 0

    cap_sq = to
    if flags & FLAG_EP:
        cap_sq = to - 10 if us == 0 else to + 10
    captured = board[cap_sq]
    u[UN_CAPTURED] = captured
    if captured != EMPTY:
        _lift(board, state, psq, cap_sq)
        key ^= zob[Z_PIECE + 120 * captured + cap_sq]
        state[ST_COUNT + captured] -= 1

    piece = _lift(board, state, psq, frm)
    key ^= zob[Z_PIECE + 120 * piece + frm]
    placed = piece
    if promo != 0:
        placed = promo | (us << 3)
        state[ST_COUNT + piece] -= 1
        state[ST_COUNT + placed] += 1
    _put(board, state, psq, placed, to)
    key ^= zob[Z_PIECE + 120 * placed + to]

    kind = piece & 7
    if kind == KING:
        state[ST_KING + us] = to
        if flags & FLAG_CASTLE:
            rook = ROOK | (us << 3)
            rook_from = to + 1 if to > frm else to - 2
            rook_to = to - 1 if to > frm else to + 1
            _lift(board, state, psq, rook_from)
            _put(board, state, psq, rook, rook_to)
            key ^= zob[Z_PIECE + 120 * rook + rook_from] ^ zob[Z_PIECE + 120 * rook + rook_to]

    rights = state[ST_CASTLE] & CASTLE_KEEP[frm] & CASTLE_KEEP[to]
    if rights != state[ST_CASTLE]:
        key ^= zob[Z_CASTLE + state[ST_CASTLE]] ^ zob[Z_CASTLE + rights]
        state[ST_CASTLE] = rights

    if flags & FLAG_DOUBLE:
        enemy_pawn = PAWN | ((1 - us) << 3)
        if board[to - 1] == enemy_pawn or board[to + 1] == enemy_pawn:
            ep = (frm + to) >> 1
            state[ST_EP] = ep
            key ^= zob[Z_EP + (ep - 21) % 10]

    if kind == PAWN or captured != EMPTY:
        state[ST_HALFMOVE] = 0
    else:
        state[ST_HALFMOVE] += 1
    if us == 1:
        state[ST_FULLMOVE] += 1
    state[ST_SIDE] = 1 - us
    keys[ply + 1] = key ^ zob[Z_SIDE]
    state[ST_PLY] = ply + 1


@njit("void(int8[::1], int64[::1], int32[:, ::1], int64)", cache=True, nogil=True)
def unmake_move(board, state, undo, move):
    """Take back ``move``, the last move made."""
    ply = state[ST_PLY] - 1
    them = state[ST_SIDE]
    us = 1 - them
    frm = move & 127
    to = (move >> 7) & 127
    promo = (move >> 14) & 7
    flags = (move >> 17) & 15
    u = undo[ply]

    placed = board[to]
    piece = PAWN | (us << 3) if promo != 0 else placed
    if promo != 0:
        state[ST_COUNT + placed] -= 1
        state[ST_COUNT + piece] += 1
    board[to] = EMPTY
    board[frm] = piece
    if (piece & 7) == KING:
        state[ST_KING + us] = frm
        if flags & FLAG_CASTLE:
            rook_from = to + 1 if to > frm else to - 2
            rook_to = to - 1 if to > frm else to + 1
            board[rook_from] = board[rook_to]
            board[rook_to] = EMPTY
    captured = u[UN_CAPTURED]
    if captured != EMPTY:
        cap_sq = to
        if flags & FLAG_EP:
            cap_sq = to - 10 if us == 0 else to + 10
        board[cap_sq] = captured
        state[ST_COUNT + captured] += 1

    state[ST_CASTLE] = u[UN_CASTLE]
    state[ST_EP] = u[UN_EP]
    state[ST_HALFMOVE] = u[UN_HALFMOVE]
    state[ST_MG] = u[UN_MG]
    state[ST_EG] = u[UN_EG]
    state[ST_PHASE] = u[UN_PHASE]
    if us == 1:
        state[ST_FULLMOVE] -= 1
    state[ST_SIDE] = us
    state[ST_PLY] = ply


@njit("void(int64[::1], uint64[::1], int32[:, ::1], uint64[::1])", cache=True, nogil=True)
def make_null(state, keys, undo, zob):
    """Pass the move (null-move pruning): flip the side, clear en passant."""
    ply = state[ST_PLY]
    key = keys[ply]
    undo[ply, UN_EP] = state[ST_EP]
    undo[ply, UN_HALFMOVE] = state[ST_HALFMOVE]
    if state[ST_EP] != 0:
        key ^= zob[Z_EP + (state[ST_EP] - 21) % 10]
        state[ST_EP] = 0
    state[ST_HALFMOVE] += 1
    state[ST_SIDE] = 1 - state[ST_SIDE]
    keys[ply + 1] = key ^ zob[Z_SIDE]
    state[ST_PLY] = ply + 1


@njit("void(int64[::1], int32[:, ::1])", cache=True, nogil=True)
def unmake_null(state, undo):
    """Take back a null move."""
    ply = state[ST_PLY] - 1
    state[ST_EP] = undo[ply, UN_EP]
    state[ST_HALFMOVE] = undo[ply, UN_HALFMOVE]
    state[ST_SIDE] = 1 - state[ST_SIDE]
    state[ST_PLY] = ply


@njit("boolean(int64[::1], uint64[::1], int64)", cache=True, nogil=True)
def is_repetition(state, keys, min_count):
    """True if the current position occurred ``min_count`` times before in the key history.

    Only positions since the last capture or pawn move can repeat, and only
    every second one has the same side to move.
    """
    ply = state[ST_PLY]
    key = keys[ply]
    last = max(0, ply - state[ST_HALFMOVE])
    seen = 0
    i = ply - 4
    while i >= last:
        if keys[i] == key:
            seen += 1
            if seen >= min_count:
                return True
        i -= 2
    return False


EMPTY_PSQ = np.zeros((16, 120, 3), dtype=np.int32)
