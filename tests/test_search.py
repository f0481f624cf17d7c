"""The search through ``Engine.search``: mate distances, stalemate and draw rules, no-table mode,
narrow signatures in real games, MultiPV, node and depth limits, Fine #70, stopping from another
thread, and that the caller's position is left alone.

Every test position was checked with python-chess when the test was written (mate distances with a
brute-force "mate in <= n" solver: none is shorter); the tests re-check the cheap parts with
python-chess (the PV really mates, the stalemating move really stalemates) so a wrong FEN cannot
make a test pass for the wrong reason.
"""

from __future__ import annotations

import threading
import time

import chess
import numpy as np
import pytest
from conftest import assert_same_snapshot, snapshot

from transpo import START_FEN, Position
from transpo.engine.engine import Engine, Info
from transpo.engine.search import INF, _refined_eval
from transpo.engine.table import BOUND_EXACT, BOUND_LOWER, BOUND_NONE, BOUND_UPPER, MATE, MATE_BOUND
from transpo.engine.timeman import Limits


def search(fen: str, engine: Engine | None = None, **limits):
    engine = engine or Engine(hash_mb=4)
    infos: list[Info] = []
    result = engine.search(Position.from_fen(fen), Limits(**limits), on_info=infos.append)
    return result, infos


def play_pv(fen: str, pv: list[str]) -> chess.Board:
    """python-chess board after the PV; fails if any PV move is illegal."""
    board = chess.Board(fen)
    for uci in pv:
        move = chess.Move.from_uci(uci)
        assert move in board.legal_moves, (fen, pv, uci)
        board.push(move)
    return board


@pytest.fixture(scope="module", autouse=True)
def _compiled():
    """Compile (or load) the search once, so timing tests below measure the search, not numba."""
    Engine(hash_mb=1).search(Position(), Limits(depth=2))


# --- mates ------------------------------------------------------------------------

MATES = [
    # (moves to mate, FEN, first move)
    (1, "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", "d1d8"),  # back rank
    (2, "r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 1", "d5f6"),  # Nf6+ gxf6 Bxf7#
    (3, "r1b1kb1r/pppp1ppp/5q2/4n3/3KP3/2N3PN/PPP4P/R1BQ1B1R b kq - 0 1", "f8c5"),  # Bc5+ Kxc5 Qb6+ Kd5 Qd6#
    (4, "5k2/R7/8/5K2/8/8/8/8 w - - 0 1", "f5e6"),  # K+R v K
    (4, "8/k7/8/8/1K6/8/8/1R6 w - - 0 1", "b4a5"),
    (4, "8/8/8/8/8/8/R2K4/5k2 w - - 0 1", "d2e3"),
]


@pytest.mark.parametrize("n, fen, first", MATES, ids=[f"mate{n}-{i}" for i, (n, _, _) in enumerate(MATES)])
def test_finds_mate_in_n_with_the_exact_distance(n, fen, first):
    # Pruning (late moves, futility) can first find a longer mate; deeper iterations find the shortest.
    result, infos = search(fen, depth=4 * n + 4)
    assert result.score == MATE - (2 * n - 1)
    assert result.lines[0].mate_in == n
    assert infos[-1].mate_in == n
    assert result.best_move == first
    assert len(result.pv) == 2 * n - 1
    board = play_pv(fen, result.pv)
    assert board.is_checkmate()


def test_mate_distance_stays_exact_with_a_warm_table():
    """Searching along the mating line with the same engine: the table holds mate scores stored at
    other plies (to_tt / from_tt), and every distance must still come out exact."""
    n, fen, _ = MATES[2]
    engine = Engine(hash_mb=4)
    position = Position.from_fen(fen)
    for moves_left in range(n, 0, -1):
        result = engine.search(position, Limits(depth=10))
        assert result.lines[0].mate_in == moves_left, position.fen()
        assert result.score == MATE - (2 * moves_left - 1)
        position.push(result.pv[0])
        if moves_left > 1:  # the defender, getting mated
            defence = engine.search(position, Limits(depth=10))
            assert defence.lines[0].mate_in == -(moves_left - 1)
            assert defence.score == -(MATE - 2 * (moves_left - 1))
            position.push(defence.best_move)
    assert position.status().value == "checkmate"


