"""``transpo lab errors``: count false hits with Dan Newman's error-detection method.

Newman (Computer Chess Club, 10 Oct 1997) stored an extra, independent "error detection" key beside
every table entry: when the signature matches but the extra key does not, the
hit is a hashing error.  The engine's audit mode is that method with a whole
64-bit check key from an independent key set (``Engine(audit=True)``), so every
false hit of a ``k``-bit signature is seen (an undetected one would need the
64-bit check keys to collide as well).

The prediction
--------------
A probe compares the live slots of one bucket, in order, until a signature
matches.  Every comparison is with either

* the same position - its signature always matches: a *true hit*; or
* another position that happens to share the bucket - its signature matches by
  chance with probability ``2**-b``, where ``b`` is the number of signature
  bits that are not already equal because the two keys share a bucket:
  ``b = min(k, 64 - index_bits)`` (``b = k`` while signature and index bits
  do not overlap).

The table counts ``compared`` (every live slot compared, Koistinen's ``s``
summed over the probes), ``hits`` (signature matches) and, in audit mode,
``false_hits`` (matches whose check key differs).  The true hits are
``hits - false_hits``, so the comparisons with another position are::

    D = compared - (hits - false_hits)

and each of them is one Bernoulli trial with success ``2**-b``; the probe stops
at the first success, but by Wald's identity ``E[false hits] = 2**-b * E[D]``
all the same.  The prediction beside each measurement is therefore
``D * 2**-b``, from the same search (a false hit can cut the tree off, so each
signature width searches a slightly different tree - the probes column shows
how much).

Only the signature width changes the odds of a comparison; the table size and
replacement policy change how many comparisons with *other* positions there
are (a sparse table has few), which is why the rates per probe, per node and
per second differ between configurations while the rate per comparison does not.

Addition instead of XOR
-----------------------
``--combine xor,add`` runs every configuration twice, once with the positions'
keys combined by XOR and once by 64-bit wrapping addition (Eppstein's remark,
docs/LAB.md), and prints the two rows side by side.  The prediction is the same
for both: two positions that share a bucket agree in the low index bits, and
the odds that their top ``b`` bits agree as well are ``2**-b`` if the keys behave
like random numbers, however they were combined.  The audit's check key stays
XOR over its own independent key set: it only has to tell whether two entries
belong to the same position, for which any independent 64-bit key will do, and
one yardstick for both columns means a difference between them cannot come from
the check.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from transpo.lab.options import (
    SEARCH_DEPTH,
    SEARCH_SEED_HELP,
    Bounds,
    CommonConfig,
    add_combine_list,
    add_common_options,
    add_key_option,
    add_list_option,
    add_policy_list,
    common_config,
    int_type,
)
from transpo.lab.report import (
    Report,
    Row,
    Section,
    emit,
    log_axis,
    make_report,
    positions_config,
    pyplot,
    save_figure,
    section,
)
from transpo.lab.runner import EngineSettings, SearchJob, SearchLimit, SearchRecord, check_key_seed, run_searches
from transpo.lab.stats import ols_slope, poisson_interval, poisson_slope
from transpo.settings import HASH_MB, SIGNATURE_BITS

DEFAULT_BITS = (8, 12, 16, 20)
DEFAULT_HASH_MB = (1, 16)
DEFAULT_POLICIES = ("bucket", "always")
DEFAULT_DEPTH = 8


@dataclass(frozen=True)
class ErrorsConfig:
    """A checked ``lab errors`` run: every (policy, size, width) searches all positions with an audited table."""

    common: CommonConfig
    bits: tuple[int, ...]
    hash_mb: tuple[int, ...]
    policies: tuple[str, ...]
    limit: SearchLimit
    fresh: bool  # clear the table before every position (default: keep it, as in a game)
    keys: str
    combines: tuple[str, ...] = ("xor",)  # key combinations, each measured beside the other

    def variants(self) -> list[tuple[str, str, int, int]]:
        """(combination, policy, MB, bits) of every measured configuration, in table order (combinations adjacent)."""
        return [
            (combine, policy, mb, bits)
            for policy in self.policies
            for mb in self.hash_mb
            for bits in self.bits
            for combine in self.combines
        ]


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register ``lab errors``."""
    parser = subparsers.add_parser(
        "errors",
        help="false hits per signature width, measured (Newman's check key) beside the prediction",
        description=(
            "Search the positions with an audited table (an independent 64-bit check key per entry) for each "
            "signature width, table size and replacement policy; count the false hits and set them beside "
            "(comparisons with another position) / 2^bits.  By default one table serves all positions in turn, "
            "as in a game, so it fills up; --fresh clears it before each position."
        ),
    )
    add_list_option(parser, "--bits", DEFAULT_BITS, "signature widths", bounds=SIGNATURE_BITS)
    add_list_option(parser, "--hash-mb", DEFAULT_HASH_MB, "table sizes in MB", bounds=HASH_MB)
    add_policy_list(parser, DEFAULT_POLICIES)
    limit = parser.add_mutually_exclusive_group()
    limit.add_argument(
        "--depth", type=int_type(SEARCH_DEPTH), help=f"fixed depth per position (default {DEFAULT_DEPTH})"
    )
    limit.add_argument("--movetime", type=int_type(Bounds("movetime", 1)), metavar="MS",
                       help="fixed time per position instead of a depth")  # fmt: skip
    parser.add_argument("--fresh", action="store_true", help="clear the table before every position")
    add_key_option(parser)
    add_combine_list(parser, "the searched positions' keys (the audit's check key is XOR)")
    add_common_options(parser, SEARCH_SEED_HELP)
    parser.set_defaults(func=run)


