"""The report every lab command builds, and its output: rich tables, ``--json`` and ``--plot``.

A report is a JSON-ready dict with a fixed top level::

    {
      "schema": "transpo-lab/1",
      "command": "errors",                  # the lab command
      "config": {...},                      # every option the run used (seed, depth, positions file, ...)
      "rows": [{...}, ...],                 # one flat dict per measured configuration
      "summary": {...},                     # headline figures derived from the rows
      "machine": {"python": ..., "cpu_count": ...},
    }

Every row carries a ``section`` naming the table it belongs to.  :func:`emit`
prints one rich table per listed section and the summary, writes ``--json`` and
hands the report to a plot function for ``--plot``.  The schema is documented
in ``docs/LAB.md``.
"""

from __future__ import annotations

import json
import os
import platform
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from transpo.lab.options import CommonConfig

SCHEMA = "transpo-lab/1"

Row = dict[str, Any]
Report = dict[str, Any]
Columns = Sequence[tuple[str, str]]  # (row key, heading)
Section = tuple[str, Columns, str]  # (row["section"] value, columns, title)
Plot = Callable[[Report, str], None]


def make_report(command: str, config: dict[str, Any], rows: list[Row], summary: dict[str, Any]) -> Report:
    """A report in the documented ``transpo-lab/1`` schema."""
    return {
        "schema": SCHEMA,
        "command": command,
        "config": config,
        "rows": rows,
        "summary": summary,
        "machine": {"python": platform.python_version(), "cpu_count": os.cpu_count(), "platform": platform.platform()},
    }


def positions_config(common: CommonConfig) -> dict[str, Any]:
    """The config entries of the searched positions, as every search report records them."""
    return {
        "seed": common.seed,
        "jobs": common.jobs,
        "positions_file": common.positions_file,
        "limit": common.limit,
        "positions": [{"fen": fen, "name": name} for fen, name in common.positions],
    }


def section(report: Report, name: str) -> list[Row]:
    """The rows of one section of a report."""
    return [row for row in report["rows"] if row.get("section") == name]


def print_table(console: Console, rows: Sequence[Row], columns: Columns, title: str) -> None:
    """One rich table of ``rows``: a right-aligned column per (row key, heading)."""
    table = Table(title=title)
    for _, heading in columns:
        table.add_column(heading, justify="right")
    for row in rows:
        table.add_row(*(_cell(row.get(key)) for key, _ in columns))
    console.print(table)


def emit(report: Report, common: CommonConfig, sections: Sequence[Section], plot: Plot | None = None) -> None:
    """Print one table per listed section that has rows; write ``--json`` and draw ``--plot``.

    The summary follows the last table (and comes before that table's notes); rows of unlisted sections (per-position
    records) go only to ``--json``; a row's ``note`` is printed under its table.
    """
    console = Console()
    shown = [s for s in sections if section(report, s[0])]
    for number, (name, columns, title) in enumerate(shown):
        rows = section(report, name)
        print_table(console, rows, columns, title)
        if number == len(shown) - 1:
            for key, value in report["summary"].items():
                console.print(f"{key}: {_cell(value)}")
        for row in rows:
            if row.get("note"):
                console.print(f"[dim]{row.get('who', '')} {row.get('case', '')}: {row['note']}[/dim]", highlight=False)
    if common.json_path:
        Path(common.json_path).write_text(json.dumps(report, indent=2) + "\n")
        console.print(f"wrote {common.json_path}")
    if plot is not None and common.plot_path:
        plot(report, common.plot_path)
        console.print(f"wrote {common.plot_path}")


def pyplot():
    """matplotlib's pyplot on the file-only Agg backend (imported here: only ``--plot`` needs it)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_figure(fig, path: str) -> None:
    """Lay out ``fig``, write it to ``path`` as a PNG and free it."""
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    pyplot().close(fig)


def _cell(value: Any) -> str:
    """A figure for a table cell: 1,234 / 0.5 / 1.23e+07 / 4.5e-05; None is blank."""
    if isinstance(value, float):
        if value == 0:
            return "0"
        if abs(value) >= 1e6 or abs(value) < 1e-3:
            return f"{value:.3g}"
        return f"{value:,.4g}"
    if isinstance(value, int):
        return f"{value:,}"
    return "" if value is None else str(value)
