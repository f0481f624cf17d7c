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

Fine #70 (``8/k7/3p4/p2P1p2/P2P1P2/8/8/K7 w``, the kind of position David Eppstein's
lecture notes "Hashing and Move Ordering" (ICS 180A, UC Irvine, 1997) mean,
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
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from transpo.lab.options import (
    SEARCH_DEPTH,
    SEARCH_SEED_HELP,
    Bounds,
    CommonConfig,
    add_common_options,
    add_key_option,
    add_list_option,
    add_policy_list,
    common_config,
    float_type,
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
from transpo.lab.runner import (
    EngineSettings,
    SearchJob,
    SearchLimit,
    SearchRecord,
    make_engine,
    run_parallel,
    run_searches,
    warm_up,
)
from transpo.lab.stats import geometric_mean
from transpo.settings import DEFAULT_POLICY, HASH_MB, POLICIES

DEFAULT_DEPTHS = (5, 7)
DEFAULT_HASH_MB = (1, 64)
FINE70 = "8/k7/3p4/p2P1p2/P2P1P2/8/8/K7 w - - 0 1"
FINE70_MOVE = "a1b1"
NO_TABLE = "none"
REFERENCE_POLICY = DEFAULT_POLICY  # with the largest table: the moves the others are compared with
GAME_DEPTH = Bounds("game depth", 0, SEARCH_DEPTH.high)  # 0: no game section


@dataclass(frozen=True)
class TtGainConfig:
    """A checked ``lab tt-gain`` run."""

    common: CommonConfig
    depths: tuple[int, ...]
    hash_mb: tuple[int, ...]
    policies: tuple[str, ...]
    game_depth: int  # 0: no game section
    fine70_seconds: float  # 0: no Fine #70 section
    fine70_win: int  # centipawns
    keys: str

    def variants(self) -> list[tuple[str, int]]:
        """(policy, MB) pairs, the no-table search first as (``none``, 0)."""
        return [(NO_TABLE, 0)] + [(policy, mb) for policy in self.policies for mb in self.hash_mb]

    @property
    def reference(self) -> tuple[str, int]:
        """The (policy, MB) whose moves the others are compared with."""
        return (REFERENCE_POLICY if REFERENCE_POLICY in self.policies else self.policies[0], max(self.hash_mb))


@dataclass(frozen=True)
class Fine70Job:
    """One timed search of Fine #70 with one table (``policy`` ``none``: no table)."""

    policy: str
    hash_mb: int
    seconds: float
    win_cp: int
    keys: str
    seed: int


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register ``lab tt-gain``."""
    parser = subparsers.add_parser(
        "tt-gain",
        help="node reduction of the table: every position with no table and with each policy and size",
        description=(
            "Search every position to fixed depths without a table and with each replacement policy and table "
            "size; report nodes, time, node-reduction factors and changed moves, and when Fine #70's Kb1 is found."
        ),
    )
    add_list_option(parser, "--depths", DEFAULT_DEPTHS, "fixed search depths", bounds=SEARCH_DEPTH)
    add_list_option(parser, "--hash-mb", DEFAULT_HASH_MB, "table sizes in MB", bounds=HASH_MB)
    add_policy_list(parser, POLICIES)
    parser.add_argument("--game-depth", type=int_type(GAME_DEPTH), metavar="D",
                        help="depth of the game section: one table per policy and size kept through all "
                             "positions in turn, so stale entries pile up (default: the deepest of --depths; "
                             "0 skips it)")  # fmt: skip
    parser.add_argument("--fine70-seconds", type=float_type(Bounds("Fine #70 time", 0)), default=20.0, metavar="S",
                        help="time cap of each Fine #70 search (default 20; 0 skips the section)")  # fmt: skip
    parser.add_argument("--fine70-win", type=int_type(Bounds("winning score")), default=150, metavar="CP",
                        help="score that counts as winning for Kb1 in Fine #70 (default 150 cp)")  # fmt: skip
    add_key_option(parser)
    add_common_options(parser, SEARCH_SEED_HELP)
    parser.set_defaults(func=run)


def configure(args: argparse.Namespace) -> TtGainConfig:
    """The checked configuration of a ``lab tt-gain`` run."""
    return TtGainConfig(
        common=common_config(args),
        depths=tuple(args.depths),
        hash_mb=tuple(args.hash_mb),
        policies=tuple(args.policies),
        game_depth=max(args.depths) if args.game_depth is None else args.game_depth,
        fine70_seconds=args.fine70_seconds,
        fine70_win=args.fine70_win,
        keys=args.keys,
    )


def _engine(policy: str, mb: int) -> EngineSettings:
    """The engine of a (policy, MB) variant; ``none`` has no table (a 1 MB one is allocated but never used)."""
    return EngineSettings(hash_mb=1, use_tt=False) if policy == NO_TABLE else EngineSettings(hash_mb=mb, policy=policy)


def fresh_jobs(config: TtGainConfig) -> list[SearchJob]:
    """Every position at every depth with every variant, each on a fresh engine."""
    return [
        SearchJob(
            positions=(position,),
            first_index=number,
            limit=SearchLimit(depth=depth),
            engine=_engine(policy, mb),
            keys=config.keys,
            seed=config.common.seed,
            tag={"policy": policy, "hash_mb": mb, "depth_limit": depth},
        )
        for depth in config.depths
        for policy, mb in config.variants()
        for number, position in enumerate(config.common.positions)
    ]


def game_jobs(config: TtGainConfig) -> list[SearchJob]:
    """One engine per table variant through all positions in turn, its table kept (none without a game depth)."""
    if not config.game_depth:
        return []
    return [
        SearchJob(
            positions=config.common.positions,
            limit=SearchLimit(depth=config.game_depth),
            engine=_engine(policy, mb),
            keys=config.keys,
            seed=config.common.seed,
            carry_table=True,
            tag={"policy": policy, "hash_mb": mb},
        )
        for policy, mb in config.variants()[1:]
    ]


def fine70_jobs(config: TtGainConfig) -> list[Fine70Job]:
    """One timed Fine #70 search per variant (none without a time cap)."""
    if config.fine70_seconds <= 0:
        return []
    return [Fine70Job(policy, mb, config.fine70_seconds, config.fine70_win, config.keys, config.common.seed)
            for policy, mb in config.variants()]  # fmt: skip


def run(args: argparse.Namespace) -> None:
    """``lab tt-gain``: configure, search (fresh, game, Fine #70), report, print and write."""
    config = configure(args)
    fresh, games = fresh_jobs(config), game_jobs(config)
    results = run_searches(fresh + games, config.common.placement, "tt-gain")
    fine70 = run_parallel(fine70_search, fine70_jobs(config), config.common.placement, "tt-gain: Fine #70")
    report = build_report(config, results[: len(fresh)], results[len(fresh) :], fine70)
    emit(report, config.common, sections(config), plot_tt_gain)


def build_report(
    config: TtGainConfig,
    fresh: Sequence[Sequence[SearchRecord]],
    games: Sequence[Sequence[SearchRecord]],
    fine70: Sequence[Row],
) -> Report:
    """``table`` rows per depth and variant, ``game`` rows, the ``fine70`` rows, the summary and the raw records."""
    raw = [record.row() for job in fresh for record in job]
    game_records = [[record.row() for record in job] for job in games]
    game = game_rows(game_records, config.game_depth)
    rows = []
    for depth in config.depths:
        base = {r["position"]: r for r in raw if r["depth_limit"] == depth and r["policy"] == NO_TABLE}
        ref = {r["position"]: r for r in raw
               if r["depth_limit"] == depth and (r["policy"], r["hash_mb"]) == config.reference}  # fmt: skip
        for policy, mb in config.variants():
            group = [r for r in raw if r["depth_limit"] == depth and r["policy"] == policy and r["hash_mb"] == mb]
            rows.append(table_row(depth, policy, mb, group, base, ref))
    summary = summarize(config, rows, fine70, game, raw, [r for records in game_records for r in records])
    report_config = {
        "depths": list(config.depths), "hash_mb": list(config.hash_mb), "policies": list(config.policies),
        "reference": list(config.reference), "fine70_fen": FINE70, "fine70_seconds": config.fine70_seconds,
        "fine70_win_cp": config.fine70_win, "keys": config.keys, **positions_config(config.common),
        "table": "fresh engine per search", "game_depth": config.game_depth,
        "game": "one engine per policy and size searches all positions in turn, table kept",
    }  # fmt: skip
    records = [{**r, "section": "position"} for r in raw]
    records += [{**r, "section": "game position"} for job in game_records for r in job]
    return make_report("tt-gain", report_config, rows + game + list(fine70) + records, summary)


def sections(config: TtGainConfig) -> list[Section]:
    """The printed tables: Fine #70, the table gain per depth and variant, and the game."""
    count = len(config.common.positions)
    table_columns = [
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
        ("label", "table"), ("first_depth", "first Kb1"), ("winning_depth", f"Kb1 >= {config.fine70_win} cp"),
        ("winning_time_ms", "ms"), ("winning_nodes", "nodes"), ("material_depth", "PV wins pawn"),
        ("max_depth", "max depth"), ("final", "final"),
    ]  # fmt: skip
    return [
        ("fine70", fine70_columns, f"Fine #70: when Kb1 (a1b1) appears (cap {config.fine70_seconds:g} s)"),
        ("table", table_columns, f"Transposition-table gain, {count} positions, fresh engine per search"),
        ("game", game_columns, f"Game: one table through all {count} positions in turn, depth {config.game_depth}"),
    ]


def _material(fen_board: str) -> int:
    """White's material minus Black's, in pawns, from the board field of a FEN."""
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


def fine70_search(job: Fine70Job) -> Row:
    """Search Fine #70 until Kb1 is chosen with a winning score and a PV that wins material, or time runs out."""
    from transpo.core.position import Position
    from transpo.engine.timeman import Limits

    warm_up()
    engine = make_engine(_engine(job.policy, job.hash_mb))
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
        if found["winning"] is None and info.score >= job.win_cp:
            found["winning"] = line
        if found["material"] is None and pv_gain(FINE70, info.pv) >= 1:
            found["material"] = line
        if found["winning"] is not None and found["material"] is not None:
            engine.stop()

    started = time.perf_counter()
    position = Position.from_fen(FINE70, job.keys, job.seed)
    result = engine.search(position, Limits(movetime=int(job.seconds * 1000)), on_info)
    wall = time.perf_counter() - started
    label = "none" if job.policy == NO_TABLE else f"{job.policy} {job.hash_mb} MB"
    out: dict[str, Any] = {"section": "fine70", "kind": "fine70", "label": label, "policy": job.policy,
                           "hash_mb": job.hash_mb, "cap_s": job.seconds, "win_cp": job.win_cp}  # fmt: skip
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


def table_row(depth: int, policy: str, mb: int, group: Sequence[Row], base: dict[int, Row], ref: dict[int, Row]) -> Row:
    """One variant at one depth over all positions, against the no-table searches (``base``) and the reference."""
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


def relative_nodes(records: Sequence[Row], policies: Sequence[str]) -> dict[str, tuple[float, float]]:
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


def game_rows(games: Sequence[Sequence[Row]], depth: int) -> list[Row]:
    """One ``game`` row per table variant: its counts summed over the positions, and nodes / the fewest of its size."""
    rows = []
    for records in games:
        row = {"section": "game", "depth": depth, "policy": records[0]["policy"], "hash_mb": records[0]["hash_mb"],
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


def summarize(
    config: TtGainConfig,
    rows: Sequence[Row],
    fine70: Sequence[Row],
    game: Sequence[Row],
    raw: Sequence[Row],
    game_records: Sequence[Row],
) -> dict[str, Any]:
    """Reductions at the deepest depth, the policy with the fewest nodes (fresh, game, per size), Fine #70,
    and each policy's nodes relative to the others position by position."""
    summary: dict[str, Any] = {}
    tables = [r for r in rows if r["policy"] != NO_TABLE]
    deepest = max(config.depths)
    for r in tables:
        if r["depth"] == deepest:
            summary[f"reduction_d{deepest}_{r['policy']}_{r['hash_mb']}MB"] = r["reduction_geomean"]
    totals = {policy: sum(r["nodes"] for r in tables if r["policy"] == policy) for policy in config.policies}
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
    for mb in config.hash_mb:
        per_size = {
            p: sum(r["nodes"] for r in tables if r["policy"] == p and r["hash_mb"] == mb) for p in config.policies
        }
        summary[f"strongest_policy_{mb}MB"] = _fewest(per_size)
    if game:
        totals = {p: sum(r["nodes"] for r in game if r["policy"] == p) for p in config.policies}
        summary["game_nodes_by_policy"] = ", ".join(f"{p} {totals[p]:,}" for p in sorted(totals, key=totals.get))
        summary["strongest_policy_game"] = _fewest(totals)
        for mb in config.hash_mb:
            per_size = {r["policy"]: r["nodes"] for r in game if r["hash_mb"] == mb}
            summary[f"strongest_policy_game_{mb}MB"] = _fewest(per_size)
    for r in fine70:
        label = "no table" if r["policy"] == NO_TABLE else f"{r['policy']} {r['hash_mb']}MB"
        if r["winning_depth"] is not None:
            text = f"Kb1 >= {r['win_cp']} cp at depth {r['winning_depth']}, {r['winning_time_ms']} ms"
        else:
            text = f"not found by depth {r['max_depth']} in {r['cap_s']:g} s"
        summary[f"fine70 {label}"] = text
    summary.update(relative_summary(config, raw, game_records))
    return summary


def relative_summary(config: TtGainConfig, raw: Sequence[Row], game_records: Sequence[Row]) -> dict[str, str]:
    """Per table size, fresh at the deepest depth and in the game: each policy's :func:`relative_nodes`, fewest first."""
    deepest = max(config.depths)
    summary = {}
    for mb in config.hash_mb:
        fresh = [r for r in raw if r["depth_limit"] == deepest and r["hash_mb"] == mb]
        for label, records in ((f"fresh_d{deepest}", fresh), ("game", [r for r in game_records if r["hash_mb"] == mb])):
            relative = relative_nodes(records, config.policies)
            if relative:
                summary[f"relative_nodes_{label}_{mb}MB"] = ", ".join(
                    f"{p} {m:.3f}±{se:.3f}" for p, (m, se) in sorted(relative.items(), key=lambda kv: kv[1][0])
                )
    return summary


def plot_tt_gain(report: Report, path: str) -> None:
    """Reduction factor against depth; nodes per policy relative to the fewest (fresh tables, and the game)."""
    plt = pyplot()

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
    ax_factor.set_ylabel("node reduction: no-table nodes / table nodes\n(geometric mean over positions, log scale)")
    log_axis(ax_factor)
    ax_factor.set_xticks(depths)
    ax_factor.grid(True, which="both", alpha=0.3)
    ax_factor.legend(fontsize=8)
    ax_factor.set_title("node reduction by the table (fresh table per search)")

    deepest = max(depths)
    sizes = sorted({mb for _, mb in configs})
    policies = sorted({p for p, _ in configs})

    def bars(ax, source, title) -> None:  # one group of bars per policy, one bar per table size
        width = 0.8 / max(1, len(sizes))
        for j, mb in enumerate(sizes):
            values = {r["policy"]: r["nodes"] for r in source if r["hash_mb"] == mb}
            if not values:
                continue
            fewest = min(values.values())
            xs = [i + (j - (len(sizes) - 1) / 2) * width for i in range(len(policies))]
            extra = [100 * (values[p] / fewest - 1) if p in values else 0 for p in policies]
            ax.bar(xs, extra, width=width, label=f"{mb} MB")
            for x, value in zip(xs, extra, strict=True):
                ax.annotate(f"{value:.1f}", (x, value), textcoords="offset points", xytext=(0, 2), ha="center",
                            fontsize=7)  # fmt: skip
        ax.set_xticks(range(len(policies)))
        ax.set_xticklabels(policies)
        ax.set_ylabel("summed nodes: % more than the fewest (same size)")
        # bars from 0; a sub-percent spread stays small on a 0-1 % axis
        ax.set_ylim(0, max(1.0, 1.15 * ax.get_ylim()[1]))
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
    save_figure(fig, path)
