"""``transpo lab games``: the seeds' claims about game results, measured by matches.

Two claims in the threads are about who wins games, not about single searches:

* Thies: "after simulating a few hundred games, I didn't see any difference" with
  and without the transposition table;
* Koistinen: "use 32 bits if you want to maximize program strength"; Hyatt and
  Cozzie: no measurable effect until the signatures are very small.

Each *variant* of Transpo plays the *reference* (the same engine with the table and
64-bit signatures) through ``transpo match`` (a gauntlet of the reference against
every variant, each opening twice with colours reversed, clocks kept by the
runner, score adjudication as in the project's SPRTs): ``no-table`` is
``UseTT false`` (Thies), ``k`` is ``SignatureBits k`` (Koistinen).  Every
engine is this installation of Transpo (``python -m transpo``) with the same
``Hash`` and one thread, at equal time.

Per variant the report gives W/D/L from the variant's side, its Elo against the
reference with a 95 % interval (pair statistics), and how many games a match
would need before an interval of that width excludes zero at the Elo measured;
a second table gives the games needed to resolve 5 to 100 Elo at the variance the
matches showed (``n = (z * sd / (E(d) - 1/2))^2`` with ``E`` the expected score of
``d`` Elo and ``sd`` the standard deviation of a game's score, from the pairs).
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from transpo.lab.options import (
    Bounds,
    CommonConfig,
    add_common_options,
    add_hash_option,
    checked,
    common_config,
    int_type,
)
from transpo.lab.report import Report, Row, Section, emit, make_report, pyplot, save_figure, section
from transpo.settings import SIGNATURE_BITS
from transpo.tools.match import Match, build_config
from transpo.tools.stats import PAIR_SCORES, Z95, score_from_elo

NO_TABLE = "no-table"
DEFAULT_VARIANTS: tuple[str | int, ...] = (NO_TABLE, 8, 16, 24, 32)
DEFAULT_GAMES = 100
DEFAULT_TC = "2+0.02"
DEFAULT_HASH_MB = 16
RESOLVE_ELO = (5, 10, 20, 50, 100)
REFERENCE = "reference"
# the adjudication of the project's SPRTs (docs/STRENGTH.md): hopeless losses and long dead draws end early
RESIGN = "moves=4,score=800"
DRAW = "moves=10,score=5,after=60"
GAMES = Bounds("games", 2)

Variant = str | int  # NO_TABLE or signature bits


@dataclass(frozen=True)
class GamesConfig:
    """A checked ``lab games`` run."""

    common: CommonConfig
    variants: tuple[Variant, ...]
    games: int
    tc: str
    hash_mb: int
    openings: str | None
    pgn: str | None


def parse_variants(text: str) -> list[Variant]:
    """``no-table,8,16``: the no-table engine and signature widths (8..63; 64 is the reference)."""
    variants: list[Variant] = []
    for word in filter(None, (w.strip().lower() for w in text.split(","))):
        if word == NO_TABLE:
            variants.append(NO_TABLE)
            continue
        try:
            bits = int(word)
        except ValueError:
            raise ValueError(f"--variants: expected {NO_TABLE} or signature bits, not {word!r}") from None
        if not SIGNATURE_BITS.low <= bits < SIGNATURE_BITS.high:
            raise ValueError(f"--variants: signature bits must be {SIGNATURE_BITS.low}..{SIGNATURE_BITS.high - 1} "
                             f"({SIGNATURE_BITS.high} is the reference), not {bits}")  # fmt: skip
        variants.append(bits)
    if not variants:
        raise ValueError("--variants: give at least one variant")
    return list(dict.fromkeys(variants))


def variant_name(variant: Variant) -> str:
    """The engine name of a variant in the match: 'no-table' or 'bits-16'."""
    return NO_TABLE if variant == NO_TABLE else f"bits-{variant}"


def variant_options(variant: Variant) -> dict[str, str]:
    """The UCI options that make the variant."""
    return {"UseTT": "false"} if variant == NO_TABLE else {"SignatureBits": str(variant)}


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register ``lab games``."""
    parser = subparsers.add_parser(
        "games",
        help="Elo of Transpo without the table and with k-bit signatures against the 64-bit reference (matches)",
        description=(
            "Play each variant (no table: Thies; k-bit signatures: Koistinen, Hyatt and Cozzie) against the "
            "reference Transpo through transpo match; report Elo with 95 %% intervals and the games a match "
            "needs to resolve a given Elo."
        ),
    )
    shown = ",".join(map(str, DEFAULT_VARIANTS))
    parser.add_argument("--variants", type=checked(parse_variants), default=list(DEFAULT_VARIANTS), metavar="LIST",
                        help=f"{NO_TABLE} and/or signature bits, comma-separated (default {shown})")  # fmt: skip
    parser.add_argument("--games", type=int_type(GAMES), default=DEFAULT_GAMES, metavar="N",
                        help=f"games per variant, even (default {DEFAULT_GAMES})")  # fmt: skip
    parser.add_argument("--tc", default=DEFAULT_TC, metavar="BASE+INC", help=f"seconds (default {DEFAULT_TC})")
    add_hash_option(parser, DEFAULT_HASH_MB, "every engine's Hash")
    parser.add_argument("--openings", metavar="FILE", help="EPD or PGN openings (default: the shipped set)")
    parser.add_argument("--pgn", metavar="FILE", help="write every game to FILE")
    add_common_options(parser, "shuffles the openings")
    parser.set_defaults(func=run)


