"""The first run's compile: commands say on stderr that they compile; a warm cache says nothing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from transpo.compiling import CORE, ENGINE, PERFT, is_compiled


def _run(env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "transpo", *args], capture_output=True, text=True, env=env, timeout=300)


def test_perft_says_it_compiles_once(tmp_path, monkeypatch):
    cache = tmp_path / "numba"
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache))
    first = _run(env, "perft", "2")
    assert first.returncode == 0 and "Nodes: 400" in first.stdout, first.stderr
    assert "Compiling perft for this machine" in first.stderr and "later runs load it" in first.stderr
    second = _run(env, "perft", "2")
    assert second.returncode == 0 and "Compiling" not in second.stderr
    (versioned,) = cache.iterdir()  # transpo/__init__.py names the folder after the sources
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(versioned))
    assert is_compiled(CORE) and is_compiled(PERFT) and not is_compiled(ENGINE)


def test_an_empty_cache_holds_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    assert not any(is_compiled(part) for part in (CORE, PERFT, ENGINE))


def test_a_version_folder_inherited_from_another_version_gives_a_sibling(tmp_path):
    # `transpo match` exports its own version's folder; an engine of another checkout started by it
    # must compile beside it (where its warm-up bench put it), not in a cold folder nested inside.
    inherited = tmp_path / "transpo-0123456789abcdef"
    show = "import os, transpo; print(os.environ['NUMBA_CACHE_DIR'])"
    env = dict(os.environ, NUMBA_CACHE_DIR=str(inherited))
    folder = subprocess.run([sys.executable, "-c", show], capture_output=True, text=True, env=env, check=True)
    ours = Path(folder.stdout.strip())
    assert ours.parent == tmp_path and ours.name.startswith("transpo-") and ours != inherited
    env["NUMBA_CACHE_DIR"] = str(ours)  # a child of the same version keeps its parent's folder
    again = subprocess.run([sys.executable, "-c", show], capture_output=True, text=True, env=env, check=True)
    assert Path(again.stdout.strip()) == ours
    env["NUMBA_CACHE_DIR"] = str(tmp_path / "mine")  # any other folder is the parent
    plain = subprocess.run([sys.executable, "-c", show], capture_output=True, text=True, env=env, check=True)
    assert Path(plain.stdout.strip()) == tmp_path / "mine" / ours.name
