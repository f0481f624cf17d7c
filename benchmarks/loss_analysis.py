#!/usr/bin/env python3
"""Where an engine's games were lost: every move it played, judged by Stockfish before and after.

Reads a ``transpo match`` JSON, replays each game the named engine lost (``--all``: every game)
from its opening, and asks Stockfish (full strength, one thread, ``--nodes`` per position) for
the score before and after each of that engine's moves, from the engine's side.  A move's *drop*
is the score before minus the score after.  Printed: for each lost game the costliest move played
from a position that was not yet lost (score >= ``--from-cp``), then the drops of the moves played
from roughly even positions (between -200 and +200) by game phase and by the kind of move.  Stockfish
is a measuring instrument here; the engine never consults it.

    python benchmarks/loss_analysis.py docs/strength/transpo-vs-stockfish2400-10+0.1-ec05694.json
    python benchmarks/loss_analysis.py match.json --engine Transpo --nodes 300000 --json drops.json

At 100,000 nodes a position (about 0.1 s) a score is good to a few tens of centipawns: read the
tables as where the losses concentrate, not as the value of any single move.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
from collections import defaultdict
from dataclasses import asdict, dataclass

import chess
import chess.engine

from transpo.tools.openings import load_openings

EVEN_CP = 200  # moves from positions within +-EVEN_CP go into the tables
MATE_CP = 3000  # a forced mate counts as this many centipawns
PHASE_WEIGHTS = {chess.KNIGHT: 1, chess.BISHOP: 1, chess.ROOK: 2, chess.QUEEN: 4}  # 24 at the start


@dataclass(frozen=True)
class JudgedMove:
    """One move of the engine with Stockfish's score of the position before and after it (engine's view)."""

    game: int
    ply: int  # plies after the opening
    san: str
    kind: str  # "pawn", "N", "B", "R", "Q", "K" or "castle"; "x" appended for a capture ("Nx")
    phase: int  # 24 = all pieces on, 0 = pawns and kings
    before: int
    after: int

    @property
    def drop(self) -> int:
        return self.before - self.after


def move_kind(board: chess.Board, move: chess.Move) -> str:
    """The kind of a move for the tables: the piece (pawn, N, B, R, Q, K) or castle, "x" added for a capture."""
    if board.is_castling(move):
        return "castle"
    piece = board.piece_type_at(move.from_square)
    kind = "pawn" if piece == chess.PAWN else chess.piece_symbol(piece).upper()
    return kind + "x" if board.is_capture(move) else kind


def phase_of(board: chess.Board) -> int:
    """The game phase as the evaluation counts it: 1 a minor piece, 2 a rook, 4 a queen, both sides."""
    return sum(len(board.pieces(piece, colour)) * weight for piece, weight in PHASE_WEIGHTS.items()
               for colour in chess.COLORS)  # fmt: skip


def judge_game(game: dict, start: chess.Board, engine_name: str, sf: chess.engine.SimpleEngine,
               limit: chess.engine.Limit) -> list[JudgedMove]:  # fmt: skip
    """Stockfish's scores around every move ``engine_name`` played in ``game``."""
    board = start.copy()
    side = chess.WHITE if game["white"] == engine_name else chess.BLACK
    judged = []
    for ply, uci in enumerate(game["moves"]):
        move = chess.Move.from_uci(uci)
        if board.turn == side:
            before = sf.analyse(board, limit)["score"].pov(side).score(mate_score=MATE_CP)
            san, kind, phase = board.san(move), move_kind(board, move), phase_of(board)
            board.push(move)
            after = sf.analyse(board, limit)["score"].pov(side).score(mate_score=MATE_CP)
            judged.append(JudgedMove(game["index"], ply, san, kind, phase, before, after))
        else:
            board.push(move)
    return judged


def lost(game: dict, engine_name: str) -> bool:
    """Whether ``engine_name`` lost ``game``."""
    return game["result"] == ("0-1" if game["white"] == engine_name else "1-0")