def configure(args: argparse.Namespace) -> GamesConfig:
    """The checked configuration of a ``lab games`` run (``--jobs`` games are played at once; ``--ray``: on Ray)."""
    if args.games % 2:
        raise ValueError(f"--games must be even (each opening is played with both colours), not {args.games}")
    return GamesConfig(
        common=common_config(args, uses_positions=False),
        variants=tuple(args.variants),
        games=args.games,
        tc=args.tc,
        hash_mb=args.hash_mb,
        openings=args.openings,
        pgn=args.pgn,
    )


def match_for(config: GamesConfig) -> Match:
    """The gauntlet of the reference against every variant (raises ValueError on a bad --tc or file)."""
    command = f"{sys.executable} -m transpo"
    engines = [f"{REFERENCE}={command}"] + [f"{variant_name(v)}={command}" for v in config.variants]
    options = [f"{REFERENCE}:Hash={config.hash_mb}"]
    for variant in config.variants:
        name = variant_name(variant)
        options.append(f"{name}:Hash={config.hash_mb}")
        options += [f"{name}:{option}={value}" for option, value in variant_options(variant).items()]
    match_config = build_config(
        engines, options, config.games, config.tc, openings=config.openings, concurrency=config.common.jobs or None,
        pgn=config.pgn, seed=config.common.seed, draw=DRAW, resign=RESIGN, ray=config.common.ray,
    )  # fmt: skip
    return Match(match_config)


def build_report(config: GamesConfig, match_report: dict) -> Report:
    """One ``variant`` row per pairing (from the variant's side) and the ``needed`` table."""
    summaries = {s["second"]: s for s in match_report["summary"]}
    rows = [variant_row(v, summaries[variant_name(v)]) for v in config.variants]
    pooled = pooled_game_sd(rows)
    needed = [{"section": "needed", "elo": elo, "games": games_needed(elo, pooled)} for elo in RESOLVE_ELO]
    report_config = {
        "variants": [str(v) for v in config.variants], "games": config.games, "tc": config.tc,
        "hash_mb": config.hash_mb, "openings": config.openings or "default", "seed": config.common.seed,
        "concurrency": config.common.jobs, "resign_adjudication": RESIGN, "draw_adjudication": DRAW,
        "reference": "Transpo with the table and 64-bit signatures, same Hash, one thread",
        "engine": match_report["config"]["engines"][0]["command"], "wall_s": match_report["wall_s"],
        "game_sd": pooled,
    }  # fmt: skip
    summary = {r["variant"]: f"Elo {_elo_text(r)} over {r['games']} games ({r['wins']}/{r['draws']}/{r['losses']})"
               for r in rows}  # fmt: skip
    if match_report.get("stopped"):
        summary["stopped"] = match_report["stopped"]
    return make_report("games", report_config, rows + needed, summary)


def variant_row(variant: Variant, summary: dict) -> Row:
    """A pairing's summary turned to the variant's side (the match reports the reference's)."""
    pairs = list(reversed(summary["pentanomial"]))  # the variant's pair scores: 0 .. 2
    sd = pair_game_sd(pairs)
    elo, low, high = (_negated(summary[key]) for key in ("elo", "elo_high", "elo_low"))
    return {
        "section": "variant",
        "variant": f"{variant}-bit" if variant != NO_TABLE else NO_TABLE,
        "bits": None if variant == NO_TABLE else variant,
        "games": summary["games"],
        "wins": summary["losses"],
        "draws": summary["draws"],
        "losses": summary["wins"],
        "score": None if not summary["games"] else round(1 - summary["score"], 4),
        "elo": elo,
        "elo_low": low,
        "elo_high": high,
        "pentanomial": pairs,
        "game_sd": sd,
        "games_to_resolve": None if elo is None or sd is None else games_needed(abs(elo), sd),
        "forfeits": summary["forfeits"],
    }


