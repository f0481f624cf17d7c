"""What every lab command shares: the position set, reproducible runs, parallel jobs and the outputs.

Each command builds a *report*: a JSON-ready dict with a fixed top level::

    {
      "schema": "transpo-lab/1",
      "command": "errors",                  # the lab command
      "config": {...},                      # every option the run used (seed, depth, positions file, ...)
      "rows": [{...}, ...],                 # one flat dict per measured configuration
      "summary": {...},                     # headline figures derived from the rows
      "machine": {"python": ..., "cpu_count": ...},
    }

``emit`` prints the rows as a rich table, writes ``--json`` and hands the
report to a plot function for ``--plot``.  The schema is documented in
``docs/LAB.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from transpo.core.fen import InvalidFEN
from transpo.core.position import Position

SCHEMA = "transpo-lab/1"

# The built-in position set: varied middlegames and endgames (FEN, name).
# Sources: well-known test positions (CPW perft positions, Fine #70, WAC-style tactics) and
# positions from master-game openings; all verified legal by Position.from_fen.
DEFAULT_POSITIONS: tuple[tuple[str, str], ...] = (
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "start"),
    ("r3k2r/p1ppqpb1/bn2pnp1/3PP3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", "kiwipete"),
    ("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4", "two knights"),
    ("r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 1 8", "queen's gambit"),
    ("r2q1rk1/1b2bppp/p2ppn2/1p6/3NP3/1BN1B3/PPP1QPPP/R4RK1 w - - 0 12", "sicilian"),
    ("r1bq1rk1/ppp2ppp/2np1n2/2b1p3/2B1P3/2PP1N2/PP3PPP/RNBQ1RK1 w - - 0 7", "giuoco piano"),
    ("2rq1rk1/pb1nbppp/1p2pn2/2pp4/2PP4/1PN1PN2/PB2BPPP/2RQ1RK1 w - - 0 11", "symmetrical middlegame"),
    ("r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10", "cpw position 6"),
    ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", "cpw position 3 (rook endgame)"),
    ("8/k7/3p4/p2P1p2/P2P1P2/8/8/K7 w - - 0 1", "fine 70"),
    ("8/8/4k3/8/2p5/8/B2K4/8 w - - 0 1", "bishop v pawn"),
    ("8/5pk1/6p1/8/5P2/6PK/8/8 w - - 0 1", "pawn endgame"),
    ("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", "back-rank mate"),
    ("4r1k1/p4ppp/8/8/2q5/2P3Q1/P4PPP/4R1K1 w - - 0 1", "heavy pieces"),
    ("8/8/1k6/8/8/8/6K1/4R3 w - - 0 1", "KR v K"),
    ("2r3k1/5pp1/p3p2p/1p2P3/3R4/P1r3P1/5PKP/3R4 w - - 0 30", "double rook endgame"),
)


def load_positions(path: str | None) -> list[tuple[str, str]]:
    """(FEN, name) pairs from an EPD/FEN file (one per line, ``#`` comments), or the default set."""
    if path is None:
        return list(DEFAULT_POSITIONS)
    positions = []
    for number, line in enumerate(Path(path).read_text().splitlines(), 1):
        text = line.split(";")[0].strip()
        if not text or text.startswith("#"):
            continue
        fields = text.split()
        fen = " ".join(fields[:6]) if len(fields) >= 6 and fields[4].isdigit() else " ".join(fields[:4])
        try:
            Position.from_fen(fen)
        except InvalidFEN as exc:
            raise ValueError(f"{path}:{number}: {exc}") from None
        positions.append((fen, f"{Path(path).name}:{number}"))
    if not positions:
        raise ValueError(f"{path} holds no positions")
    return positions


def add_common_options(parser: argparse.ArgumentParser, plot: bool = True) -> None:
    """The options every lab command takes."""
    parser.add_argument("--json", metavar="FILE", help="write the report (schema transpo-lab/1) to FILE")
    if plot:
        parser.add_argument("--plot", metavar="FILE.png", help="draw the result to a PNG file")
    parser.add_argument("--positions", metavar="FILE", help="EPD or FEN lines (default: the built-in set)")
    parser.add_argument("--limit", type=int, metavar="N", help="use only the first N positions")
    parser.add_argument("--jobs", type=int, default=1, metavar="N", help="spread positions over N processes")
    parser.add_argument("--seed", type=int, default=1, help="seed of every random choice (default 1)")


def selected_positions(args: argparse.Namespace) -> list[tuple[str, str]]:
    positions = load_positions(getattr(args, "positions", None))
    if getattr(args, "limit", None):
        positions = positions[: args.limit]
    return positions


def seed_everything(seed: int) -> None:
    random.seed(seed)


def run_parallel(task: Callable[[Any], Any], items: Sequence[Any], jobs: int, label: str) -> list[Any]:
    """``[task(item) for item in items]`` with a progress bar, over ``jobs`` processes if > 1.

    ``task`` must be a module-level function (it is pickled for the workers);
    results keep the order of ``items``.
    """
    results: list[Any] = [None] * len(items)
    with _progress() as progress:
        bar = progress.add_task(label, total=len(items))
        if jobs <= 1:
            for i, item in enumerate(items):
                results[i] = task(item)
                progress.advance(bar)
        else:
            with ProcessPoolExecutor(max_workers=jobs) as pool:
                futures = {pool.submit(task, item): i for i, item in enumerate(items)}
                for future in as_completed(futures):
                    results[futures[future]] = future.result()
                    progress.advance(bar)
    return results


def _progress() -> Progress:
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
    )


