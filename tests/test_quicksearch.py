"""The quick search that answers ``go`` while the engine compiles: legal, sensible, on time."""

from __future__ import annotations

import random
import threading
import time

import chess
import pytest

from transpo.quicksearch import MATE_SCORE, QuickSearch, evaluate


def _quick(fen: str, seconds: float = 0.3):
    started = time.monotonic()
    result = QuickSearch(chess.Board(fen), started + seconds).run()
    return result, time.monotonic() - started


def test_evaluation_is_symmetric_and_counts_material():
    assert evaluate(chess.Board()) == 0
    board = chess.Board("rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")  # Black has no queen
    assert evaluate(board) > 800
    board.turn = chess.BLACK
    assert evaluate(board) < -800
    for seed in range(20):
        rng = random.Random(seed)
        board = chess.Board()
        for _ in range(30):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
        assert evaluate(board) == evaluate(board.mirror())


@pytest.mark.parametrize(
    "fen, best",
    [
        ("r1bqkbnr/pppp1ppp/2n5/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4", "h5f7"),  # scholar's mate
        ("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", "d1d8"),  # back-rank mate
        ("rnb1kbnr/pppp1ppp/8/4p3/3q4/2N2N2/PPPPPPPP/R1BQKB1R w KQkq - 0 1", "f3d4"),  # a hanging queen
    ],
)
def test_finds_the_obvious_move(fen, best):
    result, _ = _quick(fen)
    assert result.best_move == best, result
    if best != "f3d4":
        assert result.score > MATE_SCORE - 10


def test_keeps_its_deadline_and_answers_legally_on_random_positions():
    rng = random.Random(7)
    for _ in range(25):
        board = chess.Board()
        for _ in range(rng.randrange(0, 60)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
        if board.is_game_over():
            continue
        result, took = _quick(board.fen(), 0.05)
        assert chess.Move.from_uci(result.best_move) in board.legal_moves
        assert took < 0.5, took


def test_no_legal_move_gives_none_and_stop_ends_an_open_search():
    assert _quick("7k/5QQ1/8/8/8/8/8/K7 b - - 0 1")[0].best_move is None  # checkmated
    stop = threading.Event()
    search = QuickSearch(chess.Board(), None, stop)
    threading.Timer(0.2, stop.set).start()
    started = time.monotonic()
    result = search.run()
    assert time.monotonic() - started < 1.0 and result.best_move in {m.uci() for m in chess.Board().legal_moves}
