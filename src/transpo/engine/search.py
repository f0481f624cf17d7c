"""Alpha-beta search with a transposition table (numba), driven by iterative deepening (Python).

``negamax`` is one recursive compiled function: depth > 0 runs principal
variation search, depth <= 0 runs the quiescence search.  Both live in one
function because a cached jitted function that calls another cached *recursive*
one can crash in a later process (docs/NUMBA.md); Python calls ``negamax``
directly, once per iteration and aspiration window.

At each node, in order:

1. draws (twofold repetition from the key history, fifty-move rule) and
   mate-distance pruning; a draw by rule or stalemate scores minus the contempt for the root side
   (:func:`~transpo.engine.evaluate.draw_score`, as the evaluation scores a position no side can
   win), so a positive contempt plays on where a draw was there to take;
2. the table probe: an entry at least as deep as the search cuts off when its
   bound allows it (exact; lower >= beta; upper <= alpha) - the pseudocode of
   Eppstein's 1997 lecture (docs/REFERENCES.md) - at non-PV nodes; its move is ordered first in any case, but only
   if it is among the generated legal moves, so a crash cannot play an illegal move;
3. check extension, reverse futility, null-move pruning and ProbCut; reverse futility, the null
   move, futility (step 4) and quiescence's stand pat compare the static evaluation refined by the
   entry's bound (its score where the bound says the true score lies beyond the evaluation);
   singular extension of the hash move (the other moves, searched at half depth against a bar below
   its score, all fail: one ply more for it; one of them reaches a bar at or above beta: the node
   fails high at once, multi-cut; the entry alone is above beta: one ply less for it);
4. the moves, best-first by :mod:`transpo.engine.ordering`, searched with a null
   window after the first (PVS) and reduced when late and quiet (LMR);
5. the result is stored with its bound type and, for mates, a node-relative score.

The search state travels as three values: the position
(:class:`~transpo.core.board.PositionArrays`), the table
(:class:`~transpo.engine.table.TableArrays`) and one searcher's scratch
(:class:`~transpo.engine.scratch.Scratch`: move lists, killers, history, PV and
the ``ctl`` control words), so the Python side can read them, stop the search
from another thread (``nogil``) and reuse them.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, typeof, types

from transpo.core.board import (
    MAX_MOVES,
    MAX_PLY,
    PAWN,
    ST_HALFMOVE,
    ST_PLY,
    ST_SIDE,
    PositionArrays,
    new_arrays,
)
from transpo.core.keys import ZOB_SIZE
from transpo.core.makemove import is_repetition, make_move, make_null, unmake_move, unmake_null
from transpo.core.movegen import generate_moves, in_check, may_give_check
from transpo.core.moves import FLAG_EP, MOVE_ID_MASK, NO_MOVE, is_quiet, move_flags, move_promo, move_to
from transpo.engine.evaluate import LAZY_OFF, PSQ, draw_score, evaluate, evaluate_inline, has_pieces, prefetch_eval
from transpo.engine.ordering import (
    COUNTER_SCORE,
    PIECE_VALUE,
    history_index,
    pick_next,
    record_quiet_cutoff,
    score_moves,
)
from transpo.engine.scratch import (
    ARENA_TYPE,
    CTL_ABORTED,
    CTL_EXCLUDED,
    CTL_EXCLUDED_COUNT,
    CTL_NODE_LIMIT,
    CTL_NODES,
    CTL_SELDEPTH,
    CTL_STOP,
    scratch_views,
)
from transpo.engine.see import see_ge
from transpo.engine.table import (
    BOUND_EXACT,
    BOUND_LOWER,
    BOUND_NONE,
    BOUND_UPPER,
    MATE,
    MATE_BOUND,
    TABLE_TYPE,
    audit_key,
    is_enabled,
    prefetch_bucket,
    probe,
    record_cutoff,
    store,
)

INF = 32000
CHECK_EVERY = 1023  # nodes between looks at the stop flag (mask)


def _lmr_table() -> np.ndarray:
    """LMR_REDUCTION[depth, moves_searched]: plies to reduce a late quiet move.

    0.5 + ln(depth) ln(moves) / 2.5 reduces a little less than the common 0.75 + ... / 2.25,
    which cost this engine about 35 Elo in self-play (docs/STRENGTH.md).  Reducing less
    again (0.25 + ... / 2.75) gained nothing there, nor did reducing losing captures;
    a ply more after a capturing hash move lost.
    """
    table = np.zeros((64, 64), dtype=np.int64)
    for d in range(1, 64):
        for m in range(1, 64):
            table[d, m] = int(0.5 + math.log(d) * math.log(m) / 2.5)
    return table


LMR_REDUCTION = _lmr_table()
LMR_MAX_INDEX = 63
LMR_MIN_DEPTH = 3
LMR_MIN_SEARCHED = 2  # the first two moves are searched at full depth
LMR_HISTORY_DIVISOR = 16384  # a quiet move's histories (3 x +-HISTORY_MAX) shift its reduction by up to 3 plies
LMP_DEPTH = 6  # late move pruning: at this depth or less, quiet moves after the first few are not searched
IIR_DEPTH = 4  # internal iterative reduction: a node this deep with no hash move is searched one ply shallower
SINGULAR_DEPTH = 6  # singular extension: from this depth, a hash move far better than every other move is extended
SINGULAR_TT_SLACK = 3  # ... if its entry is a lower or exact bound at most this much shallower than the node
SINGULAR_MARGIN = 2  # centipawns per ply below the entry's score that the other moves must stay under
FUTILITY_MARGIN = 100
FUTILITY_DEPTH = 3
RFP_MARGIN = 80
RFP_DEPTH = 6
NULL_MIN_DEPTH = 3
DELTA_MARGIN = 200
SEE_PRUNE_DEPTH = 4
PROBCUT_DEPTH = 5  # ProbCut: from this depth, a capture that beats beta by PROBCUT_MARGIN at depth - 4 cuts
PROBCUT_MARGIN = 200
PROBCUT_REDUCTION = 4
SEE_CAPTURE_MARGIN = 100  # per ply of depth: how much a capture may lose by the exchange and still be searched
SEE_QUIET_MARGIN = 25  # per ply squared, for a quiet move that puts a piece en prise

POSITION_TYPE = typeof(PositionArrays(*new_arrays(), np.zeros(ZOB_SIZE, dtype=np.uint64), PSQ))


@njit(cache=True, inline="always")
def _excluded(ctl, move):
    for i in range(ctl[CTL_EXCLUDED_COUNT]):
        if ctl[CTL_EXCLUDED + i] == move:
            return True
    return False


@njit(cache=True, inline="always")
def _prefetch_child(pos, tt, sc):
    """Right after a move is made: start loading the table bucket and evaluation slot its search reads first."""
    key = pos.keys[pos.state[ST_PLY]]
    prefetch_bucket(tt, key)
    prefetch_eval(sc, key)


@njit(cache=True, inline="always")
def _futile_capture(board, move, best, alpha):
    """Quiescence, delta pruning: even winning this piece cannot lift the score to alpha."""
    victim = PIECE_VALUE[PAWN if move_flags(move) & FLAG_EP else board[move_to(move)] & 7]
    return best + victim + DELTA_MARGIN < alpha


@njit(cache=True, inline="always")
def _refined_eval(static_eval, bound, score):
    """The static evaluation, or a table entry's score where its bound puts the true score beyond it."""
    if abs(score) >= MATE_BOUND:
        return static_eval
    beyond = bound == BOUND_EXACT or (bound == BOUND_LOWER and score > static_eval) or (
        bound == BOUND_UPPER and score < static_eval
    )
    return score if beyond else static_eval