def test_getting_mated_scores_negative_mate():
    # after 1. Nf6+ of the mate in 2: Black must take and is mated next move
    fen = "r2qkb1r/pp2nppp/3p1N2/2p1N1B1/2BnP3/3P4/PPP2PPP/R2bK2R b KQkq - 2 1"
    assert chess.Board(fen).is_check()
    result, _ = search(fen, depth=8)
    assert result.score == -(MATE - 2)
    assert result.lines[0].mate_in == -1
    assert result.pv == ["g7f6", "c4f7"]
    assert play_pv(fen, result.pv).is_checkmate()
    # after 1... Bc5+ of the mate in 3: White is mated in 2 whatever it does
    fen = "r1b1k2r/pppp1ppp/5q2/2b1n3/3KP3/2N3PN/PPP4P/R1BQ1B1R w kq - 1 2"
    result, _ = search(fen, depth=8)
    assert result.lines[0].mate_in == -2 and result.score == -(MATE - 4)
    assert play_pv(fen, result.pv).is_checkmate()


def test_mate_limit_stops_at_the_mate():
    n, fen, first = MATES[2]
    result, infos = search(fen, mate=n)
    assert result.best_move == first and result.lines[0].mate_in == n
    # Stopped once the mate was seen, not at MAX_PLY.  The iteration that first sees it depends on the
    # pruning and so on the evaluation (with the material imbalance terms: depth 9 for this mate in 3).
    assert result.depth <= 4 * n


# --- stalemate, repetition, fifty moves --------------------------------------------


@pytest.mark.parametrize(
    "fen, stalemating",
    [
        ("k7/8/1K6/8/8/8/8/2Q5 w - - 0 1", "c1c7"),  # Qc7?? stalemate, Qc8# mates
        ("k7/p1K5/P7/8/7r/8/7Q/8 w - - 0 1", "h2h4"),  # Qxh4?? wins the rook and stalemates
    ],
)
def test_winning_side_avoids_stalemate(fen, stalemating):
    board = chess.Board(fen)
    board.push_uci(stalemating)
    assert board.is_stalemate()  # the trap is real
    result, _ = search(fen, depth=8)
    assert result.best_move != stalemating
    after = play_pv(fen, result.pv[:1])
    assert not after.is_stalemate()
    assert result.score > MATE_BOUND  # both are mates (in 1 and in 2)
    assert play_pv(fen, result.pv).is_checkmate()


def test_losing_side_finds_a_stalemate():
    """Black is a queen and two rooks up and threatens mate; White's king cannot move, so
    Qxg8+ Kxg8 (forced) leaves White stalemated."""
    fen = "6rk/6pp/8/8/3r4/4q2p/Q6P/7K w - - 0 1"
    board = chess.Board(fen)
    board.push_uci("a2g8")
    assert [m.uci() for m in board.legal_moves] == ["h8g8"]
    board.push_uci("h8g8")
    assert board.is_stalemate()
    engine = Engine(hash_mb=4, multipv=2)
    result, _ = search(fen, engine, depth=8)
    assert result.best_move == "a2g8"
    assert result.score == 0
    assert result.lines[1].score < -MATE_BOUND  # anything else gets mated


def test_perpetual_check_draws_by_repetition():
    """White (a rook down, facing mate) has Qh5+ Kg8 Qe8+ Kh7 Qh5+ ...: each reply is forced."""
    fen = "7k/6p1/8/3Q4/8/8/rq3PPP/6K1 w - - 0 1"
    board = chess.Board(fen)
    for white, black in [("d5h5", "h8g8"), ("h5e8", "g8h7"), ("e8h5", "h7g8"), ("h5e8", "g8h7")]:
        board.push_uci(white)
        assert [m.uci() for m in board.legal_moves] == [black]
        board.push_uci(black)
    assert board.can_claim_threefold_repetition() or board.is_repetition(2)
    engine = Engine(hash_mb=4, multipv=2)
    result, _ = search(fen, engine, depth=10)
    assert result.score == 0
    assert chess.Board(fen).gives_check(chess.Move.from_uci(result.best_move))
    second = result.lines[1]  # another move, scored no better (Qd8+ too checks, and loses in the end)
    assert second.pv[0] != result.best_move and second.score <= result.score
    # Without a check White is lost: after each of the other moves Black wins.
    quiet = [move for move in board.root().legal_moves if not board.root().gives_check(move)]
    assert len(quiet) > 20
    for move in quiet:
        position = Position.from_fen(fen)
        position.push(move.uci())
        assert Engine(hash_mb=4).search(position, Limits(depth=6)).score > 200, move.uci()


