"""``transpo lab tt-gain``: the with-and-without test of the transposition table.

Every position is searched to each fixed depth with no table at all
(``Engine(use_tt=False)``: no probe, no store, no hash move) and with each
replacement policy at each table size, every search on a fresh engine.  The
rows give nodes and time, the node-reduction factor (no-table nodes / table
nodes, geometric mean over the positions, and the ratio of the sums), and how
often the chosen move differs from the no-table move and from the reference
(the ``bucket`` policy in the largest table).  The strongest policy is the one
with the fewest nodes to the fixed depths, summed over positions, depths and
sizes.

Fine #70 (``8/k7/3p4/p2P1p2/P2P1P2/8/8/K7 w``, the lecture's kind of position
where transpositions are everything) gets its own section: with and without
the table, the depth, time and nodes at which ``Kb1`` (a1b1) is first chosen,
first chosen with a winning score (``--fine70-win`` centipawns), and first
chosen with a principal variation that wins material.  A search stops as soon
as both are found, or after ``--fine70-seconds``.
"""

from __future__ import annotations

import argparse
import math
import time
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
from transpo.lab.errors import (
    _warm_up,
    add_list_option,
    geometric_mean,
    policy_list,
    search_one,
    search_positions,
)

DEFAULT_DEPTHS = (5, 7)
DEFAULT_HASH_MB = (1, 64)
ALL_POLICIES = ("always", "depth", "two-tier", "bucket")
FINE70 = "8/k7/3p4/p2P1p2/P2P1P2/8/8/K7 w - - 0 1"
FINE70_MOVE = "a1b1"
NO_TABLE = "none"


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "tt-gain",
        help="node reduction of the table: every position with no table and with each policy and size",
        description=(
            "Search every position to fixed depths without a table and with each replacement policy and table "
            "size; report nodes, time, node-reduction factors and changed moves, and when Fine #70's Kb1 is found."
        ),
    )
    add_list_option(parser, "--depths", DEFAULT_DEPTHS, "fixed search depths")
    add_list_option(parser, "--hash-mb", DEFAULT_HASH_MB, "table sizes in MB")
    add_list_option(parser, "--policies", ALL_POLICIES, "replacement policies", policy_list)
    parser.add_argument("--game-depth", type=int, metavar="D",
                        help="depth of the game section: one table per policy and size kept through all "
                             "positions in turn, so stale entries pile up (default: the deepest of --depths; "
                             "0 skips it)")  # fmt: skip
    parser.add_argument("--fine70-seconds", type=float, default=20.0, metavar="S",
                        help="time cap of each Fine #70 search (default 20; 0 skips the section)")  # fmt: skip
    parser.add_argument("--fine70-win", type=int, default=150, metavar="CP",
                        help="score that counts as winning for Kb1 in Fine #70 (default 150 cp)")  # fmt: skip
    add_common_options(parser)
    parser.set_defaults(func=run)


def configurations(policies: list[str], sizes: list[int]) -> list[tuple[str, int]]:
    """(policy, MB) pairs, the no-table search first as (``none``, 0)."""
    return [(NO_TABLE, 0)] + [(policy, mb) for policy in policies for mb in sizes]