@njit(cache=True, inline="always")
def _decides(entry, depth, alpha, beta):
    """Whether a table entry at least as deep as the search settles the node (the bound allows it)."""
    if entry.depth < depth:
        return False
    return (
        entry.bound == BOUND_EXACT
        or (entry.bound == BOUND_LOWER and entry.score >= beta)
        or (entry.bound == BOUND_UPPER and entry.score <= alpha)
    )


@njit(cache=True, inline="always")
def _late_move_reduction(depth, searched, pv_node, improving, refutation, history):
    """Plies to take off a late quiet move, never so many that the reduced search drops below one ply.

    The table gives the base; less at PV nodes, for a killer or counter move
    and for a move with a good history; more when the position is not improving.
    """
    reduction = LMR_REDUCTION[min(depth, LMR_MAX_INDEX), min(searched, LMR_MAX_INDEX)]
    reduction -= int(pv_node) + int(refutation) - int(not improving)
    # Floor division on purpose: any negative history, however small, adds a ply. Rounding towards
    # zero instead measured -32.6 Elo (docs/STRENGTH.md, branch lmrtrunc).
    reduction -= history // LMR_HISTORY_DIVISOR
    new_depth = depth - 1
    return max(0, min(reduction, new_depth - 1))


@njit(cache=True, inline="always")
def _late_move_limit(depth, improving):
    """Late move pruning: how many moves a shallow non-PV node tries before it skips the remaining quiet ones."""
    return (3 + depth * depth) // (2 - improving)


