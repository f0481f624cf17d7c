"""Move ordering: score every move once, then hand them out best-first by lazy selection.

Alpha-beta prunes best when the best move comes first (the seed lecture), so
each move gets a score in one pass:

    hash move                      HASH_SCORE
    captures, promotions           CAPTURE_SCORE + 64 * victim - attacker  (MVV-LVA;
                                   a promotion counts as capturing the new piece)
    first and second killer        KILLER_SCORE, KILLER_SCORE - 1
    other quiet moves              history[piece, to]  (kept below KILLER_SCORE)

``pick_next`` then swaps the best remaining move to the front, a selection
sort step: when the first move or two cut off, the rest are never sorted.
"""

from __future__ import annotations

from numba import njit

from transpo.core.board import MAX_PLY

HASH_SCORE = 1 << 30
CAPTURE_SCORE = 1 << 26
KILLER_SCORE = 1 << 25
HISTORY_MAX = 32 * 512  # fixed point of the update in _update_history; stays below KILLER_SCORE

# Victim / attacker values by piece type (index 0 unused, 6 = king).
PIECE_VALUE = (0, 100, 320, 330, 500, 900, 20000)


@njit(cache=True, inline="always")
def mvv_lva(board, move):
    """MVV-LVA score of a capture or promotion (higher: take more with less)."""
    to = (move >> 7) & 127
    victim = board[to] & 7
    if (move >> 17) & 4:  # en passant: the victim is a pawn beside the target square
        victim = 1
    promo = (move >> 14) & 7
    attacker = board[move & 127] & 7
    return 64 * (victim + promo) - attacker


@njit(
    "void(int8[::1], int32[::1], int32[::1], int64, int64, int64, int32[:, ::1], int64, int32[::1])",
    cache=True,
    nogil=True,
    _nrt=False,
)
def score_moves(board, moves, scores, start, end, hash_move, killers, ply, history):
    """Give every move in ``moves[start:end]`` its ordering score in ``scores``."""
    k1 = killers[ply, 0]
    k2 = killers[ply, 1]
    for i in range(start, end):
        m = moves[i]
        if (m & 0x1FFFF) == hash_move:
            scores[i] = HASH_SCORE
        elif (m >> 17) & 1 or (m >> 14) & 7:
            scores[i] = CAPTURE_SCORE + mvv_lva(board, m)
        elif m == k1:
            scores[i] = KILLER_SCORE
        elif m == k2:
            scores[i] = KILLER_SCORE - 1
        else:
            scores[i] = history[board[m & 127] * 120 + ((m >> 7) & 127)]


@njit(cache=True, nogil=True, inline="always")
def pick_next(moves, scores, i, end):
    """Swap the best-scored move of ``moves[i:end]`` into slot ``i`` and return it."""
    best = i
    best_score = scores[i]
    for j in range(i + 1, end):
        if scores[j] > best_score:
            best = j
            best_score = scores[j]
    if best != i:
        moves[i], moves[best] = moves[best], moves[i]
        scores[i], scores[best] = scores[best], scores[i]
    return moves[i]


@njit(cache=True, nogil=True, inline="always")
def record_quiet_cutoff(board, move, depth, ply, killers, history, tried, tried_start, tried_end):
    """A quiet move caused a beta cutoff: make it a killer, reward it, penalise the quiets tried before it."""
    if killers[ply, 0] != move:
        killers[ply, 1] = killers[ply, 0]
        killers[ply, 0] = move
    bonus = min(depth * depth, 400)
    _update_history(history, board[move & 127] * 120 + ((move >> 7) & 127), bonus)
    for i in range(tried_start, tried_end):
        other = tried[i]
        if other != move:
            _update_history(history, board[other & 127] * 120 + ((other >> 7) & 127), -bonus)


@njit(cache=True, nogil=True, inline="always")
def _update_history(history, index, bonus):
    # Gravity: the entry moves towards +-HISTORY_MAX (where bonus * 32 == h * |bonus| / 512), so old lessons fade.
    history[index] += bonus * 32 - history[index] * abs(bonus) // 512


KILLER_SHAPE = (MAX_PLY + 2, 2)
HISTORY_SIZE = 16 * 120
