"""``transpo lab errors``: count false hits with Dan Newman's error-detection method.

Newman (seed 003) stored an extra, independent "error detection" key beside
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
"""

from __future__ import annotations

import argparse
import math
import time
from typing import Any

import numpy as np

from transpo.lab.common import (
    add_common_options,
    emit_sections,
    make_report,
    run_parallel,
    section,
    seed_everything,
    selected_positions,
)

DEFAULT_BITS = (8, 12, 16, 20)
DEFAULT_HASH_MB = (1, 16)
DEFAULT_POLICIES = ("bucket", "always")
DEFAULT_DEPTH = 8


# --- helpers shared by the search lab commands (errors, tt-gain, crashes) ---------------------------
def int_list(text: str) -> list[int]:
    """``"8,12,16"`` -> ``[8, 12, 16]``; accepts ``1e6`` and ``10**6`` style items."""
    values = []
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        try:
            if "**" in item:
                base, exponent = item.split("**")
                value = int(base) ** int(exponent)
            elif "e" in item.lower():
                value = int(float(item))
            else:
                value = int(item)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a list of integers: {text!r}") from None
        values.append(value)
    if not values:
        raise argparse.ArgumentTypeError(f"empty list: {text!r}")
    return values


def add_list_option(parser: argparse.ArgumentParser, flag: str, default, text: str, kind=int_list) -> None:
    """A comma-separated list option (``--bits 8,12,16``) whose help shows its default."""
    parser.add_argument(flag, type=kind, default=list(default), metavar="LIST",
                        help=f"{text} (default {','.join(map(str, default))})")  # fmt: skip


def policy_list(text: str) -> list[str]:
    """``"bucket,always"`` -> a list of replacement policies (checked)."""
    from transpo.engine.table import POLICIES

    names = [item.strip() for item in text.split(",") if item.strip()]
    for name in names:
        if name not in POLICIES:
            raise argparse.ArgumentTypeError(f"unknown policy {name!r}; choose from {', '.join(POLICIES)}")
    return names


def add_key_options(parser: argparse.ArgumentParser) -> None:
    """``--keys``: the Zobrist key set; with ``prng`` the common ``--seed`` seeds it."""
    parser.add_argument(
        "--keys",
        choices=("polyglot", "prng", "knuth"),
        default="polyglot",
        help="Zobrist key set of the searched positions (default polyglot; prng is seeded by --seed)",
    )


def check_key_options(args: argparse.Namespace) -> None:
    from transpo.engine.table import AUDIT_KEY_SEED

    if args.keys == "prng" and args.seed == AUDIT_KEY_SEED:
        raise ValueError(f"--seed {AUDIT_KEY_SEED} is the audit's own check-key seed; pick another")


def search_positions(spec: dict[str, Any]) -> list[dict[str, Any]]:
    """Search positions one after another with one engine; module level, for the process pool.

    ``spec`` (picklable): ``positions`` (list of (FEN, name)), ``keys`` and ``seed`` (the
    Zobrist key set), ``engine`` (``Engine`` keyword arguments), ``limits`` (``Limits``
    keyword arguments), optional ``forced`` (a forced false hit every N probes),
    ``carry`` (keep the table from one position to the next, as in a game; default:
    ``Engine.new_game()`` before each, so every search starts from a fresh table) and
    ``tag`` (copied into every record).  One record per position: the result and the
    table counters of that search alone.
    """
    from transpo.core.position import Position
    from transpo.engine.engine import Engine
    from transpo.engine.timeman import Limits

    _warm_up()
    engine = Engine(move_overhead=0, **spec.get("engine", {}))
    if spec.get("forced"):
        engine.table.set_forced_false_hits(int(spec["forced"]))
    index_bits = engine.table.buckets.bit_length() - 1
    records = []
    for number, (fen, name) in enumerate(spec["positions"]):
        if number and not spec.get("carry"):
            engine.new_game()
        position = Position.from_fen(fen, spec.get("keys", "polyglot"), spec.get("seed", 1))
        before = engine.table.counters()
        started = time.perf_counter()
        result = engine.search(position, Limits(**spec["limits"]))
        wall = time.perf_counter() - started
        after = engine.table.counters()
        record = {
            "position": spec.get("first", 0) + number,
            "name": name,
            "best_move": result.best_move,
            "score": result.score,
            "depth": result.depth,
            "nodes": result.nodes,
            "time_ms": result.time_ms,
            "wall_s": round(wall, 4),
            "index_bits": index_bits,
            "pv": result.pv[:8],
        }
        record.update({name: after[name] - before[name] for name in after})
        record.update(spec.get("tag", {}))
        records.append(record)
    return records