def run(args: argparse.Namespace) -> None:
    seed_everything(args.seed)
    positions = selected_positions(args)
    for depth in args.depths:
        if not 1 <= depth <= 60:
            raise ValueError(f"depths must be 1..60, not {depth}")
    for mb in args.hash_mb:
        if not 1 <= mb <= 65536:
            raise ValueError(f"hash size must be 1..65536 MB, not {mb}")
    if args.fine70_seconds < 0:
        raise ValueError("--fine70-seconds must be >= 0")
    game_depth = max(args.depths) if args.game_depth is None else args.game_depth
    if not 0 <= game_depth <= 60:
        raise ValueError("--game-depth must be 0..60")
    configs = configurations(args.policies, args.hash_mb)
    reference = ("bucket" if "bucket" in args.policies else args.policies[0], max(args.hash_mb))

    specs: list[dict[str, Any]] = []
    for depth in args.depths:
        for policy, mb in configs:
            engine = {"use_tt": False, "hash_mb": 1} if policy == NO_TABLE else {"hash_mb": mb, "policy": policy}
            for number, (fen, name) in enumerate(positions):
                specs.append({
                    "kind": "search", "positions": [(fen, name)], "first": number, "limits": {"depth": depth},
                    "engine": engine, "tag": {"policy": policy, "hash_mb": mb, "depth_limit": depth},
                })  # fmt: skip
    if game_depth:
        for policy, mb in configs[1:]:
            specs.append({
                "kind": "game", "positions": positions, "carry": True, "limits": {"depth": game_depth},
                "engine": {"hash_mb": mb, "policy": policy}, "tag": {"policy": policy, "hash_mb": mb},
            })  # fmt: skip
    if args.fine70_seconds > 0:
        for policy, mb in configs:
            specs.append({
                "kind": "fine70", "policy": policy, "hash_mb": mb, "seconds": args.fine70_seconds,
                "win": args.fine70_win,
            })  # fmt: skip
    results = run_parallel(_task, specs, args.jobs, "tt-gain")
    raw = [r for r in results if r.get("kind") not in ("fine70", "game")]
    fine70 = [r for r in results if r.get("kind") == "fine70"]
    games = [r for r in results if r.get("kind") == "game"]
    game_rows = _game_rows(games, game_depth)

    rows = []
    for depth in args.depths:
        base = {r["position"]: r for r in raw if r["depth_limit"] == depth and r["policy"] == NO_TABLE}
        ref = {
            r["position"]: r
            for r in raw
            if r["depth_limit"] == depth and (r["policy"], r["hash_mb"]) == reference
        }
        for policy, mb in configs:
            group = [r for r in raw if r["depth_limit"] == depth and r["policy"] == policy and r["hash_mb"] == mb]
            rows.append(_row(depth, policy, mb, group, base, ref))
    summary = _summary(rows, fine70, args, reference, game_rows)
    deepest = max(args.depths)
    game_records = [r for g in games for r in g["records"]]
    for mb in args.hash_mb:
        fresh = [r for r in raw if r["depth_limit"] == deepest and r["hash_mb"] == mb]
        for label, records in ((f"fresh_d{deepest}", fresh), ("game", [r for r in game_records if r["hash_mb"] == mb])):
            relative = relative_nodes(records, args.policies)
            if relative:
                summary[f"relative_nodes_{label}_{mb}MB"] = ", ".join(
                    f"{p} {m:.3f}±{se:.3f}" for p, (m, se) in sorted(relative.items(), key=lambda kv: kv[1][0])
                )
    config = {
        "depths": args.depths, "hash_mb": args.hash_mb, "policies": args.policies, "reference": list(reference),
        "fine70_fen": FINE70, "fine70_seconds": args.fine70_seconds, "fine70_win_cp": args.fine70_win,
        "seed": args.seed, "jobs": args.jobs, "positions_file": args.positions, "limit": args.limit,
        "positions": [{"fen": f, "name": n} for f, n in positions], "table": "fresh engine per search",
        "game_depth": game_depth, "game": "one engine per policy and size searches all positions in turn, table kept",
    }  # fmt: skip
    for record in raw:
        record["section"] = "position"
    for game in games:
        for record in game["records"]:
            record["section"] = "game position"
            raw.append(record)
    report = make_report("tt-gain", config, rows + game_rows + fine70 + raw, summary)
    columns = [
        ("depth", "depth"), ("policy", "policy"), ("hash_mb", "MB"), ("nodes", "nodes"), ("time_s", "time s"),
        ("reduction_geomean", "reduction (geo)"), ("reduction_of_sums", "reduction (sum)"),
        ("move_differs_from_none", "≠ no-table"), ("move_differs_from_ref", "≠ ref"),
    ]  # fmt: skip
    game_columns = [
        ("policy", "policy"), ("hash_mb", "MB"), ("nodes", "nodes"), ("time_s", "time s"),
        ("nodes_vs_best", "nodes / fewest"), ("stores", "stores"), ("replacements", "replacements"),
        ("hits", "hits"), ("cutoffs", "cutoffs"),
    ]  # fmt: skip
    fine70_columns = [
        ("label", "table"), ("first_depth", "first Kb1"), ("winning_depth", f"Kb1 >= {args.fine70_win} cp"),
        ("winning_time_ms", "ms"), ("winning_nodes", "nodes"), ("material_depth", "PV wins pawn"),
        ("max_depth", "max depth"), ("final", "final"),
    ]  # fmt: skip
    emit_sections(report, args, [
        ("fine70", fine70_columns, f"Fine #70: when Kb1 (a1b1) appears (cap {args.fine70_seconds:g} s)"),
        ("table", columns, f"Transposition-table gain, {len(positions)} positions, fresh engine per search"),
        ("game", game_columns, f"Game: one table through all {len(positions)} positions in turn, depth {game_depth}"),
    ], _plot)  # fmt: skip


