"""``transpo lab crashes``: do hash crashes change the move? (Hyatt and Cozzie's question)

Every position is searched to a fixed depth on a fresh engine, first with
full 64-bit signatures (the reference, searched twice to show the search is
deterministic), then

* with ``k``-bit signatures (``--bits``): natural crashes, counted by the audit
  key (audit mode does not change the search: the tests check it); and
* with a forced false hit every ``N`` probes (``--forced``): when the N-th probe
  finds nothing, the table hands back another position's entry from the
  bucket anyway (``TranspositionTable.set_forced_false_hits``).  Only probes that
  miss in a non-empty bucket can be turned, so the number injected is counted.

Each search is set against the reference of its position: did the root move
change, did the score move by more than ``--margin`` centipawns, or both.
Following Robert Hyatt's two kinds in the thread "hashing function"
(rec.games.chess.computer, Oct 2000), a search that suffered at least
one crash is *type 1* when the crashes were harmless (same root move, score
within the margin) and *type 2* when the root move changed; the rest changed
only the score.  A different root move with an almost equal score can be a
harmless tie, which is why "root move changed" and "score changed" are kept apart.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from transpo.lab.options import (
    SEARCH_SEED_HELP,
    Bounds,
    CommonConfig,
    add_common_options,
    add_depth_option,
    add_hash_option,
    add_key_option,
    add_list_option,
    choice_of,
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
from transpo.settings import DEFAULT_POLICY, POLICIES, SIGNATURE_BITS

DEFAULT_BITS = (8, 12, 16, 20, 24, 32, 64)
DEFAULT_FORCED = (10, 100, 1000, 10**4, 10**5, 10**6, 10**7)
DEFAULT_DEPTH = 7
DEFAULT_MARGIN = 50
DEFAULT_HASH_MB = 1
REFERENCE_BITS = SIGNATURE_BITS.high

Variant = tuple[str, int]  # ("reference" | "repeat" | "bits" | "forced", signature bits or forced interval)


@dataclass(frozen=True)
class CrashesConfig:
    """A checked ``lab crashes`` run."""

    common: CommonConfig
    bits: tuple[int, ...]
    forced: tuple[int, ...]  # intervals of forced false hits (none is 0)
    depth: int
    margin: int  # centipawns: a larger score change counts
    hash_mb: int
    policy: str
    keys: str

    def variants(self) -> list[Variant]:
        """The reference, its repeat, each signature width and each forced interval."""
        return (
            [("reference", REFERENCE_BITS), ("repeat", REFERENCE_BITS)]
            + [("bits", k) for k in self.bits]
            + [("forced", n) for n in self.forced]
        )


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register ``lab crashes``."""
    parser = subparsers.add_parser(
        "crashes",
        help="how often k-bit signatures or forced false hits change the root move or score",
        description=(
            "Search every position to a fixed depth with k-bit signatures and with a forced false hit every N "
            "probes, each against the 64-bit reference; report how often the root move and the score change."
        ),
    )
    add_list_option(parser, "--bits", DEFAULT_BITS, "signature widths", bounds=SIGNATURE_BITS)
    add_list_option(parser, "--forced", DEFAULT_FORCED, "forced false hit every N probes (0 or no item: none)",
                    bounds=Bounds("forced interval", 0), allow_empty=True)  # fmt: skip
    add_depth_option(parser, DEFAULT_DEPTH)
    parser.add_argument("--margin", type=int_type(Bounds("margin", 0)), default=DEFAULT_MARGIN, metavar="CP",
                        help=f"a score change beyond this counts (default {DEFAULT_MARGIN} cp)")  # fmt: skip
    add_hash_option(parser, DEFAULT_HASH_MB)
    parser.add_argument("--policy", type=choice_of("policy", POLICIES), default=DEFAULT_POLICY,
                        help=f"replacement policy (default {DEFAULT_POLICY})")  # fmt: skip
    add_key_option(parser)
    add_common_options(parser, SEARCH_SEED_HELP)
    parser.set_defaults(func=run)


def configure(args: argparse.Namespace) -> CrashesConfig:
    """The checked configuration of a ``lab crashes`` run."""
    check_key_seed(args.keys, args.seed)
    return CrashesConfig(
        common=common_config(args),
        bits=tuple(args.bits),
        forced=tuple(n for n in args.forced if n != 0),
        depth=args.depth,
        margin=args.margin,
        hash_mb=args.hash_mb,
        policy=args.policy,
        keys=args.keys,
    )


def search_jobs(config: CrashesConfig) -> list[SearchJob]:
    """One job per variant and position, each on a fresh audited engine."""
    jobs = []
    for kind, value in config.variants():
        engine = EngineSettings(hash_mb=config.hash_mb, policy=config.policy, audit=True,
                                signature_bits=value if kind == "bits" else REFERENCE_BITS)  # fmt: skip
        for number, position in enumerate(config.common.positions):
            jobs.append(SearchJob(
                positions=(position,), first_index=number, limit=SearchLimit(depth=config.depth), engine=engine,
                keys=config.keys, seed=config.common.seed, forced_every=value if kind == "forced" else 0,
                tag={"kind": kind, "value": value},
            ))  # fmt: skip
    return jobs