def configure(args: argparse.Namespace) -> ErrorsConfig:
    """The checked configuration of a ``lab errors`` run."""
    check_key_seed(args.keys, args.seed)
    if args.movetime is not None:
        limit = SearchLimit(movetime_ms=args.movetime)
    else:
        limit = SearchLimit(depth=args.depth if args.depth is not None else DEFAULT_DEPTH)
    return ErrorsConfig(
        common=common_config(args),
        bits=tuple(args.bits),
        hash_mb=tuple(args.hash_mb),
        policies=tuple(args.policies),
        limit=limit,
        fresh=args.fresh,
        keys=args.keys,
        combines=tuple(dict.fromkeys(args.combine)),
    )


def search_jobs(config: ErrorsConfig) -> list[SearchJob]:
    """One job per (combination, policy, size, width): all positions in turn on one audited engine."""
    return [
        SearchJob(
            positions=config.common.positions,
            limit=config.limit,
            engine=EngineSettings(hash_mb=mb, policy=policy, signature_bits=bits, audit=True),
            keys=config.keys,
            seed=config.common.seed,
            combine=combine,
            carry_table=not config.fresh,
            tag={"combine": combine, "policy": policy, "hash_mb": mb, "bits": bits},
        )
        for combine, policy, mb, bits in config.variants()
    ]


def build_report(config: ErrorsConfig, results: Sequence[Sequence[SearchRecord]]) -> Report:
    """The report of a run: one ``width`` row per configuration, the summary, and the per-position records."""
    rows = [width_row(*variant, records) for variant, records in zip(config.variants(), results, strict=True)]
    records = [{**record.row(), "section": "position"} for job in results for record in job]
    report_config = {
        "bits": list(config.bits), "hash_mb": list(config.hash_mb), "policies": list(config.policies),
        "depth": config.limit.depth, "movetime_ms": config.limit.movetime_ms,
        "table": "fresh per position" if config.fresh else "kept across positions", "keys": config.keys,
        "combine": list(config.combines),
        **positions_config(config.common),
        "check_key": "independent 64-bit prng key set, combined by XOR (Engine audit mode)",
        "prediction": "(compared - (hits - false_hits)) * 2**-min(bits, 64 - index_bits)",
    }  # fmt: skip
    return make_report("errors", report_config, rows + records, summarize(config, rows))


def sections(config: ErrorsConfig) -> list[Section]:
    """The printed table: measured false hits beside the prediction, per configuration."""
    columns = [
        ("combine", "combine"), ("policy", "policy"), ("hash_mb", "MB"), ("bits", "bits"), ("probes", "probes"),
        ("other_compared", "cmp other"), ("false_hits", "false"), ("predicted", "pred"),
        ("ratio", "meas/pred"),
    ]  # fmt: skip
    title = f"False hits (Newman's check key), {len(config.common.positions)} positions, {config.limit.text()}"
    return [("width", columns, title)]


def run(args: argparse.Namespace) -> None:
    """``lab errors``: configure, search, report, print and write."""
    config = configure(args)
    report = build_report(config, run_searches(search_jobs(config), config.common.placement, "errors"))
    print_rates(section(report, "width"))
    emit(report, config.common, sections(config), plot_errors)


def prediction_bits(bits: int, index_bits: int) -> int:
    """Signature bits a comparison with a same-bucket position can still differ in."""
    return min(bits, 64 - index_bits)


