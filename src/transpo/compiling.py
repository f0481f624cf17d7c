"""The first run's compile: telling whether it is needed, saying so, and doing it in a child process.

numba compiles the core and the search on the first run on a machine (and after any change
to their sources: ``transpo/__init__.py`` names the cache folder after a hash of them) and
caches the machine code.  This module knows, without importing numba, whether the cache of
the current sources holds a part, so a command can say on stderr that it is compiling and
about how long it takes, and the UCI engine can compile in a child process on the other
core while it answers ``go`` with the quick search.  Plain Python: nothing here loads numba.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from rich.console import Console


@dataclass(frozen=True)
class CompiledPart:
    """A part of the compiled code: the modules that build it and a cache file that shows it is built."""

    name: str
    modules: tuple[str, ...]
    marker: str  # the cache index file name starts with this (module.function)
    expected_s: float  # cold compile time on the 2-core development machine (see the README)


# Cold compile times measured on the 2-core development machine, idle, empty cache (each includes
# the core): the core 9.5 s, perft 17 s, the evaluation 35 s (an earlier measurement); the engine 390 s
# (a cold `transpo bench` on 2026-12-02 with numba 0.68.1: 6 min 37 s; an earlier session measured 142 s).
CORE = CompiledPart("the core", ("transpo.core.position",), "movegen.generate_moves", 9.5)
PERFT = CompiledPart("perft", ("transpo.core.position", "transpo.core.perft"), "perft.perft", 17.0)
EVALUATION = CompiledPart(
    "the evaluation", ("transpo.core.position", "transpo.engine.evaluate"), "evaluate.evaluate_features", 35.0
)
ENGINE = CompiledPart("the engine", ("transpo.core.position", "transpo.engine.engine"), "search.negamax", 390.0)


def cache_folder() -> Path:
    """The numba cache folder of the current sources (set by ``transpo/__init__.py``)."""
    return Path(os.environ.get("NUMBA_CACHE_DIR", ""))


def is_compiled(part: CompiledPart) -> bool:
    """Whether the cache already holds ``part`` (then loading it takes well under a second)."""
    folder = cache_folder()
    return folder.is_dir() and any(folder.glob(f"*/{part.marker}-*.nbi"))


def compile_in_child(part: CompiledPart) -> subprocess.Popen:
    """Start a child process that compiles ``part`` into the cache (it inherits the cache folder)."""
    code = "; ".join(f"import {module}" for module in part.modules)
    return subprocess.Popen(
        [sys.executable, "-c", code],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=dict(os.environ),
    )


@contextmanager
def compile_notice(part: CompiledPart, console: Console | None = None) -> Iterator[None]:
    """Around the first import of ``part``: if it is not cached, say so on stderr with a progress bar.

    The bar fills over the expected time (it cannot know the real one) and the elapsed
    time runs beside it; it disappears when the compile is over.  Cached: says nothing.
    """
    if is_compiled(part):
        yield
        return
    from rich.console import Console  # only now: a warm start does not pay for rich
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    console = console or Console(stderr=True)
    console.print(
        f"Compiling {part.name} for this machine (first run: about {part.expected_s:.0f} s; "
        "later runs load it from the cache at once)",
        style="dim",
        highlight=False,
    )
    progress = Progress(
        TextColumn("compiling"), BarColumn(), TimeElapsedColumn(), console=console, transient=True
    )
    done = threading.Event()

    def tick(task) -> None:
        start = time.monotonic()
        while not done.wait(0.1):
            progress.update(task, completed=min(time.monotonic() - start, 0.95 * part.expected_s))

    with progress:
        task = progress.add_task("compile", total=part.expected_s)
        ticker = threading.Thread(target=tick, args=(task,), daemon=True)
        ticker.start()
        try:
            yield
        finally:
            done.set()
            ticker.join()