def build_report(config: CrashesConfig, results: Sequence[Sequence[SearchRecord]]) -> Report:
    """Each search set against the reference of its position; one ``variant`` row per variant."""
    records = [record.row() for job in results for record in job]
    reference = {r["position"]: r for r in records if r["kind"] == "reference"}
    repeat = {r["position"]: r for r in records if r["kind"] == "repeat"}
    for record in records:
        compare(record, reference[record["position"]], config.margin)
    deterministic = all(
        (repeat[p]["best_move"], repeat[p]["score"], repeat[p]["nodes"])
        == (reference[p]["best_move"], reference[p]["score"], reference[p]["nodes"])
        for p in reference
    )
    rows = [variant_row(kind, value, [r for r in records if r["kind"] == kind and r["value"] == value])
            for kind, value in config.variants()[1:]]  # fmt: skip
    report_config = {
        "bits": list(config.bits), "forced": list(config.forced), "depth": config.depth, "margin_cp": config.margin,
        "hash_mb": config.hash_mb, "policy": config.policy, "keys": config.keys, **positions_config(config.common),
        "reference": "64-bit signatures, no forced false hits, fresh engine per search (searched twice)",
    }  # fmt: skip
    for record in records:
        record["section"] = "position"
    return make_report("crashes", report_config, rows + records, summarize(rows, deterministic, records))


def sections(config: CrashesConfig) -> list[Section]:
    """The printed table: per variant, how many searches crashed and what changed."""
    columns = [
        ("variant", "variant"), ("crashed", "searches crashed"), ("crashes", "crashes"),
        ("crashes_per_probe", "per probe"), ("crash_cutoffs", "cut off"),
        ("crash_move_hints", "hint only"),
        ("root_changed", "root move ≠"), ("score_changed", f"score ±>{config.margin}"), ("both", "both"),
        ("type1", "type 1"), ("type2", "type 2"), ("changed_without_crash", "≠ w/o crash"),
    ]  # fmt: skip
    title = f"Crashes vs the 64-bit reference, {len(config.common.positions)} positions, depth {config.depth}"
    return [("variant", columns, title)]


def run(args: argparse.Namespace) -> None:
    """``lab crashes``: configure, search, report, print and write."""
    config = configure(args)
    report = build_report(config, run_searches(search_jobs(config), config.common.placement, "crashes"))
    emit(report, config.common, sections(config), plot_crashes)


def compare(record: Row, ref: Row, margin: int) -> None:
    """Add to ``record`` its crashes and whether its root move, score (beyond ``margin``) and tree changed."""
    record["crashes"] = record["false_hits"] + record["forced_false_hits"]
    # a crash either cut the node off (the table counts a cutoff made on another position's entry) or
    # only handed the search a move to try first
    record["crash_cutoffs"] = record["false_cutoffs"]
    record["crash_move_hints"] = record["crashes"] - record["false_cutoffs"]
    record["root_changed"] = record["best_move"] != ref["best_move"]
    record["score_delta"] = record["score"] - ref["score"]
    record["score_changed"] = abs(record["score_delta"]) > margin
    record["tree_changed"] = record["nodes"] != ref["nodes"] or record["score"] != ref["score"]


def variant_row(kind: str, value: int, group: Sequence[Row]) -> Row:
    """One variant over all positions: crashed searches, changes, and Hyatt's type 1 (harmless) / type 2 counts."""
    n = len(group)
    crashed = [r for r in group if r["crashes"] > 0]
    root = sum(r["root_changed"] for r in group)
    score = sum(r["score_changed"] for r in group)
    both = sum(r["root_changed"] and r["score_changed"] for r in group)
    type1 = sum(not r["root_changed"] and not r["score_changed"] for r in crashed)
    type2 = sum(r["root_changed"] for r in crashed)
    score_only = sum(not r["root_changed"] and r["score_changed"] for r in crashed)
    probes = sum(r["probes"] for r in group)
    crashes = sum(r["crashes"] for r in group)
    cutoffs = sum(r["crash_cutoffs"] for r in group)
    label = {"repeat": "reference again", "bits": f"{value}-bit", "forced": f"every {value:,}"}[kind]

    def share(count: int) -> float | None:  # of all positions
        return count / n if n else None

    return {
        "section": "variant",
        "variant": label,
        "kind": kind,
        "value": value,
        "positions": n,
        "crashed": len(crashed),
        "crashes": crashes,
        "probes": probes,
        "nodes": sum(r["nodes"] for r in group),
        "crashes_per_probe": crashes / probes if probes else None,
        "crash_cutoffs": cutoffs,
        "crash_move_hints": crashes - cutoffs,
        "cutoff_share_of_crashes": cutoffs / crashes if crashes else None,
        "root_changed": root,
        "score_changed": score,
        "both": both,
        "type1": type1,
        "type2": type2,
        "score_only": score_only,
        "tree_changed": sum(r["tree_changed"] for r in group),
        "changed_without_crash": sum(
            (r["root_changed"] or r["score_changed"] or r["tree_changed"]) and r["crashes"] == 0 for r in group
        ),
        "share_crashed": share(len(crashed)),
        "share_root_changed": share(root),
        "share_score_changed": share(score),
        "share_both": share(both),
        "share_type2_of_crashed": type2 / len(crashed) if crashed else None,
        "mean_abs_score_delta": sum(abs(r["score_delta"]) for r in group) / n if n else None,
        "changed_positions": [r["name"] for r in group if r["root_changed"]],
    }