def _task(spec: dict[str, Any]) -> dict[str, Any]:
    if spec["kind"] == "game":
        return {"kind": "game", "policy": spec["engine"]["policy"], "hash_mb": spec["engine"]["hash_mb"],
                "records": search_positions(spec)}  # fmt: skip
    if spec["kind"] == "fine70":
        return fine70_search(spec["policy"], spec["hash_mb"], spec["seconds"], spec["win"])
    return search_one(spec)


def _material(fen_board: str) -> int:
    values = {"p": 1, "n": 3, "b": 3, "r": 5, "q": 9}
    white = sum(values.get(c.lower(), 0) for c in fen_board if c.isupper())
    black = sum(values.get(c, 0) for c in fen_board if c.islower())
    return white - black


def pv_gain(fen: str, pv: list[str]) -> int:
    """Material (pawn units) the side to move has gained at the end of ``pv``.

    The end of a principal variation is a quiet position (the quiescence search
    resolved the captures), so a pawn won and lost again along the way counts nothing.
    """
    from transpo.core.position import Position

    position = Position.from_fen(fen)
    sign = 1 if position.turn == "w" else -1
    start = _material(position.fen().split()[0])
    for move in pv:
        try:
            position.push(move)
        except ValueError:
            break
    return sign * (_material(position.fen().split()[0]) - start)


def fine70_search(policy: str, mb: int, seconds: float, win: int) -> dict[str, Any]:
    """Search Fine #70 until Kb1 is chosen with a winning score and a PV that wins material, or time runs out."""
    from transpo.core.position import Position
    from transpo.engine.engine import Engine
    from transpo.engine.timeman import Limits

    _warm_up()
    if policy == NO_TABLE:
        engine = Engine(hash_mb=1, use_tt=False, move_overhead=0)
    else:
        engine = Engine(hash_mb=mb, policy=policy, move_overhead=0)
    found: dict[str, Any] = {"first": None, "winning": None, "material": None}
    lines: list[dict[str, Any]] = []

    def on_info(info) -> None:
        if info.bound is not None or not info.pv:
            return
        line = {"depth": info.depth, "score": info.score, "move": info.pv[0], "nodes": info.nodes,
                "time_ms": info.time_ms, "pv": info.pv}  # fmt: skip
        lines.append(line)
        if info.pv[0] != FINE70_MOVE:
            return
        if found["first"] is None:
            found["first"] = line
        if found["winning"] is None and info.score >= win:
            found["winning"] = line
        if found["material"] is None and pv_gain(FINE70, info.pv) >= 1:
            found["material"] = line
        if found["winning"] is not None and found["material"] is not None:
            engine.stop()

    started = time.perf_counter()
    result = engine.search(Position.from_fen(FINE70), Limits(movetime=int(seconds * 1000)), on_info)
    wall = time.perf_counter() - started
    label = "none" if policy == NO_TABLE else f"{policy} {mb} MB"
    out: dict[str, Any] = {"section": "fine70", "kind": "fine70", "label": label, "policy": policy, "hash_mb": mb,
                           "cap_s": seconds, "win_cp": win}  # fmt: skip
    for name, line in found.items():
        for key in ("depth", "score", "nodes", "time_ms"):
            out[f"{name}_{key}"] = line[key] if line else None
    last = lines[-1] if lines else None
    out.update({
        "found": found["winning"] is not None,
        "max_depth": last["depth"] if last else 0,
        "final_move": result.best_move,
        "final_score": result.score,
        "final": f"{result.best_move} {result.score}",
        "nodes": result.nodes,
        "wall_s": round(wall, 3),
        "moves_by_depth": "".join("B" if ln["move"] == FINE70_MOVE else "." for ln in lines),
        "lines": [{k: v for k, v in ln.items() if k != "pv"} | {"pv": ln["pv"][:12]} for ln in lines],
    })  # fmt: skip
    return out