_warm = False


def _warm_up() -> None:
    """Load the compiled search once per process, so no measured search pays for it."""
    global _warm
    if _warm:
        return
    from transpo.core.position import Position
    from transpo.engine.engine import Engine
    from transpo.engine.timeman import Limits

    Engine(hash_mb=1, move_overhead=0, audit=True).search(Position(), Limits(depth=2))
    _warm = True


def search_one(spec: dict[str, Any]) -> dict[str, Any]:
    """:func:`search_positions` for a spec with a single position: its one record."""
    return search_positions(spec)[0]


def geometric_mean(values: list[float]) -> float | None:
    values = [v for v in values if v > 0]
    if not values:
        return None
    return float(math.exp(sum(math.log(v) for v in values) / len(values)))


def poisson_interval(count: int, level: float = 0.95) -> tuple[float, float]:
    """Exact (Garwood) interval for a Poisson mean given ``count`` events; normal approximation past 400."""
    tail = (1 - level) / 2
    if count > 400:
        z = 1.959963984540054 if level == 0.95 else _normal_quantile(1 - tail)
        half = z * math.sqrt(count)
        return max(0.0, count - half), count + half

    def cdf(n: int, mean: float) -> float:  # P(X <= n)
        if mean == 0:
            return 1.0
        term = math.exp(-mean)
        total = term
        for i in range(1, n + 1):
            term *= mean / i
            total += term
        return min(1.0, total)

    def solve(f, lo: float, hi: float) -> float:
        for _ in range(100):
            mid = (lo + hi) / 2
            if f(mid):
                lo = mid
            else:
                hi = mid
        return (lo + hi) / 2

    upper_bound = count + 10 * math.sqrt(count + 1) + 10
    upper = solve(lambda m: cdf(count, m) > tail, 0.0, upper_bound)
    lower = 0.0 if count == 0 else solve(lambda m: 1 - cdf(count - 1, m) < tail, 0.0, upper_bound)
    return lower, upper


def _normal_quantile(p: float) -> float:
    lo, hi = -10.0, 10.0
    for _ in range(100):
        mid = (lo + hi) / 2
        if 0.5 * math.erfc(-mid / math.sqrt(2)) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def ols_slope(xs: list[float], ys: list[float]) -> float | None:
    """Least-squares slope of ys on xs (None with fewer than two distinct xs)."""
    if len(xs) < 2 or len(set(xs)) < 2:
        return None
    x = np.asarray(xs, dtype=float)
    y = np.asarray(ys, dtype=float)
    return float(np.polyfit(x, y, 1)[0])


