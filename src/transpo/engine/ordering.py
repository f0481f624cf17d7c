"""Move ordering: score every move once, then hand them out best-first by lazy selection.

Alpha-beta prunes best when the best move comes first (Eppstein's lecture on
hashing and move ordering, 1997; docs/REFERENCES.md), so each move gets a
score in one pass:

    hash move                      HASH_SCORE
    captures, promotions           CAPTURE_SCORE + 64 * victim - attacker  (MVV-LVA;
                                   a promotion counts as capturing the new piece)
    first and second killer        KILLER_SCORE, KILLER_SCORE - 1
    counter move                   COUNTER_SCORE  (the quiet move that last refuted the opponent's
                                   previous move, by that move's piece and to-square)
    other quiet moves              history[piece, to] + the continuation histories of the
                                   move one and two plies before (each within +-HISTORY_MAX)
    losing captures                BAD_CAPTURE_SCORE + MVV-LVA  (the exchange on the square,
                                   :mod:`transpo.engine.see`, loses more than LOSING_MARGIN)

``pick_next`` then swaps the best remaining move to the front, a selection
sort step: when the first move or two cut off, the rest are never sorted.

The exchange test of a capture (SEE, the costly part of scoring) is put off
until ``pick_next`` is about to hand that capture out: ``score_moves`` gives
every capture its good-capture score, and when one turns out to lose it is
demoted to its losing score and the pick is done again.  A deferred score is
never below the true one, and a capture is only handed out with its true
score, so the moves come out in exactly the order eager scoring gives (the
first-found best, ties included), while the captures after a cutoff are
never tested at all.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types

from transpo.core.board import PAWN, SQ120_TO_64
from transpo.core.moves import FLAG_CAPTURE, FLAG_EP, MOVE_ID_MASK, move_flags, move_from, move_promo, move_to
from transpo.engine.scratch import SCRATCH_TYPE
from transpo.engine.see import see_ge

HASH_SCORE = 1 << 30
CAPTURE_SCORE = 1 << 26
KILLER_SCORE = 1 << 25
COUNTER_SCORE = KILLER_SCORE - 2
BAD_CAPTURE_SCORE = -(1 << 24)  # below every quiet move: the history stays within +-HISTORY_MAX
LOSING_MARGIN = 50  # a capture that loses no more than this (bishop for knight) is an even trade
VICTIM_WEIGHT = 64  # MVV-LVA: any victim outweighs every attacker (piece types 1..6)

# History: a cutoff adds bonus * HISTORY_MAX / HISTORY_GRAVITY and takes away h * |bonus| / HISTORY_GRAVITY,
# so an entry drifts towards +-HISTORY_MAX (where the two balance) and old lessons fade.
HISTORY_GRAVITY = 512
HISTORY_MAX = 32 * HISTORY_GRAVITY  # stays below KILLER_SCORE
MAX_HISTORY_BONUS = 400  # depth * depth, capped

# Victim / attacker values by piece type (index 0 unused, 6 = king).
PIECE_VALUE = (0, 100, 320, 330, 500, 900, 20000)


@njit(cache=True, inline="always")
def history_index(board, move):
    """The history slot of a quiet move: moving piece code x to-square (0..63, a1 = 0); never 0 (no piece)."""
    return board[move_from(move)] * 64 + SQ120_TO_64[move_to(move)]


@njit(cache=True, inline="always")
def mvv_lva(board, move):
    """MVV-LVA score of a capture or promotion (higher: take more with less)."""
    victim = board[move_to(move)] & 7
    if move_flags(move) & FLAG_EP:  # en passant: the victim is a pawn beside the target square
        victim = PAWN
    attacker = board[move_from(move)] & 7
    return VICTIM_WEIGHT * (victim + move_promo(move)) - attacker


@njit(cache=True, inline="always")
def _not_losing(board, state, move):
    """A capture or promotion that does not lose more than LOSING_MARGIN by the exchange (SEE only when it might)."""
    victim = PAWN if move_flags(move) & FLAG_EP else board[move_to(move)] & 7
    if move_promo(move) or PIECE_VALUE[board[move_from(move)] & 7] <= PIECE_VALUE[victim] + LOSING_MARGIN:
        return True
    return see_ge(board, state, move, -LOSING_MARGIN)


@njit(cache=True, nogil=True, inline="always")
def _previous_moves(sc, ply):
    """Continuation-history rows of the moves one and two plies back (row 0: none, or a null move)."""
    before1 = sc.played[ply - 1] if ply >= 1 else 0
    before2 = sc.played[ply - 2] if ply >= 2 else 0
    return before1, before2


@njit(
    types.void(types.int8[::1], SCRATCH_TYPE, types.int64, types.int64, types.int64, types.int64, types.int64),
    cache=True,
    nogil=True,
    _nrt=False,
)
def score_moves(board, sc, start, end, hash_move, ply, counter_move):
    """Give every move in ``sc.moves[start:end]`` its ordering score in ``sc.scores``."""
    moves = sc.moves
    scores = sc.scores
    k1 = sc.killers[ply, 0]
    k2 = sc.killers[ply, 1]
    before1, before2 = _previous_moves(sc, ply)
    for i in range(start, end):
        m = moves[i]
        if (m & MOVE_ID_MASK) == hash_move:
            scores[i] = HASH_SCORE
        elif move_flags(m) & FLAG_CAPTURE or move_promo(m):
            scores[i] = CAPTURE_SCORE + mvv_lva(board, m)  # tested by pick_next when picked (module docstring)
        elif m == k1:
            scores[i] = KILLER_SCORE
        elif m == k2:
            scores[i] = KILLER_SCORE - 1
        elif m == counter_move:
            scores[i] = COUNTER_SCORE
        else:
            index = history_index(board, m)
            scores[i] = sc.history[index] + sc.continuation[before1, index] + sc.continuation[before2, index]


@njit(cache=True, nogil=True, inline="always")
def _best_index(scores, i, end):
    """Index of the first highest score in ``scores[i:end]``."""
    best = i
    best_score = scores[i]
    for j in range(i + 1, end):
        if scores[j] > best_score:
            best = j
            best_score = scores[j]
    return best


@njit(cache=True, nogil=True, inline="always")
def pick_next(board, state, moves, scores, i, end):
    """Swap the best-scored move of ``moves[i:end]`` into slot ``i`` and return it.

    A capture picked with its deferred good-capture score is tested first; if it
    loses, it gets its losing score and the pick is repeated (module docstring).
    """
    best = _best_index(scores, i, end)
    while CAPTURE_SCORE <= scores[best] < HASH_SCORE and not _not_losing(board, state, moves[best]):
        scores[best] += BAD_CAPTURE_SCORE - CAPTURE_SCORE
        best = _best_index(scores, i, end)
    if best != i:
        moves[i], moves[best] = moves[best], moves[i]
        scores[i], scores[best] = scores[best], scores[i]
    return moves[i]


@njit(cache=True, nogil=True, inline="always")
def record_quiet_cutoff(board, sc, move, depth, ply, tried_start, tried_end):
    """A quiet move caused a beta cutoff: make it a killer and the counter move of the previous move,
    reward it, penalise the quiets tried before it."""
    if ply > 0 and sc.played[ply - 1] != 0:
        sc.counter[sc.played[ply - 1]] = move
    killers = sc.killers
    if killers[ply, 0] != move:
        killers[ply, 1] = killers[ply, 0]
        killers[ply, 0] = move
    bonus = min(depth * depth, MAX_HISTORY_BONUS)
    before1, before2 = _previous_moves(sc, ply)
    _reward(board, sc, move, bonus, before1, before2)
    for i in range(tried_start, tried_end):
        other = sc.quiets[i]
        if other != move:
            _reward(board, sc, other, -bonus, before1, before2)


@njit(cache=True, nogil=True, inline="always")
def _reward(board, sc, move, bonus, before1, before2):
    """Add ``bonus`` (negative: a malus) to a quiet move's history and its continuation histories."""
    index = history_index(board, move)
    sc.history[index] = _aged(sc.history[index], bonus)
    if before1 != 0:
        sc.continuation[before1, index] = _aged(sc.continuation[before1, index], bonus)
    if before2 != 0:
        sc.continuation[before2, index] = _aged(sc.continuation[before2, index], bonus)


@njit(cache=True, nogil=True, inline="always")
def _aged(value, bonus):
    """A history value after a bonus: it drifts towards +-HISTORY_MAX, where bonus and ageing balance."""
    value = np.int64(value)
    return value + bonus * (HISTORY_MAX // HISTORY_GRAVITY) - value * abs(bonus) // HISTORY_GRAVITY
