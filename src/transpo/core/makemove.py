"""Make and unmake moves on the array board, updating the Zobrist key (numba).

Make pushes what cannot be recomputed onto the undo stack, writes the new key
into ``keys[ply + 1]``, keeps the pawn-only key ``state[ST_PAWN_KEY]`` the same
way and updates the piece-square sums, piece counts and the colour and pawn
bitboards (``ST_OCCUPIED``, ``ST_PAWNS``; unmake XORs them back) from
the ``psq`` table (``int32[16, 120, 3]``: middlegame, endgame and phase value of
a piece code on a square).  Unmake reverses the board and pops the stack; the
old key is still in ``keys[ply]``.

The rule for the evaluation sums (``ST_MG``, ``ST_EG``, ``ST_PHASE``): they are
the sums *for the psq table they were last computed with*, and make keeps them
only for the table it is given.  So whoever evaluates computes them once with
:func:`refresh_sums` and then makes every move with that same table.  A
``Position`` does not evaluate: it makes moves with ``EMPTY_PSQ`` (all zeros,
so its sums stay 0, and perft pays nothing), and
:meth:`~transpo.core.position.Position.snapshot` hands the engine copies of the
arrays with the sums refreshed for the engine's table.

The keys combine as the key set says (:mod:`transpo.core.keys`): by XOR, or by
64-bit wrapping addition, where make adds the key of what appears and subtracts
the key of what goes.  Unmake never undoes a key under either combination: the
previous key is ``keys[ply]`` and the previous pawn key is on the undo stack, so
taking a move back costs the same for both.  Make reads the combination once
and each update picks ``^`` or ``+``/``-`` with it (:func:`_key_in`,
:func:`_key_out`): XOR keys do the same loads and XORs as before plus that
choice, which measured no slowdown (docs/LAB.md, "Addition instead of XOR").

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
    SQUARE_BB,
    ST_CASTLE,
    ST_COUNT,
    ST_EG,
    ST_EP,
    ST_FULLMOVE,
    ST_HALFMOVE,
    ST_KING,
    ST_MG,
    ST_OCCUPIED,
    ST_PAWN_KEY,
    ST_PAWNS,
    ST_PHASE,
    ST_PLY,
    ST_SIDE,
    UN_CAPTURED,
    UN_CASTLE,
    UN_EG,
    UN_EP,
    UN_HALFMOVE,
    UN_MG,
    UN_PAWN_KEY,
    UN_PHASE,
)
from transpo.core.keys import COMBINE_ADD, Z_CASTLE, Z_COMBINE, Z_EP, Z_PIECE, Z_SIDE
from transpo.core.moves import FLAG_CASTLE, FLAG_DOUBLE, FLAG_EP, move_flags, move_from, move_promo, move_to


# Why `_nrt=False`: see transpo.core.movegen (no reference counting of the
# array arguments on every call; these functions never allocate).
#
# The bodies live in the inline helpers ``_make`` and ``_unmake`` so that perft
# (and any other compiled caller that wants it) can have them inlined instead
# of paying a call that passes seven arrays field by field.


@njit(cache=True, nogil=True, inline="always")
def _key_in(key, z, additive):
    """``key`` with the feature key ``z`` put in: added under addition, XORed otherwise."""
    return key + z if additive else key ^ z


@njit(cache=True, nogil=True, inline="always")
def _key_out(key, z, additive):
    """``key`` with the feature key ``z`` taken out: subtracted under addition, XORed otherwise."""
    return key - z if additive else key ^ z


@njit(cache=True, nogil=True, inline="always")
def _is_additive(zob):
    """True if the expanded key set ``zob`` combines by addition."""
    return zob[Z_COMBINE] == np.uint64(COMBINE_ADD)


@njit(cache=True, nogil=True, inline="always")
def _pass_turn(key, zob, mover, additive):
    """``key`` after ``mover`` hands the turn over: the white-to-move key goes if White moved, comes if Black did."""
    if mover == 0:
        return _key_out(key, zob[Z_SIDE], additive)
    return _key_in(key, zob[Z_SIDE], additive)


@njit(cache=True, nogil=True, inline="always")
def _make(board, state, keys, undo, move, zob, psq):
    ply = state[ST_PLY]
    us = state[ST_SIDE]
    frm = move_from(move)
    to = move_to(move)
    promo = move_promo(move)
    flags = move_flags(move)
    key = keys[ply]
    additive = _is_additive(zob)
    castle = state[ST_CASTLE]
    ep = state[ST_EP]
    # The evaluation sums are updated in locals and stored once at the end.
    mg = state[ST_MG]
    eg = state[ST_EG]
    phase = state[ST_PHASE]

    undo[ply, UN_CASTLE] = castle
    undo[ply, UN_EP] = ep
    undo[ply, UN_HALFMOVE] = state[ST_HALFMOVE]
    undo[ply, UN_MG] = mg
    undo[ply, UN_EG] = eg
    undo[ply, UN_PHASE] = phase
    undo[ply, UN_PAWN_KEY] = state[ST_PAWN_KEY]
    pawn_key = np.uint64(state[ST_PAWN_KEY])  # the int64 slot holds the key's 64 bits

    if ep != 0:
        key = _key_out(key, zob[Z_EP + (ep - 21) % 10], additive)
        state[ST_EP] = 0

    cap_sq = to
    if flags & FLAG_EP:
        cap_sq = to - 10 if us == 0 else to + 10
    captured = board[cap_sq]
    undo[ply, UN_CAPTURED] = captured
    if captured != EMPTY:
        board[cap_sq] = EMPTY
        key = _key_out(key, zob[Z_PIECE + 120 * captured + cap_sq], additive)
        mg -= psq[captured, cap_sq, 0]
        eg -= psq[captured, cap_sq, 1]
        phase -= psq[captured, cap_sq, 2]
        state[ST_COUNT + captured] -= 1
        state[ST_OCCUPIED + 1 - us] ^= SQUARE_BB[cap_sq]
        if (captured & 7) == PAWN:
            pawn_key = _key_out(pawn_key, zob[Z_PIECE + 120 * captured + cap_sq], additive)
            state[ST_PAWNS + 1 - us] ^= SQUARE_BB[cap_sq]

    piece = board[frm]
    placed = piece
    if promo != 0:
        placed = promo | (us << 3)
        state[ST_COUNT + piece] -= 1
        state[ST_COUNT + placed] += 1
    board[frm] = EMPTY
    board[to] = placed
    key = _key_out(key, zob[Z_PIECE + 120 * piece + frm], additive)
    key = _key_in(key, zob[Z_PIECE + 120 * placed + to], additive)
    mg += psq[placed, to, 0] - psq[piece, frm, 0]
    eg += psq[placed, to, 1] - psq[piece, frm, 1]
    phase += psq[placed, to, 2] - psq[piece, frm, 2]

    state[ST_OCCUPIED + us] ^= SQUARE_BB[frm] | SQUARE_BB[to]
    kind = piece & 7
    if kind == PAWN:
        pawn_key = _key_out(pawn_key, zob[Z_PIECE + 120 * piece + frm], additive)
        state[ST_PAWNS + us] ^= SQUARE_BB[frm]
        if promo == 0:
            pawn_key = _key_in(pawn_key, zob[Z_PIECE + 120 * piece + to], additive)
            state[ST_PAWNS + us] ^= SQUARE_BB[to]
    if kind == KING:
        state[ST_KING + us] = to
        if flags & FLAG_CASTLE:
            rook = ROOK | (us << 3)
            rook_from = to + 1 if to > frm else to - 2
            rook_to = to - 1 if to > frm else to + 1
            board[rook_from] = EMPTY
            board[rook_to] = rook
            state[ST_OCCUPIED + us] ^= SQUARE_BB[rook_from] | SQUARE_BB[rook_to]
            key = _key_out(key, zob[Z_PIECE + 120 * rook + rook_from], additive)
            key = _key_in(key, zob[Z_PIECE + 120 * rook + rook_to], additive)
            mg += psq[rook, rook_to, 0] - psq[rook, rook_from, 0]
            eg += psq[rook, rook_to, 1] - psq[rook, rook_from, 1]
            phase += psq[rook, rook_to, 2] - psq[rook, rook_from, 2]

    rights = castle & CASTLE_KEEP[frm] & CASTLE_KEEP[to]
    if rights != castle:
        key = _key_out(key, zob[Z_CASTLE + castle], additive)
        key = _key_in(key, zob[Z_CASTLE + rights], additive)
        state[ST_CASTLE] = rights

    if flags & FLAG_DOUBLE:
        # Record the en-passant square only if an enemy pawn can take (PolyGlot's rule).
        enemy_pawn = PAWN | ((1 - us) << 3)
        if board[to - 1] == enemy_pawn or board[to + 1] == enemy_pawn:
            new_ep = (frm + to) >> 1
            state[ST_EP] = new_ep
            key = _key_in(key, zob[Z_EP + (new_ep - 21) % 10], additive)

    if kind == PAWN or captured != EMPTY:
        state[ST_HALFMOVE] = 0
    else:
        state[ST_HALFMOVE] += 1
    state[ST_FULLMOVE] += us  # after Black's move
    state[ST_MG] = mg
    state[ST_EG] = eg
    state[ST_PHASE] = phase
    state[ST_PAWN_KEY] = np.int64(pawn_key)
    state[ST_SIDE] = 1 - us
    keys[ply + 1] = _pass_turn(key, zob, us, additive)
    state[ST_PLY] = ply + 1


@njit(cache=True, nogil=True, inline="always")
def _unmake(board, state, undo, move):
    ply = state[ST_PLY] - 1
    us = 1 - state[ST_SIDE]
    frm = move_from(move)
    to = move_to(move)
    promo = move_promo(move)
    flags = move_flags(move)

    placed = board[to]
    piece = placed
    if promo != 0:
        piece = PAWN | (us << 3)
        state[ST_COUNT + placed] -= 1
        state[ST_COUNT + piece] += 1
    board[to] = EMPTY
    board[frm] = piece
    # The bitboards are put back by the same XORs that make applied.
    state[ST_OCCUPIED + us] ^= SQUARE_BB[frm] | SQUARE_BB[to]
    if (piece & 7) == PAWN:
        state[ST_PAWNS + us] ^= SQUARE_BB[frm] if promo != 0 else SQUARE_BB[frm] | SQUARE_BB[to]
    if (piece & 7) == KING:
        state[ST_KING + us] = frm
        if flags & FLAG_CASTLE:
            rook_from = to + 1 if to > frm else to - 2
            rook_to = to - 1 if to > frm else to + 1
            board[rook_from] = board[rook_to]
            board[rook_to] = EMPTY
            state[ST_OCCUPIED + us] ^= SQUARE_BB[rook_from] | SQUARE_BB[rook_to]
    captured = undo[ply, UN_CAPTURED]
    if captured != EMPTY:
        cap_sq = to
        if flags & FLAG_EP:
            cap_sq = to - 10 if us == 0 else to + 10
        board[cap_sq] = captured
        state[ST_COUNT + captured] += 1
        state[ST_OCCUPIED + 1 - us] ^= SQUARE_BB[cap_sq]
        if (captured & 7) == PAWN:
            state[ST_PAWNS + 1 - us] ^= SQUARE_BB[cap_sq]

    state[ST_CASTLE] = undo[ply, UN_CASTLE]
    state[ST_EP] = undo[ply, UN_EP]
    state[ST_HALFMOVE] = undo[ply, UN_HALFMOVE]
    state[ST_MG] = undo[ply, UN_MG]
    state[ST_EG] = undo[ply, UN_EG]
    state[ST_PHASE] = undo[ply, UN_PHASE]
    state[ST_PAWN_KEY] = undo[ply, UN_PAWN_KEY]
    state[ST_FULLMOVE] -= us
    state[ST_SIDE] = us
    state[ST_PLY] = ply


@njit(
    "void(int8[::1], int64[::1], uint64[::1], int64[:, ::1], int64, uint64[::1], int32[:, :, ::1])",
    cache=True,
    nogil=True,
    _nrt=False,
)
def make_move(board, state, keys, undo, move, zob, psq):
    """Play a legal ``move`` (from the generator) on the arrays."""
    _make(board, state, keys, undo, move, zob, psq)


@njit("void(int8[::1], int64[::1], int64[:, ::1], int64)", cache=True, nogil=True, _nrt=False)
def unmake_move(board, state, undo, move):
    """Take back ``move``, the last move made."""
    _unmake(board, state, undo, move)


@njit("void(int64[::1], uint64[::1], int64[:, ::1], uint64[::1])", cache=True, nogil=True, _nrt=False)
def make_null(state, keys, undo, zob):
    """Pass the move (null-move pruning): flip the side, clear en passant."""
    ply = state[ST_PLY]
    key = keys[ply]
    additive = _is_additive(zob)
    undo[ply, UN_EP] = state[ST_EP]
    undo[ply, UN_HALFMOVE] = state[ST_HALFMOVE]
    if state[ST_EP] != 0:
        key = _key_out(key, zob[Z_EP + (state[ST_EP] - 21) % 10], additive)
        state[ST_EP] = 0
    state[ST_HALFMOVE] += 1
    us = state[ST_SIDE]
    state[ST_SIDE] = 1 - us
    keys[ply + 1] = _pass_turn(key, zob, us, additive)
    state[ST_PLY] = ply + 1


@njit("void(int64[::1], int64[:, ::1])", cache=True, nogil=True, _nrt=False)
def unmake_null(state, undo):
    """Take back a null move."""
    ply = state[ST_PLY] - 1
    state[ST_EP] = undo[ply, UN_EP]
    state[ST_HALFMOVE] = undo[ply, UN_HALFMOVE]
    state[ST_SIDE] = 1 - state[ST_SIDE]
    state[ST_PLY] = ply


@njit("boolean(int64[::1], uint64[::1], int64)", cache=True, nogil=True, _nrt=False)
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


@njit("void(int8[::1], int64[::1], int32[:, :, ::1])", cache=True, nogil=True, _nrt=False)
def refresh_sums(board, state, psq):
    """Recompute the evaluation sums of ``state`` from scratch for the table ``psq``."""
    state[ST_MG] = 0
    state[ST_EG] = 0
    state[ST_PHASE] = 0
    for sq in range(21, 99):
        piece = board[sq]
        if piece > 0:
            state[ST_MG] += psq[piece, sq, 0]
            state[ST_EG] += psq[piece, sq, 1]
            state[ST_PHASE] += psq[piece, sq, 2]


EMPTY_PSQ = np.zeros((16, 120, 3), dtype=np.int32)  # the table a Position makes moves with: no evaluation
