"""``transpo lab torn``: torn table entries under Lazy SMP, with Hyatt and Mann's lockless check on and off.

An entry is two 64-bit words, so two search threads that store into one slot at
once can leave one store's key beside the other's data (a *torn* entry), and a
thread can read a slot while another rewrites it.  Hyatt and Mann (ICGA Journal
2002) store ``key ^ data`` beside ``data``: a torn pair then recovers a key that
matches no position, and the probe refuses it.  This experiment is the parallel
sibling of ``lab crashes``: it counts what tearing does, per configuration of

* threads (``--threads``, 1 2 4 8 by default: Lazy SMP on one shared table), and
* the lockless check (``--lockless on,off``: off stores the plain key, so a torn
  pair whose key word matches is used as it is).

Every position is searched to a fixed depth on a fresh engine whose table runs
the *torn audit* (:class:`~transpo.engine.table.TranspositionTable` with
``torn_audit``): each store also writes a seal of its pair into the entry's
check word, and each probe tests every live slot it reads against its seal.
Per million probes the table counts

* ``seen``: inconsistent slots read (key, data and seal not from one store),
* ``accepted``: inconsistent entries the probe returned to the search (the
  lockless check should leave none), and
* ``cutoffs``: nodes ended on an accepted inconsistent entry.

The seal is a third write, so a slot rewritten between the reads of its pair and
of its seal also counts as inconsistent: ``seen`` is an upper bound on torn pairs.
Each search's root move is set against the single-threaded lockless search of
its position (the reference; a single thread tears nothing).  Parallel searches
choose other moves for reasons of their own (a different tree), so the table
shows root changes in all searches beside those in searches that cut off on an
inconsistent entry.

The searches run one after another (``--jobs`` is not used; with ``--ray``, on
one actor): the threads of one search need the cores to themselves, or they
would rarely store at once.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass, replace
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
    checked,
    common_config,
)
from transpo.lab.report import Report, Row, Section, emit, make_report, positions_config, pyplot, save_figure, section
from transpo.lab.runner import EngineSettings, SearchJob, SearchLimit, SearchRecord, check_key_seed, run_searches

DEFAULT_THREADS = (1, 2, 4, 8)
THREADS = Bounds("threads", 1, 64)  # the lab may oversubscribe the cores (the UCI option stops at 2 per CPU)
DEFAULT_DEPTH = 10
DEFAULT_HASH_MB = 1
PER = 1_000_000  # rates are per million probes
LOCKLESS_CHOICES = {"on": True, "off": False}

Variant = tuple[int, bool]  # (threads, lockless)


@dataclass(frozen=True)
class TornConfig:
    """A checked ``lab torn`` run."""

    common: CommonConfig
    threads: tuple[int, ...]
    lockless: tuple[bool, ...]
    depth: int
    hash_mb: int
    keys: str

    def variants(self) -> list[Variant]:
        """The reference (1 thread, lockless), then every threads x lockless pair."""
        return [(1, True)] + [(t, lock) for lock in self.lockless for t in self.threads]


def parse_lockless(text: str) -> list[bool]:
    """``on``, ``off`` or ``on,off``."""
    words = [w.strip().lower() for w in text.split(",") if w.strip()]
    if not words or any(w not in LOCKLESS_CHOICES for w in words):
        raise ValueError(f"--lockless takes on, off or on,off, not {text!r}")
    return list(dict.fromkeys(LOCKLESS_CHOICES[w] for w in words))


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register ``lab torn``."""
    parser = subparsers.add_parser(
        "torn",
        help="torn (inconsistent) table entries with 1..N search threads, lockless check on and off",
        description=(
            "Search every position to a fixed depth with Lazy SMP on a sealed table; count inconsistent entries "
            "read, accepted and cut off on per million probes, with the lockless check on and off, and root moves "
            "against the single-threaded search."
        ),
    )
    add_list_option(parser, "--threads", DEFAULT_THREADS, "search threads", bounds=THREADS)
    parser.add_argument("--lockless", type=checked(parse_lockless), default=[True, False],
                        metavar="on,off", help="with the lockless check, without it, or both (default on,off)")  # fmt: skip
    add_depth_option(parser, DEFAULT_DEPTH)
    add_hash_option(parser, DEFAULT_HASH_MB, "table size (a small table makes stores meet)")
    add_key_option(parser)
    add_common_options(parser, SEARCH_SEED_HELP)
    parser.set_defaults(func=run)


def configure(args: argparse.Namespace) -> TornConfig:
    """The checked configuration of a ``lab torn`` run."""
    check_key_seed(args.keys, args.seed)
    return TornConfig(
        common=common_config(args),
        threads=tuple(dict.fromkeys(args.threads)),
        lockless=tuple(args.lockless),
        depth=args.depth,
        hash_mb=args.hash_mb,
        keys=args.keys,
    )


def search_jobs(config: TornConfig) -> list[SearchJob]:
    """One job per variant and position, each on a fresh engine with the torn audit."""
    jobs = []
    for number, (threads, lockless) in enumerate(config.variants()):
        engine = EngineSettings(hash_mb=config.hash_mb, threads=threads, lockless=lockless, torn_audit=True)
        kind = "reference" if number == 0 else "variant"
        for index, position in enumerate(config.common.positions):
            jobs.append(SearchJob(
                positions=(position,), first_index=index, limit=SearchLimit(depth=config.depth), engine=engine,
                keys=config.keys, seed=config.common.seed,
                tag={"kind": kind, "threads": threads, "lockless": lockless},
            ))  # fmt: skip
    return jobs


