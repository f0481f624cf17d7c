"""The ``transpo`` command: a thin dispatcher over the core, the engine and the lab.

With no arguments (or ``uci``) it runs the UCI engine.  Every error becomes one
line ``error: ...`` on stderr and exit status 2; no traceback reaches the user.
Ctrl-C (SIGINT) ends any command at once with a one-line note on stderr and exit
status 130, and so does SIGTERM (``kill PID``: the way to stop a command started in the
background, which a shell starts with SIGINT ignored): the long compiled calls (perft,
a search, the bench) run in a worker thread while the main thread waits in short slices,
so the interrupt is seen (see :func:`run_interruptible`); ``analyse`` still prints the
best move so far.

``--fen`` is strict: a castling right whose king or rook is not at home is
refused with an error (the UCI engine, which must take what a GUI sends, drops
it with a warning instead).

Nothing numba-compiled is imported at module level: the UCI engine must answer
``uci`` at once while the compiled core loads in the background.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

# Plain Python (no numba): the defaults and ranges the UCI options use too.
from transpo.compiling import CORE, ENGINE, EVALUATION, PERFT, compile_notice
from transpo.settings import (
    DEFAULT_KEY_SET,
    DEFAULT_PRNG_SEED,
    HASH_MB,
    KEY_SET_NAMES,
    MULTIPV,
    START_FEN,
    THREADS,
    IntRange,
)

ANALYSE_DEFAULT_DEPTH = 12
ANALYSE_DEFAULT_MOVETIME = 3000
LAB_SEARCHES = ("errors", "tt-gain", "crashes")  # the lab commands that run the compiled search
MAX_DEPTH = 128  # transpo.core.board.MAX_PLY (not imported: the module stays free of numpy at import)
INTERRUPT_POLL_S = 0.05  # how often the main thread looks up from a long compiled call


class _Parser(argparse.ArgumentParser):
    """An argument parser that raises :class:`_UsageError` instead of printing usage and exiting."""

    def error(self, message: str) -> None:  # argparse would print usage and exit 2
        """Raise the complaint, so :func:`main` prints it as one ``error:`` line."""
        raise _UsageError(message)


class _UsageError(Exception):
    """A malformed command line (what argparse would report)."""


def _interrupted(note: str = "interrupted") -> None:
    """End the process for Ctrl-C: a one-line note on stderr, exit status 130, no interpreter shutdown.

    ``os._exit`` because a worker thread may still be inside compiled code that
    cannot be interrupted; what was printed is flushed first.
    """
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    try:
        sys.stderr.write(f"{note}\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    os._exit(130)


def run_interruptible(
    work: Callable[[], object], on_interrupt: Callable[[Callable[[float], object]], None] | None = None
):
    """``work()``'s result, computed in a worker thread so that Ctrl-C is seen within ``INTERRUPT_POLL_S``.

    A compiled call (numba, ``nogil``) holds no Python frame, so a KeyboardInterrupt
    raised in the thread running it would wait until the call returns, minutes for
    a deep perft.  Here the main thread only waits, in short slices; on Ctrl-C it
    calls ``on_interrupt(wait)`` (which may stop the work, ``wait(seconds)`` for its
    result, None if it has none yet, and print what it has) and ends the process
    with status 130.  An exception raised by ``work`` is raised here.
    """
    outcome: dict[str, object] = {}

    def target() -> None:
        try:
            outcome["value"] = work()
        except BaseException as exc:  # noqa: BLE001 - handed to the main thread
            outcome["error"] = exc

    thread = threading.Thread(target=target, name="transpo-work", daemon=True)
    thread.start()
    try:
        while thread.is_alive():
            thread.join(INTERRUPT_POLL_S)
    except KeyboardInterrupt:
        if on_interrupt is not None:

            def wait(seconds: float) -> object:
                thread.join(seconds)
                return outcome.get("value")

            try:
                on_interrupt(wait)
            except BaseException:  # noqa: BLE001 - leaving anyway
                pass
        _interrupted()
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    return outcome.get("value")


def _check_depth(flag: str, depth: int, low: int) -> int:
    """``depth`` if it lies in ``low..MAX_DEPTH``; otherwise ValueError saying what fits."""
    if not low <= depth <= MAX_DEPTH:
        raise ValueError(f"{flag} must be >= {low} and <= {MAX_DEPTH} (the deepest search ply), not {depth}")
    return depth


def _position(fen: str, moves: Sequence[str], keys: str | None = None, seed: int | None = None):
    """The position of ``fen`` after ``moves``, hashed with key set ``keys`` (default: the settings' one)."""
    from transpo.core.position import Position

    position = Position.from_fen(
        fen, DEFAULT_KEY_SET if keys is None else keys, DEFAULT_PRNG_SEED if seed is None else seed
    )
    for move in moves:
        position.push(move)
    return position


def cmd_perft(args: argparse.Namespace) -> None:
    """``transpo perft``: the leaf count (or the counts by root move), time and speed."""
    _check_depth("perft depth", args.depth, 0)  # before anything is allocated or compiled
    with compile_notice(PERFT):
        position = _position(args.fen, args.moves)
        import transpo.core.perft  # noqa: F401  (compiled here, under the notice, not inside the count)
    started = time.perf_counter()
    if args.divide and args.depth > 0:
        moves = position.legal_moves()
        nodes = 0
        for move in moves:  # one root move at a time, printed as soon as it is counted
            position.push(move)
            count = run_interruptible(lambda: position.perft(args.depth - 1, args.bulk))
            position.pop()
            print(f"{move}: {count}", flush=True)
            nodes += count
        print()
    else:
        nodes = run_interruptible(lambda: position.perft(args.depth, args.bulk))
    elapsed = time.perf_counter() - started
    print(f"Nodes: {nodes}")
    print(f"Time: {elapsed:.3f} s")
    print(f"Nodes/s: {nodes / max(elapsed, 1e-9):,.0f}")


def cmd_key(args: argparse.Namespace) -> None:
    """``transpo key``: the Zobrist key in hex."""
    with compile_notice(CORE):
        position = _position(args.fen, args.moves, args.keys, args.seed)
    print(f"0x{position.key:016x}")


def cmd_eval(args: argparse.Namespace) -> None:
    """``transpo eval``: the static evaluation taken apart, term by term (White minus Black counts)."""
    from rich.console import Console
    from rich.table import Table

    from transpo.engine.terms import load_weights

    weights = load_weights(args.weights) if args.weights else None
    with compile_notice(CORE):
        position = _position(args.fen, args.moves)
    with compile_notice(EVALUATION):
        from transpo.engine.evaluate import SCALE_FULL, explain

        explanation = explain(position, weights)
    console = Console()
    console.print(f"Evaluation of {position.fen()}")
    table = Table()
    for column in ("term", "count", "mg", "eg"):
        table.add_column(column, justify="left" if column == "term" else "right")
    table.add_row("piece-square sums", "", str(explanation.psq_mg), str(explanation.psq_eg))
    for term in explanation.terms:
        if term.count or args.all:
            table.add_row(term.name, str(term.count), str(term.mg), str(term.eg))
    console.print(table)
    side = "White" if position.turn == "w" else "Black"
    console.print(f"phase {explanation.phase}/24; endgame scale {explanation.eg_scale}/{SCALE_FULL}; "
                  f"score {explanation.score:+d} cp for {side} (the side to move)")


def cmd_book(args: argparse.Namespace) -> None:
    """``transpo book FILE``: a position's entries in a Polyglot book, heaviest first."""
    import chess
    from rich.console import Console
    from rich.table import Table

    from transpo.engine.book import Book

    book = Book(args.file)  # first: a bad file is the only output, before anything compiles
    with compile_notice(CORE):
        position = _position(args.fen, args.moves)
    entries = sorted(book.entries(position), key=lambda entry: -entry.weight)  # stable: file order among equals
    console = Console(highlight=False, soft_wrap=True)
    console.print(f"Book {args.file} ({len(book):,} entries), position {position.fen()}, key 0x{position.key:016x}")
    skipped = len(book.raw_entries(position.key)) - len(entries)
    if not entries:
        console.print("no entries" + (f" ({skipped} stored under this key are not legal here)" if skipped else ""))
        return
    board = chess.Board(position.fen())
    total = sum(entry.weight for entry in entries)
    table = Table()
    for column in ("move", "SAN", "weight", "share", "learn"):
        table.add_column(column, justify="left" if column in ("move", "SAN") else "right")
    for entry in entries:
        share = f"{100 * entry.weight / total:.1f}%" if total else "-"
        san = board.san(chess.Move.from_uci(entry.move_uci))
        table.add_row(entry.move_uci, san, str(entry.weight), share, str(entry.learn))
    console.print(table)
    if skipped:
        console.print(f"{skipped} more stored under this key are not legal here (another position's, or a broken book)")


def _uci_limits(args: argparse.Namespace):
    """Limits of ``analyse``: the one given, else depth 12 and at most 3 s."""
    from transpo.engine.timeman import Limits

    for name in ("depth", "movetime", "nodes"):
        value = getattr(args, name)
        if value is not None and value < 1:
            raise ValueError(f"--{name} must be >= 1")
    if args.depth is not None:
        _check_depth("--depth", args.depth, 1)
    if args.depth is None and args.movetime is None and args.nodes is None:
        return Limits(depth=ANALYSE_DEFAULT_DEPTH, movetime=ANALYSE_DEFAULT_MOVETIME)
    return Limits(depth=args.depth, movetime=args.movetime, nodes=args.nodes)


def _score_text(info) -> str:
    """A score for people, from the side to move's point of view: +0.35, #3, #-2."""
    if info.mate_in is not None:
        return f"#{info.mate_in}"
    return f"{info.score / 100:+.2f}"


def _san(board, pv: Sequence[str]) -> str:
    """The PV in SAN with move numbers (UCI if python-chess refuses a move)."""
    import chess

    try:
        return board.variation_san([chess.Move.from_uci(move) for move in pv])
    except (ValueError, AssertionError):
        return " ".join(pv)


def _check_range(flag: str, value: int, setting: IntRange) -> int:
    """``value`` if ``setting`` accepts it; otherwise ValueError naming the flag, e.g. '--multipv must be 1..256'."""
    try:
        return setting.check(value)
    except ValueError:
        raise ValueError(f"{flag} must be {setting.low}..{setting.high}") from None


def cmd_analyse(args: argparse.Namespace) -> None:
    """``transpo analyse``: iteration lines, best move and PV in SAN, table statistics."""
    import chess
    from rich.console import Console
    from rich.table import Table

    _check_range("--multipv", args.multipv, MULTIPV)
    _check_range("--threads", args.threads, THREADS)
    with compile_notice(ENGINE):
        from transpo.engine.engine import Engine

        limits = _uci_limits(args)
        position = _position(args.fen, args.moves)
    HASH_MB.check(args.hash)  # the table would refuse it too, with this message, but only after the compile
    # first: a table that cannot fit is the only output
    engine = Engine(hash_mb=args.hash, multipv=args.multipv, threads=args.threads)
    board = chess.Board(position.fen())
    console = Console(highlight=False, soft_wrap=True)
    console.print(f"Position: {position.fen()}")
    if not position.legal_moves():
        console.print(f"No legal move: {position.status().value}")
        return

    def on_info(info) -> None:
        """Print one iteration line."""
        bound = {"lowerbound": " (lower bound)", "upperbound": " (upper bound)"}.get(info.bound or "", "")
        line = f" {info.multipv}" if args.multipv > 1 else ""
        console.print(
            f"depth {info.depth:>2}/{info.seldepth:<2}{line} score {_score_text(info):>7}{bound}"
            f"  nodes {info.nodes:>10,}  nps {info.nps:>9,}  time {info.time_ms:>6} ms  pv {_san(board, info.pv)}"
        )

    found: list = []  # the lines reported so far, for an interrupt before the search returns

    def report(info) -> None:
        if info.pv:
            found.append(info)
        on_info(info)

    def stop_and_report(wait) -> None:
        """Ctrl-C: stop the search, then print the best move and PV found so far."""
        engine.stop()
        result = wait(0.3)
        lines = result.lines if result is not None else [i for i in found if i.multipv == 1][-1:]
        console.print()
        best = result.best_move if result is not None else (lines[0].pv[0] if lines else None)
        if best is None:
            console.print("Interrupted before the first iteration ended: no move yet")
            return
        console.print(f"Interrupted. Best move so far: {board.san(chess.Move.from_uci(best))} ({best})")
        for info in lines:
            console.print(f"PV {info.multipv}: {_score_text(info)}  {_san(board, info.pv)}")

    result = run_interruptible(lambda: engine.search(position, limits, report), stop_and_report)
    console.print()
    if result.best_move is None:
        console.print("No move found")
        return
    best_san = board.san(chess.Move.from_uci(result.best_move))
    console.print(
        f"Best move: {best_san} ({result.best_move})  depth {result.depth}  nodes {result.nodes:,}"
        f"  time {result.time_ms} ms  nps {int(result.nodes * 1000 / max(result.time_ms, 1)):,}"
    )
    for info in result.lines:
        console.print(f"PV {info.multipv}: {_score_text(info)}  {_san(board, info.pv)}")
    table = engine.table
    counters = table.counters()
    stats = Table(title="Transposition table")
    stats.add_column("statistic")
    stats.add_column("value", justify="right")
    probes = counters["probes"]
    rows = [
        ("size", f"{table.size_mb} MB, {table.entries:,} entries, policy {table.policy}"),
        ("hashfull", f"{table.hashfull()} per mille"),
        ("probes", f"{probes:,}"),
        ("hits", f"{counters['hits']:,} ({100 * counters['hits'] / max(probes, 1):.1f}%)"),
        ("cutoffs", f"{counters['cutoffs']:,}"),
        ("stores", f"{counters['stores']:,}"),
        ("replacements", f"{counters['replacements']:,}"),
    ]
    if engine.threads > 1:
        rows.insert(1, ("threads", f"{engine.threads} (Lazy SMP; counters of all threads)"))
    for name, value in rows:
        stats.add_row(name, value)
    console.print(stats)


def cmd_bench(args: argparse.Namespace) -> None:
    """``transpo bench``: the bench positions searched to a fixed depth, one line each, then the totals."""
    from transpo.engine.bench import POSITIONS, run_bench

    if args.depth < 1:
        raise ValueError("--depth must be >= 1")
    _check_depth("--depth", args.depth, 1)
    HASH_MB.check(args.hash)
    _check_range("--threads", args.threads, THREADS)
    with compile_notice(ENGINE):
        import transpo.engine.engine  # noqa: F401  (compiled here, under the notice, not in the first position's time)

    def on_line(line) -> None:
        """Print the line of one bench position as soon as it is searched."""
        best = line.best_move or "(none)"
        print(f"Position {line.index:>2}/{len(POSITIONS)}  {best:<6} nodes {line.nodes:>10}  {line.time_ms:>8.0f} ms  {line.fen}", flush=True)

    result = run_interruptible(lambda: run_bench(args.depth, args.hash, on_line=on_line, threads=args.threads))
    print("=" * 40)
    print(f"Depth: {result.depth}")
    if args.threads > 1:
        print(f"Threads: {args.threads} (the node count of more than one thread is not a signature)")
    print(f"Total time (ms): {result.time_s * 1000:.0f}")
    print(f"Nodes searched: {result.nodes}")
    print(f"Nodes/second: {result.nps}")


def cmd_uci(args: argparse.Namespace) -> None:
    """``transpo uci``: the UCI engine on stdin and stdout."""
    from transpo.uci import run_uci

    run_uci()


def _add_position_args(parser: argparse.ArgumentParser) -> None:
    """``--fen`` and ``--moves``, shared by the commands that take a position."""
    parser.add_argument("--fen", default=START_FEN, help="position (default: start position)")
    parser.add_argument("--moves", nargs="*", default=[], metavar="M", help="UCI moves played from the FEN")


def build_parser(with_lab: bool = True) -> argparse.ArgumentParser:
    """The argument parser; ``with_lab=False`` leaves out ``lab`` (its modules load numba and matplotlib)."""
    from transpo import __version__

    parser = _Parser(prog="transpo", description="Transpo chess engine and hash lab (no command: UCI engine)")
    parser.add_argument("--version", action="version", version=f"transpo {__version__}")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser, metavar="command")
    sub.add_parser("help", help="show this list of commands (help COMMAND: that command's options)").add_argument(
        "topic", nargs="*", help="a command, e.g. perft or lab"
    )

    perft = sub.add_parser("perft", help="count leaf nodes of the legal move tree")
    perft.add_argument("depth", type=int)
    _add_position_args(perft)
    perft.add_argument("--divide", action="store_true", help="print the count below each root move")
    perft.add_argument("--bulk", action="store_true", help="count the last ply without making its moves")
    perft.set_defaults(func=cmd_perft)

    key = sub.add_parser("key", help="print the Zobrist key of a position")
    _add_position_args(key)
    key.add_argument("--keys", choices=KEY_SET_NAMES, default=DEFAULT_KEY_SET, help=f"key set (default {DEFAULT_KEY_SET})")
    key.add_argument("--seed", type=lambda s: int(s, 0), default=DEFAULT_PRNG_SEED, help="seed of the prng key set")
    key.set_defaults(func=cmd_key)

    uci = sub.add_parser("uci", help="run the UCI engine (also the default with no command)")
    uci.set_defaults(func=cmd_uci)

    analyse = sub.add_parser(
        "analyse",
        help="analyse a position: iteration lines, best move and PV in SAN, table statistics",
        description="Without a limit: depth 12, but at most 3000 ms.",
    )
    _add_position_args(analyse)
    limit = analyse.add_mutually_exclusive_group()
    limit.add_argument("--depth", type=int, help="search this many plies")
    limit.add_argument("--movetime", type=int, metavar="MS", help="search this many milliseconds")
    limit.add_argument("--nodes", type=int, help="search about this many nodes")
    analyse.add_argument(
        "--hash", type=int, default=HASH_MB.default, metavar="MB", help=f"table size in MB (default {HASH_MB.default})"
    )
    analyse.add_argument(
        "--multipv", type=int, default=MULTIPV.default, metavar="K", help=f"show the K best lines (default {MULTIPV.default})"
    )
    analyse.add_argument(
        "--threads", type=int, default=THREADS.default, metavar="N",
        help=f"search threads, Lazy SMP (1..{THREADS.high}, default {THREADS.default})",
    )  # fmt: skip
    analyse.set_defaults(func=cmd_analyse)

    evaluation = sub.add_parser("eval", help="the static evaluation of a position, term by term")
    _add_position_args(evaluation)
    evaluation.add_argument("--weights", metavar="FILE", help="a weights file (default: the shipped one)")
    evaluation.add_argument("--all", action="store_true", help="list the terms that count zero too")
    evaluation.set_defaults(func=cmd_eval)

    book = sub.add_parser("book", help="a position's moves in a Polyglot opening book, heaviest first")
    book.add_argument("file", metavar="FILE", help="a Polyglot .bin book")
    _add_position_args(book)
    book.set_defaults(func=cmd_book)

    from transpo.engine.bench import DEFAULT_DEPTH, DEFAULT_HASH_MB

    bench = sub.add_parser("bench", help="fixed-depth search of the bench positions: node signature and speed")
    bench.add_argument("--depth", type=int, default=DEFAULT_DEPTH, help=f"depth of every search (default {DEFAULT_DEPTH})")
    bench.add_argument("--hash", type=int, default=DEFAULT_HASH_MB, metavar="MB", help=f"table size (default {DEFAULT_HASH_MB})")
    bench.add_argument(
        "--threads", type=int, default=THREADS.default, metavar="N",
        help=f"search threads (1..{THREADS.high}; above 1 the node count is no signature)",
    )  # fmt: skip
    bench.set_defaults(func=cmd_bench)

    from transpo.tools.commands import add_tool_parsers

    add_tool_parsers(sub, run_interruptible)  # match, epd, tune

    if with_lab:
        from transpo.lab.commands import add_lab_parser

        add_lab_parser(sub, _Parser)
    return parser


