"""Where independent jobs run: threads or processes on this machine, or the workers of a Ray cluster.

A *job* is one item of a sequence (a game, a search job, a Monte Carlo batch).  It
is handed to a *worker*: an object built once per thread, pool process or Ray actor
by a picklable factory, so that what is dear to set up (the compiled engine, engine
subprocesses) stays warm from one job to the next.  Every executor yields one
:class:`Done` per job, in the order the jobs finish, each job exactly once; the
caller keys results by ``Done.job``, so the results are the same whichever executor
ran them.

* :class:`ThreadExecutor`: N threads in this process (a match's games drive engine
  subprocesses; the lab's single-process runs, whose compiled searches release no
  Python frame to a KeyboardInterrupt, so the caller only waits in short slices).
* :class:`ProcessExecutor`: a ``multiprocessing`` pool of N processes (the lab).
* :class:`RayExecutor`: N Ray actors on a cluster (``--ray HOST:6379``) or on a Ray
  started here for the run (``--ray local``).  An actor lost mid-job has the job
  rerun on a fresh actor; a job id already answered is never counted again.

This module imports no other Transpo module (the lab and the tools both use it, and
neither may import the other), and imports Ray only when a Ray executor is asked for.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import queue
import signal
import socket
import threading
from collections import Counter, deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, Self, TypeVar

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

Item = TypeVar("Item")
Result = TypeVar("Result")

RAY_INSTALL = "pip install -e '.[ray]'"
POLL_S = 0.05  # how often a waiting caller looks up, so that Ctrl-C and a stop are seen at once
MAX_RUNS = 3  # a job whose worker died this many times is an error, not bad luck
CONNECT_TIMEOUT_S = 5.0


class Worker(Protocol[Item, Result]):
    """What runs jobs: built once per thread, process or actor, then called once per job."""

    def __call__(self, item: Item) -> Result:
        """Run one job."""
        ...

    def stop(self, now: bool) -> None:
        """From another thread: make the current job return soon with what it has (``now``: at once, killing)."""
        ...

    def close(self) -> None:
        """Release what the worker holds (engine processes); called once, after its last job."""
        ...


WorkerFactory = Callable[[], Worker[Any, Any]]


class TaskWorker:
    """A worker for a plain function: ``setup()`` once when built (e.g. warm the compiled engine), then ``task(item)``."""

    def __init__(self, task: Callable[[Any], Any], setup: Callable[[], None] | None = None) -> None:
        if setup is not None:
            setup()
        self.task = task

    def __call__(self, item: Any) -> Any:
        return self.task(item)

    def stop(self, now: bool) -> None:
        """A function cannot be stopped: the executor drops the worker instead."""

    def close(self) -> None:
        """A function holds nothing."""


@dataclass(frozen=True)
class Done(Generic[Result]):
    """One finished job: its index in the items, the worker that ran it and its result."""

    job: int
    worker: str
    result: Result


class Executor(Protocol):
    """Runs a worker per slot over a sequence of items."""

    def run(self, make_worker: WorkerFactory, items: Sequence[Any]) -> Iterator[Done[Any]]:
        """One :class:`Done` per item as jobs finish; closing the iterator early drops the jobs still out.

        An executor runs once: build another for the next sequence.
        """
        ...

    def stop(self, now: bool = False) -> None:
        """From another thread: submit no more jobs; every worker's current job returns soon (``now``: at once)."""
        ...


@dataclass(frozen=True)
class Placement:
    """Where to run: ``workers`` local threads or processes, or with ``ray`` (an address or ``local``) Ray actors.

    With Ray, ``workers`` 0 means one actor per CPU of the cluster.
    """

    workers: int = 1
    ray: str | None = None

    def executor(self, threads: bool = False) -> Executor:
        """The executor: Ray if asked for; else threads (``threads``, or a single worker), else a process pool."""
        if self.ray is not None:
            return RayExecutor(self.ray, self.workers)
        if threads or self.workers <= 1:
            return ThreadExecutor(max(1, self.workers))
        return ProcessExecutor(self.workers)


def worker_name() -> str:
    """``host:pid``: a worker's name in the progress and the results."""
    return f"{socket.gethostname()}:{os.getpid()}"


