#!/usr/bin/env python3
"""Generate the balanced opening set ``src/transpo/tools/data/openings.epd`` with Stockfish.

Each line is grown from the start position one ply at a time: Stockfish (MultiPV
``--multipv``, depth ``--pick-depth``) lists its best moves, and one is drawn at
random (``--seed``) among those within ``--spread`` cp of the best, so the lines
look like openings people play, with variety.  After ``--plies`` plies (drawn per
line from the range) the position is scored at depth ``--depth``; it is kept when
the score lies within +-``--max-cp`` and its first four FEN fields (board, side,
castling, en passant) are new.  Stockfish is a tool of this script only; the
engine never runs it.

    python scripts/make_openings.py                      # the shipped file (150 positions)
    python scripts/make_openings.py --count 20 --out /tmp/o.epd
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

import chess
import chess.engine

DEFAULT_OUT = Path(__file__).resolve().parent.parent / "src" / "transpo" / "tools" / "data" / "openings.epd"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--stockfish", default="/usr/games/stockfish")
    parser.add_argument("--count", type=int, default=150)
    parser.add_argument("--plies", default="6-8", help="line length range, e.g. 6-8")
    parser.add_argument("--multipv", type=int, default=5)
    parser.add_argument("--pick-depth", type=int, default=8)
    parser.add_argument("--spread", type=int, default=40, help="cp below the best a picked move may be")
    parser.add_argument("--depth", type=int, default=14, help="depth of the final score")
    parser.add_argument("--max-cp", type=int, default=50)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    low, _, high = args.plies.partition("-")
    plies = (int(low), int(high or low))
    rng = random.Random(args.seed)
    seen: set[str] = set()
    kept: list[str] = []
    tried = 0
    with chess.engine.SimpleEngine.popen_uci(args.stockfish) as sf:
        sf.configure({"Threads": 1, "Hash": 16})
        version = sf.id.get("name", "Stockfish")
        while len(kept) < args.count and tried < 20 * args.count:
            tried += 1
            board = chess.Board()
            for _ in range(rng.randint(*plies)):
                infos = sf.analyse(board, chess.engine.Limit(depth=args.pick_depth), multipv=args.multipv)
                scored = [(i["score"].relative.score(mate_score=100000), i["pv"][0]) for i in infos if i.get("pv")]
                best = max(s for s, _ in scored)
                board.push(rng.choice([m for s, m in scored if s >= best - args.spread]))
            if board.is_game_over():
                continue
            key = " ".join(board.fen().split()[:4])
            if key in seen:
                continue
            sf.configure({"Clear Hash": None})
            score = sf.analyse(board, chess.engine.Limit(depth=args.depth))["score"].white().score(mate_score=100000)
            if abs(score) > args.max_cp:
                continue
            seen.add(key)
            line = chess.Board().variation_san(board.move_stack)
            kept.append(f'{board.epd()} c0 "{line}"; c1 "sf {score:+d}";')
            print(f"{len(kept):3d} {score:+4d} {line}", file=sys.stderr)
    header = [
        f"# Balanced opening set of Transpo: {len(kept)} positions, {plies[0]}-{plies[1]} plies from the start.",
        f"# Made by scripts/make_openings.py --seed {args.seed} with {version} (Threads 1, Hash 16):",
        f"# moves drawn among its MultiPV {args.multipv} at depth {args.pick_depth} within {args.spread} cp of the best;",
        f"# kept when its depth-{args.depth} score (White's view, c1) is within +-{args.max_cp} cp; no duplicate positions.",
        "# c0: the line in SAN from the start position.",
    ]
    args.out.write_text("\n".join(header + kept) + "\n")
    print(f"{len(kept)} positions of {tried} lines tried -> {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