def make_report(command: str, config: dict[str, Any], rows: list[dict[str, Any]], summary: dict[str, Any]) -> dict[str, Any]:
    """A report in the documented ``transpo-lab/1`` schema."""
    return {
        "schema": SCHEMA,
        "command": command,
        "config": config,
        "rows": rows,
        "summary": summary,
        "machine": {"python": platform.python_version(), "cpu_count": os.cpu_count(), "platform": platform.platform()},
    }


def emit(
    report: dict[str, Any],
    args: argparse.Namespace,
    columns: Sequence[tuple[str, str]],
    title: str,
    plot: Callable[[dict[str, Any], str], None] | None = None,
) -> None:
    """Print the rows as a table (``columns``: (row key, heading)), the summary, then write JSON and plot."""
    console = Console()
    table = Table(title=title)
    for _, heading in columns:
        table.add_column(heading, justify="right")
    for row in report["rows"]:
        table.add_row(*(_cell(row.get(key)) for key, _ in columns))
    console.print(table)
    for key, value in report["summary"].items():
        console.print(f"{key}: {_cell(value)}")
    _write_outputs(report, args, plot, console)


def _write_outputs(
    report: dict[str, Any], args: argparse.Namespace, plot: Callable[[dict[str, Any], str], None] | None, console: Console
) -> None:
    """Write ``--json`` and draw ``--plot`` if asked for."""
    if getattr(args, "json", None):
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n")
        console.print(f"wrote {args.json}")
    if plot is not None and getattr(args, "plot", None):
        plot(report, args.plot)
        console.print(f"wrote {args.plot}")


Section = tuple[str, Sequence[tuple[str, str]], str]  # (row["section"] value, columns, title)


def section(report: dict[str, Any], name: str) -> list[dict[str, Any]]:
    """The rows of one section of a report."""
    return [row for row in report["rows"] if row.get("section") == name]


def emit_sections(
    report: dict[str, Any],
    args: argparse.Namespace,
    sections: Sequence[Section],
    plot: Callable[[dict[str, Any], str], None] | None = None,
) -> None:
    """:func:`emit` for a report whose rows carry a ``section``: one table per listed section.

    The summary follows the last table; rows of unlisted sections (per-position
    records) go only to ``--json``; a row's ``note`` is printed under its table.
    The whole report is written once (``--json``) and drawn once (``--plot``).
    """
    console = Console()
    quiet = argparse.Namespace(**{**vars(args), "json": None, "plot": None})
    shown = [s for s in sections if section(report, s[0])]
    for number, (name, columns, title) in enumerate(shown):
        rows = section(report, name)
        last = number == len(shown) - 1
        emit({**report, "rows": rows, "summary": report["summary"] if last else {}}, quiet, columns, title)
        for row in rows:
            if row.get("note"):
                console.print(f"[dim]{row.get('who', '')} {row.get('case', '')}: {row['note']}[/dim]", highlight=False)
    _write_outputs(report, args, plot, console)


def _cell(value: Any) -> str:
    if isinstance(value, float):
        if value == 0:
            return "0"
        if abs(value) >= 1e6 or abs(value) < 1e-3:
            return f"{value:.3g}"
        return f"{value:,.4g}"
    if isinstance(value, int):
        return f"{value:,}"
    return "" if value is None else str(value)