# --- threads ----------------------------------------------------------------------------------------
class ThreadExecutor:
    """``threads`` daemon threads of this process, each with its own worker, taking jobs in item order."""

    def __init__(self, threads: int) -> None:
        self.threads = threads
        self._halt = threading.Event()
        self._now = False
        self._workers: list[Worker[Any, Any]] = []
        self._lock = threading.Lock()

    def run(self, make_worker: WorkerFactory, items: Sequence[Any]) -> Iterator[Done[Any]]:
        jobs: queue.SimpleQueue[int] = queue.SimpleQueue()
        for job in range(len(items)):
            jobs.put(job)
        finished: queue.SimpleQueue[Done[Any] | BaseException | None] = queue.SimpleQueue()
        count = min(self.threads, len(items))

        def serve(number: int) -> None:
            worker = None
            try:
                worker = make_worker()
                with self._lock:
                    self._workers.append(worker)
                    if self._halt.is_set():  # a stop came while this worker was being built
                        worker.stop(self._now)
                while not self._halt.is_set():
                    try:
                        job = jobs.get_nowait()
                    except queue.Empty:
                        break
                    finished.put(Done(job, f"thread {number}", worker(items[job])))
            except BaseException as exc:  # noqa: BLE001 - handed to the caller
                finished.put(exc)
                self.stop()
            finally:
                if worker is not None:
                    worker.close()
                finished.put(None)

        for number in range(count):
            threading.Thread(target=serve, args=(number + 1,), name=f"transpo-worker-{number + 1}", daemon=True).start()
        running, failure = count, None
        try:
            while running:
                try:
                    done = finished.get(timeout=POLL_S)
                except queue.Empty:
                    continue
                if done is None:
                    running -= 1
                elif isinstance(done, BaseException):
                    failure = failure or done
                elif failure is None:
                    yield done
        finally:
            if running:  # closed early or Ctrl-C: the threads take no more jobs (daemons: not waited for)
                self.stop()
        if failure is not None:
            raise failure

    def stop(self, now: bool = False) -> None:
        with self._lock:
            self._now = self._now or now
            self._halt.set()
            workers = list(self._workers)
        for worker in workers:
            worker.stop(now)


# --- processes --------------------------------------------------------------------------------------
_pool_worker: Worker[Any, Any] | None = None


def _start_pool_worker(make_worker: WorkerFactory) -> None:
    """Pool initializer: Ctrl-C is the parent's business (it terminates the pool); build this process's worker.

    A forked worker inherits the handler by which the CLI turns SIGTERM into Ctrl-C; the pool's ``terminate``
    sends SIGTERM, which must end the worker quietly, so it gets the default back.
    """
    global _pool_worker
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _pool_worker = make_worker()


def _pool_job(job: tuple[int, Any]) -> tuple[int, str, Any]:
    """``(job, worker, result)`` in a pool process (module level, so it pickles)."""
    number, item = job
    assert _pool_worker is not None
    return number, f"process {os.getpid()}", _pool_worker(item)


class ProcessExecutor:
    """A ``multiprocessing`` pool of ``processes`` workers; stopping or closing early terminates it."""

    def __init__(self, processes: int) -> None:
        self.processes = processes
        self._halt = threading.Event()

    def run(self, make_worker: WorkerFactory, items: Sequence[Any]) -> Iterator[Done[Any]]:
        pool = multiprocessing.Pool(self.processes, initializer=_start_pool_worker, initargs=(make_worker,))
        try:
            for number, name, result in pool.imap_unordered(_pool_job, enumerate(items)):
                if self._halt.is_set():
                    break
                yield Done(number, name, result)
            else:
                pool.close()
        finally:
            pool.terminate()  # after close(): the idle workers end; otherwise the busy ones are killed
            pool.join()

    def stop(self, now: bool = False) -> None:
        self._halt.set()  # a compiled job cannot be interrupted: the pool is terminated at the next result


# --- Ray --------------------------------------------------------------------------------------------
def require_ray() -> Any:
    """The ``ray`` module; ValueError with the install command if it is not installed."""
    try:
        import ray
    except ImportError:
        raise ValueError(f"--ray needs Ray, which is not installed: {RAY_INSTALL}") from None
    return ray


def connect(address: str) -> Any:
    """Join the Ray cluster at ``address`` (``local``: start one on this machine for this process); ``ray``."""
    ray = require_ray()
    _check_reachable(address)
    if not ray.is_initialized():
        quiet = {"include_dashboard": False, "log_to_driver": False, "logging_level": "ERROR"}
        try:
            if address == "local":
                ray.init(num_cpus=os.cpu_count(), **quiet)
            else:
                ray.init(address=address, **quiet)
        except (ConnectionError, RuntimeError, ValueError) as exc:
            raise ValueError(f"--ray {address}: cannot reach a Ray cluster: {str(exc).splitlines()[0]}") from None
    return ray


def _check_reachable(address: str) -> None:
    """A ``HOST:PORT`` nobody answers on is one error line now (Ray itself would retry for minutes)."""
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit() or "/" in address:  # 'local', 'auto', 'ray://...': left to Ray
        return
    try:
        socket.create_connection((host, int(port)), timeout=CONNECT_TIMEOUT_S).close()
    except OSError as exc:
        raise ValueError(f"--ray {address}: no Ray head answers there ({exc.strerror or exc})") from None


