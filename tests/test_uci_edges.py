"""UCI corners a GUI or a script hits: lenient positions, long games, refused positions,
end of input during a search, plain-word errors, a Hash that cannot be allocated."""

from __future__ import annotations

import io
import subprocess
import time

import chess
import pytest
from test_uci import ENGINE_CMD, Raw, _bestmove, _clean_env, raw  # noqa: F401  (raw: the shared fixture)

from transpo import uci as uci_module


@pytest.fixture(scope="module", autouse=True)
def warm_cache():
    from transpo.core.position import Position
    from transpo.engine.engine import Engine
    from transpo.engine.timeman import Limits

    Engine(hash_mb=1, audit=True).search(Position(), Limits(depth=2))


def _legal(fen_or_board, line: str) -> bool:
    board = fen_or_board if isinstance(fen_or_board, chess.Board) else chess.Board(fen_or_board)
    return chess.Move.from_uci(_bestmove(line)[0]) in board.legal_moves


# --- positions ---------------------------------------------------------------------------------------
def test_castling_rights_without_king_or_rook_are_dropped_with_a_warning(raw):
    fen = "4k3/8/8/8/8/8/8/4K2R w KQkq - 0 1"
    raw.send(f"position fen {fen}")
    raw.send("d")
    line, before = raw.expect("Fen:")
    assert line == "Fen: 4k3/8/8/8/8/8/8/4K2R w K - 0 1" == "Fen: " + chess.Board(fen).fen()
    warnings = [l for l in before if l.startswith("info string warning")]
    assert len(warnings) == 1 and "castling rights Qkq dropped" in warnings[0], before
    raw.send("go depth 2")
    line, _ = raw.expect("bestmove")
    assert _legal(fen, line)


def test_fullmove_zero_is_accepted(raw):
    raw.send("position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 0 moves e2e4 e7e5")
    raw.send("d")
    line, before = raw.expect("Fen:")
    assert line == "Fen: rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
    assert not any("error" in l for l in before), before


def test_twenty_thousand_plies_of_moves(raw):
    moves = " ".join(["g1f3 g8f6 f3g1 f6g8"] * 5000)
    raw.send(f"position startpos moves {moves} e2e4")
    raw.send("d")
    line, before = raw.expect("Fen:", 30)
    assert line == "Fen: rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 10001"
    assert not any("error" in l for l in before), before
    raw.send("go depth 3")
    line, _ = raw.expect("bestmove", 30)
    board = chess.Board()
    board.push_uci("e2e4")
    assert _legal(board, line)
    # a long game in which the last moves repeat: the search still sees the draw
    raw.send(f"position startpos moves {moves}")
    raw.send("go depth 3")
    line, before = raw.expect("bestmove", 30)
    assert _legal(chess.Board(), line)


def test_moves_apply_up_to_the_first_illegal_one(raw):
    raw.send("position startpos moves e2e4 e7e5 e1e3 g1f3")
    raw.send("d")
    line, before = raw.expect("Fen:")
    assert line == "Fen: rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
    errors = [l for l in before if l.startswith("info string error")]
    assert len(errors) == 1 and "illegal move e1e3" in errors[0] and "move 3 of 4" in errors[0], before
    raw.send("go depth 2")
    line, _ = raw.expect("bestmove")
    board = chess.Board()
    board.push_uci("e2e4")
    board.push_uci("e7e5")
    assert _legal(board, line)


@pytest.mark.parametrize(
    "bad",
    [
        "position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",
        "position fen 8/8/8 w - - 0 1",
        "position sideways",
        "position",
        "position fen",
    ],
)
def test_a_refused_position_leaves_no_position(raw, bad):
    raw.send("position startpos moves e2e4")
    raw.send(bad)
    raw.send("go depth 2")
    line, before = raw.expect("bestmove")
    assert line == "bestmove 0000", before
    assert "info string error: no position" in before
    raw.send("go infinite")  # answered at once too
    line, _ = raw.expect("bestmove", 2)
    assert line == "bestmove 0000"
    raw.send("d")
    line, _ = raw.expect("info string error")
    assert "no position" in line
    raw.send("ucinewgame")  # back to the start position
    raw.send("go depth 1")
    line, _ = raw.expect("bestmove")
    assert _legal(chess.Board(), line)


# --- end of input --------------------------------------------------------------------------------------
def _pipe(text: str, timeout: float = 60) -> tuple[subprocess.CompletedProcess, float]:
    started = time.monotonic()
    r = subprocess.run(ENGINE_CMD, input=text, capture_output=True, text=True, timeout=timeout, env=_clean_env())
    return r, time.monotonic() - started