def print_rates(rows: Sequence[Row]) -> None:
    """A second table: each rate measured, with its prediction beside it."""
    from rich.console import Console
    from rich.table import Table

    table = Table(title="False-hit rates: measured (predicted)")
    for heading in ("combine", "policy", "MB", "bits", "per probe", "per hit", "per node", "per second"):
        table.add_column(heading, justify="right")
    for r in rows:
        cells = [r["combine"], r["policy"], str(r["hash_mb"]), str(r["bits"])]
        for unit in ("probe", "hit", "node", "second"):
            cells.append(f"{_two_digits(r[f'fh_per_{unit}'])} ({_two_digits(r[f'pred_per_{unit}'])})")
        table.add_row(*cells)
    Console().print(table)


def _two_digits(value: float | None) -> str:
    """Two significant digits, '-' for no value."""
    if value is None:
        return "-"
    return "0" if value == 0 else f"{value:.2g}"


def width_row(combine: str, policy: str, mb: int, bits: int, records: Sequence[SearchRecord]) -> Row:
    """One configuration summed over its positions: counts, false hits, the prediction and every rate."""
    group = [record.row() for record in records]
    names = ("nodes", "probes", "hits", "compared", "false_hits", "stores", "replacements", "time_ms")
    total = {name: sum(r[name] for r in group) for name in names}
    index_bits = group[0]["index_bits"] if group else 0
    b = prediction_bits(bits, index_bits)
    other = total["compared"] - (total["hits"] - total["false_hits"])
    predicted = other * 2.0**-b
    seconds = total["time_ms"] / 1000
    low, high = poisson_interval(total["false_hits"])

    def per(value: float, base: float) -> float | None:  # a rate, None where nothing was counted
        return value / base if base else None

    row = {
        "section": "width",
        "combine": combine,
        "policy": policy,
        "hash_mb": mb,
        "bits": bits,
        "index_bits": index_bits,
        "compared_bits": b,
        "effective_bits": min(64, bits + index_bits),
        "overlap": bits + index_bits + 2 > 64,  # the slot-choice bits of always/depth/two-tier count too
        "positions": len(group),
    }
    row.update(total)
    row.update({
        "other_compared": other,
        "false_hits_low95": low,
        "false_hits_high95": high,
        "predicted": predicted,
        "ratio": per(total["false_hits"], predicted),
        "time_s": seconds,
        "fh_per_comparison": per(total["false_hits"], other),
        "pred_per_comparison": 2.0**-b,
        "fh_per_probe": per(total["false_hits"], total["probes"]),
        "pred_per_probe": per(predicted, total["probes"]),
        "fh_per_hit": per(total["false_hits"], total["hits"]),
        "pred_per_hit": per(predicted, total["hits"]),
        "fh_per_node": per(total["false_hits"], total["nodes"]),
        "pred_per_node": per(predicted, total["nodes"]),
        "fh_per_second": per(total["false_hits"], seconds),
        "pred_per_second": per(predicted, seconds),
        "nps": per(total["nodes"], seconds),
    })  # fmt: skip
    return row


PER_COMBINATION = (
    "slope_per_comparison_mle",
    "slope_per_comparison_se",
    "false_hits_total",
    "predicted_total",
    "measured_over_predicted",
)  # the summary figures given per key combination too


def summarize(config: ErrorsConfig, rows: Sequence[Row]) -> dict[str, Any]:
    """Fitted slopes (log2 false hits per added bit; expect -1), and measured against predicted in total.

    Rows whose signature overlaps the index bits are left out: their comparisons are not ``2**-bits`` trials.
    The figures cover every row (one intercept per combination and table); with more than one key
    combination the headline figures of each follow, suffixed ``_xor``, ``_add``.
    """
    summary = _figures(config, rows)
    if len(config.combines) > 1:
        for combine in config.combines:
            mine = _figures(config, [r for r in rows if r["combine"] == combine])
            summary.update({f"{name}_{combine}": mine[name] for name in PER_COMBINATION})
    return summary