def summarize(rows: Sequence[Row], deterministic: bool, raw: Sequence[Row]) -> dict[str, Any]:
    """Whether the reference repeats exactly; root changes per variant; type 1 and type 2 shares of crashed searches."""
    summary: dict[str, Any] = {"reference_deterministic": deterministic}
    for r in rows:
        if r["kind"] == "repeat":
            continue
        summary[f"root_changed {r['variant']}"] = f"{r['root_changed']}/{r['positions']} (crashed {r['crashed']})"
    crashed = [r for r in raw if r["kind"] in ("bits", "forced") and r["crashes"] > 0]
    summary["crashed_searches"] = len(crashed)
    summary["type1_share_of_crashed"] = (
        sum(not r["root_changed"] and not r["score_changed"] for r in crashed) / len(crashed) if crashed else None
    )
    summary["type2_share_of_crashed"] = sum(r["root_changed"] for r in crashed) / len(crashed) if crashed else None
    crashes = sum(r["crashes"] for r in crashed)
    cutoffs = sum(r["crash_cutoffs"] for r in crashed)
    summary["crashes_cutting_off"] = f"{cutoffs:,} of {crashes:,}" + (f" ({cutoffs / crashes:.0%})" if crashes else "")
    return summary


def plot_crashes(report: Report, path: str) -> None:
    """Shares of positions crashed / changed, and the share of crashes that cut a node off, against the signature
    width (left) and against the crash rate measured with forced false hits (right)."""
    plt = pyplot()

    rows = section(report, "variant")
    cfg = report["config"]
    n = len(cfg["positions"])
    fig, (ax_bits, ax_forced) = plt.subplots(1, 2, figsize=(13, 5.5), sharey=True)
    series = (
        ("share_crashed", "searches with ≥1 crash", ":", "s"),
        ("share_root_changed", "root move changed", "-", "o"),
        ("share_score_changed", f"score changed > {cfg['margin_cp']} cp", "--", "^"),
        ("share_both", "both", "-.", "x"),
        ("cutoff_share_of_crashes", "crashes that cut the node off\n(share of crashes, not of positions)", "-", "D"),
    )
    for ax, kind in ((ax_bits, "bits"), (ax_forced, "forced")):
        group = sorted((r for r in rows if r["kind"] == kind), key=lambda r: r["value"])
        if kind == "forced":  # x = the crash rate as measured, in % of probes (a run without crashes has none)
            group = sorted((r for r in group if r["crashes"]), key=lambda r: r["crashes_per_probe"])
        xs = [r["value"] if kind == "bits" else 100 * r["crashes_per_probe"] for r in group]
        for key, label, style, marker in series:
            points = [(x, r.get(key)) for x, r in zip(xs, group, strict=True) if r.get(key) is not None]
            color = {"share_crashed": "black", "cutoff_share_of_crashes": "0.55"}.get(key)
            ax.plot([p[0] for p in points], [p[1] for p in points], style, marker=marker, label=label,
                    **({"color": color} if color else {}))  # fmt: skip
        ax.grid(True, alpha=0.3)
        ax.set_ylim(-0.03, 1.03)
    ax_bits.set_xlabel("signature bits k (natural crashes: false hits counted by the audit key)")
    ax_bits.set_xscale("log", base=2)
    bits = sorted({r["value"] for r in rows if r["kind"] == "bits"})
    if bits:
        ax_bits.set_xticks(bits)
        ax_bits.set_xticklabels([str(b) for b in bits])
        ax_bits.xaxis.set_minor_formatter(plt.NullFormatter())
    ax_bits.set_ylabel(f"share of the {n} positions (grey: share of crashes)")
    ax_bits.set_title("natural crashes: k-bit signatures")
    forced = [r for r in rows if r["kind"] == "forced" and r["crashes"]]
    if forced:
        log_axis(ax_forced, "x")
    ax_forced.set_xlabel("crashed probes, % of all probes (as measured; log scale)")
    ax_forced.set_title("forced crashes: another position's entry on every N-th missing probe")
    ax_bits.legend(fontsize=8, loc="center right")
    fig.suptitle(
        f"Crashes vs the 64-bit reference: {n} positions, depth {cfg['depth']}, {cfg['hash_mb']} MB {cfg['policy']}"
    )
    save_figure(fig, path)