def _row(depth, policy, mb, group, base, ref) -> dict[str, Any]:
    nodes = sum(r["nodes"] for r in group)
    base_nodes = sum(base[r["position"]]["nodes"] for r in group if r["position"] in base)
    factors = [base[r["position"]]["nodes"] / r["nodes"] for r in group if r["position"] in base and r["nodes"]]
    differs_none = [r for r in group if r["position"] in base and r["best_move"] != base[r["position"]]["best_move"]]
    differs_ref = [r for r in group if r["position"] in ref and r["best_move"] != ref[r["position"]]["best_move"]]
    score_none = [abs(r["score"] - base[r["position"]]["score"]) for r in group if r["position"] in base]
    return {
        "section": "table",
        "depth": depth,
        "policy": policy,
        "hash_mb": mb if policy != NO_TABLE else None,
        "positions": len(group),
        "nodes": nodes,
        "time_s": sum(r["time_ms"] for r in group) / 1000,
        "probes": sum(r["probes"] for r in group),
        "hits": sum(r["hits"] for r in group),
        "cutoffs": sum(r["cutoffs"] for r in group),
        "stores": sum(r["stores"] for r in group),
        "replacements": sum(r["replacements"] for r in group),
        "reduction_geomean": geometric_mean(factors),
        "reduction_of_sums": base_nodes / nodes if nodes else None,
        "reduction_min": min(factors) if factors else None,
        "reduction_max": max(factors) if factors else None,
        "move_differs_from_none": len(differs_none),
        "move_differs_from_ref": len(differs_ref),
        "share_differs_from_none": len(differs_none) / len(group) if group else None,
        "mean_abs_score_diff_from_none": sum(score_none) / len(score_none) if score_none else None,
        "differing_positions": [r["name"] for r in differs_none],
    }


def relative_nodes(records: list[dict[str, Any]], policies: list[str]) -> dict[str, tuple[float, float]]:
    """Per policy: geometric mean over positions of its nodes / the geometric mean of all policies' nodes
    for that position, with the standard error of that mean (in the same ratio units, approximately).

    Unlike summed nodes, every position weighs the same; the standard error shows how much of a
    difference is the search's sensitivity to any change in the table rather than the policy.
    """
    by_policy: dict[str, dict[int, int]] = {}
    for r in records:
        if r["policy"] in policies and r["nodes"] > 0:
            by_policy.setdefault(r["policy"], {})[r["position"]] = r["nodes"]
    names = [p for p in policies if p in by_policy]
    common = set.intersection(*(set(by_policy[p]) for p in names)) if names else set()
    if not common:
        return {}
    out = {}
    for p in names:
        logs = []
        for i in sorted(common):
            mean = sum(math.log(by_policy[q][i]) for q in names) / len(names)
            logs.append(math.log(by_policy[p][i]) - mean)
        mean = sum(logs) / len(logs)
        spread = math.sqrt(sum((x - mean) ** 2 for x in logs) / (len(logs) - 1)) if len(logs) > 1 else 0.0
        out[p] = (math.exp(mean), math.exp(mean) * spread / math.sqrt(len(logs)))
    return out


def _fewest(totals: dict[str, int]) -> str:
    """The policy with the fewest nodes; tied ones joined by ' = '."""
    best = min(totals.values())
    return " = ".join(p for p in totals if totals[p] == best)


def _game_rows(games: list[dict[str, Any]], depth: int) -> list[dict[str, Any]]:
    rows = []
    for game in games:
        records = game["records"]
        row = {"section": "game", "depth": depth, "policy": game["policy"], "hash_mb": game["hash_mb"],
               "positions": len(records), "time_s": sum(r["time_ms"] for r in records) / 1000}  # fmt: skip
        for name in ("nodes", "probes", "hits", "cutoffs", "stores", "replacements"):
            row[name] = sum(r[name] for r in records)
        rows.append(row)
    for mb in {r["hash_mb"] for r in rows}:
        same = [r for r in rows if r["hash_mb"] == mb]
        fewest = min(r["nodes"] for r in same)
        for r in same:
            r["nodes_vs_best"] = r["nodes"] / fewest if fewest else None
    return rows