def poisson_slope(
    bits: list[float], events: list[int], trials: list[float], groups: list[Any] | None = None
) -> tuple[float, float, float] | None:
    """Maximum-likelihood common slope ``s`` of ``events ~ Poisson(trials * 2**(a_g + s*bits))``.

    Returns (s, se, dispersion).  Each group ``g`` (e.g. a table size and policy)
    gets its own intercept ``a_g``; all share the slope.  Zero counts take part (a
    plain log-log fit has to drop them).  ``se`` is the Poisson standard error;
    ``dispersion`` is Pearson's chi-square per degree of freedom (1 for pure Poisson
    counts; false hits come in clusters - the same pair of positions can meet again -
    so multiply ``se`` by ``sqrt(dispersion)`` when it exceeds 1).  None if there is
    nothing to fit.
    """
    groups = groups if groups is not None else [0] * len(bits)
    keep = [i for i in range(len(bits)) if trials[i] > 0]
    names = sorted({groups[i] for i in keep}, key=str)
    names = [g for g in names if sum(events[i] for i in keep if groups[i] == g) > 0]
    keep = [i for i in keep if groups[i] in names]
    if not keep or len({bits[i] for i in keep}) < 2:
        return None
    x = np.array([bits[i] for i in keep], dtype=float)
    y = np.array([events[i] for i in keep], dtype=float)
    offset = np.log(np.array([trials[i] for i in keep], dtype=float))
    ln2 = math.log(2)
    onehot = np.array([[1.0 if groups[i] == g else 0.0 for g in names] for i in keep])
    design = np.column_stack([onehot, x]) * ln2
    theta = np.zeros(design.shape[1])
    theta[-1] = -1.0
    for g, name in enumerate(names):  # start each intercept at its group's observed rate
        mask = onehot[:, g] > 0
        theta[g] = math.log2(max(y[mask].sum(), 0.5) / np.sum(np.exp(offset[mask]) * 2.0 ** -x[mask]))
    for _ in range(100):
        mu = np.exp(np.clip(offset + design @ theta, -700, 700))
        gradient = design.T @ (y - mu)
        hessian = (design * mu[:, None]).T @ design
        try:
            step = np.linalg.solve(hessian, gradient)
        except np.linalg.LinAlgError:
            return None
        theta = theta + step
        if np.max(np.abs(step)) < 1e-10:
            break
    mu = np.exp(offset + design @ theta)
    try:
        covariance = np.linalg.inv((design * mu[:, None]).T @ design)
    except np.linalg.LinAlgError:
        return None
    dof = len(x) - design.shape[1]
    dispersion = float(np.sum((y - mu) ** 2 / mu) / dof) if dof > 0 else float("nan")
    return float(theta[-1]), float(math.sqrt(max(covariance[-1, -1], 0.0))), dispersion


# --- the command ------------------------------------------------------------------------------------
def add_parser(subparsers: argparse._SubParsersAction) -> None:
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
    add_list_option(parser, "--bits", DEFAULT_BITS, "signature widths")
    add_list_option(parser, "--hash-mb", DEFAULT_HASH_MB, "table sizes in MB")
    add_list_option(parser, "--policies", DEFAULT_POLICIES, "replacement policies", policy_list)
    limit = parser.add_mutually_exclusive_group()
    limit.add_argument("--depth", type=int, help=f"fixed depth per position (default {DEFAULT_DEPTH})")
    limit.add_argument("--movetime", type=int, metavar="MS", help="fixed time per position instead of a depth")
    parser.add_argument("--fresh", action="store_true", help="clear the table before every position")
    add_key_options(parser)
    add_common_options(parser)
    parser.set_defaults(func=run)


def _prediction_bits(bits: int, index_bits: int) -> int:
    """Signature bits a comparison with a same-bucket position can still differ in."""
    return min(bits, 64 - index_bits)


def search_limits(args: argparse.Namespace, default_depth: int) -> dict[str, int]:
    """``Limits`` keyword arguments from ``--depth``/``--movetime`` (checked)."""
    if args.movetime is not None:
        if args.movetime <= 0:
            raise ValueError("--movetime must be positive")
        return {"movetime": args.movetime}
    depth = args.depth if args.depth is not None else default_depth
    if not 1 <= depth <= 100:
        raise ValueError("--depth must be 1..100")
    return {"depth": depth}