def phase_band(phase: int) -> str:
    """The row of the phase table a move goes into."""
    if phase >= 16:
        return "opening and middlegame (phase 16-24)"
    return "middlegame (8-15)" if phase >= 8 else "endgame (0-7)"


def print_tables(moves: list[JudgedMove], from_cp: int) -> None:
    """The costliest move of each game, then the drops from even positions by phase and by kind."""
    by_game: dict[int, list[JudgedMove]] = defaultdict(list)
    for move in moves:
        by_game[move.game].append(move)
    print(f"costliest move of each game from a position scored >= {from_cp} cp:")
    for game, judged in sorted(by_game.items()):
        alive = [move for move in judged if move.before >= from_cp]
        if alive:
            worst = max(alive, key=lambda move: move.drop)
            print(f"  game {game:4d}  ply {worst.ply:3d}  {worst.san:8s} phase {worst.phase:2d}  "
                  f"{worst.before:+6d} -> {worst.after:+6d}  (drop {worst.drop})")  # fmt: skip
    even = [move for move in moves if -EVEN_CP <= move.before <= EVEN_CP]
    for title, key in (("game phase", lambda move: phase_band(move.phase)), ("kind of move", lambda move: move.kind)):
        groups: dict[str, list[int]] = defaultdict(list)
        for move in even:
            groups[key(move)].append(move.drop)
        print(f"\nmoves from positions within +-{EVEN_CP} cp, by {title}:")
        print(f"  {'':38s} {'moves':>6s} {'mean drop':>10s} {'median':>7s} {'drops >= 50':>12s} {'sum of drops':>13s}")
        for name, drops in sorted(groups.items(), key=lambda item: -sum(item[1])):
            big = sum(drop >= 50 for drop in drops) / len(drops)
            print(f"  {name:38s} {len(drops):6d} {statistics.mean(drops):10.1f} {statistics.median(drops):7.1f} "
                  f"{big:12.0%} {sum(max(drop, 0) for drop in drops):13d}")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Where an engine's games were lost, move by move, by Stockfish.")
    parser.add_argument("match_json", help="a transpo match JSON (transpo-match/1)")
    parser.add_argument("--engine", default="Transpo", help="the engine whose moves are judged (default Transpo)")
    parser.add_argument("--nodes", type=int, default=100_000, help="Stockfish nodes per position (default 100000)")
    parser.add_argument("--all", action="store_true", help="every game, not only the lost ones")
    parser.add_argument("--from-cp", type=int, default=-100, help="a game's costliest move counts from here (-100)")
    parser.add_argument("--stockfish", default=shutil.which("stockfish") or "/usr/games/stockfish")
    parser.add_argument("--json", help="write every judged move here")
    args = parser.parse_args(argv)
    with open(args.match_json, encoding="utf-8") as handle:
        match = json.load(handle)
    source = match["config"].get("openings", "default")
    openings = {opening.name: opening.board for opening in load_openings(None if source == "default" else source)}
    games = [game for game in match["games"] if args.engine in (game["white"], game["black"])]
    games = [game for game in games if args.all or lost(game, args.engine)]
    if not games:
        print(f"error: no {'' if args.all else 'lost '}games of {args.engine} in {args.match_json}", file=sys.stderr)
        return 2
    moves: list[JudgedMove] = []
    with chess.engine.SimpleEngine.popen_uci(args.stockfish) as sf:
        sf.configure({"Threads": 1, "Hash": 64})
        limit = chess.engine.Limit(nodes=args.nodes)
        for number, game in enumerate(games, 1):
            moves += judge_game(game, openings[game["opening_name"]], args.engine, sf, limit)
            print(f"game {number}/{len(games)} judged", file=sys.stderr, flush=True)
    print(f"{len(games)} games, {len(moves)} moves of {args.engine}, Stockfish {args.nodes} nodes a position\n")
    print_tables(moves, args.from_cp)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump([asdict(move) | {"drop": move.drop} for move in moves], handle, indent=1)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
