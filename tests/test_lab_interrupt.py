"""Ctrl-C in a lab command: exit status 130 within half a second, and no traceback from the parent or its workers.

A terminal sends SIGINT to the whole foreground process group, workers included; the test does the same
(``start_new_session=True``, then ``os.killpg``); ``kill PID`` sends SIGTERM to the command alone.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

STOP_TARGET_S = 0.5
STOP_LIMIT_S = 1.5  # the target plus slack for a loaded 2-core machine
SEARCHING_S = 2.0  # after the workers exist (or the command started, with one process): warm cache, searching
ARGS = ["lab", "errors", "--depth", "12", "--bits", "8,9,10,11,12,13,14,15,16", "--hash-mb", "1"]


def _env() -> dict:
    env = dict(os.environ)
    for name in ("NUMBA_DISABLE_JIT", "NUMBA_BOUNDSCHECK"):
        env.pop(name, None)
    return env


@pytest.fixture(scope="module", autouse=True)
def warm_cache():
    from transpo.lab.runner import warm_up

    warm_up()


def _session(sid: int) -> list[int]:
    """The live processes of session ``sid`` (the command and any worker it left behind)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == sid and fields[0] != "Z":
            found.append(int(stat.parent.name))
    return found


def _children(pid: int) -> list[str]:
    try:
        return Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return []


@pytest.mark.parametrize(
    "jobs, kill",
    [(2, False), (1, False), (2, True)],
    ids=["ctrl-c, 2 jobs", "ctrl-c, 1 job", "kill, 2 jobs"],
)
def test_ctrl_c_stops_a_lab_run(jobs: int, kill: bool) -> None:
    """Ctrl-C (SIGINT to the process group), or ``kill PID`` (SIGTERM to the command alone, as for a job
    started in the background): the command ends with status 130, its workers with it, no traceback."""
    args = [*ARGS, "--jobs", str(jobs)]
    # a shell's background job inherits SIGINT ignored, and so would the command: give it the terminal's default
    # (a Python handler here becomes the default disposition in the child)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        proc = subprocess.Popen([sys.executable, "-m", "transpo", *args], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=_env(), start_new_session=True)  # fmt: skip
    finally:
        signal.signal(signal.SIGINT, previous)
    deadline = time.monotonic() + 30
    while jobs > 1 and len(_children(proc.pid)) < jobs and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(SEARCHING_S)
    assert proc.poll() is None, "finished before the interrupt"
    if jobs > 1:
        assert len(_children(proc.pid)) == jobs, "the workers are not running"
    sent = time.monotonic()
    if kill:
        proc.send_signal(signal.SIGTERM)
    else:
        os.killpg(proc.pid, signal.SIGINT)
    try:
        out, err = proc.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise AssertionError(f"{args} ignored the signal for 20 s") from None
    elapsed = time.monotonic() - sent
    print(f"lab errors --jobs {jobs}: stopped {elapsed:.3f} s after the signal (target {STOP_TARGET_S} s)")
    assert proc.returncode == 130, (proc.returncode, err)
    assert "Traceback" not in err and "Traceback" not in out, err
    assert elapsed < STOP_LIMIT_S
    time.sleep(0.2)
    left = _session(proc.pid)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert not left, "workers outlived the command"