def _negated(value: float | None) -> float | None:
    return None if value is None else -value


def pair_game_sd(pairs: Sequence[int]) -> float | None:
    """Standard deviation of one game's score implied by the pair counts (pairs are the unit of the interval)."""
    n = sum(pairs)
    if n < 2:
        return None
    mean = sum(c * s for c, s in zip(pairs, PAIR_SCORES, strict=True)) / n
    var_pair = sum(c * (s - mean) ** 2 for c, s in zip(pairs, PAIR_SCORES, strict=True)) / n
    # a pair's score is the sum of two games: n pairs of variance v give the mean per game
    # the variance v / (4n) = (v / 2) / (2n), i.e. that of 2n games of variance v / 2
    return math.sqrt(var_pair / 2)


def pooled_game_sd(rows: Sequence[Row]) -> float | None:
    """The per-game standard deviation over every variant's pairs (None before any pair)."""
    pairs = [sum(col) for col in zip(*(r["pentanomial"] for r in rows), strict=True)] if rows else []
    return pair_game_sd(pairs) if pairs else None


def games_needed(elo: float, sd: float | None) -> int | None:
    """Games for a 95 % interval of half-width ``elo`` (so that it excludes 0 at that Elo), at ``sd`` per game."""
    if sd is None or elo <= 0 or not math.isfinite(elo):
        return None
    margin = score_from_elo(elo) - 0.5
    return math.ceil((Z95 * sd / margin) ** 2)


def _elo_text(row: Row) -> str:
    if row["elo"] is None:
        return "n/a"
    low, high = row["elo_low"], row["elo_high"]
    interval = f" ({low:+.1f}..{high:+.1f})" if low is not None and high is not None else ""
    return f"{row['elo']:+.1f}{interval}"


def sections(config: GamesConfig) -> list[Section]:
    """The printed tables: Elo per variant, then games needed per Elo."""
    variant_columns = [
        ("variant", "variant"), ("games", "games"), ("wins", "W"), ("draws", "D"), ("losses", "L"),
        ("score", "score"), ("elo", "Elo"), ("elo_low", "95% low"), ("elo_high", "95% high"),
        ("games_to_resolve", "games to resolve"),
    ]  # fmt: skip
    title = f"Variants against the 64-bit reference, {config.games} games each at {config.tc}, {config.hash_mb} MB"
    needed_columns = [("elo", "Elo difference"), ("games", "games for a 95% interval excluding 0")]
    return [("variant", variant_columns, title), ("needed", needed_columns, "Games needed, at the measured variance")]


def run(args: argparse.Namespace) -> None:
    """``lab games``: configure, play the gauntlet (Ctrl-C ends it at once), report, print and write."""
    config = configure(args)
    match = match_for(config)
    try:
        match_report = match.run()
    except KeyboardInterrupt:
        match.interrupt()
        raise
    emit(build_report(config, match_report), config.common, sections(config), plot_games)


def plot_games(report: Report, path: str) -> None:
    """Elo against signature bits with 95 % intervals; the no-table result as a band."""
    plt = pyplot()
    rows = section(report, "variant")
    fig, ax = plt.subplots(figsize=(8, 5))
    bits = sorted((r for r in rows if r["bits"] is not None and r["elo"] is not None), key=lambda r: r["bits"])
    if bits:
        xs = [r["bits"] for r in bits]
        ys = [r["elo"] for r in bits]
        low = [r["elo"] - r["elo_low"] if r["elo_low"] is not None else 0 for r in bits]
        high = [r["elo_high"] - r["elo"] if r["elo_high"] is not None else 0 for r in bits]
        ax.errorbar(xs, ys, yerr=[low, high], fmt="o-", capsize=4, label="k-bit signatures (95 % interval)")
        ax.set_xticks(xs)
    for r in rows:
        if r["bits"] is None and r["elo"] is not None:
            ax.axhline(r["elo"], color="0.4", linestyle="--", label=f"no table: {_elo_text(r)}")
            if r["elo_low"] is not None and r["elo_high"] is not None:
                ax.axhspan(r["elo_low"], r["elo_high"], color="0.85", alpha=0.5)
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xlabel("signature bits compared by a probe (the reference compares 64)")
    ax.set_ylabel("Elo against the 64-bit reference")
    ax.grid(True, alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8)
    else:  # every variant won or lost every game (or none was played): no finite Elo to draw
        ax.text(0.5, 0.5, "no variant has a finite Elo estimate", transform=ax.transAxes, ha="center", va="center")
    cfg = report["config"]
    fig.suptitle(f"Game results: {cfg['games']} games per variant at {cfg['tc']}, {cfg['hash_mb']} MB table")
    save_figure(fig, path)
