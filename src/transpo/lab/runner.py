"""Running searches for the lab: a typed job, its typed records, the executor and the warm-up.

A :class:`SearchJob` names everything one engine does: the positions it searches
in turn, the key set they are hashed with and how its keys combine (XOR or
addition), the engine's settings, the limit of each search, an optional forced
false hit every N probes, whether the table is kept from one position to the
next, and a tag copied into every record.
:func:`search` runs a job and returns one :class:`SearchRecord` per position
(the result and the table counters of that search alone); :func:`run_searches`
spreads jobs over an executor (``transpo.executors``: local threads or processes,
or Ray actors that warm the compiled engine once) with :func:`run_parallel`.

The lab reaches the compiled engine only through ``Position``, ``Engine`` (and
its ``table``) and ``Limits``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, TypeVar

from transpo.executors import JobProgress, Placement, TaskWorker
from transpo.lab.positions import Positions
from transpo.settings import DEFAULT_COMBINE, DEFAULT_KEY_SET, DEFAULT_LOCKLESS, DEFAULT_POLICY, SIGNATURE_BITS

Item = TypeVar("Item")
Result = TypeVar("Result")

PV_KEPT = 8  # moves of the principal variation a record keeps


@dataclass(frozen=True)
class EngineSettings:
    """The ``Engine`` a job builds (``use_tt=False``: no table at all, no probe, no store, no hash move;
    ``threads`` > 1: Lazy SMP on the one table; ``torn_audit``: count inconsistent entries)."""

    hash_mb: int = 1
    policy: str = DEFAULT_POLICY
    signature_bits: int = SIGNATURE_BITS.high
    use_tt: bool = True
    audit: bool = False
    threads: int = 1
    lockless: bool = DEFAULT_LOCKLESS
    torn_audit: bool = False


@dataclass(frozen=True)
class SearchLimit:
    """How far each search of a job goes: a fixed depth or a fixed time (exactly one of them)."""

    depth: int | None = None
    movetime_ms: int | None = None

    def __post_init__(self) -> None:
        if (self.depth is None) == (self.movetime_ms is None):
            raise ValueError("a search limit is a depth or a movetime, not both or neither")

    def text(self) -> str:
        """'depth 8' or '250 ms', for titles."""
        return f"depth {self.depth}" if self.depth is not None else f"{self.movetime_ms} ms"


@dataclass(frozen=True)
class SearchJob:
    """One engine searching ``positions`` in turn (picklable, for the process pool).

    ``first_index`` numbers the first position (a job of one position out of a
    set keeps its place in the set); ``forced_every`` > 0 makes the table hand
    back another position's entry on every N-th missing probe; ``carry_table``
    keeps the table from one position to the next, as in a game (otherwise
    ``Engine.new_game()`` before each, so every search starts from a fresh
    table); ``tag`` is copied into every record.
    """

    positions: Positions
    limit: SearchLimit
    engine: EngineSettings = EngineSettings()
    keys: str = DEFAULT_KEY_SET
    seed: int = 1
    combine: str = DEFAULT_COMBINE  # "xor" or "add": the search's keys (the audit's check key is XOR either way)
    forced_every: int = 0
    carry_table: bool = False
    first_index: int = 0
    tag: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class SearchRecord:
    """One search of one position: the result, the wall time, and the table counters of that search alone."""

    position: int  # index in the position set
    name: str
    best_move: str | None
    score: int
    depth: int
    nodes: int
    time_ms: int
    wall_s: float
    index_bits: int  # bits of the key that choose the bucket
    pv: tuple[str, ...]
    counters: Mapping[str, int]  # TranspositionTable.counters(): probes, hits, cutoffs, ... false_cutoffs
    tag: Mapping[str, Any]

    def row(self) -> dict[str, Any]:
        """The record as a flat report row: the fields, then the counters, then the tag."""
        return {
            "position": self.position,
            "name": self.name,
            "best_move": self.best_move,
            "score": self.score,
            "depth": self.depth,
            "nodes": self.nodes,
            "time_ms": self.time_ms,
            "wall_s": self.wall_s,
            "index_bits": self.index_bits,
            "pv": list(self.pv),
            **self.counters,
            **self.tag,
        }


def check_key_seed(keys: str, seed: int) -> None:
    """Refuse a prng key set seeded like the audit's check keys: the check would then see no false hit."""
    from transpo.engine.table import AUDIT_KEY_SEED

    if keys == "prng" and seed == AUDIT_KEY_SEED:
        raise ValueError(f"--seed {AUDIT_KEY_SEED} is the audit's own check-key seed; pick another")


