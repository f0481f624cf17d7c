"""Alpha-beta search with a transposition table (numba), driven by iterative deepening (Python).

``negamax`` is one recursive compiled function: depth > 0 runs principal
variation search, depth <= 0 runs the quiescence search.  Both live in one
function because a cached jitted function that calls another cached *recursive*
one can crash in a later process (NUMBA.md, trap 1); Python calls ``negamax``
directly, once per iteration.

At each node, in order:

1. draws (twofold repetition from the key history, fifty-move rule) and
   mate-distance pruning;
2. the table probe: an entry at least as deep as the search cuts off when its
   bound allows it (exact; lower >= beta; upper <= alpha) - the seed lecture's
   pseudocode - at non-PV nodes; its move is ordered first in any case, but only
   if it is among the generated legal moves, so a crash cannot play an illegal move;
3. check extension, reverse futility and null-move pruning;
4. the moves, best-first by :mod:`transpo.engine.ordering`, searched with a null
   window after the first (PVS) and reduced when late and quiet (LMR);
5. the result is stored with its bound type and, for mates, a node-relative score.

Search state travels in arrays (``ctl``: stop flag, node limit, counters and the
root moves excluded for MultiPV; killers, history and the PV triangle), so the
Python side can read it, stop it from another thread (``nogil``) and reuse it.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from transpo.core.board import (
    BISHOP,
    KNIGHT,
    MAX_MOVES,
    MAX_PLY,
    PAWN,
    QUEEN,
    ROOK,
    ST_COUNT,
    ST_HALFMOVE,
    ST_PLY,
    ST_SIDE,
)
from transpo.core.keys import compute_key
from transpo.core.makemove import is_repetition, make_move, make_null, unmake_move, unmake_null
from transpo.core.movegen import generate_moves, in_check, is_attacked
from transpo.engine.evaluate import evaluate
from transpo.engine.ordering import PIECE_VALUE, pick_next, record_quiet_cutoff, score_moves
from transpo.engine.table import (
    BOUND_EXACT,
    BOUND_LOWER,
    BOUND_UPPER,
    MATE,
    TI_AUDIT,
    TI_CUTOFFS,
    TI_ENABLED,
    data_bound,
    data_depth,
    data_move,
    data_score,
    from_tt,
    probe,
    store,
    to_tt,
)

INF = 32000

# ctl[] slots
CTL_STOP = 0  # set to 1 (by another thread) to stop the search
CTL_NODE_LIMIT = 1  # stop after this many nodes
CTL_NODES = 2  # nodes searched
CTL_SELDEPTH = 3  # deepest ply reached
CTL_ABORTED = 4  # 1 once the search has stopped; results of the iteration are then partial
CTL_EXCLUDED_COUNT = 5  # number of root moves excluded (MultiPV)
CTL_EXCLUDED = 8  # ctl[CTL_EXCLUDED:CTL_EXCLUDED + count]: excluded root moves
CTL_SIZE = CTL_EXCLUDED + MAX_MOVES

CHECK_EVERY = 1023  # nodes between looks at the stop flag (mask)


def _lmr_table() -> np.ndarray:
    """LMR_REDUCTION[depth, moves_searched]: plies to reduce a late quiet move."""
    table = np.zeros((64, 64), dtype=np.int64)
    for d in range(1, 64):
        for m in range(1, 64):
            table[d, m] = int(0.75 + math.log(d) * math.log(m) / 2.25)
    return table


LMR_REDUCTION = _lmr_table()
FUTILITY_MARGIN = 100
RFP_MARGIN = 80
DELTA_MARGIN = 200
EVEN_TRADE = 50  # bishop for knight is an even trade, not a losing capture


@njit(cache=True, inline="always")
def _has_pieces(state, us):
    base = ST_COUNT + (us << 3)
    return state[base + KNIGHT] + state[base + BISHOP] + state[base + ROOK] + state[base + QUEEN] > 0


@njit(cache=True, inline="always")
def _excluded(ctl, move):
    for i in range(ctl[CTL_EXCLUDED_COUNT]):
        if ctl[CTL_EXCLUDED + i] == move:
            return True
    return False


@njit(
    "int64(int8[::1], int64[::1], uint64[::1], int32[:, ::1], uint64[::1], int32[:, :, ::1],"
    " uint64[::1], int64[::1], uint64[::1], uint64[::1],"
    " int32[::1], int32[::1], int32[::1], int32[:, ::1], int32[::1], int32[:, ::1], int32[::1], int64[::1],"
    " int64, int64, int64, int64, boolean)",
    cache=True,
    nogil=True,
    _nrt=False,  # no reference counting of the many array arguments (see core/movegen.py)
)
def negamax(
    board, state, keys, undo, zob, psq,
    tt, tti, check, check_zob,
    moves, scores, quiets, killers, history, pv, pv_len, ctl,
    depth, alpha, beta, ply, do_null,
):  # fmt: skip
    """Score of the position for the side to move within (alpha, beta), searching ``depth`` plies."""
    # Typed, non-literal booleans for the recursive calls: a literal True/False there
    # compiles a second, literal-specialised negamax that a warm cache cannot resolve.
    allow_null = ply >= 0
    forbid_null = not allow_null
    pv_len[ply] = 0
    ctl[CTL_NODES] += 1
    if (ctl[CTL_NODES] & CHECK_EVERY) == 0 and (ctl[CTL_STOP] != 0 or ctl[CTL_NODES] >= ctl[CTL_NODE_LIMIT]):
        ctl[CTL_ABORTED] = 1
    if ctl[CTL_ABORTED] != 0:
        return 0
    if ply > ctl[CTL_SELDEPTH]:
        ctl[CTL_SELDEPTH] = ply
    checked = in_check(board, state)
    if ply >= MAX_PLY:
        return evaluate(state)
    start = ply * MAX_MOVES

    # --- quiescence search: captures and promotions (all evasions when in check) ---
    if depth <= 0 and not checked:
        best = evaluate(state)  # stand pat
        if best >= beta:
            return best
        if best > alpha:
            alpha = best
        end = generate_moves(board, state, moves, start, True)
        score_moves(board, moves, scores, start, end, 0, killers, ply, history)
        for i in range(start, end):
            move = pick_next(moves, scores, i, end)
            promo = (move >> 14) & 7
            if promo == 0:
                to = (move >> 7) & 127
                victim = PIECE_VALUE[PAWN if (move >> 17) & 4 else board[to] & 7]
                if best + victim + DELTA_MARGIN < alpha:
                    continue  # delta pruning: even winning this piece cannot reach alpha
                if PIECE_VALUE[board[move & 127] & 7] > victim + EVEN_TRADE and is_attacked(board, to, 1 - state[ST_SIDE]):
                    continue  # a bigger piece takes a defended smaller one: a losing capture, skipped
            make_move(board, state, keys, undo, move, zob, psq)
            score = -negamax(
                board, state, keys, undo, zob, psq, tt, tti, check, check_zob,
                moves, scores, quiets, killers, history, pv, pv_len, ctl,
                depth - 1, -beta, -alpha, ply + 1, forbid_null,
            )  # fmt: skip
            unmake_move(board, state, undo, move)
            if ctl[CTL_ABORTED] != 0:
                return 0
            if score > best:
                best = score
                if score > alpha:
                    alpha = score
                    if score >= beta:
                        break
        return best

    root = ply == 0
    pv_node = beta - alpha > 1
    if not root:
        if is_repetition(state, keys, 1):
            return 0
        if state[ST_HALFMOVE] >= 100:  # fifty-move draw, unless this very move mated
            if not checked or generate_moves(board, state, moves, start, False) > start:
                return 0
            return -MATE + ply
        # Mate-distance pruning: no line from here can beat a mate already found nearer the root.
        alpha = max(alpha, -MATE + ply)
        beta = min(beta, MATE - ply - 1)
        if alpha >= beta:
            return alpha

    # --- transposition table ---
    key = keys[state[ST_PLY]]
    check_key = compute_key(board, state, check_zob) if tti[TI_AUDIT] != 0 else np.uint64(0)
    hash_move = 0
    if tti[TI_ENABLED] != 0:
        w = probe(tt, tti, check, key, check_key)
        if w >= 0:
            data = tt[w + 1]
            hash_move = data_move(data)
            if not pv_node and not root and data_depth(data) >= depth:
                tt_score = from_tt(data_score(data), ply)
                bound = data_bound(data)
                if (
                    bound == BOUND_EXACT
                    or (bound == BOUND_LOWER and tt_score >= beta)
                    or (bound == BOUND_UPPER and tt_score <= alpha)
                ):
                    tti[TI_CUTOFFS] += 1
                    return tt_score

    if checked:
        depth += 1  # check extension
    static_eval = -INF if checked else evaluate(state)
    us = state[ST_SIDE]

    if not pv_node and not checked and not root:
        # Reverse futility: far above beta at low depth, assume a quiet move keeps it there.
        if depth <= 6 and static_eval - RFP_MARGIN * depth >= beta and abs(beta) < MATE - 256:
            return static_eval
        # Null move: if passing still fails high, the position is good enough to cut.
        if do_null and depth >= 3 and static_eval >= beta and _has_pieces(state, us):
            reduction = 3 + depth // 6
            make_null(state, keys, undo, zob)
            score = -negamax(
                board, state, keys, undo, zob, psq, tt, tti, check, check_zob,
                moves, scores, quiets, killers, history, pv, pv_len, ctl,
                depth - 1 - reduction, -beta, -beta + 1, ply + 1, forbid_null,
            )  # fmt: skip
            unmake_null(state, undo)
            if ctl[CTL_ABORTED] != 0:
                return 0
            if score >= beta:
                return beta if score >= MATE - 256 else score

    end = generate_moves(board, state, moves, start, False)
    if end == start:
        return -MATE + ply if checked else 0
    score_moves(board, moves, scores, start, end, hash_move, killers, ply, history)

    original_alpha = alpha
    best = -INF
    best_move = 0
    searched = 0
    quiet_count = 0
    futile = not pv_node and not checked and depth <= 3 and static_eval + FUTILITY_MARGIN * (depth + 1) <= alpha
    for i in range(start, end):
        move = pick_next(moves, scores, i, end)
        if root and _excluded(ctl, move):
            continue
        quiet = ((move >> 17) & 1) == 0 and ((move >> 14) & 7) == 0
        make_move(board, state, keys, undo, move, zob, psq)
        gives_check = in_check(board, state)
        if futile and quiet and searched > 0 and not gives_check:
            unmake_move(board, state, undo, move)
            quiets[start + quiet_count] = move
            quiet_count += 1
            continue
        new_depth = depth - 1
        if searched == 0:
            score = -negamax(
                board, state, keys, undo, zob, psq, tt, tti, check, check_zob,
                moves, scores, quiets, killers, history, pv, pv_len, ctl,
                new_depth, -beta, -alpha, ply + 1, allow_null,
            )  # fmt: skip
        else:
            reduction = 0
            if depth >= 3 and quiet and not checked and not gives_check and searched >= 2:
                reduction = LMR_REDUCTION[min(depth, 63), min(searched, 63)]
                if pv_node:
                    reduction -= 1
                reduction = max(0, min(reduction, new_depth - 1))
            score = -negamax(
                board, state, keys, undo, zob, psq, tt, tti, check, check_zob,
                moves, scores, quiets, killers, history, pv, pv_len, ctl,
                new_depth - reduction, -alpha - 1, -alpha, ply + 1, allow_null,
            )  # fmt: skip
            if score > alpha and reduction > 0:
                score = -negamax(
                    board, state, keys, undo, zob, psq, tt, tti, check, check_zob,
                    moves, scores, quiets, killers, history, pv, pv_len, ctl,
                    new_depth, -alpha - 1, -alpha, ply + 1, allow_null,
                )  # fmt: skip
            if alpha < score < beta:
                score = -negamax(
                    board, state, keys, undo, zob, psq, tt, tti, check, check_zob,
                    moves, scores, quiets, killers, history, pv, pv_len, ctl,
                    new_depth, -beta, -alpha, ply + 1, allow_null,
                )  # fmt: skip
        unmake_move(board, state, undo, move)
        if ctl[CTL_ABORTED] != 0:
            return 0
        searched += 1
        if score > best:
            best = score
            best_move = move
            if score > alpha:
                alpha = score
                pv[ply, 0] = move
                child = pv_len[ply + 1]
                for j in range(child):  # a loop, not a slice: no array views in recursive code
                    pv[ply, j + 1] = pv[ply + 1, j]
                pv_len[ply] = child + 1
                if score >= beta:
                    if quiet:
                        record_quiet_cutoff(board, move, depth, ply, killers, history, quiets, start, start + quiet_count)
                    break
        if quiet:
            quiets[start + quiet_count] = move
            quiet_count += 1

    if searched == 0:
        return alpha  # every root move excluded (MultiPV asked for more lines than moves)
    if tti[TI_ENABLED] != 0:
        if best >= beta:
            bound = BOUND_LOWER
        elif best > original_alpha:
            bound = BOUND_EXACT
        else:
            bound = BOUND_UPPER
        store(tt, tti, check, key, check_key, best_move, to_tt(best, ply), static_eval, min(max(depth, 0), 127), bound)
    return best
