"""``transpo epd``: an EPD test suite solved by Transpo's own ``Engine``, in this process.

Each line is an EPD position with ``bm`` (best moves: the chosen move must be one
of them) and/or ``am`` (avoid moves: it must be none of them), in SAN, and an
optional ``id``.  Lines that python-chess cannot read, or that have neither
``bm`` nor ``am``, are reported with their line number and skipped.  The engine
starts every position with an empty table (``new_game``).
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import chess

from transpo.tools.openings import data_path, epd_records

SHIPPED = {"bk": "bk.epd", "mates": "mates.epd"}
DEFAULT_MOVETIME_MS = 1000
MAX_DEPTH = 128


@dataclass(frozen=True)
class Problem:
    """One EPD test position."""

    line: int
    id: str
    fen: str
    best: tuple[str, ...]  # SAN
    avoid: tuple[str, ...]


@dataclass
class Outcome:
    """How the engine did on one problem."""

    line: int
    id: str
    fen: str
    expected: str  # "bm Nf6" / "am Qxe5+"
    move: str | None  # SAN
    solved: bool
    depth: int
    nodes: int
    time_ms: int


def read_suite(path: str | Path) -> tuple[list[Problem], list[str]]:
    """The problems of an EPD file and the complaints about the lines skipped (``file:line: why``)."""
    path = Path(path)
    problems: list[Problem] = []
    skipped: list[str] = []
    for number, board, ops, fault in epd_records(path):
        if board is None:
            skipped.append(f"{path.name}:{number}: {fault}")
            continue
        best = ops.get("bm", [])
        avoid = ops.get("am", [])
        if not best and not avoid:
            skipped.append(f"{path.name}:{number}: no bm or am operation")
            continue
        problems.append(Problem(number, str(ops.get("id", f"{path.name}:{number}")), board.fen(),
                                tuple(board.san(m) for m in best), tuple(board.san(m) for m in avoid)))  # fmt: skip
    return problems, skipped


def suite_path(name: str) -> Path:
    """A file, or a shipped suite by name (``bk``, ``mates``)."""
    if name in SHIPPED:
        return data_path(SHIPPED[name])
    path = Path(name)
    if not path.is_file():
        raise ValueError(f"no EPD file {name} (or a shipped suite: {', '.join(SHIPPED)})")
    return path


def solve(problems: list[Problem], limits, hash_mb: int = 64, on_result=None) -> list[Outcome]:
    """Search every problem within ``limits`` (a ``transpo.engine.timeman.Limits``)."""
    from transpo.core.position import Position
    from transpo.engine.engine import Engine

    engine = Engine(hash_mb=hash_mb)
    outcomes = []
    for problem in problems:
        engine.new_game()
        board = chess.Board(problem.fen)
        started = time.perf_counter()
        result = engine.search(Position.from_fen(problem.fen), limits)
        wall_ms = int((time.perf_counter() - started) * 1000)
        san = board.san(chess.Move.from_uci(result.best_move)) if result.best_move else None
        solved = san is not None and (not problem.best or san in problem.best) and san not in problem.avoid
        expected = " ".join(f"{op} {' '.join(moves)}" for op, moves in (("bm", problem.best), ("am", problem.avoid))
                            if moves)  # fmt: skip
        outcome = Outcome(problem.line, problem.id, problem.fen, expected, san, solved, result.depth, result.nodes,
                          wall_ms)  # fmt: skip
        outcomes.append(outcome)
        if on_result is not None:
            on_result(outcome)
    return outcomes


def run_suite_command(args: argparse.Namespace) -> list[Outcome]:
    """``transpo epd``: check the arguments, run, print a line per position and the solved count."""
    from transpo.engine.timeman import Limits
    from transpo.settings import HASH_MB

    for name in ("movetime", "depth", "nodes"):
        value = getattr(args, name)
        if value is not None and value < 1:
            raise ValueError(f"--{name} must be >= 1")
    if args.depth is not None and args.depth > MAX_DEPTH:
        raise ValueError(f"--depth must be <= {MAX_DEPTH}")
    HASH_MB.check(args.hash)
    if args.depth is None and args.nodes is None:
        limits = Limits(movetime=args.movetime or DEFAULT_MOVETIME_MS)
        what = f"{args.movetime or DEFAULT_MOVETIME_MS} ms"
    else:
        limits = Limits(depth=args.depth, nodes=args.nodes)
        what = f"depth {args.depth}" if args.depth else f"{args.nodes} nodes"
    path = suite_path(args.file)
    if args.json:
        if Path(args.json).is_dir():
            raise ValueError(f"{args.json} is a directory")
        with open(args.json, "w", encoding="utf-8"):
            pass
    problems, skipped = read_suite(path)
    for complaint in skipped:
        print(f"skipped {complaint}", flush=True)
    if not problems:
        raise ValueError(f"{path}: no test positions")
    print(f"{path.name}: {len(problems)} positions, {what} each", flush=True)

    def on_result(o: Outcome) -> None:
        mark = "ok  " if o.solved else "FAIL"
        print(f"{mark} {o.id:<28} {o.expected:<16} played {o.move or '(none)':<8} depth {o.depth:>3}  "
              f"nodes {o.nodes:>10,}  {o.time_ms:>6} ms", flush=True)  # fmt: skip

    outcomes = solve(problems, limits, args.hash, on_result)
    solved = sum(o.solved for o in outcomes)
    print(f"Solved {solved}/{len(outcomes)} ({what} per position); skipped lines: {len(skipped)}")
    if args.json:
        report = {"format": "transpo-epd/1", "file": str(path), "limit": what, "solved": solved,
                  "positions": len(outcomes), "skipped": skipped, "results": [asdict(o) for o in outcomes]}  # fmt: skip
        Path(args.json).write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return outcomes
