"""The ``transpo`` command line: perft, divide, bulk, key, key sets, and error reporting.

Every command runs in a real subprocess (``python -m transpo.cli``); the commands are
started together by a module fixture so their interpreter start-ups overlap.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from transpo import Position

KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"

# Run in a real subprocess (exit status, stdout/stderr as a user sees them).
COMMANDS = {
    "perft3": ["perft", "3"],
    "perft3_bulk": ["perft", "3", "--bulk"],
    "divide3": ["perft", "3", "--divide"],
    "divide3_bulk": ["perft", "3", "--divide", "--bulk"],
    "key": ["key"],
    "key_e4": ["key", "--moves", "e2e4"],
    "key_prng": ["key", "--keys", "prng"],
    "key_knuth": ["key", "--keys", "knuth"],
}
ERRORS = {
    "bad_fen": ["perft", "2", "--fen", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1"],
    "illegal_move": ["key", "--moves", "e2e5"],
    "malformed_move": ["perft", "1", "--moves", "e2"],
    "negative_depth": ["perft", "--", "-1"],
    "unknown_command": ["frobnicate"],
}
# Run in-process through main(argv) (same code path, no interpreter start-up).
IN_PROCESS = {
    "perft_kiwipete": (["perft", "2", "--fen", KIWIPETE], "Nodes: 2039"),
    "perft_moves": (["perft", "1", "--moves", "e2e4", "e7e5"], "Nodes: 29"),
    "perft0": (["perft", "0"], "Nodes: 1"),
    "key_e4_fen": (["key", "--fen", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"], "0x823c9b50fd114196"),
    "key_spec": (["key", "--moves", "a2a4", "b7b5", "h2h4", "b5b4", "c2c4", "b4c3", "a1a3"], "0x5c3f9b829b279560"),
    "key_prng_seed": (["key", "--keys", "prng", "--seed", "0x1234"], f"0x{Position(keys='prng', seed=0x1234).key:016x}"),
    "key_knuth_e4": (["key", "--keys", "knuth", "--moves", "e2e4"], None),
}
IN_PROCESS_ERRORS = {
    "bad_fen_key": (["key", "--fen", "not a fen"], "expected 6 fields"),
    "fen_without_king": (["key", "--fen", "8/8/8/8/8/8/8/8 w - - 0 1"], "white has no king"),
    "illegal_move_perft": (["perft", "1", "--moves", "e2e4", "e2e4"], "illegal move e2e4"),
    "depth_not_a_number": (["perft", "three"], "invalid int value"),
    "unknown_key_set": (["key", "--keys", "md5"], "invalid choice"),
    "bad_seed": (["key", "--keys", "prng", "--seed", "zz"], "--seed"),
    "castling_contradiction": (["key", "--fen", "4k3/8/8/8/8/8/8/4K3 w K - 0 1"], "castling right 'K'"),
    "eval_missing_weights": (["eval", "--weights", "/nonexistent/w.json"], "cannot read weights file"),
}
HUGE_CLOCK = ["key", "--fen", "4k3/8/8/8/8/8/8/4K3 w - - 99999999999999999999999 1"]


def run_cli(args: list[str], exe: list[str] | None = None) -> subprocess.CompletedProcess:
    cmd = (exe or [sys.executable, "-m", "transpo.cli"]) + args
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=dict(os.environ))


@pytest.fixture(scope="module")
def results() -> dict[str, subprocess.CompletedProcess]:
    names = list(COMMANDS) + list(ERRORS)
    argvs = [COMMANDS.get(n) or ERRORS[n] for n in names]
    with ThreadPoolExecutor(max_workers=3) as pool:
        done = list(pool.map(run_cli, argvs))
    return dict(zip(names, done))


def ok(results, name) -> list[str]:
    r = results[name]
    assert r.returncode == 0, (name, r.stderr)
    assert "Traceback" not in r.stderr
    return r.stdout.splitlines()


def nodes(lines: list[str]) -> int:
    found = [line for line in lines if line.startswith("Nodes: ")]
    assert len(found) == 1, lines
    return int(found[0].removeprefix("Nodes: "))


def divide_lines(lines: list[str]) -> dict[str, int]:
    out = {}
    for line in lines:
        if ": " in line and not line.startswith(("Nodes", "Time")):
            move, count = line.split(": ")
            out[move] = int(count)
    return out


def test_perft_3_prints_nodes(results):
    lines = ok(results, "perft3")
    assert "Nodes: 8902" in lines
    assert any(line.startswith("Time: ") for line in lines)
    assert any(line.startswith("Nodes/s: ") for line in lines)


def test_perft_bulk_gives_the_same_count(results):
    assert nodes(ok(results, "perft3_bulk")) == 8902


def test_perft_divide_lists_root_moves_and_total(results):
    expected = Position().divide(3)
    for name in ("divide3", "divide3_bulk"):
        lines = ok(results, name)
        split = divide_lines(lines)
        assert len(split) == 20
        assert split == expected
        assert sum(split.values()) == 8902
        assert nodes(lines) == 8902
    assert expected["e2e4"] == 600 and expected["g1h3"] == 400


def test_key_prints_polyglot_keys(results):
    assert ok(results, "key") == ["0x463b96181691fc9c"]
    assert ok(results, "key_e4") == ["0x823c9b50fd114196"]


def test_key_sets_on_the_command_line(results):
    polyglot = ok(results, "key")[0]
    prng, knuth = ok(results, "key_prng")[0], ok(results, "key_knuth")[0]
    assert len({polyglot, prng, knuth}) == 3
    assert prng == f"0x{Position(keys='prng').key:016x}"
    assert knuth == f"0x{Position(keys='knuth').key:016x}"
    for text in (prng, knuth):
        assert text.startswith("0x") and len(text) == 18


@pytest.mark.parametrize("name", ERRORS)
def test_errors_are_one_line_exit_2(results, name):
    r = results[name]
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr
    lines = r.stderr.splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith("error: ")
    assert r.stdout == ""


def test_error_messages_name_the_fault(results):
    assert "side to move" in results["bad_fen"].stderr
    assert "illegal move e2e5" in results["illegal_move"].stderr
    assert "malformed move" in results["malformed_move"].stderr
    assert "depth must be >= 0" in results["negative_depth"].stderr


def test_huge_fen_clock_is_a_one_line_error():
    """Regression: an overflowing FEN clock raised OverflowError, which the CLI printed as a traceback."""
    r = run_cli(HUGE_CLOCK)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.startswith("error: ") and len(r.stderr.splitlines()) == 1


def test_console_script_matches_module():
    script = Path(sys.executable).with_name("transpo")
    exe = [str(script)] if script.exists() else ([shutil.which("transpo")] if shutil.which("transpo") else None)
    if exe is None:
        pytest.skip("transpo console script not installed")
    r = run_cli(["key", "--moves", "e2e4"], exe=exe)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "0x823c9b50fd114196"


@pytest.mark.parametrize("argv,expected", IN_PROCESS.values(), ids=IN_PROCESS.keys())
def test_main_in_process(capsys, argv, expected):
    """main() returns the status instead of exiting (the console script passes it to sys.exit)."""
    from transpo.cli import main

    assert main(argv) == 0
    out = capsys.readouterr()
    assert out.err == ""
    if expected is None:  # a key that must differ from the PolyGlot one
        key = out.out.strip()
        assert key.startswith("0x") and len(key) == 18
        assert key != "0x823c9b50fd114196"
    else:
        assert expected in out.out.splitlines()


@pytest.mark.parametrize("argv,fragment", IN_PROCESS_ERRORS.values(), ids=IN_PROCESS_ERRORS.keys())
def test_main_in_process_errors(capsys, argv, fragment):
    from transpo.cli import main

    assert main(argv) == 2
    out = capsys.readouterr()
    assert out.out == ""
    lines = out.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), out.err
    assert fragment in lines[0]


@pytest.mark.parametrize("fen", [KIWIPETE, "4k3/8/8/8/8/8/8/4K2R b K - 0 1"])
def test_eval_prints_the_terms_and_the_engines_score(capsys, fen):
    from transpo.cli import main
    from transpo.engine.evaluate import explain

    assert main(["eval", "--fen", fen]) == 0
    out = capsys.readouterr().out
    explanation = explain(Position(fen))
    side = "White" if " w " in fen else "Black"
    assert f"score {explanation.score:+d} cp for {side} (the side to move)" in out.splitlines()[-1]
    for term in explanation.terms:  # whole names: king_danger is part of king_danger_checks
        assert (re.search(rf"(?<!\w){term.name}(?!\w)", out) is not None) == (term.count != 0)