def test_repetition_in_the_game_history_counts():
    """The same perpetual position, reached after the checks were already given once: the engine
    still takes the draw, and the repetition it steers for comes from the game history."""
    position = Position.from_fen("7k/6p1/8/3Q4/8/8/rq3PPP/6K1 w - - 0 1")
    for move in ("d5h5", "h8g8", "h5e8", "g8h7"):
        position.push(move)
    result = Engine(hash_mb=4).search(position, Limits(depth=6))
    assert result.score == 0
    board = chess.Board(position.fen())
    assert board.gives_check(chess.Move.from_uci(result.best_move))


# --- contempt --------------------------------------------------------------------------------------

KNIGHTS_OUT_AND_BACK = ("g1f3", "g8f6", "f3g1", "f6g8")  # the start position again: Nf3 (or ...Nf6) repeats


def _after(moves: tuple[str, ...]) -> Position:
    position = Position()
    for move in moves:
        position.push(move)
    return position


@pytest.mark.parametrize("moves", [KNIGHTS_OUT_AND_BACK, (*KNIGHTS_OUT_AND_BACK, "g1f3")], ids=["white", "black"])
def test_contempt_makes_the_root_side_seek_or_shun_a_repetition(moves):
    """Either side to move can repeat at once with its king's knight. A draw worth 100 cp to it
    (contempt -100) beats every other opening move; one costing it 50 cp is never chosen."""
    repeat = "g1f3" if len(moves) % 2 == 0 else "g8f6"
    seeks = Engine(hash_mb=4, contempt=-100).search(_after(moves), Limits(depth=6))
    assert (seeks.best_move, seeks.score) == (repeat, 100)
    shuns = Engine(hash_mb=4, contempt=50, multipv=40).search(_after(moves), Limits(depth=6))
    assert shuns.best_move != repeat and shuns.score > -50
    scores = {line.pv[0]: line.score for line in shuns.lines}
    assert scores[repeat] == -50  # the repetition itself is scored as exactly the contempt lost


@pytest.mark.parametrize("contempt", [30, -30])
def test_contempt_scores_a_forced_draw_for_the_root_side(contempt):
    """The stalemate and the fifty-move draw above and a bare-minor ending, scored minus the contempt whoever is to move."""
    stalemate = Engine(hash_mb=4, contempt=contempt).search(Position.from_fen("6rk/6pp/8/8/3r4/4q2p/Q6P/7K w - - 0 1"), Limits(depth=8))
    assert (stalemate.best_move, stalemate.score) == ("a2g8", -contempt)
    for fen in ("8/8/4k3/8/8/2K5/8/7R w - - 99 90", "8/8/4k3/8/8/2K5/8/7R b - - 99 90"):
        assert Engine(hash_mb=4, contempt=contempt).search(Position.from_fen(fen), Limits(depth=8)).score == -contempt
    # No side can win (king and bishop against king and knight): the evaluation's draw costs the same.
    for fen in ("8/8/4k3/5n2/8/2KB4/8/8 w - - 0 1", "8/8/4k3/5n2/8/2KB4/8/8 b - - 0 1"):
        assert Engine(hash_mb=4, contempt=contempt).search(Position.from_fen(fen), Limits(depth=6)).score == -contempt


def test_contempt_out_of_range_is_refused():
    with pytest.raises(ValueError, match="contempt must be -100..100 cp, not 101"):
        Engine(hash_mb=1, contempt=101)


def test_fifty_move_rule_only_a_pawn_move_keeps_the_win():
    # halfmove clock 99: every rook or king move draws at once; a pawn move resets the clock
    fen = "8/8/4k3/8/8/2K5/P7/7R w - - 99 90"
    result, _ = search(fen, depth=8)
    assert result.best_move in ("a2a3", "a2a4")
    assert result.score > 400


