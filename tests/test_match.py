"""``transpo match`` with real and misbehaving engines, its outputs, bad input and Ctrl-C.

* Transpo against sunfish, two short games: the PGN read back by python-chess has
  the results of the JSON.
* A fake engine (``tests/fake_uci_engine.py``) that crashes, hangs, plays an illegal
  move or no move loses each game, the forfeit is counted, the engine restarted,
  and the match finishes.
* Bad input is one ``error:`` line and status 2; Ctrl-C (SIGINT) ends a match at
  once with status 130, the partial result printed and the engines killed.
* The shipped opening set: legal positions, no duplicates, balanced by its notes.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import chess
import chess.pgn
import pytest

from transpo.cli import main
from transpo.tools.match import replace_file
from transpo.tools.openings import data_path, load_openings

ROOT = Path(__file__).resolve().parent.parent
FAKE = Path(__file__).resolve().parent / "fake_uci_engine.py"


def fake(mode: str, after: int = 2, pidfile: Path | None = None) -> str:
    return f"{sys.executable} {FAKE} {mode} {after}" + (f" {pidfile}" if pidfile else "")


def _env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT / "src")
    for name in ("NUMBA_DISABLE_JIT", "NUMBA_BOUNDSCHECK"):
        env.pop(name, None)
    return env


@pytest.fixture(scope="module")
def warm_cache():
    """Compile (or load) the engine once, so the engine processes below start from a warm cache."""
    from transpo.core.position import Position
    from transpo.engine.engine import Engine
    from transpo.engine.timeman import Limits

    Engine(hash_mb=1).search(Position(), Limits(depth=2))


@pytest.mark.skipif(shutil.which("sunfish-uci") is None, reason="sunfish-uci not installed")
def test_transpo_vs_sunfish_pgn_agrees_with_json(tmp_path, warm_cache, monkeypatch, capsys):
    monkeypatch.setenv("PYTHONPATH", str(ROOT / "src"))
    pgn, report = tmp_path / "games.pgn", tmp_path / "match.json"
    code = main(["match", "--engine", f"transpo={sys.executable} -m transpo", "--engine",
                 f"sunfish={shutil.which('sunfish-uci')}", "--games", "2", "--tc", "2+0.05",
                 "--pgn", str(pgn), "--json", str(report)])  # fmt: skip
    assert code == 0
    data = json.loads(report.read_text())
    games = data["games"]
    assert len(games) == 2 and data["summary"][0]["games"] == 2
    read = []
    with open(pgn) as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            read.append(game)
    assert [g.headers["Result"] for g in read] == [g["result"] for g in games]
    assert [g.headers["Termination"] for g in read] == [g["termination"] for g in games]
    assert [(g.headers["White"], g.headers["Black"]) for g in read] == [("transpo", "sunfish"), ("sunfish", "transpo")]
    for game, record in zip(read, games):
        board = game.end().board()
        assert board.move_stack[-len(record["moves"]) :] == [chess.Move.from_uci(m) for m in record["moves"]]
        if record["termination"] == "checkmate":
            assert board.is_checkmate()
    summary = data["summary"][0]
    assert summary["wins"] + summary["draws"] + summary["losses"] == 2 and sum(summary["pentanomial"]) == 1
    assert "W/D/L" in capsys.readouterr().out


@pytest.mark.parametrize(
    "mode, kind", [("crash", "crash"), ("hang", "hang"), ("illegal", "illegal"), ("none", "illegal")]
)
def test_misbehaving_engine_loses_is_counted_and_restarted(tmp_path, mode, kind):
    report = tmp_path / "m.json"
    code = main(["match", "--engine", f"good={fake('ok', 0)}", "--engine", f"bad={fake(mode, 2)}", "--games", "4",
                 "--tc", "1", "--margin", "0.3", "--json", str(report), "--pgn", str(tmp_path / "m.pgn")])  # fmt: skip
    assert code == 0
    data = json.loads(report.read_text())
    summary = data["summary"][0]
    assert (summary["wins"], summary["draws"], summary["losses"]) == (4, 0, 0)
    assert summary["forfeits"] == {"bad": {kind: 4}}
    assert data["restarts"]["bad"] == 4 and data["restarts"]["good"] == 0
    assert all(g["forfeiter"] == "bad" for g in data["games"])


def test_an_engine_that_died_between_games_is_started_again():
    """Killed while it was not its turn (the game then ended another way): the next game restarts it."""
    from transpo.tools.match import EngineConfig, Player

    player = Player(EngineConfig("ok", tuple(fake("ok", 0).split())))
    player.new_game("first")
    os.kill(player.engine.transport.get_pid(), signal.SIGKILL)
    deadline = time.monotonic() + 10
    while player.engine.transport.get_returncode() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    player.new_game("second")
    answer = player.play(chess.Board(), chess.engine.Limit(time=0.1), "second", 10.0)
    assert answer.move in chess.Board().legal_moves and player.restarts == 1
    player.quit()


def test_killing_an_engine_in_the_middle_of_a_search_prints_no_traceback(capfd, caplog):
    """The interrupt path: the engine is killed while a thread waits for its move. That thread gets the
    EngineTerminatedError; asyncio's shutdown of the engine's event loop prints nothing (it printed the
    cancelled command's traceback when the loop was closed before it had seen the process die)."""
    from transpo.tools.match import EngineConfig, Player

    player = Player(EngineConfig("hang", tuple(fake("hang", 0).split())))
    player.new_game("g")
    loop_threads = [t for t in threading.enumerate() if t.name.startswith("SimpleEngine")]
    raised: list[BaseException] = []

    def wait_for_a_move() -> None:
        try:
            player.play(chess.Board(), chess.engine.Limit(white_clock=60, black_clock=60), "g", 60.0)
        except BaseException as exc:  # noqa: BLE001 - inspected below
            raised.append(exc)

    waiter = threading.Thread(target=wait_for_a_move)
    waiter.start()
    time.sleep(0.5)  # the `go` is pending: the fake engine never answers
    player.kill()
    waiter.join(10)
    for thread in loop_threads:
        thread.join(10)
    assert not waiter.is_alive() and not any(t.is_alive() for t in loop_threads)
    assert [type(exc) for exc in raised] == [chess.engine.EngineTerminatedError]
    err = capfd.readouterr().err  # what a user would see (without pytest, asyncio's log goes to stderr)
    assert "Traceback" not in err and "unhandled exception" not in err, err
    assert [r.getMessage() for r in caplog.records if r.name == "asyncio"] == []


def test_gauntlet_of_the_first_engine(tmp_path):
    report = tmp_path / "g.json"
    assert main(["match", "--engine", f"a={fake('ok', 0)}", "--engine", f"b={fake('crash', 1)}", "--engine",
                 f"c={fake('illegal', 1)}", "--games", "2", "--tc", "1", "--json", str(report)]) == 0  # fmt: skip
    data = json.loads(report.read_text())
    assert data["config"]["mode"] == "gauntlet"
    assert [(s["first"], s["second"], s["wins"]) for s in data["summary"]] == [("a", "b", 2), ("a", "c", 2)]


@pytest.mark.parametrize(
    "args, message",
    [
        (["--engine", "a=true"], "at least two engines"),
        (["--engine", "a=true", "--engine", "b=true", "--tc", "fast"], "--tc"),
        (["--engine", "a=true", "--engine", "b=true", "--tc", "0+1"], "--tc"),
        (["--engine", "a=true", "--engine", "a=true"], "differ"),
        (["--engine", "noequals", "--engine", "b=true"], "NAME=COMMAND"),
        (["--engine", "a=true", "--engine", "b=true", "--sprt", "elo0=5,elo1=1"], "elo0"),
        (["--engine", "a=true", "--engine", "b=true", "--option", "c:Hash=1"], "no engine named"),
        (["--engine", "a=true", "--engine", "b=true", "--games", "0"], "--games"),
        (["--engine", "a=true", "--engine", "b=true", "--pgn", "/nonexistent/dir/x.pgn"], "No such file"),
        (["--engine", "a=true", "--engine", "b=true", "--openings", "/nonexistent.epd"], "no opening file"),
        (["--engine", "a=/nonexistent/engine", "--engine", "b=true"], "not found"),
        (["--engine", "a=true", "--engine", "b=true", "--draw-adjudication", "moves=x"], "integer"),
    ],
)
def test_bad_input_is_one_error_line(args, message, capsys):
    assert main(["match", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and err.count("\n") == 1 and "Traceback" not in err


def _start_match(pids: Path) -> subprocess.Popen:
    """A 20-game match of a quick fake engine against one that hangs in its fourth search, in ``pids``' folder."""
    command = [sys.executable, "-m", "transpo", "match", "--engine", f"a={fake('ok', 0, pids)}",
               "--engine", f"b={fake('hang', 3, pids)}", "--games", "20", "--tc", "30"]  # fmt: skip
    return subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(), cwd=pids.parent
    )


@pytest.mark.parametrize(
    "stop, sigint_at_start",
    [
        (signal.SIGINT, signal.default_int_handler),  # Ctrl-C at a terminal
        (signal.SIGTERM, signal.SIG_IGN),  # kill PID of a job a shell started in the background (SIGINT ignored)
    ],
    ids=["ctrl-c", "kill"],
)
def test_ctrl_c_stops_at_once_prints_the_partial_result_and_kills_the_engines(tmp_path, stop, sigint_at_start):
    pids = tmp_path / "pids"
    # The command inherits SIGINT's disposition: set the one of the case (pytest may run as a background job).
    previous = signal.signal(signal.SIGINT, sigint_at_start)
    try:
        proc = _start_match(pids)
    finally:
        signal.signal(signal.SIGINT, previous)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and (not pids.exists() or len(pids.read_text().split()) < 2):
        time.sleep(0.1)
    time.sleep(0.5)  # b is now hanging in its fourth search, with 30 s on its clock
    started = time.monotonic()
    proc.send_signal(stop)
    out, err = proc.communicate(timeout=20)
    assert time.monotonic() - started < 5
    assert proc.returncode == 130, err
    assert "a vs b" in out and "stopped: interrupted" in out and "interrupted" in err
    assert "Traceback" not in err and "unhandled exception" not in err, err
    time.sleep(0.3)
    for pid in map(int, pids.read_text().split()):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            continue
        state = Path(f"/proc/{pid}/stat").read_text().split()[2] if Path(f"/proc/{pid}/stat").exists() else "X"
        assert state == "Z", f"engine process {pid} still running"


def test_the_report_is_replaced_whole_when_threads_write_it_at_once(tmp_path):
    """Game threads and a Ctrl-C rewrite the JSON report concurrently: the file is always one whole report."""
    path = tmp_path / "report.json"
    path.write_text("")
    path.chmod(0o644)
    texts = [json.dumps({"writer": i, "padding": "x" * (i * 7919 % 60000)}) + "\n" for i in range(12)]

    def write_often(text: str) -> None:
        for _ in range(25):
            replace_file(path, text)

    threads = [threading.Thread(target=write_often, args=(text,)) for text in texts]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert path.read_text() in texts
    assert json.loads(path.read_text())["writer"] in range(12)
    assert list(tmp_path.iterdir()) == [path]  # no temporary file left beside it
    assert path.stat().st_mode & 0o777 == 0o644


def test_a_report_that_cannot_be_written_leaves_the_old_one_and_no_temporary_file(tmp_path):
    """A write that fails (here: text the encoder refuses, as a full disk would) keeps the last report whole."""
    path = tmp_path / "report.json"
    replace_file(path, '{"games": 1}\n')
    with pytest.raises(UnicodeEncodeError):
        replace_file(path, "\ud800")  # a lone surrogate: UTF-8 cannot encode it
    assert path.read_text() == '{"games": 1}\n'
    assert list(tmp_path.iterdir()) == [path]


def test_shipped_openings_are_legal_distinct_and_balanced():
    path = data_path("openings.epd")
    lines = [line for line in path.read_text().splitlines() if line and not line.startswith("#")]
    assert len(lines) >= 100
    keys = set()
    for line in lines:
        board, ops = chess.Board.from_epd(line)
        assert board.is_valid() and not board.is_game_over()
        keys.add(board.epd())
        assert abs(int(ops["c1"].split()[1])) <= 50  # Stockfish's score noted by scripts/make_openings.py
    assert len(keys) == len(lines)
    openings = load_openings()
    assert len(openings) == len(lines)
    assert all(o.board.move_stack for o in openings)  # every c0 line replays to its position
    assert all(o.board.epd() in keys for o in openings)


def test_help_of_the_new_commands(capsys):
    for command in ("match", "epd"):
        assert main(["help", command]) == 0
    text = capsys.readouterr().out
    assert "--sprt" in text and "--movetime" in text


def test_worktree_engine_script_runs_another_revision(tmp_path):
    """scripts/worktree-engine.sh REV: a worktree of REV and the command that runs it (here: this checkout's HEAD)."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    # The first call also compiles that worktree (its warm-up): "perft 1" compiles the core in seconds,
    # where the default "bench --depth 1" compiles the whole engine, minutes.
    env = {**_env(), "TRANSPO_WORKTREES": str(tmp_path), "TRANSPO_WARMUP": "perft 1"}
    # As exported by a Transpo process (transpo match): a version's own folder, whose parent the command must name.
    env["NUMBA_CACHE_DIR"] = str(tmp_path / "numba" / "transpo-0123456789abcdef")
    made = subprocess.run(["bash", str(ROOT / "scripts" / "worktree-engine.sh"), "HEAD"], capture_output=True,
                          text=True, env=env, timeout=600, check=False)  # fmt: skip
    assert made.returncode == 0 and "warning" not in made.stderr, made.stderr
    command = made.stdout.strip()
    assert command.startswith(f"env PYTHONPATH={tmp_path}/transpo-rev-")
    assert f"NUMBA_CACHE_DIR={tmp_path / 'numba'} " in command
    try:
        answer = subprocess.run(
            command.split(), input="uci\nquit\n", capture_output=True, text=True, timeout=60, check=False
        )
        assert "uciok" in answer.stdout
        again = subprocess.run(["bash", str(ROOT / "scripts" / "worktree-engine.sh"), "HEAD"], capture_output=True,
                               text=True, env=env, timeout=300, check=False)  # fmt: skip
        assert again.stdout.strip() == command  # the worktree is made once
    finally:
        worktree = command.split()[1].split("=", 1)[1].rsplit("/src", 1)[0]
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "remove", "--force", worktree], capture_output=True, check=False
        )
    bad = subprocess.run(["bash", str(ROOT / "scripts" / "worktree-engine.sh"), "no-such-rev"], capture_output=True,
                         text=True, env=env, timeout=60, check=False)  # fmt: skip
    assert bad.returncode == 2 and bad.stderr.startswith("error: ")


def test_score_adjudication(tmp_path):
    report = tmp_path / "a.json"
    args = ["--games", "2", "--tc", "1", "--json", str(report)]
    assert main(["match", "--engine", f"a={fake('ok', 0)}", "--engine", f"b={fake('ok', 0)}", *args,
                 "--draw-adjudication", "moves=3,score=10,after=1"]) == 0  # fmt: skip
    games = json.loads(report.read_text())["games"]
    assert [(g["result"], g["termination"], g["plies"]) for g in games] == [("1/2-1/2", "adjudication", 6)] * 2
    assert main(["match", "--engine", f"up={fake('up', 0)}", "--engine", f"down={fake('down', 0)}", *args,
                 "--resign-adjudication", "moves=2,score=600"]) == 0  # fmt: skip
    data = json.loads(report.read_text())
    assert [(g["result"], g["termination"]) for g in data["games"]] == [
        ("1-0", "adjudication"),
        ("0-1", "adjudication"),
    ]
    assert data["summary"][0]["wins"] == 2 and data["summary"][0]["forfeits"] == {}
