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
Following Hyatt's two kinds in the seed thread, a search that suffered at least
one crash is *type 1* when the crashes were harmless (same root move, score
within the margin) and *type 2* when the root move changed; the rest changed
only the score.  A different root move with an almost equal score can be a
harmless tie, which is why "root move changed" and "score changed" are kept apart.
"""

from __future__ import annotations

import argparse
from typing import Any

from transpo.lab.common import (
    add_common_options,
    emit_sections,
    make_report,
    run_parallel,
    section,
    seed_everything,
    selected_positions,
)
from transpo.lab.errors import add_key_options, add_list_option, check_key_options, int_list, search_one

DEFAULT_BITS = (8, 12, 16, 20, 24, 32, 64)
DEFAULT_FORCED = (10, 100, 1000, 10**4, 10**5, 10**6, 10**7)
DEFAULT_DEPTH = 7
DEFAULT_MARGIN = 50
REFERENCE_BITS = 64


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "crashes",
        help="how often k-bit signatures or forced false hits change the root move or score",
        description=(
            "Search every position to a fixed depth with k-bit signatures and with a forced false hit every N "
            "probes, each against the 64-bit reference; report how often the root move and the score change."
        ),
    )
    add_list_option(parser, "--bits", DEFAULT_BITS, "signature widths")
    parser.add_argument("--forced", type=int_list, default=list(DEFAULT_FORCED), metavar="LIST",
                        help="forced false hit every N probes (default 10,100,...,1e7; 0 or empty: none)")  # fmt: skip
    parser.add_argument("--depth", type=int, default=DEFAULT_DEPTH, help=f"fixed depth (default {DEFAULT_DEPTH})")
    parser.add_argument("--margin", type=int, default=DEFAULT_MARGIN, metavar="CP",
                        help=f"a score change beyond this counts (default {DEFAULT_MARGIN} cp)")  # fmt: skip
    parser.add_argument("--hash-mb", type=int, default=1, metavar="MB", help="table size (default 1)")
    parser.add_argument("--policy", type=str, default="bucket", help="replacement policy (default bucket)")
    add_key_options(parser)
    add_common_options(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> None:
    from transpo.engine.table import POLICIES

    seed_everything(args.seed)
    check_key_options(args)
    positions = selected_positions(args)
    if args.policy not in POLICIES:
        raise ValueError(f"unknown policy {args.policy!r}; choose from {', '.join(POLICIES)}")
    if not 1 <= args.depth <= 60:
        raise ValueError("--depth must be 1..60")
    if args.margin < 0:
        raise ValueError("--margin must be >= 0")
    if not 1 <= args.hash_mb <= 65536:
        raise ValueError("--hash-mb must be 1..65536")
    for bits in args.bits:
        if not 8 <= bits <= 64:
            raise ValueError(f"signature bits must be 8..64, not {bits}")
    forced = [n for n in args.forced if n != 0]
    if any(n < 0 for n in forced):
        raise ValueError("--forced intervals must be positive")

    variants: list[tuple[str, int]] = [("reference", REFERENCE_BITS), ("repeat", REFERENCE_BITS)]
    variants += [("bits", k) for k in args.bits] + [("forced", n) for n in forced]
    specs = []
    for kind, value in variants:
        bits = value if kind == "bits" else REFERENCE_BITS
        for number, (fen, name) in enumerate(positions):
            specs.append({
                "positions": [(fen, name)], "first": number, "keys": args.keys, "seed": args.seed,
                "limits": {"depth": args.depth}, "forced": value if kind == "forced" else 0,
                "engine": {"hash_mb": args.hash_mb, "policy": args.policy, "signature_bits": bits, "audit": True},
                "tag": {"kind": kind, "value": value},
            })  # fmt: skip
    raw = run_parallel(search_one, specs, args.jobs, "crashes")
    reference = {r["position"]: r for r in raw if r["kind"] == "reference"}
    repeat = {r["position"]: r for r in raw if r["kind"] == "repeat"}
    for r in raw:
        _compare(r, reference[r["position"]], args.margin)

    deterministic = all(
        (repeat[p]["best_move"], repeat[p]["score"], repeat[p]["nodes"])
        == (reference[p]["best_move"], reference[p]["score"], reference[p]["nodes"])
        for p in reference
    )
    rows = [_row(kind, value, [r for r in raw if r["kind"] == kind and r["value"] == value])
            for kind, value in variants[1:]]  # fmt: skip
    summary = _summary(rows, deterministic, raw)
    config = {
        "bits": args.bits, "forced": forced, "depth": args.depth, "margin_cp": args.margin, "hash_mb": args.hash_mb,
        "policy": args.policy, "keys": args.keys, "seed": args.seed, "jobs": args.jobs,
        "positions_file": args.positions, "limit": args.limit,
        "positions": [{"fen": f, "name": n} for f, n in positions],
        "reference": "64-bit signatures, no forced false hits, fresh engine per search (searched twice)",
    }  # fmt: skip
    for record in raw:
        record["section"] = "position"
    report = make_report("crashes", config, rows + raw, summary)
    columns = [
        ("variant", "variant"), ("crashed", "searches crashed"), ("crashes", "crashes"),
        ("root_changed", "root move ≠"), ("score_changed", f"score ±>{args.margin}"), ("both", "both"),
        ("type1", "type 1"), ("type2", "type 2"), ("changed_without_crash", "≠ w/o crash"),
    ]  # fmt: skip
    title = f"Crashes vs the 64-bit reference, {len(positions)} positions, depth {args.depth}"
    emit_sections(report, args, [("variant", columns, title)], _plot)


def _compare(record: dict[str, Any], ref: dict[str, Any], margin: int) -> None:
    record["crashes"] = record["false_hits"] + record["forced_false_hits"]
    record["root_changed"] = record["best_move"] != ref["best_move"]
    record["score_delta"] = record["score"] - ref["score"]
    record["score_changed"] = abs(record["score_delta"]) > margin
    record["tree_changed"] = record["nodes"] != ref["nodes"] or record["score"] != ref["score"]


def _row(kind: str, value: int, group: list[dict[str, Any]]) -> dict[str, Any]:
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
    label = {"repeat": "reference again", "bits": f"{value}-bit", "forced": f"every {value:,}"}[kind]

    def share(count: int) -> float | None:
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


def _summary(rows: list[dict[str, Any]], deterministic: bool, raw: list[dict[str, Any]]) -> dict[str, Any]:
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
    return summary


def _plot(report: dict[str, Any], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = section(report, "variant")
    fig, (ax_bits, ax_forced) = plt.subplots(1, 2, figsize=(13, 5.5), sharey=True)
    series = (
        ("share_crashed", "searches with ≥1 crash", "k:", "s"),
        ("share_root_changed", "root move changed", "-", "o"),
        ("share_score_changed", f"score changed > {report['config']['margin_cp']} cp", "--", "^"),
        ("share_both", "both", "-.", "x"),
    )
    for ax, kind in ((ax_bits, "bits"), (ax_forced, "forced")):
        group = sorted((r for r in rows if r["kind"] == kind), key=lambda r: r["value"])
        for key, label, style, marker in series:
            ax.plot([r["value"] for r in group], [r[key] for r in group], style, marker=marker, label=label)
        ax.grid(True, which="both", alpha=0.3)
        ax.set_ylim(-0.03, 1.03)
    ax_bits.set_xlabel("signature bits k")
    ax_bits.set_xscale("log", base=2)
    bits = sorted({r["value"] for r in rows if r["kind"] == "bits"})
    if bits:
        ax_bits.set_xticks(bits)
        ax_bits.set_xticklabels([str(b) for b in bits])
    ax_bits.set_ylabel("share of positions")
    ax_bits.set_title("natural crashes: k-bit signatures")
    ax_forced.set_xscale("log")
    ax_forced.set_xlabel("a forced false hit every N probes")
    ax_forced.set_title("forced crashes")
    ax_bits.legend(fontsize=8)
    cfg = report["config"]
    fig.suptitle(
        f"Crashes vs the 64-bit reference: {len(cfg['positions'])} positions, depth {cfg['depth']}, "
        f"{cfg['hash_mb']} MB {cfg['policy']}"
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