def _skip_scipy() -> None:
    """Keep numba from importing scipy in a ``transpo`` process (about 0.3-0.5 s of every start).

    Loading the first cached function makes numba look for a BLAS in
    ``scipy.linalg``; Transpo uses no linear algebra, and numba takes a failed
    import as "no BLAS".  ``TRANSPO_ALLOW_SCIPY=1`` turns this off.
    """
    if "scipy" not in sys.modules and not os.environ.get("TRANSPO_ALLOW_SCIPY"):
        sys.modules["scipy"] = None  # type: ignore[assignment]


@contextmanager
def _terminate_as_interrupt() -> Iterator[None]:
    """While a command runs, SIGTERM raises KeyboardInterrupt as Ctrl-C does: a match stopped by ``kill``
    prints its partial result and records ``stopped: interrupted`` in its report, its engines are killed.

    Only the main thread may set a handler (a caller in another thread keeps the default); the previous
    handler comes back afterwards, for callers of :func:`main` from Python.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, signal.default_int_handler)  # Python's SIGINT handler: raises it
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``transpo`` console command."""
    if argv is None:  # a process of its own (not a call from Python code that may want scipy)
        _skip_scipy()
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv in ([], ["uci"]):  # straight to the engine: no parser, nothing compiled imported
        from transpo.uci import run_uci

        return run_uci()
    if argv == ["--version"]:
        from transpo import __version__

        print(f"transpo {__version__}")
        return 0
    try:
        parser = build_parser(with_lab=argv[0] in ("lab", "help", "-h", "--help"))
        args = parser.parse_args(argv)
        if args.command is None:
            from transpo.uci import run_uci

            run_uci()
            return 0
        if args.command == "help":
            return _help(parser, args.topic)
        if args.command == "lab" and args.lab_command in LAB_SEARCHES:
            with compile_notice(ENGINE):  # once here: the worker processes then load it from the cache
                import transpo.engine.engine  # noqa: F401
        with _terminate_as_interrupt():
            args.func(args)
        return 0
    except (_UsageError, ValueError, OSError) as exc:  # bad input or an unwritable --json path
        print(f"error: {' '.join(str(exc).split()) or type(exc).__name__}", file=sys.stderr)
        return 2
    except MemoryError as exc:  # e.g. a --hash the machine cannot hold
        detail = " ".join(str(exc).split())
        print(f"error: out of memory{': ' + detail if detail else ''}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


def _help(parser: argparse.ArgumentParser, topic: Sequence[str]) -> int:
    """``transpo help [COMMAND ...]``: the list of commands, or one command's options."""
    if not topic:
        parser.print_help()
        return 0
    try:
        parser.parse_args([*topic, "--help"])
    except SystemExit as exc:  # argparse prints the help and exits
        return int(exc.code or 0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
