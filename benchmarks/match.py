#!/usr/bin/env python3
"""A match of Transpo against another engine, with clocks kept by this script.

Games start from a built-in list of short opening lines (played from the start
position, so engines without ``setboard`` can take part); each line is played
twice with the colours reversed.  The order of the lines is shuffled by
``--seed``.  For every move the side to move gets its remaining time and both
increments (UCI ``go wtime .. btime .. winc .. binc``; XBoard ``level``/``time``/
``otim``); the time it takes, measured here from the request to the answer, is
taken off its clock and then the increment is added.

A game ends by the rules as python-chess sees them
(``board.outcome(claim_draw=True)``: checkmate, stalemate, insufficient
material, seventy-five moves, fivefold, and claimable threefold and fifty-move
draws), by adjudication as a draw after ``--max-plies`` plies, or by a forfeit:

* **time**: a clock below zero when the move arrives (a draw instead if the
  other side has no mating material); logged;
* **illegal move**: a move that is not legal, or no move in a position with
  legal moves; logged LOUDLY when it is ours;
* **crash**: the engine process died or stopped answering; logged.
* **resignation** (XBoard engines may resign).

The summary gives W/D/L from Transpo's point of view, the score, and the Elo
difference with a 95% error bar in the logistic model:

    p     = (W + D/2) / N                        mean per-game score
    Elo   = -400 * log10(1/p - 1)
    sigma = sqrt( sum_i (x_i - p)^2 / N )        std. deviation of the per-game score x_i
    se    = sigma / sqrt(N)                      standard error of p
    95%   : Elo(p - 1.96 se) .. Elo(p + 1.96 se); "+-" is half that interval

and LOS = Phi((W - L) / sqrt(W + L)), the likelihood of superiority.

Opponents: ``sunfish`` (``sunfish-uci``), ``fairymax`` (XBoard; it lacks
``setboard``, which python-chess insists on at start-up, so the script accepts
it anyway and only ever plays it from the start position: python-chess then
sends ``new``, ``force`` and the moves one by one, ``usermove`` style if the
engine asked for it), ``gnuchess`` (``gnuchess --uci``) and ``stockfish``
(weakened with ``--sf-elo``, default 1350, its minimum, or ``--sf-skill``).

Usage::

    python benchmarks/match.py --opponent sunfish --games 40 --tc 10+0.1 --pgn sunfish.pgn
    python benchmarks/match.py --opponent fairymax --games 2 --tc 2+0.05      # smoke test
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import logging
import math
import os
import random
import shlex
import shutil
import statistics
import sys
import time
from dataclasses import dataclass, field

import chess
import chess.engine
import chess.pgn

OURS = "Transpo"

# Short opening lines (SAN, from the start position), each played with both colours.
OPENINGS: tuple[tuple[str, str], ...] = (
    ("Ruy Lopez", "e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6"),
    ("Italian", "e4 e5 Nf3 Nc6 Bc4 Bc5 c3 Nf6"),
    ("Two Knights", "e4 e5 Nf3 Nc6 Bc4 Nf6 d3 Be7"),
    ("Scotch", "e4 e5 Nf3 Nc6 d4 exd4 Nxd4 Nf6"),
    ("Petrov", "e4 e5 Nf3 Nf6 Nxe5 d6 Nf3 Nxe4"),
    ("Vienna", "e4 e5 Nc3 Nf6 f4 d5 fxe5 Nxe4"),
    ("Sicilian Najdorf", "e4 c5 Nf3 d6 d4 cxd4 Nxd4 Nf6 Nc3 a6"),
    ("Sicilian Alapin", "e4 c5 c3 Nf6 e5 Nd5 d4 cxd4"),
    ("Sicilian Taimanov", "e4 c5 Nf3 e6 d4 cxd4 Nxd4 Nc6"),
    ("French Winawer", "e4 e6 d4 d5 Nc3 Bb4 e5 c5"),
    ("French Advance", "e4 e6 d4 d5 e5 c5 c3 Nc6"),
    ("Caro-Kann", "e4 c6 d4 d5 Nc3 dxe4 Nxe4 Bf5"),
    ("Pirc", "e4 d6 d4 Nf6 Nc3 g6 f4 Bg7"),
    ("Scandinavian", "e4 d5 exd5 Qxd5 Nc3 Qa5 d4 Nf6"),
    ("Alekhine", "e4 Nf6 e5 Nd5 d4 d6 Nf3 Bg4"),
    ("Queen's Gambit Declined", "d4 d5 c4 e6 Nc3 Nf6 Bg5 Be7"),
    ("Queen's Gambit Accepted", "d4 d5 c4 dxc4 Nf3 Nf6 e3 e6"),
    ("Slav", "d4 d5 c4 c6 Nf3 Nf6 Nc3 dxc4"),
    ("Nimzo-Indian", "d4 Nf6 c4 e6 Nc3 Bb4 e3 O-O"),
    ("Queen's Indian", "d4 Nf6 c4 e6 Nf3 b6 g3 Bb7"),
    ("King's Indian", "d4 Nf6 c4 g6 Nc3 Bg7 e4 d6"),
    ("Gruenfeld", "d4 Nf6 c4 g6 Nc3 d5 cxd5 Nxd5"),
    ("Catalan", "d4 Nf6 c4 e6 g3 d5 Bg2 Be7"),
    ("Dutch", "d4 f5 g3 Nf6 Bg2 e6 Nf3 Be7"),
    ("Benoni", "d4 Nf6 c4 c5 d5 e6 Nc3 exd5"),
    ("London", "d4 d5 Nf3 Nf6 Bf4 e6 e3 c5"),
    ("English Symmetrical", "c4 c5 Nc3 Nc6 g3 g6 Bg2 Bg7"),
    ("English Reversed Sicilian", "c4 e5 Nc3 Nf6 Nf3 Nc6 g3 d5"),
    ("Reti", "Nf3 d5 c4 e6 g3 Nf6 Bg2 Be7"),
    ("Bird", "f4 d5 Nf3 g6 e3 Bg7 Be2 Nf6"),
)

GRACE_S = 5.0  # how long past its clock an engine is waited for before it is killed
START_TIMEOUT_S = 120.0  # engine start-up, including a cold numba compile of ours


def opening_moves(line: str) -> list[chess.Move]:
    """The moves of an opening line given in SAN or UCI (validated)."""
    board = chess.Board()
    moves = []
    for token in line.split():
        try:
            move = board.parse_uci(token)
        except ValueError:
            move = board.parse_san(token)
        moves.append(move)
        board.push(move)
    return moves


def parse_tc(text: str) -> tuple[float, float]:
    """'10+0.1' -> (10.0, 0.1) seconds; '60' -> (60.0, 0.0)."""
    base, _, inc = text.partition("+")
    base_s, inc_s = float(base), float(inc or 0)
    if base_s <= 0 or inc_s < 0:
        raise argparse.ArgumentTypeError(f"bad time control {text!r} (expected BASE[+INC] in seconds)")
    return base_s, inc_s


# --- engines -----------------------------------------------------------------------
class _LenientXBoard(chess.engine.XBoardProtocol):
    """python-chess's XBoard protocol, minus its start-up demand for ``feature setboard=1``.

    Fairy-Max declares ``setboard=0``.  setboard is only sent for games that do not
    start from the standard position, which this script never plays with XBoard
    engines (``Player.play`` refuses), so the feature is reported as present."""

    def _line_received(self, line: str) -> None:
        if line.startswith("feature") and "setboard=0" in line:
            line = line.replace("setboard=0", "setboard=1")
        super()._line_received(line)


@dataclass
class EngineSpec:
    name: str
    protocol: str  # "uci" or "xboard"
    command: list[str]
    options: dict = field(default_factory=dict)


class Player:
    """One engine process, restartable after a crash or a hang."""

    def __init__(self, spec: EngineSpec) -> None:
        self.spec = spec
        self.transport = None
        self.engine: chess.engine.Protocol | None = None

    @property
    def name(self) -> str:
        return self.spec.name

    async def start(self) -> None:
        if self.spec.protocol == "uci":
            self.transport, self.engine = await chess.engine.UciProtocol.popen(self.spec.command)
        else:
            self.transport, self.engine = await _LenientXBoard.popen(self.spec.command)
        await asyncio.wait_for(self.engine.initialize(), START_TIMEOUT_S)
        if self.spec.options:
            await self.engine.configure(self.spec.options)
        await asyncio.wait_for(self.engine.ping(), START_TIMEOUT_S)  # ours: waits for the numba warm-up

    async def new_game(self, game_id: str) -> None:
        """Start a game before the clock runs (python-chess would send ucinewgame inside the first play)."""
        if isinstance(self.engine, chess.engine.UciProtocol):
            self.engine.send_line("ucinewgame")
            self.engine.game = game_id  # tells python-chess the new game has been announced
            self.engine.first_game = False
            await asyncio.wait_for(self.engine.ping(), START_TIMEOUT_S)

    async def play(self, board: chess.Board, limit: chess.engine.Limit, game_id: str) -> chess.engine.PlayResult:
        if self.spec.protocol == "xboard" and board.root() != chess.Board():
            raise ValueError(f"{self.name} plays only from the start position (no setboard)")
        return await self.engine.play(board, limit, game=game_id, info=chess.engine.INFO_ALL)

    async def close(self) -> None:
        if self.engine is None:
            return
        try:
            await asyncio.wait_for(self.engine.quit(), 5)
        except Exception:  # noqa: BLE001 - a dead or hung engine: kill it
            try:
                self.transport.kill()
            except Exception:  # noqa: BLE001
                pass
        self.engine = self.transport = None

    async def restart(self) -> None:
        await self.close()
        await self.start()


def opponent_spec(args: argparse.Namespace) -> EngineSpec:
    name = args.opponent
    if name == "sunfish":
        command = shutil.which("sunfish-uci") or "sunfish-uci"
        return EngineSpec("sunfish", "uci", [command])
    if name == "fairymax":
        return EngineSpec("Fairy-Max", "xboard", [shutil.which("fairymax") or "/usr/games/fairymax"])
    if name == "gnuchess":
        return EngineSpec("GNU Chess", "uci", [shutil.which("gnuchess") or "/usr/games/gnuchess", "--uci"],
                          {"Hash": min(args.hash, 64)})
    if name == "stockfish":
        options: dict = {"Threads": 1, "Hash": 16}
        if args.sf_skill is not None:
            options["Skill Level"] = args.sf_skill
            label = f"Stockfish skill {args.sf_skill}"
        else:
            options.update({"UCI_LimitStrength": True, "UCI_Elo": args.sf_elo})
            label = f"Stockfish Elo {args.sf_elo}"
        return EngineSpec(label, "uci", [shutil.which("stockfish") or "/usr/games/stockfish"], options)
    raise ValueError(f"unknown opponent {name}")


# --- games -------------------------------------------------------------------------
@dataclass
class MoveStat:
    seconds: float
    clock_after: float  # before the increment
    depth: int | None
    nps: int | None


@dataclass
class GameRecord:
    index: int
    opening: str
    ours_white: bool
    result: str  # "1-0", "0-1", "1/2-1/2"
    termination: str
    board: chess.Board
    clocks: dict
    forfeit: str | None = None  # "time", "illegal", "crash" (by whom: forfeiter)
    forfeiter: str | None = None
    note: str = ""
    our_moves: list[MoveStat] = field(default_factory=list)

    @property
    def our_score(self) -> float:
        if self.result == "1/2-1/2":
            return 0.5
        white_won = self.result == "1-0"
        return 1.0 if white_won == self.ours_white else 0.0


def log(message: str) -> None:
    print(message, flush=True)


def loud(message: str) -> None:
    bar = "!" * 78
    print(f"{bar}\n!!! {message}\n{bar}", flush=True)
    print(f"!!! {message}", file=sys.stderr, flush=True)


async def play_game(index: int, opening: tuple[str, str], ours_white: bool, ours: Player, opponent: Player,
                    base: float, inc: float, max_plies: int) -> GameRecord:
    name, line = opening
    board = chess.Board()
    for move in opening_moves(line):
        board.push(move)
    game_id = f"game-{index}-{time.monotonic_ns()}"
    players = {chess.WHITE: ours if ours_white else opponent, chess.BLACK: opponent if ours_white else ours}
    clocks = {chess.WHITE: base, chess.BLACK: base}
    record = GameRecord(index, name, ours_white, "*", "", board, clocks)
    for player in (ours, opponent):
        await player.new_game(game_id)

    def forfeit(side: chess.Color, kind: str, note: str) -> None:
        loser = players[side]
        if kind == "time" and board.has_insufficient_material(not side):
            record.result, record.termination = "1/2-1/2", f"{loser.name} lost on time, but no mating material left"
        else:
            record.result = "0-1" if side == chess.WHITE else "1-0"
            record.termination = {"time": "time forfeit", "illegal": "illegal move", "crash": "engine crash",
                                  "resign": "resignation"}[kind]
        record.forfeit, record.forfeiter, record.note = kind, loser.name, note

    while True:
        outcome = board.outcome(claim_draw=True)
        if outcome is not None:
            record.result, record.termination = outcome.result(), outcome.termination.name.lower().replace("_", " ")
            break
        if board.ply() >= max_plies:
            record.result, record.termination = "1/2-1/2", f"adjudicated draw at {max_plies} plies"
            break
        side = board.turn
        player = players[side]
        limit = chess.engine.Limit(white_clock=clocks[chess.WHITE], black_clock=clocks[chess.BLACK],
                                   white_inc=inc, black_inc=inc, clock_id=game_id)  # XBoard: one level per game
        started = time.perf_counter()
        try:
            result = await asyncio.wait_for(player.play(board, limit, game_id), clocks[side] + GRACE_S)
        except asyncio.TimeoutError:
            elapsed = time.perf_counter() - started
            forfeit(side, "time", f"{player.name} gave no move in {elapsed:.2f} s with {clocks[side]:.3f} s left")
            await player.restart()
            break
        except chess.engine.EngineTerminatedError as exc:
            forfeit(side, "crash", f"{player.name} died: {exc}")
            await player.restart()
            break
        except chess.engine.EngineError as exc:  # python-chess rejects an illegal bestmove
            forfeit(side, "illegal", f"{player.name}: {exc}")
            break
        elapsed = time.perf_counter() - started
        clocks[side] -= elapsed
        if clocks[side] < 0:
            forfeit(side, "time", f"{player.name} flagged: move took {elapsed:.3f} s, clock {clocks[side]:+.3f} s")
            break
        if result.resigned:
            forfeit(side, "resign", f"{player.name} resigned")
            break
        if result.move is None or result.move not in board.legal_moves:
            forfeit(side, "illegal", f"{player.name} played {result.move} in {board.fen()}")
            break
        if player is ours:
            info = result.info or {}
            nps = info.get("nps")
            if nps is None and info.get("nodes") and info.get("time"):
                nps = int(info["nodes"] / max(info["time"], 1e-3))
            record.our_moves.append(MoveStat(elapsed, clocks[side], info.get("depth"), nps))
            text = info.get("string")
            if text and "error" in text.lower():
                loud(f"{OURS} said: info string {text} (game {index + 1}, {board.fen()})")
        board.push(result.move)
        clocks[side] += inc
    return record


def game_pgn(record: GameRecord, white: str, black: str, tc: str, event: str) -> chess.pgn.Game:
    game = chess.pgn.Game.from_board(record.board)
    game.headers.update({
        "Event": event, "Site": os.uname().nodename, "Date": datetime.date.today().strftime("%Y.%m.%d"),
        "Round": str(record.index + 1), "White": white, "Black": black, "Result": record.result,
        "TimeControl": tc, "Opening": record.opening, "Termination": record.termination,
        "PlyCount": str(record.board.ply()),
    })
    game.headers["Result"] = record.result
    if record.note:
        end = game.end()
        end.comment = record.note
    return game


# --- statistics --------------------------------------------------------------------
def elo_of(p: float) -> float:
    if p <= 0:
        return -math.inf
    if p >= 1:
        return math.inf
    return -400 * math.log10(1 / p - 1)


def elo_summary(scores: list[float]) -> tuple[float, float, float, float]:
    """(Elo, 95% error bar, low, high) of the mean of per-game scores (logistic model)."""
    n = len(scores)
    p = sum(scores) / n
    sigma = math.sqrt(sum((x - p) ** 2 for x in scores) / n)
    se = sigma / math.sqrt(n)
    low, high = elo_of(p - 1.959964 * se), elo_of(p + 1.959964 * se)
    error = (high - low) / 2 if math.isfinite(low) and math.isfinite(high) else math.inf
    return elo_of(p), error, low, high


def los(wins: int, losses: int) -> float:
    if wins + losses == 0:
        return 0.5
    return 0.5 * (1 + math.erf((wins - losses) / math.sqrt(2 * (wins + losses))))


def fmt_elo(value: float) -> str:
    return f"{value:+.0f}" if math.isfinite(value) else ("+inf" if value > 0 else "-inf")


# --- the match ---------------------------------------------------------------------
async def run_match(args: argparse.Namespace) -> int:
    base, inc = args.tc
    ours_spec = EngineSpec(OURS, "uci", shlex.split(args.engine_cmd) if args.engine_cmd else
                           [sys.executable, "-m", "transpo.cli"], {"Hash": args.hash})
    opp_spec = opponent_spec(args)
    order = list(range(len(OPENINGS)))
    random.Random(args.seed).shuffle(order)
    schedule = [(i, OPENINGS[order[(i // 2) % len(order)]], i % 2 == 0) for i in range(args.games)]

    log(f"{OURS} vs {opp_spec.name}: {args.games} games at {args.tc_text} (base+inc s), max {args.max_plies} plies, "
        f"concurrency {args.concurrency}, seed {args.seed}, Hash {args.hash} MB")
    log(f"  ours: {' '.join(ours_spec.command)}; opponent: {' '.join(opp_spec.command)} {opp_spec.options or ''}")
    log(f"  load average at start {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")

    queue: asyncio.Queue = asyncio.Queue()
    for item in schedule:
        queue.put_nowait(item)
    records: list[GameRecord] = []
    tally = {"w": 0, "d": 0, "l": 0}
    pgn_lock = asyncio.Lock()

    async def worker(worker_id: int) -> None:
        ours, opponent = Player(ours_spec), Player(opp_spec)
        try:
            await ours.start()
            await opponent.start()
            while not queue.empty():
                index, opening, ours_white = queue.get_nowait()
                record = await play_game(index, opening, ours_white, ours, opponent, base, inc, args.max_plies)
                records.append(record)
                key = {1.0: "w", 0.5: "d", 0.0: "l"}[record.our_score]
                tally[key] += 1
                white, black = (OURS, opponent.name) if ours_white else (opponent.name, OURS)
                depths = [m.depth for m in record.our_moves if m.depth]
                ours_left = record.clocks[chess.WHITE if ours_white else chess.BLACK]
                log(f"game {index + 1:3d}/{args.games}  {white:>14} - {black:<14} {record.result:>7}  "
                    f"{record.termination:<28} {record.board.ply():3d} plies  {record.opening:<26} "
                    f"ours: avg depth {statistics.mean(depths) if depths else 0:4.1f}, clock left {ours_left:6.2f} s"
                    f"   [+{tally['w']} ={tally['d']} -{tally['l']}]")
                if record.forfeit:
                    message = f"game {index + 1}: {record.forfeit} forfeit by {record.forfeiter}: {record.note}"
                    loud(message) if record.forfeiter == OURS else log(f"    {message}")
                if args.pgn:
                    async with pgn_lock:
                        with open(args.pgn, "a", encoding="utf-8") as handle:
                            print(game_pgn(record, white, black, args.tc_text, f"{OURS} vs {opponent.name}"),
                                  file=handle, end="\n\n")
        finally:
            await ours.close()
            await opponent.close()

    started = time.perf_counter()
    await asyncio.gather(*(worker(i) for i in range(max(1, min(args.concurrency, args.games)))))
    wall = time.perf_counter() - started

    records.sort(key=lambda r: r.index)
    scores = [r.our_score for r in records]
    n = len(scores)
    if n == 0:
        log("no games played")
        return 1
    wins, draws, losses = scores.count(1.0), scores.count(0.5), scores.count(0.0)
    elo, error, low, high = elo_summary(scores)
    ours_time = sum(1 for r in records if r.forfeit == "time" and r.forfeiter == OURS)
    opp_time = sum(1 for r in records if r.forfeit == "time" and r.forfeiter != OURS)
    ours_illegal = sum(1 for r in records if r.forfeit == "illegal" and r.forfeiter == OURS)
    opp_illegal = sum(1 for r in records if r.forfeit == "illegal" and r.forfeiter != OURS)
    ours_crash = sum(1 for r in records if r.forfeit == "crash" and r.forfeiter == OURS)
    opp_crash = sum(1 for r in records if r.forfeit == "crash" and r.forfeiter != OURS)
    moves = [m for r in records for m in r.our_moves]
    depths = [m.depth for m in moves if m.depth]
    npss = [m.nps for m in moves if m.nps]

    log("")
    log(f"{OURS} vs {opp_spec.name}, {n} games at {args.tc_text}, {wall / 60:.1f} min")
    log(f"  W/D/L (ours): {wins}/{draws}/{losses}   score {100 * sum(scores) / n:.1f}%   "
        f"Elo {fmt_elo(elo)} +- {error:.0f} (95%: {fmt_elo(low)} .. {fmt_elo(high)})   LOS {100 * los(wins, losses):.1f}%")
    as_white = [r.our_score for r in records if r.ours_white]
    as_black = [r.our_score for r in records if not r.ours_white]
    log(f"  as white {sum(as_white):g}/{len(as_white)}, as black {sum(as_black):g}/{len(as_black)}")
    log(f"  time losses: ours {ours_time}, opponent {opp_time}   illegal moves: ours {ours_illegal}, opponent "
        f"{opp_illegal}   crashes: ours {ours_crash}, opponent {opp_crash}")
    terminations: dict[str, int] = {}
    for r in records:
        terminations[r.termination] = terminations.get(r.termination, 0) + 1
    log("  endings: " + ", ".join(f"{k} {v}" for k, v in sorted(terminations.items(), key=lambda kv: -kv[1])))
    if moves:
        log(f"  ours: {len(moves)} moves, avg depth {statistics.mean(depths) if depths else 0:.1f}, "
            f"median nps {statistics.median(npss) if npss else 0:,.0f}, longest move {max(m.seconds for m in moves):.2f} s, "
            f"lowest clock after a move {min(m.clock_after for m in moves):.3f} s")
    if ours_time or ours_illegal or ours_crash:
        loud(f"{OURS} FORFEITED {ours_time + ours_illegal + ours_crash} game(s): "
             f"time {ours_time}, illegal {ours_illegal}, crash {ours_crash}")
    if args.pgn:
        log(f"  PGN appended to {args.pgn}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Play Transpo against another engine; print W/D/L and Elo.")
    parser.add_argument("--opponent", choices=("sunfish", "fairymax", "gnuchess", "stockfish"), default="sunfish")
    parser.add_argument("--games", type=int, default=40, help="number of games (default 40; even: colour pairs)")
    parser.add_argument("--tc", default="10+0.1", help="BASE+INC in seconds per game and per move (default 10+0.1)")
    parser.add_argument("--concurrency", type=int, default=1, help="games at once (default 1; 2 cores here)")
    parser.add_argument("--seed", type=int, default=1, help="shuffles the opening order (default 1)")
    parser.add_argument("--max-plies", type=int, default=200, help="adjudicate a draw after this many plies (default 200)")
    parser.add_argument("--hash", type=int, default=64, help="our Hash in MB (default 64)")
    parser.add_argument("--engine-cmd", help="command line of our engine (default: python -m transpo.cli)")
    parser.add_argument("--sf-elo", type=int, default=1350, help="stockfish UCI_Elo (default 1350, its minimum)")
    parser.add_argument("--sf-skill", type=int, help="stockfish Skill Level 0-20 instead of UCI_Elo")
    parser.add_argument("--pgn", help="append the games to this PGN file")
    parser.add_argument("--debug", action="store_true", help="log the engine traffic (python-chess debug log)")
    args = parser.parse_args(argv)
    try:
        args.tc_text = args.tc
        args.tc = parse_tc(args.tc)
    except (ValueError, argparse.ArgumentTypeError) as exc:
        parser.error(str(exc))
    if args.games < 1:
        parser.error("--games must be >= 1")
    logging.basicConfig(level=logging.DEBUG if args.debug else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    for _, line in OPENINGS:
        opening_moves(line)  # fail now on a bad line
    return asyncio.run(run_match(args))


if __name__ == "__main__":
    sys.exit(main())