def test_fifty_move_rule_only_a_capture_keeps_the_win():
    fen = "8/8/4k3/8/3r4/2K5/8/7R w - - 99 90"
    result, _ = search(fen, depth=8)
    assert result.best_move == "c3d4"
    assert result.score > 300


@pytest.mark.parametrize(
    "fen",
    [
        "8/8/4k3/8/8/2K5/8/7R w - - 99 90",  # K+R v K, no pawn move or capture: any move draws
        "8/8/4k3/8/8/2K5/8/7R b - - 99 90",  # the losing side to move reaches move 100
    ],
)
def test_fifty_move_rule_forced_draw_scores_zero(fen):
    result, _ = search(fen, depth=8)
    assert result.score == 0
    assert result.best_move in Position.from_fen(fen).legal_moves()
    # the same position one move earlier in the clock is a normal win for White
    fresh, _ = search(fen.replace(" 99 90", " 0 90"), depth=8)
    assert (fresh.score if " w " in fen else -fresh.score) > 300


def test_fifty_move_rule_mate_on_the_last_move_counts():
    fen = "k7/8/1K6/8/8/8/8/2Q5 w - - 99 80"
    board = chess.Board(fen)
    board.push_uci("c1c8")
    assert board.is_checkmate() and board.halfmove_clock == 100  # checkmate ends the game first
    result, _ = search(fen, depth=4)
    assert result.best_move == "c1c8" and result.score == MATE - 1


# --- no table, narrow signatures ---------------------------------------------------

TACTICS = [
    ("r3k2r/ppp2ppp/2n5/3q4/3P4/2N5/PPP2PPP/R2QKB1R w KQkq - 0 1", "c3d5", 6),  # the queen hangs
    ("r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 1", "d5f6", 5),  # mate in 2
    ("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", "d1d8", 4),
]


@pytest.mark.parametrize("fen, best, depth", TACTICS)
def test_no_table_mode_agrees_and_never_touches_the_table(fen, best, depth):
    with_tt = Engine(hash_mb=1)
    without = Engine(hash_mb=1, use_tt=False)
    assert not without.table.enabled
    a = with_tt.search(Position.from_fen(fen), Limits(depth=depth))
    b = without.search(Position.from_fen(fen), Limits(depth=depth))
    assert a.best_move == b.best_move == best
    assert (a.score > MATE_BOUND) == (b.score > MATE_BOUND)
    if a.score > MATE_BOUND:
        assert a.score == b.score
    assert all(v == 0 for v in without.table.counters().values()), without.table.counters()
    assert not without.table.words.any()
    assert without.table.hashfull() == 0
    c = with_tt.table.counters()
    assert c["probes"] > 0 and c["stores"] > 0


def test_narrow_signatures_play_complete_legal_games():
    """signature_bits=8 with a 1 MB table: false hits are frequent (the audit counts them), and the
    engine still plays only legal moves (checked against python-chess as well) and never crashes."""
    false_hits = 0
    plies = 0
    for opening in ([], ["e2e4", "e7e5", "g1f3"]):
        engine = Engine(hash_mb=1, signature_bits=8, audit=True)
        position = Position()
        board = chess.Board()
        for move in opening:
            position.push(move)
            board.push_uci(move)
        for _ in range(120):
            if position.status().value != "ongoing" or board.is_game_over(claim_draw=True):
                break
            result = engine.search(position, Limits(depth=5))
            false_hits += engine.table.counters()["false_hits"]
            assert result.best_move in position.legal_moves(), (position.fen(), result.best_move)
            assert chess.Move.from_uci(result.best_move) in board.legal_moves
            for uci in result.pv:  # the PV may come from false hits; it must still be well-formed
                assert len(uci) in (4, 5)
            position.push(result.best_move)
            board.push_uci(result.best_move)
            assert position.fen() == board.fen(), result.best_move
            plies += 1
    assert plies >= 100
    assert false_hits > 0  # the narrow signature really did collide


# --- MultiPV, limits -----------------------------------------------------------------