@njit(cache=True, inline="always")
def _drop_quiets(moves, scores, first, end):
    """Late move pruning skips every quiet move from here on: drop them from ``moves[first:end]``; the new end.

    What stays are the losing captures, below every quiet move: once the quiet
    moves are gone they are picked in score order, as they would have been after
    the quiet moves' turns.  Only ties would depend on where the selection's swaps
    left each capture, so a list with two equal capture scores is kept as it is.
    """
    for a in range(first, end):
        if not is_quiet(moves[a]):
            for b in range(a + 1, end):
                if scores[b] == scores[a] and not is_quiet(moves[b]):
                    return end
    n = first
    for j in range(first, end):
        if not is_quiet(moves[j]):
            moves[n] = moves[j]
            scores[n] = scores[j]
            n += 1
    return n


@njit(cache=True, inline="always")
def _bound_of(best, original_alpha, beta):
    """The bound type a node's result is stored with: failed high, exact or failed low."""
    if best >= beta:
        return BOUND_LOWER
    if best > original_alpha:
        return BOUND_EXACT
    return BOUND_UPPER


@njit(cache=True, inline="always")
def _update_pv(sc, ply, move):
    """``move`` followed by the child's PV becomes the PV of this ply."""
    pv = sc.pv
    pv[ply, 0] = move
    child = sc.pv_len[ply + 1]
    for j in range(child):  # a loop, not a slice: no array views in recursive code
        pv[ply, j + 1] = pv[ply + 1, j]
    sc.pv_len[ply] = child + 1


@njit(cache=True, inline="always")
def _probcut(pos, tt, arena, sc, depth, raised, static_eval, ply, hash_move, allow_null, forbid_null):
    """Try the captures whose exchange alone wins ``raised - static_eval``: the score of the first that
    fails high against ``raised`` in a quiescence search and then at depth - PROBCUT_REDUCTION (stored
    as a lower bound), else -INF.  Inlined into negamax, so this is the recursion, not a second function."""
    board = pos.board
    state = pos.state
    start = ply * MAX_MOVES
    end = generate_moves(board, state, sc.moves, start, True)
    score_moves(board, sc, start, end, hash_move, ply, NO_MOVE)
    quiescence = depth - depth
    for i in range(start, end):
        move = pick_next(board, state, sc.moves, sc.scores, i, end)
        if sc.scores[i] < 0:
            break  # the losing captures come last
        if not see_ge(board, state, move, raised - static_eval):
            continue
        sc.played[ply] = history_index(board, move)
        make_move(board, state, pos.keys, pos.undo, move, pos.zobrist, pos.psq)
        _prefetch_child(pos, tt, sc)
        score = -negamax(pos, tt, arena, quiescence, -raised, -raised + 1, ply + 1, forbid_null)
        if score >= raised:
            score = -negamax(pos, tt, arena, depth - PROBCUT_REDUCTION, -raised, -raised + 1, ply + 1, allow_null)
        unmake_move(board, state, pos.undo, move)
        if sc.ctl[CTL_ABORTED] != 0:
            return -INF
        if score >= raised:
            if is_enabled(tt):
                key = pos.keys[state[ST_PLY]]
                store(tt, key, audit_key(tt, board, state), move, score, static_eval, depth - 3, BOUND_LOWER, ply)
            return score
    return -INF


