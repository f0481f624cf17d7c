"""Where jobs run (``transpo.executors``): the local executors, a Ray instance on this machine, a lost worker.

* Local threads and the process pool give every job once, keyed by job, whatever
  order the jobs finish in.
* Through a Ray instance started here (two CPUs, no dashboard), a small lab sweep
  (search jobs and ``lab odds``) and a two-game match give the same rows and games
  as the local executors; the SPRT still stops a match early.
* A Ray worker killed in the middle of a job: the job is rerun, none is lost or doubled.
* ``--ray`` without Ray installed is one ``error:`` line naming ``pip install -e '.[ray]'``.

The Ray tests are skipped when Ray is not installed.
"""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import sys
import threading
import time
from functools import partial
from pathlib import Path

import pytest

from transpo.cli import main
from transpo.executors import Placement, ProcessExecutor, RayExecutor, TaskWorker, ThreadExecutor
from transpo.lab.positions import DEFAULT_POSITIONS
from transpo.lab.runner import EngineSettings, SearchJob, SearchLimit, run_parallel, run_searches

FAKE = Path(__file__).resolve().parent / "fake_uci_engine.py"
needs_ray = pytest.mark.skipif(
    importlib.util.find_spec("ray") is None, reason="Ray is not installed (pip install -e '.[ray]')"
)


def slow_square(item: tuple[int, str]) -> int:
    """A job of a fraction of a second that leaves its worker's pid in ``folder/started-N`` (module level: pickled)."""
    number, folder = item
    Path(folder, f"started-{number}").write_text(str(os.getpid()))
    time.sleep(0.4)
    return number * number


def _square(number: int) -> int:
    return number * number


def fake(mode: str, after: int = 0) -> str:
    return f"{sys.executable} {FAKE} {mode} {after}"


@pytest.mark.parametrize("executor", [ThreadExecutor(3), ProcessExecutor(2)], ids=["threads", "processes"])
def test_local_executors_give_every_job_once(executor):
    done = list(executor.run(partial(TaskWorker, _square), list(range(10))))
    assert sorted(d.job for d in done) == list(range(10))
    assert all(d.result == d.job * d.job for d in done)


# --- Ray ------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def ray_here():
    """A Ray instance on this machine for the module (the executors join it, as ``--ray local`` would start it).

    Its workers get this folder on their path, so they can unpickle this module's jobs.
    """
    import ray

    path = os.pathsep.join(filter(None, [str(Path(__file__).parent), os.environ.get("PYTHONPATH")]))
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR",
             runtime_env={"env_vars": {"PYTHONPATH": path}})  # fmt: skip
    yield ray
    ray.shutdown()


def _search_jobs() -> list[SearchJob]:
    return [
        SearchJob(
            positions=(DEFAULT_POSITIONS[i],),
            first_index=i,
            limit=SearchLimit(depth=4),
            engine=EngineSettings(hash_mb=1, signature_bits=16, audit=True),
            tag={"number": i},
        )
        for i in range(4)
    ]


def _rows_without_times(rows: list[dict]) -> list[dict]:
    return [{k: v for k, v in row.items() if k not in ("wall_s", "time_ms")} for row in rows]


@needs_ray
def test_a_lab_sweep_on_ray_gives_the_local_rows(ray_here, tmp_path):
    jobs = _search_jobs()
    local = run_searches(jobs, Placement(2), "local")
    remote = run_searches(jobs, Placement(2, "local"), "ray")
    assert [_rows_without_times([r.row() for r in records]) for records in remote] == [
        _rows_without_times([r.row() for r in records]) for records in local
    ]
    assert run_parallel(_square, list(range(7)), Placement(2, "local"), "ray") == [n * n for n in range(7)]
    reports = {}
    for name, where in (("pool", ["--jobs", "2"]), ("ray", ["--ray", "local"])):
        path = tmp_path / f"{name}.json"
        argv = ["lab", "odds", "--bits", "16", "--mc-bits", "10,12", "--trials", "100", "--json", str(path), *where]
        assert main(argv) == 0
        reports[name] = json.loads(path.read_text())
    assert reports["ray"]["rows"] == reports["pool"]["rows"]


def _match(tmp_path: Path, name: str, *extra: str) -> dict:
    report = tmp_path / f"{name}.json"
    argv = ["match", "--engine", f"a={fake('ok')}", "--engine", f"b={fake('up')}", "--tc", "5", "--json", str(report)]
    assert main([*argv, *extra]) == 0
    return json.loads(report.read_text())


def _games(report: dict) -> list[dict]:
    """The games without their clocks (wall time)."""
    return [{k: v for k, v in game.items() if k != "clocks"} for game in report["games"]]


@needs_ray
def test_a_match_on_ray_plays_the_local_games(ray_here, tmp_path):
    local = _match(tmp_path, "local", "--games", "2", "--seed", "5")
    remote = _match(tmp_path, "ray", "--games", "2", "--seed", "5", "--ray", "local")
    assert len(_games(local)) == 2 and _games(remote) == _games(local)
    assert remote["summary"] == local["summary"] and remote["config"]["ray"] == "local"


@needs_ray
def test_the_sprt_stops_a_match_on_ray(ray_here, tmp_path):
    report = tmp_path / "sprt.json"
    argv = ["match", "--engine", f"good={fake('ok')}", "--engine", f"bad={fake('crash', 0)}", "--games", "200",
            "--tc", "5", "--sprt", "elo0=0,elo1=50", "--ray", "local", "--json", str(report)]  # fmt: skip
    assert main(argv) == 0
    data = json.loads(report.read_text())
    summary = data["summary"][0]
    assert summary["sprt"]["verdict"] == "H1" and "SPRT H1 accepted" in data["stopped"]
    counted = [g["index"] for g in data["games"] if g["result"] != "*"]
    assert summary["games"] == len(counted) == len(set(counted)) < 200


@needs_ray
def test_a_worker_killed_mid_job_has_its_job_rerun_once(ray_here, tmp_path):
    items = [(n, str(tmp_path)) for n in range(8)]
    victim = tmp_path / "started-3"

    def kill_the_worker_of_job_3() -> None:
        deadline = time.monotonic() + 60
        while not victim.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.1)  # the job is now under way
        os.kill(int(victim.read_text()), signal.SIGKILL)

    killer = threading.Thread(target=kill_the_worker_of_job_3, daemon=True)
    killer.start()
    done = list(RayExecutor("local", 2).run(partial(TaskWorker, slow_square), items))
    killer.join(5)
    assert sorted(d.job for d in done) == list(range(8))  # none lost, none twice
    assert {d.job: d.result for d in done} == {n: n * n for n in range(8)}
    assert len({d.worker for d in done}) >= 2 and len({d.worker for d in done if d.job == 3}) == 1


@needs_ray
def test_an_address_nobody_answers_on_is_one_error_line(capsys):
    assert main(["lab", "odds", "--ray", "127.0.0.1:1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: --ray 127.0.0.1:1: no Ray head answers there")


# --- without Ray ------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "argv",
    [
        ["match", "--engine", f"a={fake('ok')}", "--engine", f"b={fake('ok')}", "--games", "2", "--ray", "local"],
        ["lab", "odds", "--ray", "local"],
    ],
    ids=["match", "lab"],
)
def test_ray_without_ray_is_one_error_line(monkeypatch, capsys, argv):
    monkeypatch.setitem(sys.modules, "ray", None)  # ``import ray`` now raises ImportError
    assert main(argv) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "pip install -e '.[ray]'" in lines[0], captured.err
    assert "Traceback" not in captured.err