def run(args: argparse.Namespace) -> None:
    seed_everything(args.seed)
    check_key_options(args)
    positions = selected_positions(args)
    for bits in args.bits:
        if not 8 <= bits <= 64:
            raise ValueError(f"signature bits must be 8..64, not {bits}")
    for mb in args.hash_mb:
        if not 1 <= mb <= 65536:
            raise ValueError(f"hash size must be 1..65536 MB, not {mb}")
    limits = search_limits(args, DEFAULT_DEPTH)

    configs = [(policy, mb, bits) for policy in args.policies for mb in args.hash_mb for bits in args.bits]
    specs = [
        {
            "positions": positions, "keys": args.keys, "seed": args.seed, "limits": limits, "carry": not args.fresh,
            "engine": {"hash_mb": mb, "policy": policy, "signature_bits": bits, "audit": True},
            "tag": {"policy": policy, "hash_mb": mb, "bits": bits},
        }
        for policy, mb, bits in configs
    ]  # fmt: skip
    raw = [record for records in run_parallel(search_positions, specs, args.jobs, "errors") for record in records]

    rows = []
    for policy, mb, bits in configs:
        group = [r for r in raw if r["policy"] == policy and r["hash_mb"] == mb and r["bits"] == bits]
        rows.append(_row(policy, mb, bits, group))
    summary = _summary(rows, args)
    for record in raw:
        record["section"] = "position"
    config = {
        "bits": args.bits, "hash_mb": args.hash_mb, "policies": args.policies, "depth": limits.get("depth"),
        "movetime_ms": limits.get("movetime"), "table": "fresh per position" if args.fresh else "kept across positions",
        "keys": args.keys, "seed": args.seed, "jobs": args.jobs, "positions_file": args.positions, "limit": args.limit,
        "positions": [{"fen": f, "name": n} for f, n in positions],
        "check_key": "independent 64-bit prng key set (Engine audit mode)",
        "prediction": "(compared - (hits - false_hits)) * 2**-min(bits, 64 - index_bits)",
    }  # fmt: skip
    report = make_report("errors", config, rows + raw, summary)
    _print_rates(rows)
    columns = [
        ("policy", "policy"), ("hash_mb", "MB"), ("bits", "bits"), ("probes", "probes"),
        ("other_compared", "cmp other"), ("false_hits", "false"), ("predicted", "pred"),
        ("ratio", "meas/pred"),
    ]  # fmt: skip
    what = f"depth {limits['depth']}" if "depth" in limits else f"{limits['movetime']} ms"
    title = f"False hits (Newman's check key), {len(positions)} positions, {what}"
    emit_sections(report, args, [("width", columns, title)], _plot)


def _print_rates(rows: list[dict[str, Any]]) -> None:
    """A second table: each rate measured, with its prediction beside it."""
    from rich.console import Console
    from rich.table import Table

    table = Table(title="False-hit rates: measured (predicted)")
    for heading in ("policy", "MB", "bits", "per probe", "per hit", "per node", "per second"):
        table.add_column(heading, justify="right")
    for r in rows:
        cells = [r["policy"], str(r["hash_mb"]), str(r["bits"])]
        for unit in ("probe", "hit", "node", "second"):
            cells.append(f"{_g(r[f'fh_per_{unit}'])} ({_g(r[f'pred_per_{unit}'])})")
        table.add_row(*cells)
    Console().print(table)


def _g(value: float | None) -> str:
    if value is None:
        return "-"
    return "0" if value == 0 else f"{value:.2g}"