def test_multipv_returns_distinct_root_moves_ordered_by_score():
    fen = "r3k2r/ppp2ppp/2n5/3q4/3P4/2N5/PPP2PPP/R2QKB1R w KQkq - 0 1"
    engine = Engine(hash_mb=4, multipv=3)
    result, infos = search(fen, engine, depth=5)
    lines = result.lines
    assert len(lines) == 3
    assert [line.multipv for line in lines] == [1, 2, 3]
    firsts = [line.pv[0] for line in lines]
    assert len(set(firsts)) == 3
    assert all(m in Position.from_fen(fen).legal_moves() for m in firsts)
    assert firsts[0] == "c3d5" == result.best_move
    scores = [line.score for line in lines]
    assert scores == sorted(scores, reverse=True)
    assert scores[0] > scores[1] + 500  # winning the queen is far ahead of the rest
    assert {i.multipv for i in infos if i.depth == 5} == {1, 2, 3}


@pytest.mark.parametrize("fen", [
    START_FEN,
    "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 1 8",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
])  # fmt: skip
def test_every_multipv_iteration_is_reported_in_score_order(fen):
    """At every depth the exact lines come numbered 1..k with scores from best to worst."""
    _, infos = search(fen, Engine(hash_mb=4, multipv=4), depth=7)
    exact = [i for i in infos if i.bound is None]
    for depth in sorted({i.depth for i in exact}):
        lines = [i for i in exact if i.depth == depth]
        assert [i.multipv for i in lines] == list(range(1, len(lines) + 1))
        scores = [i.score for i in lines]
        assert scores == sorted(scores, reverse=True), (depth, scores)


def test_multipv_in_the_start_position_and_beyond_the_legal_moves():
    engine = Engine(hash_mb=4, multipv=3)
    result = engine.search(Position(), Limits(depth=4))
    firsts = [line.pv[0] for line in result.lines]
    assert len(firsts) == 3 and len(set(firsts)) == 3
    assert [line.score for line in result.lines] == sorted((line.score for line in result.lines), reverse=True)
    # two legal moves, five lines asked for: two lines
    fen = "7k/8/8/8/8/8/6q1/7K w - - 0 1"  # Kxg2 only
    few = Engine(hash_mb=1, multipv=5).search(Position.from_fen(fen), Limits(depth=3))
    assert len(few.lines) == len(Position.from_fen(fen).legal_moves())


@pytest.mark.parametrize("limit", [100, 5000, 30000])
def test_node_limit_is_respected(limit):
    fen = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 8"
    result, infos = search(fen, nodes=limit)
    assert limit <= result.nodes <= limit + 1024  # polled every 1024 nodes
    assert all(i.nodes <= limit + 1024 for i in infos)
    assert result.best_move in Position.from_fen(fen).legal_moves()
    assert result.depth >= 1


@pytest.mark.parametrize(
    "fen",
    [
        "rnb1kbnr/pppp1ppp/8/4p3/3qP3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 0 3",  # Nxd4, settled at once
        "4k3/8/8/8/3n4/8/3R4/4K3 w - - 0 1",  # Rxd4
    ],
)
def test_a_fixed_time_per_move_is_used_whole_even_when_the_best_move_is_settled(fen):
    engine = Engine(hash_mb=4)
    engine.move_overhead = 50
    result, _ = search(fen, engine, movetime=400)
    assert result.time_ms >= 0.95 * (400 - 50)  # a clock would let a settled search stop at three quarters


@pytest.mark.parametrize("depth", [1, 3, 6])
def test_depth_limit_is_respected(depth):
    fen = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 8"
    result, infos = search(fen, depth=depth)
    assert result.depth == depth
    assert [i.depth for i in infos if i.bound is None] == list(range(1, depth + 1))
    assert result.best_move in Position.from_fen(fen).legal_moves()


