#!/usr/bin/env python3
"""Transpo against a named opponent: a thin wrapper over ``transpo match`` (src/transpo/tools/match.py).

It only builds the engine lines: ``Transpo`` (``python -m transpo``, or
``--engine-cmd``) with ``--hash``, and the opponent: ``sunfish`` (``sunfish-uci``),
``gnuchess`` (``gnuchess --uci``) or ``stockfish`` (weakened with ``--sf-elo``,
default 1350, its minimum, or ``--sf-skill``).  Everything else (clocks, game
pairs, the shipped openings, forfeits, Elo, pentanomial, SPRT, PGN and JSON) is
``transpo match``'s; any further option is passed to it unchanged, e.g.
``--sprt elo0=0,elo1=5`` or ``--json out.json``.

    python benchmarks/match.py --opponent sunfish --games 40 --tc 10+0.1 --pgn sunfish.pgn
    python benchmarks/match.py --opponent stockfish --sf-elo 1500 --games 20 --tc 5+0.05 --json sf.json
    python benchmarks/match.py --opponent stockfish --sf-elo 2400 --threads 2 --concurrency 1 --games 100

``--threads`` gives both Transpo and Stockfish that many search threads (Stockfish's
other settings stay as below); sunfish and GNU Chess search with one whatever it says.
"""

from __future__ import annotations

import argparse
import shlex
import shutil
import sys

from transpo.cli import main as transpo_main

OURS = "Transpo"


def opponent(args: argparse.Namespace) -> tuple[str, str, list[str]]:
    """(name, command line, --option arguments) of the opponent."""
    if args.opponent == "sunfish":
        return "sunfish", shutil.which("sunfish-uci") or "sunfish-uci", []
    if args.opponent == "gnuchess":
        return "GNUChess", f"{shutil.which('gnuchess') or '/usr/games/gnuchess'} --uci", []
    # Stockfish's default Move Overhead (10 ms) lost 12 of 100 games on time at 10+0.1 on the loaded
    # 2-core machine (docs/STRENGTH.md); Transpo keeps 50 ms back by default
    options = [f"Threads={args.threads}", "Hash=16", "Move Overhead=100"]
    if args.sf_skill is not None:
        name, options = f"Stockfish-skill{args.sf_skill}", [*options, f"Skill Level={args.sf_skill}"]
    else:
        name, options = f"Stockfish-{args.sf_elo}", [*options, "UCI_LimitStrength=true", f"UCI_Elo={args.sf_elo}"]
    return name, shutil.which("stockfish") or "/usr/games/stockfish", options


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Play Transpo against another engine with transpo match.")
    parser.add_argument("--opponent", choices=("sunfish", "gnuchess", "stockfish"), default="sunfish")
    parser.add_argument("--games", type=int, default=40, help="number of games (default 40; even: colour pairs)")
    parser.add_argument("--tc", default="10+0.1", help="BASE+INC in seconds (default 10+0.1)")
    parser.add_argument("--hash", type=int, default=64, help="our Hash in MB (default 64)")
    parser.add_argument("--engine-cmd", default=f"{sys.executable} -m transpo", help="our engine's command line")
    parser.add_argument("--sf-elo", type=int, default=1350, help="stockfish UCI_Elo (default 1350, its minimum)")
    parser.add_argument("--sf-skill", type=int, help="stockfish Skill Level 0-20 instead of UCI_Elo")
    parser.add_argument(
        "--threads", type=int, default=1,
        help="search threads of Transpo and of Stockfish (default 1; with 2 on a 2-core machine, play one game at a time)",
    )  # fmt: skip
    args, rest = parser.parse_known_args(argv)
    name, command, options = opponent(args)
    argv_out = ["match", "--engine", f"{OURS}={args.engine_cmd}", "--engine", f"{name}={command}",
                "--option", f"{OURS}:Hash={args.hash}", "--option", f"{OURS}:Threads={args.threads}",
                "--games", str(args.games), "--tc", args.tc]  # fmt: skip
    for option in options:
        argv_out += ["--option", f"{name}:{option}"]
    print("transpo " + " ".join(shlex.quote(a) for a in argv_out + rest), file=sys.stderr)
    return transpo_main(argv_out + rest)


if __name__ == "__main__":
    sys.exit(main())