def _summary(rows, fine70, args, reference, game_rows) -> dict[str, Any]:
    summary: dict[str, Any] = {}
    tables = [r for r in rows if r["policy"] != NO_TABLE]
    deepest = max(args.depths)
    for r in tables:
        if r["depth"] == deepest:
            summary[f"reduction_d{deepest}_{r['policy']}_{r['hash_mb']}MB"] = r["reduction_geomean"]
    totals = {policy: sum(r["nodes"] for r in tables if r["policy"] == policy) for policy in args.policies}
    strongest = _fewest(totals)
    summary["nodes_summed_by_policy"] = ", ".join(f"{p} {totals[p]:,}" for p in sorted(totals, key=totals.get))
    summary["strongest_policy"] = strongest
    best = min(totals.values())
    summary["strongest_margin"] = (
        ", ".join(
            f"{p} +{100 * (totals[p] / best - 1):.2f}%" for p in sorted(totals, key=totals.get) if totals[p] > best
        )
        or "no difference"
    )
    for mb in args.hash_mb:
        per_size = {
            p: sum(r["nodes"] for r in tables if r["policy"] == p and r["hash_mb"] == mb) for p in args.policies
        }
        summary[f"strongest_policy_{mb}MB"] = _fewest(per_size)
    if game_rows:
        totals = {p: sum(r["nodes"] for r in game_rows if r["policy"] == p) for p in args.policies}
        summary["game_nodes_by_policy"] = ", ".join(f"{p} {totals[p]:,}" for p in sorted(totals, key=totals.get))
        summary["strongest_policy_game"] = _fewest(totals)
        for mb in args.hash_mb:
            per_size = {r["policy"]: r["nodes"] for r in game_rows if r["hash_mb"] == mb}
            summary[f"strongest_policy_game_{mb}MB"] = _fewest(per_size)
    for r in fine70:
        label = "no table" if r["policy"] == NO_TABLE else f"{r['policy']} {r['hash_mb']}MB"
        if r["winning_depth"] is not None:
            text = f"Kb1 >= {r['win_cp']} cp at depth {r['winning_depth']}, {r['winning_time_ms']} ms"
        else:
            text = f"not found by depth {r['max_depth']} in {r['cap_s']:g} s"
        summary[f"fine70 {label}"] = text
    return summary


def _plot(report: dict[str, Any], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    table_rows = section(report, "table")
    rows = [r for r in table_rows if r["policy"] != NO_TABLE]
    games = section(report, "game")
    depths = sorted({r["depth"] for r in rows})
    configs = sorted({(r["policy"], r["hash_mb"]) for r in rows}, key=lambda c: (c[1], c[0]))
    panels = 3 if games else 2
    fig, axes = plt.subplots(1, panels, figsize=(6 * panels, 5.5))
    ax_factor, ax_nodes = axes[0], axes[1]
    for policy, mb in configs:
        group = sorted((r for r in rows if r["policy"] == policy and r["hash_mb"] == mb), key=lambda r: r["depth"])
        style = "-" if mb == max(c[1] for c in configs) else "--"
        ax_factor.plot([r["depth"] for r in group], [r["reduction_geomean"] or 0 for r in group], style, marker="o",
                       label=f"{policy}, {mb} MB")  # fmt: skip
    ax_factor.set_xlabel("search depth")
    ax_factor.set_ylabel("no-table nodes / table nodes (geometric mean)")
    ax_factor.set_yscale("log", base=2)
    ax_factor.set_xticks(depths)
    ax_factor.grid(True, which="both", alpha=0.3)
    ax_factor.legend(fontsize=8)
    ax_factor.set_title("node reduction by the table (fresh table per search)")

    deepest = max(depths)
    sizes = sorted({mb for _, mb in configs})
    policies = sorted({p for p, _ in configs})

    def bars(ax, source, title) -> None:
        width = 0.8 / max(1, len(sizes))
        for j, mb in enumerate(sizes):
            values = {r["policy"]: r["nodes"] for r in source if r["hash_mb"] == mb}
            if not values:
                continue
            fewest = min(values.values())
            xs = [i + (j - (len(sizes) - 1) / 2) * width for i in range(len(policies))]
            ax.bar(xs, [values.get(p, 0) / fewest for p in policies], width=width, label=f"{mb} MB")
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_xticks(range(len(policies)))
        ax.set_xticklabels(policies)
        ax.set_ylabel("summed nodes / fewest of that size")
        ax.set_ylim(0.95, max(1.1, ax.get_ylim()[1]))
        ax.set_title(title)
        ax.legend(fontsize=8)
        ax.grid(True, axis="y", alpha=0.3)

    none_nodes = next((r["nodes"] for r in table_rows if r["policy"] == NO_TABLE and r["depth"] == deepest), None)
    title = f"policies at depth {deepest}, fresh table"
    if none_nodes:
        title += f"\n(no table: {none_nodes:,} nodes)"
    bars(ax_nodes, [r for r in rows if r["depth"] == deepest], title)
    if games:
        bars(axes[2], games, f"game: one table through all positions, depth {games[0]['depth']}")
    summary = report["summary"]
    heading = f"With and without the transposition table; fewest nodes: {summary['strongest_policy']} (fresh)"
    if "strongest_policy_game" in summary:
        heading += f", {summary['strongest_policy_game']} (game)"
    fig.suptitle(heading)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
