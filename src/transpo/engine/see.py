"""Static exchange evaluation: does a move win at least ``threshold`` centipawns on its square?

Both sides capture on the move's target square, each time with their least
valuable attacker, and either side may stop when going on would lose; the
exchange's value is what the side to move ends up with.  :func:`see_ge` answers
only "is it at least ``threshold``", which needs no list of gains: it keeps one
running balance and flips a result bit per capture (the form Stockfish uses).

On the mailbox board a piece taken off the square is not erased but *marked*
(its code plus ``MARK``); the ray scans treat marked squares as empty, so a
slider behind a piece that has captured (an x-ray: the rook behind the rook,
the bishop behind the queen) joins the exchange in its turn.  Every mark is
undone before returning: the marked squares are kept 7 bits each in one int64
(``MARKS_KEPT`` of them; a longer exchange is undone by a scan of the board), so
the function allocates nothing.  Pins are ignored, as usual for SEE.
"""

from __future__ import annotations

from numba import njit

from transpo.core.board import (
    BISHOP,
    BISHOP_STEPS,
    KING,
    KING_STEPS,
    KNIGHT,
    KNIGHT_STEPS,
    PAWN,
    QUEEN,
    ROOK,
    ROOK_STEPS,
)
from transpo.core.moves import FLAG_CASTLE, FLAG_EP, move_flags, move_from, move_promo, move_to

SEE_VALUE = (0, 100, 320, 330, 500, 900, 20000)  # by piece type (index 0 unused, 6 = king)
MARK = 16  # added to a piece code while the piece is off the exchange square's board (codes are 1..14)
SQUARE_BITS = 7
MARKS_KEPT = 9  # 9 x 7 bits fit in an int64


@njit(cache=True, inline="always")
def _open(piece):
    """An empty square for the ray scans: really empty, or a piece already used in the exchange."""
    return piece == 0 or piece >= MARK


@njit(cache=True, inline="always")
def _least_attacker(board, to, side):
    """The square of ``side``'s least valuable piece attacking ``to`` (marked pieces excluded), or 0.

    Each of the eight rays is walked once; the first piece on it counts if it is
    the side's bishop or queen (diagonals) or rook or queen (files and ranks).
    """
    base = side << 3
    pawn = PAWN | base
    behind = -10 if side == 0 else 10  # a white pawn attacks upwards, so it stands below the square
    if board[to + behind - 1] == pawn:
        return to + behind - 1
    if board[to + behind + 1] == pawn:
        return to + behind + 1
    knight = KNIGHT | base
    for k in range(8):
        if board[to + KNIGHT_STEPS[k]] == knight:
            return to + KNIGHT_STEPS[k]
    bishop, rook, queen = BISHOP | base, ROOK | base, QUEEN | base
    rook_sq = 0
    queen_sq = 0
    for k in range(4):
        step = BISHOP_STEPS[k]
        sq = to + step
        while _open(board[sq]):
            sq += step
        if board[sq] == bishop:
            return sq
        if board[sq] == queen and queen_sq == 0:  # the first queen found, diagonals before lines
            queen_sq = sq
    for k in range(4):
        step = ROOK_STEPS[k]
        sq = to + step
        while _open(board[sq]):
            sq += step
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
        if board[to + KING_STEPS[k]] == king:
            return to + KING_STEPS[k]
    return 0


@njit("boolean(int8[::1], int64, int64)", cache=True, nogil=True, _nrt=False)
def see_ge(board, move, threshold):
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
    board[frm] += MARK
    marks = frm
    count = 1
    if captured_sq != to:
        board[captured_sq] += MARK
        marks = (marks << SQUARE_BITS) | captured_sq
        count += 1
    result = 1
    side = us
    while True:
        side = 1 - side
        sq = _least_attacker(board, to, side)
        if sq == 0:
            break
        result ^= 1
        kind = board[sq] & 7
        if kind == KING:
            if _least_attacker(board, to, 1 - side) != 0:
                result ^= 1  # the king may not take a defended piece
            break
        swap = SEE_VALUE[kind] - swap
        if swap < result:
            break
        board[sq] += MARK
        if count < MARKS_KEPT:
            marks = (marks << SQUARE_BITS) | sq
        count += 1
    if count <= MARKS_KEPT:
        for _ in range(count):
            board[marks & 127] -= MARK
            marks >>= SQUARE_BITS
    else:
        for s in range(21, 99):  # a long exchange: undo every mark by a scan
            if board[s] >= MARK:
                board[s] -= MARK
    return result == 1
