"""The ``transpo match``, ``transpo epd`` and ``transpo tune`` subcommands (plain Python at import: nothing compiled).

``add_tool_parsers(sub, run_interruptible)`` registers them on the CLI's subparsers;
the CLI hands in its ``run_interruptible`` so Ctrl-C ends a match at once (the
engines killed, the partial result printed) without this layer importing the CLI.
"""

from __future__ import annotations

import argparse
import shutil
from collections.abc import Callable


def cmd_match(args: argparse.Namespace) -> None:
    """``transpo match``: play the match; the summary on stdout, a line per game on stderr."""
    from transpo.tools.match import Match, build_config

    config = build_config(
        args.engine, args.option, args.games, args.tc, openings=args.openings, concurrency=args.concurrency,
        pgn=args.pgn, json=args.json, sprt=args.sprt, seed=args.seed, margin_s=args.margin,
        draw=args.draw_adjudication, resign=args.resign_adjudication, ray=args.ray,
    )  # fmt: skip
    match = Match(config)
    args.run_interruptible(match.run, match.interrupt)


def cmd_epd(args: argparse.Namespace) -> None:
    """``transpo epd``: solve a test suite with the engine in-process."""
    from transpo.tools.epd import run_suite_command

    args.run_interruptible(lambda: run_suite_command(args), None)


def cmd_tune_positions(args: argparse.Namespace) -> None:
    """``transpo tune positions``: quiet positions of PGN games, labelled with the result, to EPD."""
    from transpo.tools.tune import run_positions

    run_positions(args)


def cmd_tune_score(args: argparse.Namespace) -> None:
    """``transpo tune score``: relabel positions by a UCI engine's scores (expected results in c9)."""
    from transpo.tools.tune import run_score

    run_score(args)  # python-chess waits in this thread: Ctrl-C is seen at once


def cmd_tune_fit(args: argparse.Namespace) -> None:
    """``transpo tune fit``: fit K and the evaluation's weights to labelled positions; write a weights file."""
    from transpo.compiling import EVALUATION, compile_notice

    with compile_notice(EVALUATION):
        import transpo.engine.evaluate  # noqa: F401  (compiled here, under the notice)
    from transpo.tools.tune import run_fit

    run_fit(args)  # its compiled calls are short: Ctrl-C is seen between them


def _add_tune_parser(sub) -> None:
    """``transpo tune positions`` and ``transpo tune fit`` (docs/TUNING.md)."""
    tune = sub.add_parser(
        "tune",
        help="fit the evaluation's weights to game results (Texel's method): positions, then fit",
        description="Two steps: 'tune positions' turns PGN games into labelled quiet positions (EPD, result in c9), "
        "'tune fit' fits K and the weights to them and writes a weights file. Between them, 'tune score' may "
        "relabel the positions by a UCI engine's scores. See docs/TUNING.md.",
    )
    steps = tune.add_subparsers(dest="tune_command", metavar="step", required=True)
    positions = steps.add_parser("positions", help="quiet positions of PGN games with their results, to EPD")
    positions.add_argument("pgn", nargs="+", metavar="PGN", help="PGN files of finished games")
    positions.add_argument("--out", required=True, metavar="FILE.epd", help="write the labelled positions here")
    positions.add_argument("--skip-plies", type=int, default=8, metavar="N", help="skip the first N plies (default 8)")
    positions.add_argument("--per-game", type=int, metavar="N", help="at most N random positions a game (default all)")
    positions.add_argument("--seed", type=int, default=1, help="seed of the --per-game sample (default 1)")
    positions.set_defaults(func=cmd_tune_positions)

    score = steps.add_parser("score", help="relabel positions by a UCI engine's scores (default Stockfish, depth 8)")
    score.add_argument("epd", nargs="+", metavar="EPD", help="positions (from 'tune positions')")
    score.add_argument("--out", required=True, metavar="FILE.epd", help="write the relabelled positions here")
    score.add_argument("--engine", default=shutil.which("stockfish") or "/usr/games/stockfish", metavar="CMD",
                       help="the UCI engine's command line (default: stockfish)")  # fmt: skip
    score.add_argument("--depth", type=int, metavar="D", help="search each position to this depth (default 8)")
    score.add_argument("--nodes", type=int, metavar="N", help="search each position this many nodes instead")
    score.set_defaults(func=cmd_tune_score)

    fit = steps.add_parser("fit", help="fit K, then every term weight (mg and eg) by Adam; write a weights file")
    fit.add_argument("epd", nargs="+", metavar="EPD", help="labelled positions (from 'tune positions')")
    fit.add_argument("--out", required=True, metavar="WEIGHTS.json", help="write the fitted weights here")
    fit.add_argument("--psq", action="store_true", help="refit the piece-square values (material included) too")
    fit.add_argument("--keep-material", action="store_true",
                     help="with --psq: keep each piece's mean value where the positions' pieces stand "
                          "(the search's margins are set on it)")  # fmt: skip
    fit.add_argument("--epochs", type=int, default=1000, help="full-batch Adam steps (default 1000)")
    fit.add_argument("--lr", type=float, default=1.0, metavar="X", help="Adam step in centipawns (default 1)")
    fit.add_argument("--validation", type=float, default=0.1, metavar="F",
                     help="fraction of openings held out to measure the fit (default 0.1)")  # fmt: skip
    fit.add_argument("--seed", type=int, default=1, help="seed of the validation split (default 1)")
    fit.add_argument(
        "--l2",
        type=float,
        default=0.0,
        metavar="L",
        help="pull towards the starting weights: L per 100 cp of distance, squared (default 0)",
    )
    fit.add_argument("--start", metavar="WEIGHTS.json",
                     help="start from this file's term weights (default: the shipped weights)")  # fmt: skip
    fit.add_argument("--k", type=float, metavar="K",
                     help="use this scale constant instead of fitting it with the starting weights")  # fmt: skip
    fit.set_defaults(func=cmd_tune_fit)