def build_report(config: TornConfig, results: Sequence[Sequence[SearchRecord]]) -> Report:
    """Every search set against its position's reference; one ``variant`` row per threads x lockless."""
    records = [record.row() for job in results for record in job]
    reference = {r["position"]: r for r in records if r["kind"] == "reference"}
    for record in records:
        record["section"] = "position"
        record["root_changed"] = record["best_move"] != reference[record["position"]]["best_move"]
    rows = [variant_row(t, lock, [r for r in records if r["kind"] == "variant" and (r["threads"], r["lockless"])
                                  == (t, lock)]) for t, lock in config.variants()[1:]]  # fmt: skip
    report_config = {
        "threads": list(config.threads), "lockless": list(config.lockless), "depth": config.depth,
        "hash_mb": config.hash_mb, "keys": config.keys, **positions_config(config.common),
        "reference": "1 thread, lockless check on, fresh engine per search",
        "inconsistent": "a live slot whose key, data and seal did not come from one store (upper bound on tears)",
    }  # fmt: skip
    return make_report("torn", report_config, rows + records, summarize(rows))


def variant_row(threads: int, lockless: bool, group: Sequence[Row]) -> Row:
    """One threads x lockless configuration over all positions."""
    probes = sum(r["probes"] for r in group)
    seen = sum(r["torn_seen"] for r in group)
    accepted = sum(r["torn_hits"] for r in group)
    cutoffs = sum(r["torn_cutoffs"] for r in group)
    torn_cut = [r for r in group if r["torn_cutoffs"] > 0]

    def per_million(count: int) -> float | None:
        return PER * count / probes if probes else None

    return {
        "section": "variant",
        "variant": f"{threads} thread{'s' if threads > 1 else ''}, lockless {'on' if lockless else 'off'}",
        "threads": threads,
        "lockless": lockless,
        "searches": len(group),
        "nodes": sum(r["nodes"] for r in group),
        "probes": probes,
        "seen": seen,
        "accepted": accepted,
        "rejected": seen - accepted,
        "cutoffs": cutoffs,
        "seen_per_million": per_million(seen),
        "accepted_per_million": per_million(accepted),
        "cutoffs_per_million": per_million(cutoffs),
        "searches_with_torn_cutoff": len(torn_cut),
        "root_changed": sum(r["root_changed"] for r in group),
        "root_changed_after_torn_cutoff": sum(r["root_changed"] for r in torn_cut),
    }


def summarize(rows: Sequence[Row]) -> dict[str, Any]:
    """Inconsistent entries seen and accepted per million probes, for each configuration."""
    summary: dict[str, Any] = {}
    for r in rows:
        seen, accepted = r["seen_per_million"], r["accepted_per_million"]
        summary[r["variant"]] = (
            f"{r['seen']} seen ({seen or 0:.2f}/M probes), {r['accepted']} accepted ({accepted or 0:.2f}/M), "
            f"{r['cutoffs']} cutoffs; root changed {r['root_changed']}/{r['searches']}"
        )
    return summary


def sections(config: TornConfig) -> list[Section]:
    """The printed table: per configuration, inconsistent entries and what they did."""
    columns = [
        ("variant", "configuration"), ("probes", "probes"), ("seen", "inconsistent"),
        ("seen_per_million", "per M probes"), ("accepted", "accepted"), ("accepted_per_million", "acc. per M"),
        ("cutoffs", "cut off"), ("root_changed", "root move ≠ 1 thread"),
        ("root_changed_after_torn_cutoff", "≠ after torn cutoff"),
    ]  # fmt: skip
    title = (f"Torn entries, {len(config.common.positions)} positions, depth {config.depth}, "
             f"{config.hash_mb} MB table")  # fmt: skip
    return [("variant", columns, title)]


def run(args: argparse.Namespace) -> None:
    """``lab torn``: configure, search (one search at a time), report, print and write."""
    config = configure(args)
    placement = replace(config.common.placement, workers=1)  # one search at a time: its threads need the cores
    report = build_report(config, run_searches(search_jobs(config), placement, "torn"))
    emit(report, config.common, sections(config), plot_torn)


def plot_torn(report: Report, path: str) -> None:
    """Inconsistent entries seen and accepted per million probes against the number of threads."""
    plt = pyplot()
    rows = section(report, "variant")
    fig, ax = plt.subplots(figsize=(8, 5))
    for lockless, style in ((True, "-"), (False, "--")):
        group = sorted((r for r in rows if r["lockless"] == lockless), key=lambda r: r["threads"])
        if not group:
            continue
        label = "lockless on" if lockless else "lockless off"
        xs = [r["threads"] for r in group]
        ax.plot(xs, [r["seen_per_million"] or 0 for r in group], style, marker="o", label=f"{label}: seen")
        ax.plot(xs, [r["accepted_per_million"] or 0 for r in group], style, marker="x", label=f"{label}: accepted")
    ax.set_xscale("log", base=2)
    threads = sorted({r["threads"] for r in rows})
    ax.set_xticks(threads)
    ax.set_xticklabels([str(t) for t in threads])
    ax.set_xlabel("search threads (Lazy SMP, one shared table)")
    ax.set_ylabel("inconsistent entries per million probes")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    cfg = report["config"]
    fig.suptitle(f"Torn entries: {len(cfg['positions'])} positions, depth {cfg['depth']}, {cfg['hash_mb']} MB table")
    save_figure(fig, path)
