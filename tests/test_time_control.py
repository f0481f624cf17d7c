"""Never lose on time: a whole game at 1 s + 0.01 s per side, engine against itself over UCI.

The clocks are kept here, as a GUI keeps them: the time each ``go`` took
(measured around python-chess's ``play``, so process and pipe latency count
against the engine) comes off the mover's clock, then the increment is added.
A clock below zero is a loss on time.
"""

from __future__ import annotations

import sys
import time

import chess
import chess.engine
import pytest

BASE_S = 1.0
INC_S = 0.01
MAX_PLIES = 160


@pytest.fixture(scope="module")
def engines():
    started = [chess.engine.SimpleEngine.popen_uci([sys.executable, "-m", "transpo.cli"]) for _ in range(2)]
    for engine in started:
        engine.configure({"Hash": 16})
        engine.ping()  # waits for readyok: the compile is not on the clock
    yield started
    for engine in started:
        engine.quit()


def test_a_game_at_one_second_plus_a_hundredth_never_flags(engines):
    board = chess.Board()
    clocks = [BASE_S, BASE_S]
    lowest = BASE_S
    while not board.is_game_over(claim_draw=True) and board.ply() < MAX_PLIES:
        side = 0 if board.turn == chess.WHITE else 1
        limit = chess.engine.Limit(white_clock=clocks[0], black_clock=clocks[1], white_inc=INC_S, black_inc=INC_S)
        started = time.perf_counter()
        result = engines[side].play(board, limit)
        clocks[side] -= time.perf_counter() - started
        assert clocks[side] > 0, f"lost on time at ply {board.ply()}: clock {clocks[side]:.3f} s"
        lowest = min(lowest, clocks[side])
        clocks[side] += INC_S
        assert result.move in board.legal_moves
        board.push(result.move)
    # The loop also ends on a draw either side may claim (a repetition before ply 40 happened once in CI).
    assert board.ply() >= 40 or board.is_game_over(claim_draw=True), "the game should have been played out"
    print(f"{board.ply()} plies, {board.result(claim_draw=True)}, lowest clock {lowest:.3f} s")
    assert lowest > 0
