"""``Engine``: iterative deepening, aspiration windows, MultiPV and limits around ``negamax``.

The engine owns the transposition table and the search arrays; ``search``
copies a :class:`~transpo.core.position.Position` into its own arrays (the
caller's position is never touched) and deepens one ply at a time, reporting
each finished line through a callback.  ``stop`` and ``ponderhit`` may be
called from another thread while ``search`` runs (the compiled search releases
the GIL).

Lazy SMP (``threads`` > 1): the thread that calls ``search`` is the main
searcher; ``threads - 1`` helper threads (plain Python threads, each with its
own position copy and its own :class:`~transpo.engine.scratch.Scratch`) run
their own iterative deepening over the same root and share only the
transposition table (lockless entries, see :mod:`transpo.engine.table`), so
what one finds the others probe.  Helper ``i`` starts at depth ``1 + i % 2``
(odd helpers one ply ahead of the main thread) and deepens one ply at a time
with its own aspiration windows, without MultiPV; it never reports.  The main
thread alone decides: its lines are the ones reported and its move the one
played; when it ends (time, depth, nodes, stop) it stops the helpers and waits
for them.  ``stop`` sets every searcher's stop flag, each seen within
``CHECK_EVERY`` nodes.  Reported nodes (and so nps) are those of all threads;
``go nodes`` limits the main thread's.  With one thread nothing of this runs:
the search is the single-threaded one, node for node.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np

from transpo.core.board import MAX_PLY, PositionArrays
from transpo.core.moves import move_to_uci
from transpo.core.position import Position
from transpo.engine.evaluate import PSQ
from transpo.engine.scratch import (
    CTL_ABORTED,
    CTL_EXCLUDED,
    CTL_EXCLUDED_COUNT,
    CTL_NODE_LIMIT,
    CTL_NODES,
    CTL_SELDEPTH,
    CTL_STOP,
    CTL_WHITE_DRAW,
    Scratch,
    new_scratch,
)
from transpo.engine.search import INF, negamax
from transpo.engine.table import COUNTS_SIZE, MATE, MATE_BOUND, TableArrays, TranspositionTable
from transpo.engine.timeman import Budget, Limits, Progress, allot
from transpo.settings import CONTEMPT, DEFAULT_LOCKLESS, DEFAULT_POLICY, HASH_MB, MOVE_OVERHEAD_MS, MULTIPV, SIGNATURE_BITS

ASPIRATION_DELTA = 15  # cp each side of the last score; +13.5 Elo over +-25 in 1,982 self-play games (docs/STRENGTH.md)
NO_LIMIT = 1 << 62
BOUND_REPORT_AFTER_MS = 500  # fail-high/low lines of an aspiration search are reported only after this


@dataclass
class Info:
    """One reported line of the search (a UCI ``info`` line)."""

    depth: int
    seldepth: int
    multipv: int
    score: int  # centipawns, or a mate score beyond MATE_BOUND
    bound: str | None  # "lowerbound", "upperbound" or None for an exact score
    nodes: int
    time_ms: int
    hashfull: int
    pv: list[str]

    @property
    def mate_in(self) -> int | None:
        """Moves to mate (negative: getting mated), or None for a centipawn score."""
        if self.score > MATE_BOUND:
            return (MATE - self.score + 1) // 2
        if self.score < -MATE_BOUND:
            return -((MATE + self.score) // 2)
        return None

    @property
    def nps(self) -> int:
        """Nodes per second so far."""
        return int(self.nodes * 1000 / max(self.time_ms, 1))


@dataclass
class SearchResult:
    """The outcome of :meth:`Engine.search`."""

    best_move: str | None
    ponder_move: str | None
    score: int
    depth: int
    nodes: int
    time_ms: int
    lines: list[Info] = field(default_factory=list)

    @property
    def pv(self) -> list[str]:
        """The principal variation of the best line (UCI moves)."""
        return self.lines[0].pv if self.lines else []


def first_window(depth: int, guess: int) -> tuple[int, int]:
    """The aspiration window of an iteration: ``guess`` +- ASPIRATION_DELTA, full width when shallow or near mate."""
    if depth >= 4 and abs(guess) < MATE_BOUND:
        return max(guess - ASPIRATION_DELTA, -INF), min(guess + ASPIRATION_DELTA, INF)
    return -INF, INF


def grown(delta: int) -> int:
    """The margin after a failed window: a third more (as Stockfish does), not double, so a score just outside
    the window is caught by a still-narrow next one."""
    return delta + delta // 3 + 2


def widened(score: int, alpha: int, beta: int, delta: int) -> tuple[int, int]:
    """The next window after ``score`` failed low (<= alpha) or high (>= beta) by a margin of ``delta``."""
    if score <= alpha:
        return max(score - delta, -INF), (alpha + beta) // 2
    return alpha, min(score + delta, INF)


class Engine:
    """A searcher with its transposition table and options (see ``__init__``)."""

    def __init__(
        self,
        hash_mb: int = HASH_MB.default,
        policy: str = DEFAULT_POLICY,
        signature_bits: int = SIGNATURE_BITS.default,
        use_tt: bool = True,
        multipv: int = MULTIPV.default,
        move_overhead: int = MOVE_OVERHEAD_MS.default,
        audit: bool = False,
        threads: int = 1,
        lockless: bool = DEFAULT_LOCKLESS,
        contempt: int = CONTEMPT.default,
    ) -> None:
        """A table of ``hash_mb`` MB with ``policy`` and ``signature_bits`` (``audit``: count false
        hits; ``use_tt`` False: search without a table; ``lockless``: Hyatt and Mann's check),
        ``multipv`` lines, ``move_overhead`` ms kept back from every clocked move, ``threads``
        searchers (Lazy SMP, module docstring), ``contempt`` centipawns a draw costs the side to move at
        the root (:data:`transpo.settings.CONTEMPT`)."""
        self.table = TranspositionTable(hash_mb, policy, signature_bits, audit, lockless)
        self.table.enabled = use_tt
        self.multipv = multipv
        self.move_overhead = move_overhead
        self.contempt = CONTEMPT.check(contempt)
        self.scratch = new_scratch()
        self.helpers: list[Scratch] = []  # the helper threads' scratch, one each (Lazy SMP)
        self.helper_errors: list[BaseException] = []  # what a helper thread raised (it ends; the search goes on)
        self._helper_threads: list[threading.Thread] = []
        self._helper_counts: list[np.ndarray] = []  # each running helper's table counters
        self.set_threads(threads)
        self._timer: threading.Timer | None = None
        self._pondering = False
        self._ponder_limits: Limits | None = None
        self._white = True
        self._started = 0.0
        self._budget = Budget(None, None)
        self._progress = Progress()  # the time manager's view of the iterations (timeman.Progress)
        self._pv_codes: list[list[int]] = []
        self._armed = False

    # --- options -------------------------------------------------------------
    def set_audit(self, on: bool) -> None:
        """Count false hits against an independent 64-bit check key (HashAudit)."""
        self.table.audit = on

    @property
    def threads(self) -> int:
        """Number of search threads: the main one and the helpers."""
        return 1 + len(self.helpers)

    def set_threads(self, threads: int) -> None:
        """Search with ``threads`` threads (>= 1; Lazy SMP above one); call it between searches."""
        if threads < 1:
            raise ValueError(f"threads must be at least 1, not {threads}")
        del self.helpers[threads - 1 :]
        while len(self.helpers) < threads - 1:
            helper = new_scratch(self.scratch.weights)
            helper.ctl[CTL_NODE_LIMIT] = NO_LIMIT
            self.helpers.append(helper)

    def _searchers(self) -> list[Scratch]:
        return [self.scratch, *self.helpers]

    def nodes(self) -> int:
        """Nodes searched so far by every thread of the current (or last) search."""
        return sum(int(sc.ctl[CTL_NODES]) for sc in self._searchers())

    def new_game(self) -> None:
        """Forget everything learned: table, and every searcher's killers and histories."""
        self.table.clear()
        for sc in self._searchers():
            sc.killers[:] = 0
            sc.history[:] = 0
            sc.continuation[:] = 0
            sc.counter[:] = 0

    # --- control from another thread -------------------------------------------
    def arm(self, position: Position, limits: Limits) -> None:
        """Prepare the next search of ``position`` in the caller's thread.

        A front end that runs :meth:`search` in a worker thread calls this first,
        so a ``stop`` or ``ponderhit`` that arrives before the worker gets going
        is not lost.  :meth:`search` arms itself when nobody did.
        """
        if self._timer is not None:  # a clock left over from an earlier ponderhit
            self._timer.cancel()
            self._timer = None
        self.scratch.ctl[:] = 0
        self.scratch.ctl[CTL_NODE_LIMIT] = limits.nodes if limits.nodes else NO_LIMIT
        for helper in self.helpers:  # the main thread ends the search; helpers have no limit of their own
            helper.ctl[:] = 0
            helper.ctl[CTL_NODE_LIMIT] = NO_LIMIT
        self._white = position.turn == "w"
        for sc in self._searchers():
            sc.ctl[CTL_WHITE_DRAW] = -self.contempt if self._white else self.contempt
        self._pondering = limits.ponder
        self._ponder_limits = limits if limits.ponder else None
        self._budget = Budget(None, None)
        self._armed = True

    def stop(self) -> None:
        """Stop the running search, every thread of it, as soon as possible (thread-safe)."""
        self.scratch.ctl[CTL_STOP] = 1
        for helper in self.helpers:
            helper.ctl[CTL_STOP] = 1

    def ponderhit(self) -> None:
        """The opponent played the expected move: keep searching, now on the clock."""
        if self._pondering and self._ponder_limits is not None:
            self._pondering = False
            self._start_clock(self._ponder_limits)

    def _start_clock(self, limits: Limits) -> None:
        self._started = time.perf_counter()
        self._budget = allot(limits, self._white, self.move_overhead)
        if self._budget.hard_ms is not None:
            self._timer = threading.Timer(self._budget.hard_ms / 1000, self.stop)
            self._timer.daemon = True
            self._timer.start()

    def _elapsed_ms(self, since: float) -> int:
        return int((time.perf_counter() - since) * 1000)

    # --- the search ----------------------------------------------------------
    def search(self, position: Position, limits: Limits | None = None, on_info: Callable[[Info], None] | None = None) -> SearchResult:
        """Search ``position`` within ``limits``; ``on_info`` receives every finished line."""
        limits = limits or Limits()
        t0 = time.perf_counter()
        arrays = position.snapshot(PSQ)
        root_moves = position.encoded_moves()
        if not self._armed:
            self.arm(position, limits)
        self._armed = False
        self.table.new_search()
        for sc in self._searchers():
            sc.killers[:] = 0
            sc.history[:] //= 2
        if not root_moves:
            self._pondering = False
            return SearchResult(None, None, 0, 0, 0, 0)
        if not limits.ponder:
            self._start_clock(limits)  # its timer is cancelled in the finally below
        max_depth = min(limits.depth or MAX_PLY - 1, MAX_PLY - 1)
        lines_wanted = max(1, min(self.multipv, len(root_moves)))
        completed: list[Info] = []
        previous = [0] * lines_wanted
        self._progress = Progress()
        try:
            self._start_helpers(position)
            for depth in range(1, max_depth + 1):
                lines = self._iteration(arrays, depth, lines_wanted, previous, t0, on_info)
                if lines is None:
                    break
                completed = lines
                previous = [line.score for line in lines]
                if completed[0].pv:
                    self._progress.update(completed[0].pv[0], completed[0].score)
                if self._done(limits, completed[0], len(root_moves)):
                    break
        finally:
            self._stop_helpers()
            self._pondering = False  # a late ponderhit must not start a clock
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
        return self._result(completed, root_moves, t0)

    # --- Lazy SMP helpers ----------------------------------------------------
    def _start_helpers(self, position: Position) -> None:
        """Start one thread per helper scratch on its own copy of ``position``, with its own table counters."""
        self._helper_threads = []
        self._helper_counts = []
        for index, helper in enumerate(self.helpers, 1):
            own = np.zeros(COUNTS_SIZE, dtype=np.int64)  # own counters: no core-to-core traffic on them
            self._helper_counts.append(own)
            tt = self.table.arrays._replace(counts=own)
            args = (position.snapshot(PSQ), tt, helper, 1 + index % 2)
            name = f"transpo-helper-{index}"
            thread = threading.Thread(target=self._helper_search, args=args, name=name, daemon=True)
            self._helper_threads.append(thread)
            thread.start()

    def _stop_helpers(self) -> None:
        """Stop the helpers, wait for them and add their table counters to the table's."""
        for helper in self.helpers:
            helper.ctl[CTL_STOP] = 1
        for thread in self._helper_threads:
            thread.join()
        for own in self._helper_counts:
            self.table.counts += own
        self._helper_threads = []
        self._helper_counts = []

    def _helper_search(self, arrays: PositionArrays, tt: TableArrays, sc: Scratch, first_depth: int) -> None:
        """Body of a helper thread: iterative deepening from ``first_depth`` with aspiration, until stopped."""
        try:
            guess = 0
            for depth in range(first_depth, MAX_PLY):
                delta = ASPIRATION_DELTA
                alpha, beta = first_window(depth, guess)
                while True:
                    score = int(negamax(arrays, tt, sc.arena, depth, alpha, beta, 0, False))
                    if sc.ctl[CTL_ABORTED]:
                        return
                    if alpha < score < beta:
                        break
                    alpha, beta = widened(score, alpha, beta, delta)
                    delta = grown(delta)
                guess = score
        except BaseException as exc:  # noqa: BLE001 - kept for the caller; the main thread's search goes on
            self.helper_errors.append(exc)

    def _iteration(self, arrays: PositionArrays, depth, lines_wanted, previous, t0, on_info) -> list[Info] | None:
        """Search every MultiPV line at one depth; None if the search was stopped.

        Line k is the best move once the first k - 1 lines' moves are excluded; the
        lines are then reported best score first (the search's own order can differ
        by a few centipawns, since later lines profit from what the table learned).
        """
        lines: list[Info] = []
        self._pv_codes = []
        for index in range(lines_wanted):
            self.scratch.ctl[CTL_EXCLUDED_COUNT] = index
            for i in range(index):
                self.scratch.ctl[CTL_EXCLUDED + i] = self._pv_codes[i][0]
            score = self._aspiration(arrays, depth, previous[index], index, t0, on_info)
            if score is None:
                return None
            lines.append(self._info(depth, index, score, None, t0))
        order = sorted(range(lines_wanted), key=lambda i: -lines[i].score)  # stable: ties keep search order
        lines = [replace(lines[i], multipv=rank + 1) for rank, i in enumerate(order)]
        self._pv_codes = [self._pv_codes[i] for i in order]
        if on_info:
            for line in lines:
                on_info(line)
        return lines

    def _aspiration(self, arrays: PositionArrays, depth, guess, index, t0, on_info) -> int | None:
        """Search the root in a narrow window around ``guess``, widening on failure."""
        delta = ASPIRATION_DELTA
        alpha, beta = first_window(depth, guess)
        failed_high = 0  # fail highs since the last fail low: each re-search goes a ply shallower (min 1 ply)
        while True:
            draft = max(1, depth - failed_high)
            score = int(negamax(arrays, self.table.arrays, self.scratch.arena, draft, alpha, beta, 0, False))
            if self.scratch.ctl[CTL_ABORTED]:
                return None
            failed_high = failed_high + 1 if score >= beta else 0
            if score <= alpha:
                if on_info and self._elapsed_ms(t0) > BOUND_REPORT_AFTER_MS:
                    on_info(self._info(depth, index, score, "upperbound", t0, keep_pv=False))
            else:
                self._store_pv(index)
                if score < beta:
                    return score
                if on_info and self._elapsed_ms(t0) > BOUND_REPORT_AFTER_MS:
                    on_info(self._info(depth, index, score, "lowerbound", t0))
            alpha, beta = widened(score, alpha, beta, delta)
            delta = grown(delta)

    def _store_pv(self, index: int) -> None:
        """Keep the root PV of line ``index`` (encoded moves) from the last search."""
        codes = [int(m) for m in self.scratch.pv[0, : self.scratch.pv_len[0]]]
        if index < len(self._pv_codes):
            self._pv_codes[index] = codes
        else:
            self._pv_codes.append(codes)

    def _info(self, depth, index, score, bound, t0, keep_pv=True) -> Info:
        codes = self._pv_codes[index] if keep_pv and index < len(self._pv_codes) else []
        return Info(
            depth=depth,
            seldepth=int(self.scratch.ctl[CTL_SELDEPTH]),
            multipv=index + 1,
            score=score,
            bound=bound,
            nodes=self.nodes(),
            time_ms=self._elapsed_ms(t0),
            hashfull=self.table.hashfull(),
            pv=[move_to_uci(m) for m in codes],
        )

    def _done(self, limits: Limits, best: Info, n_root_moves: int) -> bool:
        """Whether to stop deepening after an iteration."""
        if limits.mate is not None and best.mate_in is not None and 0 < best.mate_in <= limits.mate:
            return True
        if self._pondering or limits.infinite:
            return False
        soft = self._budget.soft_ms
        if soft is None:
            return False
        if n_root_moves == 1:
            return True  # a forced move needs no thought on the clock
        if best.mate_in is not None and best.depth >= 2 * abs(best.mate_in) + 4:
            return True  # a mate found with plies to spare will not go away on the clock
        hard = self._budget.hard_ms if self._budget.hard_ms is not None else soft
        # A clock is shared between moves, so a settled search saves time and an unsettled one spends more;
        # a fixed time per move (``go movetime``) is the time asked for, used whole.
        scale = 1.0 if limits.movetime is not None else self._progress.scale()
        return self._elapsed_ms(self._started) >= min(soft * scale, hard)

    def _result(self, completed: list[Info], root_moves: list[int], t0: float) -> SearchResult:
        nodes = self.nodes()
        if not completed or not completed[0].pv:
            return SearchResult(move_to_uci(root_moves[0]), None, 0, 0, nodes, self._elapsed_ms(t0), completed)
        best = completed[0]
        ponder = best.pv[1] if len(best.pv) > 1 else None
        return SearchResult(best.pv[0], ponder, best.score, best.depth, nodes, self._elapsed_ms(t0), completed)
