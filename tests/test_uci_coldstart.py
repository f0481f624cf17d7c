"""A first start with an empty numba cache: the UCI engine answers at once while it compiles.

Each test starts ``python -m transpo`` with an empty ``NUMBA_CACHE_DIR``, as a
GUI meets a fresh install: the engine compiles in a child process and, until it is
ready, answers a ``go`` with a clock (or a movetime) by the quick search, in time.
The test that waits for the whole compile does it in the session's shared folder,
which the warm-cache test then loads (one cold compile of the engine per session).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import chess
import chess.engine
from conftest import UciPipe

PRE_READY_ANSWER_S = 1.5  # a 10 s + 0.1 s clock gives about 0.35 s; the margin is for a loaded machine
COMPILE_WAIT_S = 1200  # the whole cold compile (about 390 s idle with numba 0.68.1) with room for a loaded CI


def _cold_env(folder: Path) -> dict:
    assert not folder.exists() or not any(folder.iterdir())
    env = dict(os.environ, NUMBA_CACHE_DIR=str(folder))
    env.pop("NUMBA_DISABLE_JIT", None)
    return env


def test_first_move_under_a_clock_through_python_chess_is_in_time(tmp_path):
    engine = chess.engine.SimpleEngine.popen_uci([sys.executable, "-m", "transpo"], env=_cold_env(tmp_path / "numba"))
    try:
        board = chess.Board()
        limit = chess.engine.Limit(white_clock=10, black_clock=10, white_inc=0.1, black_inc=0.1)
        for _ in range(3):
            started = time.monotonic()
            played = engine.play(board, limit, info=chess.engine.INFO_ALL)
            took = time.monotonic() - started
            assert played.move in board.legal_moves
            assert took < PRE_READY_ANSWER_S, took
            assert "quick search" in played.info.get("string", "")
            board.push(played.move)
    finally:
        engine.quit()


def _bestmove(lines: list[str]) -> str:
    return lines[-1].split()[1]


def test_positions_before_the_engine_is_ready_behave_as_after(shared_numba_cache, tmp_path):
    cold = shared_numba_cache if not any(shared_numba_cache.iterdir()) else tmp_path / "numba"
    engine = UciPipe(_cold_env(cold))
    try:
        engine.send("uci")
        engine.until("uciok", 10)
        engine.send("isready")
        _, took = engine.until("readyok", 10)
        assert took < PRE_READY_ANSWER_S  # readyok does not wait for the compile

        engine.send("position fen 8/8/8/8/8/8/8/8 w - - 0 1")  # no kings: refused, no position
        engine.send("go movetime 100")
        lines, took = engine.until("bestmove", 10)
        assert _bestmove(lines) == "0000" and any("no position" in line for line in lines)

        engine.send("position fen 4k3/8/8/8/8/8/8/4K2R w KQ - 0 1 moves e1f1")  # Q has no rook: dropped
        engine.send("go movetime 100")
        lines, took = engine.until("bestmove", 10)
        assert any("castling rights Q dropped" in line for line in lines), lines
        board = chess.Board("4k3/8/8/8/8/8/8/4K2R w K - 0 1")
        board.push_uci("e1f1")
        assert chess.Move.from_uci(_bestmove(lines)) in board.legal_moves and took < PRE_READY_ANSWER_S

        engine.send("position startpos moves e2e4 e7e5 e1e3")  # the third move is illegal: two are played
        engine.send("go wtime 10000 btime 10000 winc 100 binc 100")
        lines, took = engine.until("bestmove", 10)
        assert any("illegal move e1e3" in line and "move 3 of 3" in line for line in lines), lines
        assert any("quick search" in line for line in lines), lines
        board = chess.Board()
        board.push_uci("e2e4")
        board.push_uci("e7e5")
        assert chess.Move.from_uci(_bestmove(lines)) in board.legal_moves and took < PRE_READY_ANSWER_S

        engine.send("go depth 4")  # no clock: waits for the compiled engine, on the same position
        lines, _ = engine.until("bestmove", COMPILE_WAIT_S)
        assert any(line.startswith("info depth 4 ") for line in lines), lines
        assert not any("quick search" in line for line in lines)
        assert chess.Move.from_uci(_bestmove(lines)) in board.legal_moves
        engine.send("quit")
        assert engine.process.wait(timeout=10) == 0
        assert "Traceback" not in engine.process.stderr.read()
    finally:
        if engine.process.poll() is None:
            engine.process.kill()