def test_piped_go_depth_5_answers_a_depth_5_search():
    r, _ = _pipe("go depth 5\n")
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    lines = r.stdout.splitlines()
    assert any(l.startswith("info depth 5 ") for l in lines), lines
    assert lines[-1].startswith("bestmove ") and _legal(chess.Board(), lines[-1])


def test_piped_script_is_answered_in_order():
    r, _ = _pipe("uci\nisready\nposition startpos moves e2e4\ngo depth 4\nisready\nposition fen bad\ngo depth 2\n")
    lines = r.stdout.splitlines()
    best = [l for l in lines if l.startswith("bestmove")]
    assert len(best) == 2 and best[1] == "bestmove 0000", lines
    assert any(l.startswith("info depth 4 ") for l in lines)
    assert lines.count("readyok") == 2


@pytest.mark.parametrize("go", ["go infinite", "go ponder wtime 1000 btime 1000"])
def test_piped_open_ended_search_stops_after_a_grace(go):
    r, elapsed = _pipe(f"position startpos\n{go}\n", timeout=30)
    assert r.returncode == 0
    assert r.stdout.splitlines()[-1].startswith("bestmove ")
    assert elapsed < uci_module.EOF_OPEN_ENDED_GRACE_S + 8, elapsed  # + process start and load


# --- errors in plain words ------------------------------------------------------------------------------
def test_errors_name_the_option_and_range_in_plain_words(raw):
    for line in (
        "setoption name Hash value 0",
        "setoption name Hash value lots",
        "setoption name MultiPV value 999",
        "setoption name Replacement value sometimes",
        "setoption name UseTT value maybe",
        "go depth x",
        "go nodes -5",
    ):
        raw.send(line)
    errors = raw.ready()
    assert len(errors) == 7, errors
    assert "option Hash must be from 1 to 65536, not 0" in errors[0]
    assert "option Hash needs a whole number from 1 to 65536, not 'lots'" in errors[1]
    assert "option MultiPV must be from 1 to 256" in errors[2]
    assert "always, depth, two-tier, bucket" in errors[3]
    for error in errors:
        assert error.startswith("info string error: ")
        assert "Error" not in error and "Exception" not in error, error


def _in_process_uci():
    out = io.StringIO()
    uci = uci_module.UCI(out)
    uci.start_warmup()
    uci.ready.wait(120)
    assert uci.engine is not None
    return uci, out


def test_hash_that_cannot_be_allocated_keeps_the_previous_table(monkeypatch):
    uci, out = _in_process_uci()
    table = uci.engine.table
    uci.handle("setoption name Hash value 2")
    words = table.words

    def refuse(size_mb):
        raise MemoryError()

    monkeypatch.setattr(table, "resize", refuse)
    uci.handle("setoption name Hash value 60000")

    def refuse_value(size_mb):
        raise ValueError("60000 MB is more than the 3000 MB of available memory")

    monkeypatch.setattr(table, "resize", refuse_value)
    uci.handle("setoption name Hash value 60000")
    lines = out.getvalue().splitlines()
    assert lines[-2] == "info string error: cannot set Hash to 60000 MB (out of memory); keeping the 2 MB table"
    assert lines[-1] == (
        "info string error: cannot set Hash to 60000 MB (60000 MB is more than the 3000 MB of available memory);"
        " keeping the 2 MB table"
    )
    assert table.words is words and table.size_mb == 2
    uci.handle("position startpos")
    uci.handle("go depth 2")
    uci._stop_search(wait_only=True)
    assert out.getvalue().splitlines()[-1].startswith("bestmove ")


def test_unexpected_failures_are_reported_without_class_names(monkeypatch):
    uci, out = _in_process_uci()

    def broken(args):
        raise KeyError("boom")

    monkeypatch.setattr(uci, "cmd_d", broken)
    uci.handle("d")
    line = out.getvalue().splitlines()[-1]
    assert line.startswith("info string error: internal error on 'd'") and "KeyError" not in line, line


def test_hash_set_before_the_engine_exists_falls_back(monkeypatch):
    """A Hash the warm-up cannot allocate: an error line, the default size, the engine still starts."""
    from transpo.engine import table as table_module

    real = table_module.TranspositionTable.resize

    def resize(self, size_mb):
        if size_mb > 1000:
            raise MemoryError()
        real(self, size_mb)

    monkeypatch.setattr(table_module.TranspositionTable, "resize", resize)
    out = io.StringIO()
    uci = uci_module.UCI(out)
    uci.handle("setoption name Hash value 60000")
    uci.start_warmup()
    uci.ready.wait(120)
    assert uci.engine is not None and uci.engine.table.size_mb == 64
    assert "cannot set Hash to 60000 MB (out of memory); using 64 MB" in out.getvalue()