_warmed_up = False


def warm_up() -> None:
    """Load the compiled search once per process, so that no measured search pays for it."""
    global _warmed_up
    if _warmed_up:
        return
    from transpo.core.position import Position
    from transpo.engine.engine import Engine
    from transpo.engine.timeman import Limits

    Engine(hash_mb=1, move_overhead=0, audit=True).search(Position(), Limits(depth=2))
    _warmed_up = True


def make_engine(settings: EngineSettings):
    """An ``Engine`` with ``settings`` and no move overhead (the lab's searches have no GUI to wait for)."""
    from transpo.engine.engine import Engine

    engine = Engine(
        hash_mb=settings.hash_mb,
        policy=settings.policy,
        signature_bits=settings.signature_bits,
        use_tt=settings.use_tt,
        audit=settings.audit,
        move_overhead=0,
        threads=settings.threads,
        lockless=settings.lockless,
    )
    engine.table.torn_audit = settings.torn_audit
    return engine


def search(job: SearchJob) -> list[SearchRecord]:
    """Run ``job``: one record per position (module level, so the process pool can pickle it)."""
    from transpo.core.position import Position
    from transpo.engine.timeman import Limits

    warm_up()
    engine = make_engine(job.engine)
    if job.forced_every:
        engine.table.set_forced_false_hits(job.forced_every)
    index_bits = engine.table.buckets.bit_length() - 1
    limits = Limits(depth=job.limit.depth, movetime=job.limit.movetime_ms)
    records = []
    for number, (fen, name) in enumerate(job.positions):
        if number and not job.carry_table:
            engine.new_game()
        position = Position.from_fen(fen, job.keys, job.seed, combine=job.combine)
        before = engine.table.counters()
        started = time.perf_counter()
        result = engine.search(position, limits)
        wall = time.perf_counter() - started
        after = engine.table.counters()
        records.append(
            SearchRecord(
                position=job.first_index + number,
                name=name,
                best_move=result.best_move,
                score=result.score,
                depth=result.depth,
                nodes=result.nodes,
                time_ms=result.time_ms,
                wall_s=round(wall, 4),
                index_bits=index_bits,
                pv=tuple(result.pv[:PV_KEPT]),
                counters={counter: after[counter] - before[counter] for counter in after},
                tag=dict(job.tag),
            )
        )
    return records


def run_searches(jobs: Sequence[SearchJob], placement: Placement, label: str) -> list[list[SearchRecord]]:
    """:func:`search` for every job where ``placement`` says, with a progress bar; results in job order."""
    return run_parallel(search, jobs, placement, label, setup=warm_up)


def run_parallel(
    task: Callable[[Item], Result],
    items: Sequence[Item],
    placement: Placement,
    label: str,
    setup: Callable[[], None] | None = None,
) -> list[Result]:
    """``[task(item) for item in items]`` where ``placement`` says, with a progress bar (jobs per worker) on stderr.

    ``task`` and ``setup`` must be module-level functions (they are pickled for
    the workers); ``setup`` runs once per Ray actor, before its first job (the
    local workers run it lazily inside ``task``, as :func:`search` does, so a
    local run is what it always was).  Results keep the order of ``items``,
    whichever executor ran them.

    Ctrl-C stops the run at once, with a KeyboardInterrupt in the calling thread
    and no traceback from anywhere else: pool workers ignore SIGINT (a terminal
    sends it to the whole process group) and are terminated; Ray actors are
    killed; one local worker runs in a daemon thread, since a compiled search
    holds no Python frame that a KeyboardInterrupt could stop, and the calling
    thread only waits for it.
    """
    results: list[Any] = [None] * len(items)
    make_worker = partial(TaskWorker, task, setup if placement.ray is not None else None)
    executor = placement.executor()  # before the progress: a cluster that cannot be reached is one clean line
    with JobProgress(label, len(items)) as progress:
        for done in executor.run(make_worker, items):
            results[done.job] = done.result
            progress.done(done)
    return results