@njit(
    types.int64(POSITION_TYPE, TABLE_TYPE, ARENA_TYPE, types.int64, types.int64, types.int64, types.int64,
                types.boolean),
    cache=True,
    nogil=True,
    _nrt=False,  # no reference counting of the many arrays in the bundles (see core/movegen.py)
)  # fmt: skip
def negamax(pos, tt, arena, depth, alpha, beta, ply, do_null):
    """Score of the position for the side to move within (alpha, beta), searching ``depth`` plies.

    ``arena`` is a scratch's memory (``sc.arena``): the recursion passes it alone, the
    scratch's arrays are views cut out of it here (transpo.engine.scratch).
    """
    sc = scratch_views(arena)
    # Typed, non-literal booleans for the recursive calls: a literal True/False there
    # compiles a second, literal-specialised negamax that a warm cache cannot resolve.
    allow_null = ply >= 0
    forbid_null = not allow_null
    board = pos.board
    state = pos.state
    ctl = sc.ctl
    told_check = sc.gave_check[ply]  # the parent's in-check test of this position, if it made one
    sc.gave_check[ply] = -1  # taken: the next call at this ply is told again or tests for itself
    sc.pv_len[ply] = 0
    ctl[CTL_NODES] += 1
    if (ctl[CTL_NODES] & CHECK_EVERY) == 0 and (ctl[CTL_STOP] != 0 or ctl[CTL_NODES] >= ctl[CTL_NODE_LIMIT]):
        ctl[CTL_ABORTED] = 1
    if ctl[CTL_ABORTED] != 0:
        return 0
    ctl[CTL_SELDEPTH] = max(ctl[CTL_SELDEPTH], ply)
    checked = in_check(board, state) if told_check < 0 else told_check > 0
    if ply >= MAX_PLY:
        return evaluate(board, state, sc, pos.keys[state[ST_PLY]])
    start = ply * MAX_MOVES

    key = pos.keys[state[ST_PLY]]
    check_key = audit_key(tt, board, state)
    hash_move = NO_MOVE
    stored_eval = -INF
    pv_node = beta - alpha > 1

    # --- quiescence search: captures and promotions (all evasions when in check) ---
    if depth <= 0 and not checked:
        q_bound = BOUND_NONE
        q_score = 0
        if is_enabled(tt):
            entry = probe(tt, key, check_key, ply)
            if entry.bound != BOUND_NONE:
                if not pv_node and _decides(entry, 0, alpha, beta):
                    record_cutoff(tt, key, check_key)
                    return entry.score
                hash_move = entry.move
                stored_eval = entry.static_eval
                q_bound = entry.bound
                q_score = entry.score
        best = stored_eval  # stand pat
        if best == -INF:
            best = evaluate_inline(board, state, sc, key, True, alpha, beta)
        best = _refined_eval(best, q_bound, q_score)
        if best >= beta:
            return best
        alpha = max(alpha, best)
        end = generate_moves(board, state, sc.moves, start, True)
        score_moves(board, sc, start, end, hash_move, ply, NO_MOVE)
        for i in range(start, end):
            move = pick_next(board, state, sc.moves, sc.scores, i, end)
            if sc.scores[i] < 0:
                break  # the losing captures come last (see ordering): none of them is worth searching here
            if move_promo(move) == 0 and _futile_capture(board, move, best, alpha):
                continue
            make_move(board, state, pos.keys, pos.undo, move, pos.zobrist, pos.psq)
            _prefetch_child(pos, tt, sc)
            score = -negamax(pos, tt, arena, depth - 1, -beta, -alpha, ply + 1, forbid_null)
            unmake_move(board, state, pos.undo, move)
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
    if not root:
        if is_repetition(state, pos.keys, 1):
            return draw_score(ctl, state)
        if state[ST_HALFMOVE] >= 100:  # fifty-move draw, unless this very move mated
            if not checked or generate_moves(board, state, sc.moves, start, False) > start:
                return draw_score(ctl, state)
            return -MATE + ply
        # Mate-distance pruning: no line from here can beat a mate already found nearer the root.
        alpha = max(alpha, -MATE + ply)
        beta = min(beta, MATE - ply - 1)
        if alpha >= beta:
            return alpha

    # --- transposition table ---
    draft = depth  # what a probe at this node compares with: stored as is, extensions not counted
    excluded = sc.excluded[ply]  # inside a singular-extension search: this move is left out, nothing is stored
    singular_candidate = False
    singular_score = 0
    tt_depth = -1  # the entry's draft, score and bound (-1: no entry)
    tt_score = 0
    tt_bound = BOUND_NONE
    if is_enabled(tt):
        entry = probe(tt, key, check_key, ply)
        if entry.bound != BOUND_NONE:
            hash_move = entry.move
            stored_eval = entry.static_eval
            tt_depth = entry.depth
            tt_score = entry.score
            tt_bound = entry.bound
            if not pv_node and not root and excluded == 0 and _decides(entry, depth, alpha, beta):
                record_cutoff(tt, key, check_key)
                return entry.score
            singular_candidate = (
                not root and excluded == 0 and depth >= SINGULAR_DEPTH
                and entry.depth >= depth - SINGULAR_TT_SLACK and entry.bound != BOUND_UPPER
                and abs(entry.score) < MATE_BOUND
            )  # fmt: skip
            singular_score = entry.score

    if checked:
        depth += 1  # check extension (the table keeps the draft asked for, draft below)
        static_eval = -INF
    else:
        static_eval = stored_eval
        if static_eval == -INF:
            static_eval = evaluate_inline(board, state, sc, key, True, -LAZY_OFF, LAZY_OFF)
    sc.evals[ply] = static_eval
    # What the pruning below compares with beta and alpha: the static evaluation, or the entry's score
    # where its bound says the true score lies beyond the evaluation on that side.
    pruning_eval = static_eval if checked else _refined_eval(static_eval, tt_bound, tt_score)
    # Improving: better than two plies ago (our previous turn), so cutting and pruning can be bolder.
    improving = not checked and (ply < 2 or static_eval > sc.evals[ply - 2])
    us = state[ST_SIDE]

    if not pv_node and not checked and not root and excluded == 0:
        # Reverse futility: far above beta at low depth, assume a quiet move keeps it there.
        if depth <= RFP_DEPTH and pruning_eval - RFP_MARGIN * (depth - improving) >= beta and abs(beta) < MATE_BOUND:
            return pruning_eval
        # Null move: if passing still fails high, the position is good enough to cut.
        if do_null and depth >= NULL_MIN_DEPTH and pruning_eval >= beta and has_pieces(state, us):
            reduction = 3 + depth // 6
            sc.played[ply] = 0
            make_null(state, pos.keys, pos.undo, pos.zobrist)
            score = -negamax(pos, tt, arena, depth - 1 - reduction, -beta, -beta + 1, ply + 1, forbid_null)
            unmake_null(state, pos.undo)
            if ctl[CTL_ABORTED] != 0:
                return 0
            if score >= beta:
                return beta if score >= MATE_BOUND else score
        # ProbCut: a good capture that beats beta by a margin in a much shallower search would almost
        # surely fail high in the full one; the table may already say a search this deep stayed below.
        raised = beta + PROBCUT_MARGIN
        if depth >= PROBCUT_DEPTH and abs(beta) < MATE_BOUND and not (tt_depth >= depth - 3 and tt_score < raised):
            score = _probcut(pos, tt, arena, sc, depth, raised, static_eval, ply, hash_move, allow_null, forbid_null)
            if ctl[CTL_ABORTED] != 0:
                return 0
            if score >= raised:
                return score

    end = generate_moves(board, state, sc.moves, start, False)
    if end == start:
        return -MATE + ply if checked else draw_score(ctl, state)
    if depth >= IIR_DEPTH and hash_move == NO_MOVE and not checked:
        depth -= 1  # no hash move: this node was not searched before, a shallower search finds one cheaply
    hash_extension = 0  # plies added to (or taken from) the hash move's search by the singular test
    if singular_candidate:
        # Singular extension: search the other moves, shallower, against a bar just below the hash
        # move's score. If none reaches it, the hash move is the only good one: search it a ply deeper.
        bar = singular_score - SINGULAR_MARGIN * depth
        sc.excluded[ply] = hash_move
        score = negamax(pos, tt, arena, (depth - 1) // 2, bar - 1, bar, ply, forbid_null)
        sc.excluded[ply] = 0
        sc.pv_len[ply] = 0  # the inner search's line is not this node's
        if ctl[CTL_ABORTED] != 0:
            return 0
        if score < bar:
            hash_extension = 1
        elif not pv_node and bar >= beta:
            return bar  # multi-cut: another move beats beta too, so this node fails high without the hash move
        elif not pv_node and singular_score >= beta:
            hash_extension = -1  # not singular and expected to fail high anyway: search the hash move shallower
        end = generate_moves(board, state, sc.moves, start, False)  # the inner search reused this ply's list
    counter_move = sc.counter[sc.played[ply - 1]] if ply > 0 else NO_MOVE
    score_moves(board, sc, start, end, hash_move, ply, counter_move)

    original_alpha = alpha
    best = -INF
    best_move = NO_MOVE
    searched = 0
    quiet_count = 0
    futile = (
        not pv_node and not checked and depth <= FUTILITY_DEPTH
        and pruning_eval + FUTILITY_MARGIN * (depth + 1) <= alpha
    )  # fmt: skip
    prune_late = not pv_node and not checked and depth <= LMP_DEPTH
    late_limit = _late_move_limit(depth, improving)
    live_end = end  # the list shrinks when late move pruning drops the remaining quiet moves at once
    for i in range(start, end):
        if i >= live_end:
            break
        move = pick_next(board, state, sc.moves, sc.scores, i, live_end)
        if (root and _excluded(ctl, move)) or (move & MOVE_ID_MASK) == excluded:
            continue
        quiet = is_quiet(move)
        if prune_late and quiet and i - start >= late_limit and searched > 0 and best > -MATE_BOUND:
            # Late move pruning: this late in a well-ordered list, a quiet move hardly ever matters.
            # Every quiet move after this one is pruned too, so they are dropped now, not picked one by one.
            live_end = _drop_quiets(sc.moves, sc.scores, i + 1, live_end)
            continue
        refutation = sc.scores[i] >= COUNTER_SCORE and sc.scores[i] < COUNTER_SCORE + 3
        played = history_index(board, move)
        sc.played[ply] = played
        # Near the leaves a move is skipped, unless it gives check, when futility prunes it (a quiet move
        # at a node far below alpha) or when it loses too much material on its square (SEE; more of it
        # the shallower the search).  A move that surely gives no check (may_give_check) is skipped
        # before it is made, and before its exchange is computed when futility already prunes it.
        futile_move = futile and quiet and searched > 0
        bad_exchange = (
            not futile_move and not pv_node and not checked and searched > 0 and depth <= SEE_PRUNE_DEPTH
            and not see_ge(board, state, move, -(SEE_QUIET_MARGIN * depth * depth if quiet else SEE_CAPTURE_MARGIN * depth))
        )  # fmt: skip
        may_check = may_give_check(board, state, move)
        if not may_check and (futile_move or bad_exchange):
            if quiet:
                sc.quiets[start + quiet_count] = move
                quiet_count += 1
            continue
        make_move(board, state, pos.keys, pos.undo, move, pos.zobrist, pos.psq)
        _prefetch_child(pos, tt, sc)
        gives_check = may_check and in_check(board, state)
        if (futile_move or bad_exchange) and not gives_check:
            unmake_move(board, state, pos.undo, move)
            if quiet:
                sc.quiets[start + quiet_count] = move
                quiet_count += 1
            continue
        new_depth = depth - 1
        if (move & MOVE_ID_MASK) == hash_move:
            new_depth += hash_extension
        # Each child search is told gives_check (below), which it would otherwise test again.
        if searched == 0:
            sc.gave_check[ply + 1] = gives_check
            score = -negamax(pos, tt, arena, new_depth, -beta, -alpha, ply + 1, allow_null)
        else:
            reduction = 0
            if depth >= LMR_MIN_DEPTH and quiet and not checked and not gives_check and searched >= LMR_MIN_SEARCHED:
                reduction = _late_move_reduction(
                    depth, searched, pv_node, improving, refutation, 0 if refutation else sc.scores[i]
                )
            sc.gave_check[ply + 1] = gives_check
            score = -negamax(pos, tt, arena, new_depth - reduction, -alpha - 1, -alpha, ply + 1, allow_null)
            if score > alpha and reduction > 0:
                sc.gave_check[ply + 1] = gives_check
                score = -negamax(pos, tt, arena, new_depth, -alpha - 1, -alpha, ply + 1, allow_null)
            if alpha < score < beta:
                sc.gave_check[ply + 1] = gives_check
                score = -negamax(pos, tt, arena, new_depth, -beta, -alpha, ply + 1, allow_null)
        unmake_move(board, state, pos.undo, move)
        if ctl[CTL_ABORTED] != 0:
            return 0
        searched += 1
        if score > best:
            best = score
            best_move = move
            if score > alpha:
                alpha = score
                _update_pv(sc, ply, move)
                if score >= beta:
                    if quiet:
                        record_quiet_cutoff(board, sc, move, depth, ply, start, start + quiet_count)
                    break
        if quiet:
            sc.quiets[start + quiet_count] = move
            quiet_count += 1

    if searched == 0:
        return alpha  # every move excluded (MultiPV asked for more lines than moves; a singular search)
    if is_enabled(tt) and excluded == 0:
        store(tt, key, check_key, best_move, best, static_eval, draft, _bound_of(best, original_alpha, beta), ply)
    return best
