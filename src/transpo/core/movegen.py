"""Legal move generation and attack detection on the 10x12 mailbox (numba).

Moves are generated straight into a flat int32 buffer and kept only when legal,
so callers never see a move that leaves their king in check.  Legality is
decided without making the move in the common cases:

* a king move is legal when the target square is not attacked with the king
  lifted off the board (so a slider's ray through the king still counts);
* any other move is legal unless its piece is pinned to the king and leaves
  the pin line - pins are found by walking the one ray from the king;
* en-passant captures and every move while in check are tried on the board
  (move, look at the king, move back), because they can open or block lines
  in ways the pin test does not cover.
"""

from __future__ import annotations

from numba import njit

from transpo.core.board import (
    BISHOP,
    BISHOP_STEPS,
    CASTLE_BK,
    CASTLE_BQ,
    CASTLE_WK,
    CASTLE_WQ,
    EMPTY,
    KING,
    KING_STEPS,
    KNIGHT,
    KNIGHT_STEPS,
    PAWN,
    QUEEN,
    RAY_STEP,
    ROOK,
    ROOK_STEPS,
    ST_CASTLE,
    ST_EP,
    ST_KING,
    ST_SIDE,
)
from transpo.core.moves import FLAG_CAPTURE, FLAG_CASTLE, FLAG_DOUBLE, FLAG_EP, encode


@njit("boolean(int8[::1], int64, int64)", cache=True, nogil=True)
def is_attacked(board, sq, by):
    """True if side ``by`` attacks square ``sq`` (pieces as they stand)."""
    base = by << 3
    # Pawns: a white pawn attacks upward, so look one rank below sq for it.
    if by == 0:
        if board[sq - 9] == base | PAWN or board[sq - 11] == base | PAWN:
            return True
    else:
        if board[sq + 9] == base | PAWN or board[sq + 11] == base | PAWN:
            return True
    for i in range(8):
        if board[sq + KNIGHT_STEPS[i]] == base | KNIGHT:
            return True
        if board[sq + KING_STEPS[i]] == base | KING:
            return True
    for i in range(4):
        step = BISHOP_STEPS[i]
        t = sq + step
        while board[t] == EMPTY:
            t += step
        p = board[t]
        if p == base | BISHOP or p == base | QUEEN:
            return True
        step = ROOK_STEPS[i]
        t = sq + step
        while board[t] == EMPTY:
            t += step
        p = board[t]
        if p == base | ROOK or p == base | QUEEN:
            return True
    return False


@njit("boolean(int8[::1], int64[::1])", cache=True, nogil=True)
def in_check(board, state):
    """True if the side to move is in check."""
    us = state[ST_SIDE]
    return is_attacked(board, state[ST_KING + us], 1 - us)


@njit(cache=True, nogil=True, inline="always")
def _pinned_off_line(board, king, frm, to, us):
    """True if the piece on ``frm`` is pinned to ``king`` and ``to`` leaves the pin line."""
    step = RAY_STEP[frm - king + 119]
    if step == 0 or RAY_STEP[to - king + 119] == step:
        return False
    t = king + step
    while board[t] == EMPTY:
        t += step
    if t != frm:
        return False  # something stands between the king and the piece
    t += step
    while board[t] == EMPTY:
        t += step
    p = board[t]
    if p <= 0 or (p >> 3) == us:
        return False
    kind = p & 7
    if kind == QUEEN:
        return True
    diagonal = step == 9 or step == 11 or step == -9 or step == -11
    return kind == (BISHOP if diagonal else ROOK)


@njit(cache=True, nogil=True, inline="always")
def _safe_after(board, us, king, frm, to, captured_sq):
    """Try a move on the board: is the king safe afterwards?  The board is restored."""
    moving = board[frm]
    captured = board[captured_sq]
    board[captured_sq] = EMPTY
    board[frm] = EMPTY
    board[to] = moving
    ksq = to if (moving & 7) == KING else king
    safe = not is_attacked(board, ksq, 1 - us)
    board[to] = EMPTY
    board[frm] = moving
    board[captured_sq] = captured
    return safe


@njit(cache=True, nogil=True, inline="always")
def _legal(board, us, king, checked, frm, to, flags):
    if checked or (flags & FLAG_EP):
        cap_sq = to
        if flags & FLAG_EP:
            cap_sq = to - 10 if us == 0 else to + 10
        return _safe_after(board, us, king, frm, to, cap_sq)
    if frm == king:
        board[king] = EMPTY
        safe = not is_attacked(board, to, 1 - us)
        board[king] = (us << 3) | KING
        return safe
    return not _pinned_off_line(board, king, frm, to, us)


@njit(cache=True, nogil=True, inline="always")
def _push(board, us, king, checked, out, n, frm, to, promo, flags):
    if _legal(board, us, king, checked, frm, to, flags):
        out[n] = encode(frm, to, promo, flags)
        return n + 1
    return n