class _Actor:
    """The Ray actor around a worker (made remote by :func:`_actor_class`): built once, then one job per call."""

    def __init__(self, make_worker: WorkerFactory) -> None:
        self.worker = make_worker()
        self.name = worker_name()

    def run(self, job: int, item: Any) -> tuple[int, str, Any]:
        return job, self.name, self.worker(item)

    def stop(self, now: bool) -> None:
        self.worker.stop(now)

    def close(self) -> None:
        self.worker.close()


def _actor_class(ray: Any) -> Any:
    # Two threads per actor, so that ``stop`` and ``close`` reach a worker that is busy with a job.
    return ray.remote(num_cpus=1, max_concurrency=2)(_Actor)


class RayExecutor:
    """``workers`` Ray actors (0: one per CPU of the cluster), each running one job at a time.

    A job whose actor dies is put back at the head of the queue for a fresh actor;
    a job that loses :data:`MAX_RUNS` actors is an error.  Answers are keyed by job
    id, so a job is never yielded twice.
    """

    def __init__(self, address: str, workers: int = 0) -> None:
        self.ray = connect(address)
        self.workers = workers or max(1, int(self.ray.cluster_resources().get("CPU", 1)))
        self._halt = threading.Event()
        self._now = False
        self._busy: dict[Any, Any] = {}  # task reference -> actor
        self._lock = threading.Lock()

    def run(self, make_worker: WorkerFactory, items: Sequence[Any]) -> Iterator[Done[Any]]:
        ray = self.ray
        actor_class = _actor_class(ray)
        idle = deque(actor_class.remote(make_worker) for _ in range(min(self.workers, len(items))))
        actors = list(idle)
        queued = deque(range(len(items)))
        jobs: dict[Any, int] = {}  # task reference -> job
        answered: set[int] = set()
        runs: Counter[int] = Counter()
        try:
            while jobs or (queued and not self._halt.is_set()):
                with self._lock:
                    while idle and queued and not self._halt.is_set():
                        job, actor = queued.popleft(), idle.popleft()
                        runs[job] += 1
                        reference = actor.run.remote(job, items[job])
                        jobs[reference] = job
                        self._busy[reference] = actor
                ready, _ = ray.wait(list(jobs), num_returns=1, timeout=POLL_S)
                for reference in ready:
                    job = jobs.pop(reference)
                    with self._lock:
                        actor = self._busy.pop(reference)
                    try:
                        _, name, result = ray.get(reference)
                    except ray.exceptions.RayActorError as exc:
                        # Not bad luck any more (e.g. a machine without Transpo): one line, as bad input is.
                        if runs[job] >= MAX_RUNS:
                            reason = str(exc).strip().splitlines()[-1]
                            raise ValueError(f"Ray: job {job} lost its worker {runs[job]} times: {reason}") from None
                        actor = actor_class.remote(make_worker)  # a fresh worker in place of the dead one
                        actors.append(actor)
                        queued.appendleft(job)
                        idle.append(actor)
                        continue
                    except ray.exceptions.RayTaskError as exc:  # the job raised: raise it here, as a local run would
                        raise (exc.cause if isinstance(exc.cause, BaseException) else exc) from None
                    idle.append(actor)
                    if job not in answered:
                        answered.add(job)
                        yield Done(job, name, result)
        finally:
            self.stop(self._now)
            for actor in actors:
                with contextlib.suppress(Exception):  # dead, busy or hung: killed below all the same
                    ray.get(actor.close.remote(), timeout=5)  # engine processes quit before their actor goes
                ray.kill(actor)

    def stop(self, now: bool = False) -> None:
        with self._lock:
            self._now = self._now or now
            self._halt.set()
            busy = list(self._busy.values())
        for actor in busy:
            actor.stop.remote(now)


# --- progress ---------------------------------------------------------------------------------------
class JobProgress:
    """A transient rich progress on stderr: the jobs done of all, and below, the jobs each worker has done."""

    def __init__(self, label: str, total: int) -> None:
        self.progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=Console(stderr=True),
            transient=True,
        )
        self.jobs = total
        self.total = self.progress.add_task(label, total=total)
        self.rows: dict[str, Any] = {}

    def __enter__(self) -> Self:
        self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.stop()

    def done(self, done: Done[Any]) -> None:
        """Count ``done`` for its worker and in the total."""
        if done.worker not in self.rows:
            self.rows[done.worker] = self.progress.add_task(f"  {done.worker}", total=self.jobs)
        self.progress.advance(self.rows[done.worker])
        self.progress.advance(self.total)

    def print(self, line: str) -> None:
        """A line above the progress (as plain text: no rich markup)."""
        self.progress.console.print(line, markup=False, highlight=False, soft_wrap=True)