def test_fine_70_needs_the_table():
    """Fine #70 (Lasker-Reichhelm): only 1. Kb1 wins; a table finds it at moderate depth.

    Some deep iterations score the line 0, or even prefer another king move at 0:
    a repetition draw found on one path is stored and read back on another (graph
    history interaction).  So the win is asked of the first iteration that plays
    Kb1 with a winning score, and the iterations after it may stray at most twice.
    """
    fen = "8/k7/3p4/p2P1p2/P2P1P2/8/8/K7 w - - 0 1"
    engine = Engine(hash_mb=16)
    t0 = time.perf_counter()
    result, infos = search(fen, engine, depth=30)
    elapsed = time.perf_counter() - t0
    finished = {i.depth: i for i in infos if i.bound is None and i.pv}
    first = min(d for d, i in finished.items() if i.pv[0] == "a1b1" and i.score > 150)
    strays = [d for d, i in finished.items() if d > first and i.pv[0] != "a1b1"]
    best_score = max(i.score for d, i in finished.items() if d >= first)
    print(f"Fine #70: a1b1 winning from depth {first} on (strays {strays}), best score {best_score} cp; "
          f"depth 30 in {elapsed:.2f} s, {result.nodes} nodes, {result.score} cp")  # fmt: skip
    assert result.best_move == "a1b1"
    assert result.score >= 0
    assert first <= 26
    assert len(strays) <= 2
    assert elapsed < 20
    # without the table the same node budget does not see the win (a pawn up or more)
    plain = Engine(hash_mb=1, use_tt=False).search(Position.from_fen(fen), Limits(nodes=result.nodes))
    assert plain.score < best_score - 150


# --- stop, and the caller's position -------------------------------------------------


def test_stop_from_another_thread():
    engine = Engine(hash_mb=4)
    position = Position()
    out: dict = {}

    def run():
        out["result"] = engine.search(position, Limits(infinite=True))
        out["done"] = time.perf_counter()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    time.sleep(0.2)
    assert thread.is_alive()  # an infinite search does not end by itself
    stopped = time.perf_counter()
    engine.stop()
    thread.join(timeout=1.0)
    assert not thread.is_alive(), "search did not stop within 1 s"
    assert out["done"] - stopped < 1.0
    result = out["result"]
    assert result.best_move in Position().legal_moves()
    assert result.depth >= 1