@njit(cache=True, nogil=True, inline="always")
def _push_pawn(board, us, king, checked, out, n, frm, to, flags, noisy_only):
    """Add a pawn move; a move to the last rank becomes four promotions."""
    last_rank = to >= 91 if us == 0 else to <= 28
    if last_rank:
        if not _legal(board, us, king, checked, frm, to, flags):
            return n
        for promo in (QUEEN, KNIGHT, ROOK, BISHOP):
            out[n] = encode(frm, to, promo, flags)
            n += 1
        return n
    if noisy_only and not (flags & (FLAG_CAPTURE | FLAG_EP)):
        return n
    return _push(board, us, king, checked, out, n, frm, to, 0, flags)


@njit(cache=True, nogil=True, inline="always")
def _castling(board, state, us, out, n):
    """Castling moves (the caller has checked that the king is not in check)."""
    rights = state[ST_CASTLE]
    them = 1 - us
    k = 25 if us == 0 else 95  # e1 / e8
    short = CASTLE_WK if us == 0 else CASTLE_BK
    long = CASTLE_WQ if us == 0 else CASTLE_BQ
    if (rights & short) and board[k + 1] == EMPTY and board[k + 2] == EMPTY:
        if not is_attacked(board, k + 1, them) and not is_attacked(board, k + 2, them):
            out[n] = encode(k, k + 2, 0, FLAG_CASTLE)
            n += 1
    if (rights & long) and board[k - 1] == EMPTY and board[k - 2] == EMPTY and board[k - 3] == EMPTY:
        if not is_attacked(board, k - 1, them) and not is_attacked(board, k - 2, them):
            out[n] = encode(k, k - 2, 0, FLAG_CASTLE)
            n += 1
    return n


@njit("int64(int8[::1], int64[::1], int32[::1], int64, boolean)", cache=True, nogil=True)
def generate_moves(board, state, out, start, noisy_only):
    """Write the legal moves of the side to move into ``out[start:]``; return the end index.

    With ``noisy_only`` only captures and promotions are produced (quiescence
    search).  Promotions come queen first.
    """
    us = state[ST_SIDE]
    them = 1 - us
    king = state[ST_KING + us]
    checked = is_attacked(board, king, them)
    n = start
    fwd = 10 if us == 0 else -10
    for sq in range(21, 99):
        p = board[sq]
        if p <= 0 or (p >> 3) != us:
            continue
        kind = p & 7
        if kind == PAWN:
            t = sq + fwd
            if board[t] == EMPTY:
                n = _push_pawn(board, us, king, checked, out, n, sq, t, 0, noisy_only)
                start_rank = sq <= 38 if us == 0 else sq >= 81
                if start_rank and not noisy_only and board[t + fwd] == EMPTY:
                    n = _push(board, us, king, checked, out, n, sq, t + fwd, 0, FLAG_DOUBLE)
            for t in (sq + fwd - 1, sq + fwd + 1):
                q = board[t]
                if q > 0 and (q >> 3) == them:
                    n = _push_pawn(board, us, king, checked, out, n, sq, t, FLAG_CAPTURE, noisy_only)
                elif t == state[ST_EP] and q == EMPTY:
                    n = _push(board, us, king, checked, out, n, sq, t, 0, FLAG_CAPTURE | FLAG_EP)
        elif kind == KNIGHT or kind == KING:
            for i in range(8):
                t = sq + (KNIGHT_STEPS[i] if kind == KNIGHT else KING_STEPS[i])
                q = board[t]
                if q == EMPTY:
                    if not noisy_only:
                        n = _push(board, us, king, checked, out, n, sq, t, 0, 0)
                elif q > 0 and (q >> 3) == them:
                    n = _push(board, us, king, checked, out, n, sq, t, 0, FLAG_CAPTURE)
        else:
            first = 0 if kind != ROOK else 4
            last = 8 if kind == QUEEN else first + 4
            for i in range(first, last):
                step = BISHOP_STEPS[i] if i < 4 else ROOK_STEPS[i - 4]
                t = sq + step
                while board[t] == EMPTY:
                    if not noisy_only:
                        n = _push(board, us, king, checked, out, n, sq, t, 0, 0)
                    t += step
                q = board[t]
                if q > 0 and (q >> 3) == them:
                    n = _push(board, us, king, checked, out, n, sq, t, 0, FLAG_CAPTURE)
    if not checked and not noisy_only:
        n = _castling(board, state, us, out, n)
    return n


@njit("boolean(int8[::1], int64[::1], int32[::1])", cache=True, nogil=True)
def has_legal_move(board, state, scratch):
    """True if the side to move has any legal move (``scratch`` holds >= 256 int32)."""
    return generate_moves(board, state, scratch, 0, False) > 0

