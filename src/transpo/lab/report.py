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
import math
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
# (row["section"] value, columns, title[, how many leading columns name a row: repeated when a table is split])
Section = tuple[str, Columns, str] | tuple[str, Columns, str, int]
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


def print_table(console: Console, rows: Sequence[Row], columns: Columns, title: str, keep: int = 1) -> None:
    """One rich table of ``rows``: a right-aligned column per (row key, heading).

    A table wider than the console is never truncated: it is split into parts that fit, each
    repeating the first ``keep`` columns (those that name the row). A heading wraps at its spaces.
    """
    cells = [[_cell(row.get(key)) for key, _ in columns] for row in rows]
    headings = [heading for _, heading in columns]
    widths = [max([max(map(len, h.split()), default=1)] + [len(r[i]) for r in cells]) for i, h in enumerate(headings)]
    parts = _split_columns(widths, keep, console.width)
    for number, part in enumerate(parts):
        # fixed widths (rich's own layout may crop a wide table): each column as wide as its widest cell or
        # heading word, then widened towards the whole heading on one line while the console has room
        fixed = {i: widths[i] for i in part}
        room = console.width - (1 + sum(fixed[i] + 3 for i in part))
        for i in part:
            grow = min(room, max(0, len(headings[i]) - fixed[i]))
            fixed[i] += grow
            room -= grow
        label = title if len(parts) == 1 else f"{title} ({number + 1}/{len(parts)})"
        table = Table(title=label)
        for i in part:
            table.add_column(headings[i], justify="right", width=fixed[i], overflow="fold")
        for row_cells in cells:
            table.add_row(*(row_cells[i] for i in part))
        console.print(table)


def _split_columns(widths: Sequence[int], keep: int, total: int) -> list[list[int]]:
    """Column indices per part so that each part's table fits ``total`` characters (3 per column + 1 for rules)."""
    keep = min(keep, len(widths))
    head = list(range(keep))
    base = 1 + sum(widths[i] + 3 for i in head)
    parts: list[list[int]] = []
    current: list[int] = []
    used = base
    for i in range(keep, len(widths)):
        if current and used + widths[i] + 3 > total:
            parts.append(head + current)
            current, used = [], base
        current.append(i)
        used += widths[i] + 3
    if current or not parts:
        parts.append(head + current)
    return parts


def emit(report: Report, common: CommonConfig, sections: Sequence[Section], plot: Plot | None = None) -> None:
    """Print one table per listed section that has rows; write ``--json`` and draw ``--plot``.

    The summary follows the last table (and comes before that table's notes); rows of unlisted sections (per-position
    records) go only to ``--json``; a row's ``note`` is printed under its table.
    """
    console = Console()
    shown = [s for s in sections if section(report, s[0])]
    for number, (name, columns, title, *keep) in enumerate(shown):
        rows = section(report, name)
        print_table(console, rows, columns, title, *keep)
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


def log_axis(ax, axis: str = "y") -> None:
    """A base-10 log scale whose ticks read as plain numbers (0.02, 500, 3e-6), with 2 and 5 between the decades
    when the axis spans less than three of them and every digit below about one (so a short range has numbers)."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, MaxNLocator, NullFormatter

    target = ax.yaxis if axis == "y" else ax.xaxis
    (ax.set_yscale if axis == "y" else ax.set_xscale)("log")
    low, high = ax.get_ylim() if axis == "y" else ax.get_xlim()
    decades = math.log10(high / low) if low > 0 and high > low else 99
    if decades < 1.2:  # evenly spaced round values (2, 2.5, 3, ...) read best on a short log axis
        ticks = [t for t in MaxNLocator(nbins=7).tick_values(low, high) if low <= t <= high and t > 0]
        target.set_major_locator(FixedLocator(ticks))
    else:
        target.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0) if decades < 3 else (1.0,)))
    target.set_major_formatter(FuncFormatter(_plain_number))
    target.set_minor_formatter(NullFormatter())


def _plain_number(value: float, _position: int | None = None) -> str:
    """A tick label: 1,000 / 0.05 / 2e-06 / 3e+07 (no mathtext powers)."""
    if value == 0:
        return "0"
    if 1e-3 <= abs(value) < 1e6:
        return f"{value:,.6g}"
    return f"{value:.0e}".replace("e-0", "e-").replace("e+0", "e")