def _figures(config: ErrorsConfig, rows: Sequence[Row]) -> dict[str, Any]:
    """The summary figures of ``rows`` (see :func:`summarize`)."""
    summary: dict[str, Any] = {}
    usable = [r for r in rows if not r["overlap"]]
    fit = _fit_slope(usable, "other_compared")
    summary["slope_per_comparison_mle"] = fit[0] if fit else None
    summary["slope_per_comparison_se"] = fit[1] if fit else None
    summary["slope_dispersion"] = fit[2] if fit else None
    summary["slope_per_comparison_se_overdispersed"] = (
        fit[1] * math.sqrt(max(1.0, fit[2])) if fit and math.isfinite(fit[2]) else None
    )
    narrowest = min((r["bits"] for r in usable), default=None)
    trimmed = _fit_slope([r for r in usable if r["bits"] != narrowest], "other_compared")
    summary["slope_without_narrowest"] = trimmed[0] if trimmed else None
    summary["slope_without_narrowest_se"] = trimmed[1] if trimmed else None
    per_probe = _fit_slope(usable, "probes")
    summary["slope_per_probe_mle"] = per_probe[0] if per_probe else None
    nonzero = [r for r in usable if r["false_hits"] > 0]
    for combine in dict.fromkeys(r["combine"] for r in rows):
        suffix = "" if combine == "xor" else f"_{combine}"  # XOR keeps the key names of the first reports
        for policy in config.policies:
            for mb in config.hash_mb:
                group = [r for r in nonzero if (r["combine"], r["policy"], r["hash_mb"]) == (combine, policy, mb)]
                slope = ols_slope([r["bits"] for r in group], [math.log2(r["fh_per_probe"]) for r in group])
                summary[f"slope_ols_{policy}_{mb}MB{suffix}"] = slope
    measured = sum(r["false_hits"] for r in usable)
    predicted = sum(r["predicted"] for r in usable)
    summary["false_hits_total"] = measured
    summary["predicted_total"] = predicted
    summary["measured_over_predicted"] = measured / predicted if predicted else None
    summary["widths_with_false_hits"] = ",".join(str(b) for b in sorted({r["bits"] for r in nonzero})) or "none"
    return summary


def _fit_slope(rows: Sequence[Row], trials: str) -> tuple[float, float, float] | None:
    """:func:`poisson_slope` of the false hits over the compared bits, ``trials`` per row, one intercept per table."""
    return poisson_slope(
        [r["compared_bits"] for r in rows],
        [r["false_hits"] for r in rows],
        [r[trials] for r in rows],
        [(r["combine"], r["policy"], r["hash_mb"]) for r in rows],
    )


def plot_errors(report: Report, path: str) -> None:
    """Left: false hits measured (95% interval) and predicted per width.  Right: the rate per probe."""
    plt = pyplot()

    rows = section(report, "width")
    fig, (ax_count, ax_rate) = plt.subplots(1, 2, figsize=(13, 5.5))
    groups = list(dict.fromkeys((r["combine"], r["policy"], r["hash_mb"]) for r in rows))
    several = len({combine for combine, _, _ in groups}) > 1
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, (combine, policy, mb) in enumerate(groups):
        color = colors[i % len(colors)]
        mine = (r for r in rows if (r["combine"], r["policy"], r["hash_mb"]) == (combine, policy, mb))
        group = sorted(mine, key=lambda r: r["bits"])
        bits = [r["bits"] for r in group]
        label = f"{combine}, {policy}, {mb} MB" if several else f"{policy}, {mb} MB"
        seen = [r for r in group if r["false_hits"] > 0]
        ax_count.errorbar(
            [r["bits"] for r in seen],
            [r["false_hits"] for r in seen],
            yerr=[
                [r["false_hits"] - r["false_hits_low95"] for r in seen],
                [r["false_hits_high95"] - r["false_hits"] for r in seen],
            ],
            fmt="o",
            color=color,
            capsize=3,
            label=f"{label}: measured",
        )
        ax_count.plot(bits, [r["predicted"] for r in group], "--", color=color, label=f"{label}: predicted")
        unseen = [r for r in group if r["false_hits"] == 0]
        ax_count.plot(
            [r["bits"] for r in unseen], [r["false_hits_high95"] for r in unseen], "v", color=color, fillstyle="none"
        )
        ax_rate.plot([r["bits"] for r in seen], [r["fh_per_probe"] for r in seen], "o", color=color, label=label)
        ax_rate.plot(bits, [r["pred_per_probe"] for r in group], "--", color=color)
    for ax in (ax_count, ax_rate):
        log_axis(ax)
        ax.set_xlabel("signature bits k (top key bits compared)")
        ax.grid(True, which="both", alpha=0.3)
    ax_count.set_ylabel(f"false hits, summed over {len(report['config']['positions'])} searches (95% interval)")
    ax_count.set_title(
        "measured (points; ▽ 95% bound when none seen)\nvs (comparisons with other positions) / 2^bits (dashed)"
    )
    ax_rate.set_ylabel("false hits per table probe")
    ax_rate.set_title("per probe: measured (points), predicted (dashed)")
    ax_count.legend(fontsize=7)
    ax_rate.legend(fontsize=7)
    slope = report["summary"].get("slope_per_comparison_mle")
    what = report["config"].get("depth") or f"{report['config'].get('movetime_ms')} ms"
    title = f"Newman's method, depth {what}" if report["config"].get("depth") else f"Newman's method, {what}"
    if slope is not None:
        title += f": fitted slope {slope:.3f} (log2 false hits per added bit; expect -1)"
    fig.suptitle(title)
    save_figure(fig, path)