def add_tool_parsers(sub, run_interruptible: Callable) -> None:
    """Add ``match``, ``epd`` and ``tune`` to the ``transpo`` subparsers."""
    match = sub.add_parser(
        "match",
        help="play UCI engines against each other: W/D/L, Elo +- 95%% interval, pentanomial pairs, SPRT",
        description="Two engines: a match; more: a gauntlet of the first against each other one. Every opening is "
        "played twice with colours reversed; clocks are kept here. See docs/STRENGTH.md.",
    )
    match.add_argument(
        "--engine",
        action="append",
        default=[],
        metavar="NAME=CMD",
        required=True,
        help='an engine, e.g. new="python3 -m transpo" (give two or more)',
    )
    match.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME:Opt=Value",
        help="a UCI option of engine NAME, e.g. base:Hash=16",
    )
    match.add_argument("--games", type=int, default=20, help="games per pairing (default 20; even: whole pairs)")
    match.add_argument("--tc", default="10+0.1", help="BASE+INC seconds (default 10+0.1)")
    match.add_argument("--openings", metavar="FILE", help="EPD or PGN openings (default: the shipped 150 positions)")
    match.add_argument("--concurrency", type=int, metavar="K",
                       help="games at once (default 1; with --ray, one per CPU of the cluster)")  # fmt: skip
    match.add_argument("--ray", metavar="ADDRESS",
                       help="play the games on the Ray cluster at ADDRESS (HOST:6379), or 'local' to start one here "
                            "for the match (needs the ray extra: pip install -e '.[ray]')")  # fmt: skip
    match.add_argument("--pgn", metavar="OUT", help="write the games here (PGN)")
    match.add_argument("--json", metavar="OUT", help="write config, games and summary here")
    match.add_argument("--sprt", metavar="SPEC", help="e.g. elo0=0,elo1=5,alpha=0.05,beta=0.05: stop at a bound")
    match.add_argument("--seed", type=int, help="shuffle the opening order (default: file order)")
    match.add_argument(
        "--margin",
        type=float,
        default=1.0,
        metavar="S",
        help="seconds past its clock before a silent engine forfeits (default 1)",
    )
    match.add_argument(
        "--draw-adjudication",
        metavar="SPEC",
        help="e.g. moves=8,score=10,after=40: draw when both scores stay within 10 cp (off)",
    )
    match.add_argument(
        "--resign-adjudication",
        metavar="SPEC",
        help="e.g. moves=4,score=600: loss when both scores agree beyond 600 cp (off)",
    )
    match.set_defaults(func=cmd_match, run_interruptible=run_interruptible)  # fmt: skip

    epd = sub.add_parser("epd", help="run an EPD test suite (bm/am) with the engine: solved count, move, depth, time")
    epd.add_argument("file", help="EPD file, or bk (Bratko-Kopec) or mates (the shipped suites)")
    limit = epd.add_mutually_exclusive_group()
    limit.add_argument("--movetime", type=int, metavar="MS", help="per position (default 1000)")
    limit.add_argument("--depth", type=int, help="per position")
    limit.add_argument("--nodes", type=int, help="per position")
    epd.add_argument("--hash", type=int, default=64, metavar="MB", help="table size (default 64)")
    epd.add_argument("--json", metavar="OUT", help="write the results here")
    epd.set_defaults(func=cmd_epd, run_interruptible=run_interruptible)

    _add_tune_parser(sub)