def test_caller_position_is_unchanged():
    position = Position.from_fen("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    for move in ("f1b5", "a7a6", "b5a4", "g8f6"):
        position.push(move)
    before = snapshot(position)
    arrays = {name: getattr(position, name).copy() for name in ("board", "state", "keys", "undo")}
    engine = Engine(hash_mb=4, multipv=2)
    engine.search(position, Limits(depth=5))
    engine.search(position, Limits(nodes=3000))
    assert_same_snapshot(snapshot(position), before)
    for name, array in arrays.items():
        np.testing.assert_array_equal(getattr(position, name), array, err_msg=name)
    assert position.legal_moves() == Position.from_fen(position.fen()).legal_moves()
    position.pop()  # the history is intact
    assert position.fen() == "r1bqkbnr/1ppp1ppp/p1n5/4p3/B3P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 1 4"


def test_deepest_search_stores_a_valid_depth():
    from transpo.engine import table as T

    fen = "r2qkb1r/pp2nppp/3p1N2/2p1N1B1/2BnP3/3P4/PPP2PPP/R2bK2R b KQkq - 2 1"  # in check, mated in 1
    engine = Engine(hash_mb=1)
    position = Position.from_fen(fen)
    result = engine.search(position, Limits(depth=127))
    assert result.depth == 127
    tt = engine.table
    stored = tt.probe(position.key)
    assert stored.bound != T.BOUND_NONE
    assert stored.depth >= 127


def test_probcut_cuts_a_non_pv_node_by_a_capture_that_wins_far_above_beta():
    """A hanging queen at a null-window node below beta: the pawn takes it in a shallow search and the
    node returns that lower bound at once, stored with ProbCut's draft (depth - 3), not the node's."""
    from transpo.core.moves import move_to_uci
    from transpo.engine import search as S
    from transpo.engine import table as T
    from transpo.engine.evaluate import PSQ
    from transpo.engine.scratch import CTL_NODE_LIMIT

    position = Position.from_fen("4k3/pp4pp/8/3q4/4P3/8/PP4PP/3QK3 w - - 0 1")  # exd5 wins the queen
    engine = Engine(hash_mb=1)
    arrays = position.snapshot(PSQ)
    sc = engine.scratch
    sc.ctl[CTL_NODE_LIMIT] = 10**7
    static = S.evaluate(arrays.board, arrays.state, sc, np.uint64(position.key))
    depth, beta = S.PROBCUT_DEPTH + 1, static + 30  # above the evaluation: no reverse futility, no null move
    score = S.negamax(arrays, engine.table.arrays, sc.arena, depth, beta - 1, beta, 1, True)
    assert score >= beta + S.PROBCUT_MARGIN
    stored = engine.table.probe(position.key, ply=1)
    assert stored.bound == T.BOUND_LOWER
    assert stored.depth == depth - 3
    assert move_to_uci(stored.move) == "e4d5"


# --- the evaluation the pruning compares ------------------------------------------------


@pytest.mark.parametrize(
    ("static_eval", "bound", "score", "expected"),
    [
        (50, BOUND_NONE, 300, 50),  # no entry: the evaluation
        (50, BOUND_LOWER, 300, 300),  # the true score is at least 300: more than the evaluation says
        (50, BOUND_LOWER, -100, 50),  # at least -100 says nothing beyond 50
        (50, BOUND_UPPER, -100, -100),  # at most -100: less than the evaluation says
        (50, BOUND_UPPER, 300, 50),
        (50, BOUND_EXACT, -20, -20),  # an exact score replaces it either way
        (50, BOUND_EXACT, 90, 90),
        (50, BOUND_LOWER, MATE_BOUND + 3, 50),  # mate scores never stand in for an evaluation
        (50, BOUND_UPPER, -MATE + 4, 50),
    ],
)
def test_the_evaluation_is_refined_by_the_entry_bound_only_where_it_says_more(static_eval, bound, score, expected):
    assert _refined_eval(static_eval, bound, score) == expected


def test_aspiration_windows_grow_by_a_third_and_widen_on_the_failing_side():
    """A score outside the window widens it on its side by the margin (a fail low also halves the window
    above); the margin grows by a third plus 2 each time, and the widened bound never leaves the score range."""
    from transpo.engine.engine import ASPIRATION_DELTA, first_window, grown, widened

    deltas = [ASPIRATION_DELTA]
    for _ in range(30):
        deltas.append(grown(deltas[-1]))
    assert deltas[:4] == [15, 22, 31, 43]
    assert all(b > a for a, b in zip(deltas, deltas[1:])) and deltas[-1] > 2 * INF
    assert first_window(3, 40) == (-INF, INF)  # shallow iterations search the full width
    assert first_window(8, MATE - 10) == (-INF, INF)  # so does a mate score
    alpha, beta = first_window(8, 40)
    assert (alpha, beta) == (25, 55)
    assert widened(70, alpha, beta, 22) == (25, 92)  # fail high: alpha stays, beta above the score
    assert widened(10, alpha, beta, 22) == (-12, 40)  # fail low: alpha below the score, beta to the middle
    assert widened(INF - 1, alpha, beta, deltas[-1]) == (25, INF)
    assert widened(-INF + 1, alpha, beta, deltas[-1]) == (-INF, 40)


def test_a_fail_high_is_searched_again_a_ply_shallower_and_the_iteration_still_ends_exact(monkeypatch):
    """Windows far below the truth (forced here) fail high: each re-search after a fail high goes a ply
    shallower (never below 1), a fail low goes back to the full depth, and every iteration still ends with
    a score inside its window and a legal move."""
    import transpo.engine.engine as engine_module

    calls: list[tuple[int, int, int, int]] = []  # (draft, alpha, beta, score) of each root search
    real_negamax = engine_module.negamax

    def spy(arrays, tt, arena, depth, alpha, beta, ply, do_null):
        score = real_negamax(arrays, tt, arena, depth, alpha, beta, ply, do_null)
        calls.append((int(depth), int(alpha), int(beta), int(score)))
        return score

    monkeypatch.setattr(engine_module, "negamax", spy)
    monkeypatch.setattr(engine_module, "first_window", lambda depth, guess: (-600, -580) if depth >= 4 else (-INF, INF))
    position = Position()
    result = Engine(hash_mb=1).search(position, Limits(depth=7))
    assert result.best_move in position.legal_moves()
    assert result.depth == 7 and -580 < result.score < 400
    fail_highs = 0
    for (draft, alpha, beta, score), after in zip(calls, calls[1:]):
        if score >= beta:
            fail_highs += 1
            assert after[0] == max(1, draft - 1) and after[1] == alpha and after[2] > score
    assert fail_highs >= 4  # every iteration from depth 4 failed high at least once
    draft, alpha, beta, score = calls[-1]
    assert alpha < score < beta