def _row(policy: str, mb: int, bits: int, group: list[dict[str, Any]]) -> dict[str, Any]:
    names = ("nodes", "probes", "hits", "compared", "false_hits", "stores", "replacements", "time_ms")
    total = {name: sum(r[name] for r in group) for name in names}
    index_bits = group[0]["index_bits"] if group else 0
    b = _prediction_bits(bits, index_bits)
    other = total["compared"] - (total["hits"] - total["false_hits"])
    predicted = other * 2.0**-b
    seconds = total["time_ms"] / 1000
    low, high = poisson_interval(total["false_hits"])

    def per(value: float, base: float) -> float | None:
        return value / base if base else None

    row = {
        "section": "width",
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


def _summary(rows: list[dict[str, Any]], args: argparse.Namespace) -> dict[str, Any]:
    summary: dict[str, Any] = {}
    usable = [r for r in rows if not r["overlap"]]
    fit = poisson_slope(
        [r["compared_bits"] for r in usable],
        [r["false_hits"] for r in usable],
        [r["other_compared"] for r in usable],
        [(r["policy"], r["hash_mb"]) for r in usable],
    )
    summary["slope_per_comparison_mle"] = fit[0] if fit else None
    summary["slope_per_comparison_se"] = fit[1] if fit else None
    summary["slope_dispersion"] = fit[2] if fit else None
    summary["slope_per_comparison_se_overdispersed"] = (
        fit[1] * math.sqrt(max(1.0, fit[2])) if fit and math.isfinite(fit[2]) else None
    )
    narrowest = min((r["bits"] for r in usable), default=None)
    rest = [r for r in usable if r["bits"] != narrowest]
    trimmed = poisson_slope(
        [r["compared_bits"] for r in rest],
        [r["false_hits"] for r in rest],
        [r["other_compared"] for r in rest],
        [(r["policy"], r["hash_mb"]) for r in rest],
    )
    summary["slope_without_narrowest"] = trimmed[0] if trimmed else None
    summary["slope_without_narrowest_se"] = trimmed[1] if trimmed else None
    per_probe = poisson_slope(
        [r["compared_bits"] for r in usable],
        [r["false_hits"] for r in usable],
        [r["probes"] for r in usable],
        [(r["policy"], r["hash_mb"]) for r in usable],
    )
    summary["slope_per_probe_mle"] = per_probe[0] if per_probe else None
    nonzero = [r for r in usable if r["false_hits"] > 0]
    for policy in args.policies:
        for mb in args.hash_mb:
            group = [r for r in nonzero if r["policy"] == policy and r["hash_mb"] == mb]
            slope = ols_slope([r["bits"] for r in group], [math.log2(r["fh_per_probe"]) for r in group])
            summary[f"slope_ols_{policy}_{mb}MB"] = slope
    measured = sum(r["false_hits"] for r in usable)
    predicted = sum(r["predicted"] for r in usable)
    summary["false_hits_total"] = measured
    summary["predicted_total"] = predicted
    summary["measured_over_predicted"] = measured / predicted if predicted else None
    summary["widths_with_false_hits"] = ",".join(str(b) for b in sorted({r["bits"] for r in nonzero})) or "none"
    return summary


def _plot(report: dict[str, Any], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = section(report, "width")
    fig, (ax_count, ax_rate) = plt.subplots(1, 2, figsize=(13, 5.5))
    groups = sorted({(r["policy"], r["hash_mb"]) for r in rows})
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, (policy, mb) in enumerate(groups):
        color = colors[i % len(colors)]
        group = sorted((r for r in rows if r["policy"] == policy and r["hash_mb"] == mb), key=lambda r: r["bits"])
        bits = [r["bits"] for r in group]
        label = f"{policy}, {mb} MB"
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
        ax.set_yscale("log", base=2)
        ax.set_xlabel("signature bits")
        ax.grid(True, which="both", alpha=0.3)
    ax_count.set_ylabel("false hits, all positions (95% interval)")
    ax_count.set_title(
        "measured (points; ▽ 95% bound when none seen)\nvs (comparisons with other positions) / 2^bits (dashed)"
    )
    ax_rate.set_ylabel("false hits per probe")
    ax_rate.set_title("per probe: measured (points), predicted (dashed)")
    ax_count.legend(fontsize=7)
    ax_rate.legend(fontsize=7)
    slope = report["summary"].get("slope_per_comparison_mle")
    what = report["config"].get("depth") or f"{report['config'].get('movetime_ms')} ms"
    title = f"Newman's method, depth {what}" if report["config"].get("depth") else f"Newman's method, {what}"
    if slope is not None:
        title += f": fitted slope {slope:.3f} (log2 false hits per added bit; expect -1)"
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
