"""The command line's hard edges: Ctrl-C, absurd sizes, --version, help, ``python -m transpo``."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

import transpo

STOP_TARGET_S = 0.5
STOP_LIMIT_S = 1.5  # the target plus slack for a loaded 2-core machine


def _env() -> dict:
    env = dict(os.environ)
    for name in ("NUMBA_DISABLE_JIT", "NUMBA_BOUNDSCHECK"):
        env.pop(name, None)
    return env


def _run(*args: str, module: str = "transpo.cli", timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", module, *args], capture_output=True, text=True, timeout=timeout, env=_env()
    )


@pytest.fixture(scope="module", autouse=True)
def warm_cache():
    from transpo.core.position import Position
    from transpo.engine.engine import Engine
    from transpo.engine.timeman import Limits

    Engine(hash_mb=1).search(Position(), Limits(depth=2))
    Position().perft(2)


# --- Ctrl-C ------------------------------------------------------------------------------------------------
def _interrupt(args: list[str], started_when) -> tuple[subprocess.Popen, float, str, str]:
    """Start ``transpo ARGS``, wait until ``started_when(line)`` holds for an output line (None: 1 s), send SIGINT."""
    # A shell's background job inherits SIGINT ignored, and so would the command: give it the terminal's default.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "transpo", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env=_env(),
        )  # fmt: skip
    finally:
        signal.signal(signal.SIGINT, previous)
    head = []
    if started_when is None:
        time.sleep(1.5)  # warm cache: loaded in well under a second, then deep in perft
    else:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            head.append(line)
            if not line or started_when(line):
                break
    assert proc.poll() is None, ("finished before the interrupt", head)
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    try:
        out, err = proc.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        raise AssertionError(f"{args} ignored SIGINT for 20 s") from None
    elapsed = time.monotonic() - sent
    print(f"{' '.join(args)}: stopped {elapsed:.3f} s after SIGINT")
    return proc, elapsed, "".join(head) + out, err


@pytest.mark.parametrize(
    "args,started_when",
    [
        (["perft", "9"], None),
        (["perft", "7", "--divide"], None),
        (["analyse", "--depth", "40"], lambda line: line.startswith("depth  4")),
        (["bench"], lambda line: line.startswith("Position  1/")),
    ],
    ids=["perft 9", "perft divide", "analyse", "bench"],
)
def test_ctrl_c_stops_at_once(args, started_when):
    proc, elapsed, out, err = _interrupt(args, started_when)
    assert proc.returncode == 130, (out, err)
    assert "Traceback" not in err and "Traceback" not in out, err
    assert err.strip().splitlines()[-1] == "interrupted", err
    assert elapsed < STOP_LIMIT_S, f"{args}: {elapsed:.3f} s (target {STOP_TARGET_S} s)"
    if args[0] == "analyse":
        assert "Interrupted. Best move so far: " in out and "PV 1: " in out, out


# --- sizes --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("depth", ["1000000000", "129", "99999999999999999999999"])
def test_absurd_perft_depth_is_refused_at_once(depth):
    started = time.monotonic()
    r = _run("perft", depth)
    assert r.returncode == 2
    assert r.stderr.splitlines() == [
        f"error: perft depth must be >= 0 and <= 128 (the deepest search ply), not {depth}"
    ]
    assert time.monotonic() - started < 10


def test_absurd_search_depths_are_refused():
    for args in (["analyse", "--depth", "1000"], ["bench", "--depth", "1000"]):
        r = _run(*args)
        assert r.returncode == 2 and r.stderr.splitlines() == [
            "error: --depth must be >= 1 and <= 128 (the deepest search ply), not 1000"
        ], r.stderr


@pytest.mark.parametrize("args", [["analyse", "--depth", "2"], ["bench", "--depth", "1"]], ids=["analyse", "bench"])
def test_a_hash_that_does_not_fit_is_one_line_error(args):
    r = _run(*args, "--hash", "65536")
    assert r.returncode == 2 and r.stdout == "", r.stdout
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), r.stderr
    assert "Traceback" not in r.stderr and "MemoryError" not in r.stderr


def test_memory_and_value_errors_are_one_line(monkeypatch, capsys):
    from transpo import cli

    def out_of_memory(args):
        raise MemoryError()

    monkeypatch.setattr(cli, "cmd_key", out_of_memory)
    assert cli.main(["key"]) == 2
    assert capsys.readouterr().err == "error: out of memory\n"


# --- version, help, python -m transpo ------------------------------------------------------------------------
def test_version():
    for module in ("transpo.cli", "transpo"):
        r = _run("--version", module=module)
        assert r.returncode == 0 and r.stdout == f"transpo {transpo.__version__}\n", r


def test_python_dash_m_transpo_is_the_transpo_command():
    r = _run("perft", "3", module="transpo")
    assert r.returncode == 0 and r.stdout.startswith("Nodes: 8902\n"), r
    r = subprocess.run(
        [sys.executable, "-m", "transpo"], input="uci\nquit\n", capture_output=True, text=True, timeout=30, env=_env()
    )
    assert r.returncode == 0 and "uciok" in r.stdout.splitlines()


def test_help_lists_every_command():
    r = _run("help")
    assert r.returncode == 0, r.stderr
    for command in ("help", "perft", "key", "uci", "analyse", "bench", "lab"):
        assert f"\n    {command} " in r.stdout, (command, r.stdout)
    r = _run("help", "perft")
    assert r.returncode == 0 and "--divide" in r.stdout
    r = _run("help", "nosuch")
    assert r.returncode == 2 and r.stderr.startswith("error: ")


# --- README ---------------------------------------------------------------------------------------------------
def test_readme_quick_start_is_real():
    import re
    from pathlib import Path

    import chess

    root = Path(__file__).resolve().parent.parent
    readme = (root / "README.md").read_text()
    block = readme.split("```bash\n", 1)[1].split("```", 1)[0].splitlines()
    assert len(block) == 2
    install, tests = block
    assert install.startswith("python3 -m venv .venv && . .venv/bin/activate && pip install -e . && transpo ")
    assert tests == "python3 -m venv .venv && . .venv/bin/activate && bash scripts/test.sh"
    assert "Python 3.11 or newer" in readme and 'requires-python = ">=3.11"' in (root / "pyproject.toml").read_text()
    fen = re.search(r'--fen "([^"]+)"', install)[1]
    board = chess.Board()
    for san in "d4 d5 c4 e6 Nc3 Nf6 Bg5 Be7 e3 O-O Nf3 Nbd7".split():
        board.push_san(san)
    assert fen == board.fen() and board.is_valid()
    assert "centipawns" in readme and "side to move" in readme
    r = _run("analyse", "--fen", fen, "--depth", "3")
    assert r.returncode == 0 and "Best move: " in r.stdout, r.stderr


def test_keyboard_interrupt_anywhere_is_exit_130_without_traceback(monkeypatch, capsys):
    """The top-level handler (what the lab commands rely on): Ctrl-C outside the interruptible helper."""
    from transpo import cli

    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "cmd_key", interrupted)
    assert cli.main(["key"]) == 130
    assert capsys.readouterr().err == "interrupted\n"
