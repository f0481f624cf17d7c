"""Legal move generation and attack detection on the 10x12 mailbox (numba).

Moves are generated straight into a flat int32 buffer and kept only when legal,
so callers never see a move that leaves their king in check.  Legality is
decided without making the move, from what one look out of the king finds
before the piece loop starts:

* pins: along each of the eight lines out of the king, an own piece with an
  enemy slider of the right kind behind it is pinned; a pinned piece may only
  move along that line (a pinned knight never moves);
* checks: enemy sliders, knights and pawns that attack the king.  Under a
  single check a non-king move must capture the checker or step between it and
  the king; under a double check only the king moves;
* a king move is legal when the target square is not attacked with the king
  lifted off the board (so a slider's ray through the king still counts);
* en-passant captures alone are tried on the board (move, look at the king,
  move back), because they clear two squares of a line at once.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros

from transpo.core.board import (
    BISHOP,
    BISHOP_STEPS,
    CASTLE_BK,
    CASTLE_BQ,
    CASTLE_WK,
    CASTLE_WQ,
    EMPTY,
    KING,
    KING_BB,
    KING_STEPS,
    KNIGHT,
    KNIGHT_BB,
    KNIGHT_STEPS,
    PAWN,
    QUEEN,
    RAY_BB,
    RAY_STEP,
    ROOK,
    ROOK_STEPS,
    SQ64_TO_120,
    SQ120_TO_64,
    SQUARE_BB,
    ST_CASTLE,
    ST_EP,
    ST_KING,
    ST_OCCUPIED,
    ST_SIDE,
)
from transpo.core.moves import (
    FLAG_CAPTURE,
    FLAG_CASTLE,
    FLAG_DOUBLE,
    FLAG_EP,
    encode,
    move_flags,
    move_from,
    move_promo,
    move_to,
)

# Why `_nrt=False` on the compiled functions of the core: numba's reference
# counting (NRT) makes every call of a compiled function with array arguments
# increment and decrement each array's reference count with atomic
# instructions, and its pruning pass does not remove them here.  These
# functions never allocate, so they do not need NRT; without it perft ran
# 1.5-1.8x faster.  Callers compiled with NRT call them as usual.


@njit(cache=True, nogil=True, inline="always")
def first_on_ray(direction, sq, occupied):
    """Mailbox square of the first piece of ``occupied`` along RAY_BB ``direction`` from mailbox square ``sq``, or 0.

    Directions 0-3 follow BISHOP_STEPS, 4-7 ROOK_STEPS; the nearest piece is the
    lowest bit for a positive step, the highest for a negative one.
    """
    blockers = np.uint64(RAY_BB[direction, sq]) & occupied
    if blockers == 0:
        return 0
    if direction == 2 or direction == 3 or direction == 6 or direction == 7:  # steps 9, 11, 1, 10
        return SQ64_TO_120[np.int64(trailing_zeros(blockers))]
    return SQ64_TO_120[63 - np.int64(leading_zeros(blockers))]


@njit("boolean(int8[::1], int64, int64, int64, uint64)", cache=True, nogil=True, _nrt=False)
def attacked(board, sq, by, pieces, occupied):
    """True if side ``by``, whose pieces are all in bitboard ``pieces``, attacks square ``sq``.

    ``occupied`` is the bitboard of every piece on ``board`` (exactly: the first
    of its bits along a ray is the piece that blocks it).  ``pieces`` only lets
    the test skip the knight squares, the king squares and the rays where side
    ``by`` has no piece at all; any superset of its pieces (-1: every square)
    gives the same answer, the board decides.
    """
    base = by << 3
    # Pawns: a white pawn attacks upward, so look one rank below sq for it.
    if by == 0:
        if board[sq - 9] == base | PAWN or board[sq - 11] == base | PAWN:
            return True
    else:
        if board[sq + 9] == base | PAWN or board[sq + 11] == base | PAWN:
            return True
    if KNIGHT_BB[sq] & pieces:
        for i in range(8):
            if board[sq + KNIGHT_STEPS[i]] == base | KNIGHT:
                return True
    if KING_BB[sq] & pieces:
        for i in range(8):
            if board[sq + KING_STEPS[i]] == base | KING:
                return True
    # Sliders: the first piece on each ray (first_on_ray's 0 is an off-board square: no piece).
    for i in range(8):
        if RAY_BB[i, sq] & pieces:
            q = board[first_on_ray(i, sq, occupied)]
            if q == base | QUEEN or q == base | (BISHOP if i < 4 else ROOK):
                return True
    return False


@njit("uint64(int8[::1])", cache=True, nogil=True, _nrt=False)
def occupancy(board):
    """Bitboard of every piece on ``board`` (bit 8 * rank + file), counted square by square."""
    bits = np.uint64(0)
    for sq in SQ64_TO_120:
        if board[sq] > EMPTY:
            bits |= np.uint64(SQUARE_BB[sq])
    return bits


@njit("boolean(int8[::1], int64, int64)", cache=True, nogil=True, _nrt=False)
def is_attacked(board, sq, by):
    """True if side ``by`` attacks square ``sq`` (pieces as they stand; slower than :func:`attacked`)."""
    return attacked(board, sq, by, -1, occupancy(board))


@njit("boolean(int8[::1], int64[::1])", cache=True, nogil=True, _nrt=False)
def in_check(board, state):
    """True if the side to move is in check."""
    us = state[ST_SIDE]
    enemies = state[ST_OCCUPIED + 1 - us]
    occupied = np.uint64(enemies) | np.uint64(state[ST_OCCUPIED + us])
    return attacked(board, state[ST_KING + us], 1 - us, enemies, occupied)


@njit(cache=True, nogil=True, inline="always")
def _first_beyond(board, sq, step):
    """The first square after ``sq`` along ``step`` that is not empty (a piece, or the border)."""
    sq += step
    while board[sq] == EMPTY:
        sq += step
    return sq


@njit(cache=True, nogil=True, inline="always")
def may_give_check(board, state, move):
    """False when the legal ``move`` of the side to move surely gives no check, True when it may.

    A filter that saves making a move only to learn that it gives no check (the
    search prunes such moves near the leaves).  A "may" is a check but for two
    cases, which the filter leaves to the caller's test: castling, en passant and
    promotions always may; a piece leaving a line between the enemy king and its
    own slider may even when it moves along that line.  RAY_STEP also lines up
    squares through the border; the walks from the king stop at the border, so a
    "no" is always right.
    """
    if move_flags(move) & (FLAG_CASTLE | FLAG_EP) or move_promo(move):
        return True
    frm = move_from(move)
    to = move_to(move)
    us = state[ST_SIDE]
    king = state[ST_KING + 1 - us]
    line = RAY_STEP[frm - king + 119]  # the step from the king towards the square the piece leaves
    if line != 0 and _first_beyond(board, king, line) == frm:
        behind = board[_first_beyond(board, frm, line)]  # what the king sees once the piece is gone
        diagonal_line = line == 9 or line == -9 or line == 11 or line == -11
        if behind == (us << 3) | QUEEN or behind == (us << 3) | (BISHOP if diagonal_line else ROOK):
            return True  # a discovered check
    kind = board[frm] & 7
    if kind == PAWN:
        ahead = to + (10 if us == 0 else -10)
        return king == ahead - 1 or king == ahead + 1
    if kind == KNIGHT:
        return (KNIGHT_BB[to] & SQUARE_BB[king]) != 0
    if kind == KING:
        return False
    step = RAY_STEP[to - king + 119]
    if step == 0:
        return False
    diagonal = step == 9 or step == -9 or step == 11 or step == -11
    if (kind == BISHOP and not diagonal) or (kind == ROOK and diagonal):
        return False
    sq = king + step  # the squares between the king and the target must be empty once the piece has left
    while sq != to and (board[sq] == EMPTY or sq == frm):
        sq += step
    return sq == to


# A plain compiled function, not inline="always": numba's own inlining of a
# helper at seven call sites costs compile time, while LLVM inlines this small
# function anyway (same speed, measured).
@njit("boolean(int64, int64, int64, int64)", cache=True, nogil=True)
def _evades(to, king, check_sq, check_step):
    """Under a single check: does a non-king move to ``to`` capture the checker or block it?

    ``check_step`` is the step from the king towards a checking slider (0 for a
    knight or pawn).  ``to`` blocks when it lies on that line and the checker
    lies further along it; RAY_STEP keys both tests by the square difference.
    """
    if to == check_sq:
        return True
    return (
        check_step != 0
        and RAY_STEP[to - king + 119] == check_step
        and RAY_STEP[check_sq - to + 119] == check_step
    )


@njit(cache=True, nogil=True, inline="always")
def _ep_is_safe(board, us, king, frm, to, occupied, enemies):
    """Try an en-passant capture on the board: is the king safe afterwards?  The board is restored.

    ``occupied`` and ``enemies`` are the bitboards before the capture; the test
    sees them as they are after it (the two pawns gone from their squares, ours on ``to``).
    """
    cap_sq = to - 10 if us == 0 else to + 10
    captured_bit = np.uint64(SQUARE_BB[cap_sq])
    after = (occupied & ~(np.uint64(SQUARE_BB[frm]) | captured_bit)) | np.uint64(SQUARE_BB[to])
    moving = board[frm]
    captured = board[cap_sq]
    board[cap_sq] = EMPTY
    board[frm] = EMPTY
    board[to] = moving
    safe = not attacked(board, king, 1 - us, np.int64(enemies & ~captured_bit), after)
    board[to] = EMPTY
    board[frm] = moving
    board[cap_sq] = captured
    return safe


@njit(cache=True, nogil=True, inline="always")
def _castling(board, state, us, out, n):
    """Castling moves (the caller has checked that the king is not in check)."""
    rights = state[ST_CASTLE]
    them = 1 - us
    k = 25 if us == 0 else 95  # e1 / e8
    short = CASTLE_WK if us == 0 else CASTLE_BK
    long = CASTLE_WQ if us == 0 else CASTLE_BQ
    enemies = state[ST_OCCUPIED + them]
    occupied = np.uint64(enemies) | np.uint64(state[ST_OCCUPIED + us])
    if (rights & short) and board[k + 1] == EMPTY and board[k + 2] == EMPTY:
        if not attacked(board, k + 1, them, enemies, occupied) and not attacked(board, k + 2, them, enemies, occupied):
            out[n] = encode(k, k + 2, 0, FLAG_CASTLE)
            n += 1
    if (rights & long) and board[k - 1] == EMPTY and board[k - 2] == EMPTY and board[k - 3] == EMPTY:
        if not attacked(board, k - 1, them, enemies, occupied) and not attacked(board, k - 2, them, enemies, occupied):
            out[n] = encode(k, k - 2, 0, FLAG_CASTLE)
            n += 1
    return n


@njit("int64(int8[::1], int64[::1], int32[::1], int64, boolean)", cache=True, nogil=True, _nrt=False)
def generate_moves(board, state, out, start, noisy_only):
    """Write the legal moves of the side to move into ``out[start:]``; return the end index.

    With ``noisy_only`` only captures and promotions are produced (quiescence
    search).  Promotions come queen first.
    """
    us = state[ST_SIDE]
    them = 1 - us
    king = state[ST_KING + us]
    fwd = 10 if us == 0 else -10
    enemy = them << 3

    # --- one look out of the king: checkers and pinned pieces ----------------
    friends = np.uint64(state[ST_OCCUPIED + us])
    enemies = np.uint64(state[ST_OCCUPIED + them])
    occupied = friends | enemies
    checkers = 0
    check_sq = 0  # the (last found) checker
    check_step = 0  # step from the king towards a checking slider, 0 for knight/pawn
    pinned = 0  # bit SQ120_TO_64[sq] set for each pinned own piece
    for i in range(8):  # the first piece on each ray out of the king, and the one behind it, by bit scans
        t = first_on_ray(i, king, occupied)
        if t == 0:
            continue  # nothing up to the border
        slider = BISHOP if i < 4 else ROOK
        p = board[t]
        if (p >> 3) == them:
            if (p & 7) == slider or (p & 7) == QUEEN:
                checkers += 1
                check_sq = t
                check_step = BISHOP_STEPS[i] if i < 4 else ROOK_STEPS[i - 4]
        else:
            q = board[first_on_ray(i, t, occupied)]  # square 0 (nothing behind) is OFF: no pinner
            if enemy < q <= enemy + 6 and ((q & 7) == slider or (q & 7) == QUEEN):
                pinned |= 1 << SQ120_TO_64[t]
    for i in range(8):
        if board[king + KNIGHT_STEPS[i]] == enemy | KNIGHT:
            checkers += 1
            check_sq = king + KNIGHT_STEPS[i]
            check_step = 0
    # An enemy pawn attacks the king from one rank "ahead" of it (seen from us).
    for t in (king + fwd - 1, king + fwd + 1):
        if board[t] == enemy | PAWN:
            checkers += 1
            check_sq = t
            check_step = 0
    checked = checkers > 0

    # --- the pieces, in square order ------------------------------------------
    # The side's bitboard, lowest bit first, visits its pieces in mailbox order
    # (a1 = bit 0 = square 21 upwards), so the moves come out in the same order
    # as a scan of the board would give, without looking at the empty squares.
    n = start
    ep = state[ST_EP]
    rest = friends
    while rest != 0:
        sq = SQ64_TO_120[np.int64(trailing_zeros(rest))]
        rest &= rest - np.uint64(1)
        p = board[sq]
        kind = p & 7
        if kind == KING:
            # Lift the king so that a slider checking along a line also covers
            # the square behind the king.
            board[sq] = EMPTY
            lifted = occupied & ~np.uint64(SQUARE_BB[sq])
            targets = np.uint64(KING_BB[sq]) & (enemies if noisy_only else ~friends)
            while targets != 0:  # ascending squares: the order of KING_STEPS
                b = np.int64(trailing_zeros(targets))
                targets &= targets - np.uint64(1)
                t = SQ64_TO_120[b]
                if not attacked(board, t, them, state[ST_OCCUPIED + them], lifted):
                    out[n] = encode(sq, t, 0, FLAG_CAPTURE if (enemies >> np.uint64(b)) & np.uint64(1) else 0)
                    n += 1
            board[sq] = p
            continue
        if checkers >= 2:
            continue  # double check: only the king can move
        # pin: the line (step from the king) this piece must stay on, or 0.
        pin = 0
        if pinned != 0 and (pinned >> SQ120_TO_64[sq]) & 1:
            pin = RAY_STEP[sq - king + 119]
        if kind == PAWN:
            last_rank = sq + fwd >= 91 if us == 0 else sq + fwd <= 28
            t = sq + fwd
            if board[t] == EMPTY and (pin == 0 or pin == fwd or pin == -fwd):
                if not checked or _evades(t, king, check_sq, check_step):
                    if last_rank:
                        for promo in (QUEEN, KNIGHT, ROOK, BISHOP):
                            out[n] = encode(sq, t, promo, 0)
                            n += 1
                    elif not noisy_only:
                        out[n] = encode(sq, t, 0, 0)
                        n += 1
                start_rank = sq <= 38 if us == 0 else sq >= 81
                if start_rank and not noisy_only and board[t + fwd] == EMPTY:
                    if not checked or _evades(t + fwd, king, check_sq, check_step):
                        out[n] = encode(sq, t + fwd, 0, FLAG_DOUBLE)
                        n += 1
            for d in (fwd - 1, fwd + 1):
                t = sq + d
                q = board[t]
                if enemy < q <= enemy + 6:
                    if (pin == 0 or pin == d or pin == -d) and (
                        not checked or _evades(t, king, check_sq, check_step)
                    ):
                        if last_rank:
                            for promo in (QUEEN, KNIGHT, ROOK, BISHOP):
                                out[n] = encode(sq, t, promo, FLAG_CAPTURE)
                                n += 1
                        else:
                            out[n] = encode(sq, t, 0, FLAG_CAPTURE)
                            n += 1
                elif t == ep and q == EMPTY:
                    if _ep_is_safe(board, us, king, sq, t, occupied, enemies):
                        out[n] = encode(sq, t, 0, FLAG_CAPTURE | FLAG_EP)
                        n += 1
        elif kind == KNIGHT:
            if pin != 0:
                continue  # a pinned knight cannot stay on its line
            targets = np.uint64(KNIGHT_BB[sq]) & (enemies if noisy_only else ~friends)
            while targets != 0:  # ascending squares: the order of KNIGHT_STEPS
                b = np.int64(trailing_zeros(targets))
                targets &= targets - np.uint64(1)
                t = SQ64_TO_120[b]
                if not checked or _evades(t, king, check_sq, check_step):
                    out[n] = encode(sq, t, 0, FLAG_CAPTURE if (enemies >> np.uint64(b)) & np.uint64(1) else 0)
                    n += 1
        else:
            # Bishop steps are 0-3, rook steps 4-7; a queen uses all eight.
            first = 0 if kind != ROOK else 4
            last = 8 if kind == QUEEN else first + 4
            for i in range(first, last):
                step = BISHOP_STEPS[i] if i < 4 else ROOK_STEPS[i - 4]
                if pin != 0 and step != pin and step != -pin:
                    continue
                if noisy_only:  # only the first piece on the ray matters: found by bits, not by a walk
                    t = first_on_ray(i, sq, occupied)
                    q = board[t]
                    if enemy < q <= enemy + 6 and (not checked or _evades(t, king, check_sq, check_step)):
                        out[n] = encode(sq, t, 0, FLAG_CAPTURE)
                        n += 1
                    continue
                t = sq + step
                while board[t] == EMPTY:
                    if not noisy_only and (not checked or _evades(t, king, check_sq, check_step)):
                        out[n] = encode(sq, t, 0, 0)
                        n += 1
                    t += step
                q = board[t]
                if enemy < q <= enemy + 6 and (not checked or _evades(t, king, check_sq, check_step)):
                    out[n] = encode(sq, t, 0, FLAG_CAPTURE)
                    n += 1
    if not checked and not noisy_only:
        n = _castling(board, state, us, out, n)
    return n
