"""``transpo match``: games between UCI engines with clocks kept here, Elo, pentanomial pairs and the SPRT.

* **Engines**: ``--engine NAME=CMD`` (a command line, split like a shell would),
  ``--option NAME:Opt=Value``.  Two engines: one pairing.  More: a **gauntlet**
  of the first engine against each of the others (every pairing with its own
  statistics).
* **Openings**: the shipped balanced set by default; pair ``k`` of a pairing plays
  opening ``k`` (cycling, in file order, or shuffled by ``--seed``) twice, the
  first engine White in the first game of the pair and Black in the second.
* **Clocks**: each request carries both clocks and increments
  (``chess.engine.Limit(white_clock=..., black_clock=..., white_inc=..., black_inc=...)``);
  the wall time from request to answer is taken off the mover's clock, then the
  increment is added.  A clock below zero loses on time (a draw if the opponent
  cannot mate).  ``ucinewgame`` and its ``isready`` come before the clock starts.
* **Endings**: python-chess's ``board.outcome(claim_draw=True)`` (mate, stalemate,
  insufficient material, claimable threefold and fifty-move draws); optional
  adjudication by both engines' reported scores (``--draw-adjudication``,
  ``--resign-adjudication``, off by default); forfeits: a crash (the process
  died), a hang (no answer within the remaining time + ``--margin``), an
  illegal or missing move.  A forfeit is a loss of that engine, counted, and the
  engine is restarted before the next game.
* **Output**: a line per game (score, Elo, pairs, LLR), a summary per pairing,
  ``--pgn`` (written after every game) and ``--json`` (config, games, summary).
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import json
import math
import os
import random
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path
from typing import TextIO

import chess
import chess.engine
import chess.pgn

from transpo.executors import JobProgress, Placement, require_ray
from transpo.tools.openings import Opening, load_openings
from transpo.tools.stats import SprtConfig, Tally, format_elo, sprt_verdict

START_TIMEOUT_S = 120.0  # engine start-up, including a cold numba compile
KILL_WAIT_S = 2.0  # a killed engine: how long to wait for its event loop to see it die
DEFAULT_MARGIN_S = 1.0
FORFEITS = ("time", "hang", "crash", "illegal")


# --- configuration ------------------------------------------------------------------
@dataclass(frozen=True)
class EngineConfig:
    """One engine: its name, command line and UCI options."""

    name: str
    command: tuple[str, ...]
    options: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Adjudication:
    """Score adjudication: after ``moves`` moves of each side all within the rule (0: off)."""

    moves: int = 0
    score: int = 0
    after: int = 0  # draw only: not before this full move number

    @classmethod
    def parse(cls, flag: str, text: str | None, draw: bool) -> Adjudication:
        """``moves=8,score=10,after=40`` (draw) or ``moves=4,score=600`` (resign) -> config; ValueError if bad."""
        if not text:
            return cls()
        values: dict[str, int] = {}
        names = ("moves", "score", "after") if draw else ("moves", "score")
        for part in filter(None, (p.strip() for p in text.split(","))):
            name, sep, value = part.partition("=")
            if not sep or name.strip() not in names:
                raise ValueError(f"{flag}: expected {','.join(n + '=N' for n in names)}, not {part!r}")
            try:
                values[name.strip()] = int(value)
            except ValueError:
                raise ValueError(f"{flag}: {name.strip()} must be an integer, not {value!r}") from None
        config = cls(**values)
        if config.moves < 1 or config.score < 0 or config.after < 0:
            raise ValueError(f"{flag}: moves must be >= 1, score and after >= 0")
        return config


@dataclass(frozen=True)
class MatchConfig:
    """Everything a match needs, checked."""

    engines: tuple[EngineConfig, ...]
    games: int
    base_s: float
    inc_s: float
    openings: str | None = None
    concurrency: int = 1
    pgn: str | None = None
    json: str | None = None
    sprt: SprtConfig | None = None
    seed: int | None = None
    margin_s: float = DEFAULT_MARGIN_S
    draw: Adjudication = Adjudication()
    resign: Adjudication = Adjudication()
    ray: str | None = None  # a Ray cluster's address, or "local"; None: threads on this machine

    @property
    def tc(self) -> str:
        return f"{self.base_s:g}+{self.inc_s:g}"

    @property
    def pairings(self) -> list[tuple[int, int]]:
        """Two engines: (0, 1); more: the gauntlet (0, 1), (0, 2), ..."""
        return [(0, i) for i in range(1, len(self.engines))]


def parse_tc(text: str) -> tuple[float, float]:
    """'10+0.1' -> (10.0, 0.1) seconds; '60' -> (60.0, 0.0); ValueError if bad."""
    base, _, inc = text.partition("+")
    try:
        base_s, inc_s = float(base), float(inc or 0)
    except ValueError:
        raise ValueError(f"--tc: expected BASE[+INC] in seconds, e.g. 10+0.1, not {text!r}") from None
    if not (base_s > 0 and inc_s >= 0 and math.isfinite(base_s) and math.isfinite(inc_s)):
        raise ValueError(f"--tc: expected BASE > 0 and INC >= 0 seconds, not {text!r}")
    return base_s, inc_s


def parse_engine(text: str) -> tuple[str, tuple[str, ...]]:
    """``NAME=CMD`` -> (name, argv); ValueError if bad."""
    name, sep, command = text.partition("=")
    name = name.strip()
    if not sep or not name or not command.strip():
        raise ValueError(f"--engine: expected NAME=COMMAND, not {text!r}")
    try:
        argv = tuple(shlex.split(command))
    except ValueError as exc:
        raise ValueError(f"--engine {name}: {exc}") from None
    return name, argv


def parse_option(text: str) -> tuple[str, str, str]:
    """``NAME:Option=Value`` -> (engine, option, value); ValueError if bad."""
    engine, sep, rest = text.partition(":")
    option, sep2, value = rest.partition("=")
    if not sep or not sep2 or not engine.strip() or not option.strip():
        raise ValueError(f"--option: expected ENGINE:Option=Value, not {text!r}")
    return engine.strip(), option.strip(), value.strip()


def _option_value(value: str) -> object:
    if value.lower() in ("true", "false"):
        return value.lower() == "true"
    try:
        return int(value)
    except ValueError:
        return value


def build_config(engines: list[str], options: list[str], games: int, tc: str, **rest: object) -> MatchConfig:
    """A checked :class:`MatchConfig` from the command line's strings; ValueError on bad input."""
    if len(engines) < 2:
        raise ValueError("--engine: give at least two engines (NAME=COMMAND)")
    parsed = [parse_engine(e) for e in engines]
    names = [n for n, _ in parsed]
    for name, argv in parsed:
        if shutil.which(argv[0]) is None:
            raise ValueError(f"--engine {name}: command not found: {argv[0]}")
    if len(set(names)) != len(names):
        raise ValueError("--engine: engine names must differ")
    opts: dict[str, dict] = {n: {} for n in names}
    for text in options:
        engine, option, value = parse_option(text)
        if engine not in opts:
            raise ValueError(f"--option: no engine named {engine!r} (engines: {', '.join(names)})")
        opts[engine][option] = _option_value(value)
    if games < 1:
        raise ValueError("--games must be >= 1")
    ray = rest.get("ray")
    if ray is not None:
        require_ray()  # now: a one-line error before any engine starts
    given = rest.pop("concurrency", None)
    if given is not None and int(given) < 1:  # type: ignore[call-overload]
        raise ValueError("--concurrency must be >= 1")
    # Not given: one game at a time here, or with Ray one per CPU of the cluster (0).
    concurrency = int(given) if given is not None else 0 if ray is not None else 1  # type: ignore[call-overload]
    margin = float(rest.pop("margin_s", DEFAULT_MARGIN_S))  # type: ignore[arg-type]
    if not margin >= 0:
        raise ValueError("--margin must be >= 0 seconds")
    sprt_text = rest.pop("sprt", None)
    sprt = SprtConfig.parse(str(sprt_text)) if sprt_text else None
    if sprt is not None and len(engines) != 2:
        raise ValueError("--sprt needs exactly two engines")
    draw = Adjudication.parse("--draw-adjudication", rest.pop("draw", None), True)  # type: ignore[arg-type]
    resign = Adjudication.parse("--resign-adjudication", rest.pop("resign", None), False)  # type: ignore[arg-type]
    base_s, inc_s = parse_tc(tc)
    return MatchConfig(
        tuple(EngineConfig(n, argv, opts[n]) for n, argv in parsed),
        games, base_s, inc_s, concurrency=concurrency, margin_s=margin, sprt=sprt, draw=draw, resign=resign,
        **rest,  # type: ignore[arg-type]
    )  # fmt: skip


# --- one engine process -------------------------------------------------------------
class Player:
    """One engine process, restartable; every call returns or raises within its timeout."""

    def __init__(self, config: EngineConfig) -> None:
        self.config = config
        self.engine: chess.engine.SimpleEngine | None = None
        self.restarts = 0

    @property
    def name(self) -> str:
        return self.config.name

    def start(self) -> None:
        """Start the process, set the options, wait for ``readyok``."""
        try:
            self.engine = chess.engine.SimpleEngine.popen_uci(
                list(self.config.command), timeout=START_TIMEOUT_S, stderr=subprocess.DEVNULL, setpgrp=True
            )
        except FileNotFoundError:
            raise ValueError(f"engine {self.name}: command not found: {self.config.command[0]}") from None
        except (chess.engine.EngineError, TimeoutError, OSError) as exc:
            raise ValueError(f"engine {self.name} did not start: {exc or type(exc).__name__}") from None
        if self.config.options:
            try:
                self.engine.configure(self.config.options)
            except chess.engine.EngineError as exc:
                self.kill()
                raise ValueError(f"engine {self.name}: {exc}") from None

    def _run(self, coro, timeout: float | None):
        assert self.engine is not None
        future = asyncio.run_coroutine_threadsafe(asyncio.wait_for(coro, timeout), self.engine.protocol.loop)
        return future.result()

    def new_game(self, game_id: str) -> None:
        """``ucinewgame`` and ``isready`` before the clock runs (an engine that died since its last game,
        when it was not its turn, is started again first)."""
        if self.engine is None:
            self.start()
        elif self.engine.transport.get_returncode() is not None:
            self.restart()
        protocol = self.engine.protocol  # type: ignore[union-attr]

        async def announce() -> None:
            protocol.send_line("ucinewgame")
            protocol.game = game_id  # python-chess would otherwise send ucinewgame in the first play
            protocol.first_game = False
            await protocol.ping()

        self._run(announce(), START_TIMEOUT_S)

    def play(self, board: chess.Board, limit: chess.engine.Limit, game_id: str, timeout: float):
        """The engine's answer (raises asyncio/concurrent TimeoutError, EngineTerminatedError, EngineError)."""
        assert self.engine is not None
        return self._run(self.engine.protocol.play(board, limit, game=game_id, info=chess.engine.INFO_SCORE), timeout)

    def kill(self) -> None:
        """End the process at once (no ``quit``)."""
        engine, self.engine = self.engine, None
        if engine is None:
            return
        transport = engine.transport
        try:
            if transport.get_returncode() is None:  # still running (not reaped): its pid is still its own
                os.kill(transport.get_pid(), signal.SIGKILL)  # now, not via the event loop: we may exit next
        except (ProcessLookupError, OSError):
            pass
        # Let the event loop see the death first: a `go` still pending then fails in its own thread
        # (a forfeit or an interrupt we report). Closed while the process still ran, the loop's shutdown
        # would cancel that command and asyncio would print its EngineTerminatedError as a traceback.
        with contextlib.suppress(Exception):
            engine.returncode.result(timeout=KILL_WAIT_S)
        engine.close()

    def quit(self) -> None:
        """Ask politely, then kill."""
        engine = self.engine
        if engine is None:
            return
        with contextlib.suppress(Exception):  # dead or hung: killed below
            self._run(engine.protocol.quit(), 2.0)
        self.kill()

    def restart(self) -> None:
        """Kill and start again (after a forfeit)."""
        self.kill()
        self.restarts += 1
        self.start()


# --- one game -----------------------------------------------------------------------
@dataclass
class GameResult:
    """One game as the JSON report keeps it."""

    index: int
    pairing: int
    pair: int
    opening: int
    opening_name: str
    white: str
    black: str
    result: str = "*"
    termination: str = ""
    detail: str = ""
    forfeit: str | None = None  # time, hang, crash, illegal
    forfeiter: str | None = None
    plies: int = 0
    moves: list[str] = field(default_factory=list)
    clocks: dict = field(default_factory=dict)

    def score_of(self, name: str) -> float:
        """1, 1/2 or 0 for engine ``name``."""
        if self.result == "1/2-1/2":
            return 0.5
        white_won = self.result == "1-0"
        return 1.0 if (name == self.white) == white_won else 0.0


def _mating_material(board: chess.Board, color: chess.Color) -> bool:
    return not board.has_insufficient_material(color)


def play_game(
    game: GameResult, opening: Opening, white: Player, black: Player, config: MatchConfig, stop: threading.Event
) -> chess.Board:
    """Play ``game`` to its end; fills in ``game`` and returns the final board (with the opening's moves)."""
    board = opening.board.copy()
    game_id = f"g{game.index}-{time.monotonic_ns()}"
    players = {chess.WHITE: white, chess.BLACK: black}
    clocks = {chess.WHITE: config.base_s, chess.BLACK: config.base_s}
    scores: list[int | None] = []  # White's view, per move
    for player in (white, black):
        try:
            player.new_game(game_id)
        except (chess.engine.EngineError, TimeoutError, RuntimeError):  # RuntimeError: it died, its loop closed
            player.restart()
            player.new_game(game_id)

    def lose(side: chess.Color, kind: str, detail: str) -> None:
        loser = players[side]
        if kind == "time" and not _mating_material(board, not side):
            game.result, game.termination = "1/2-1/2", "time forfeit, no mating material"
        else:
            game.result = "0-1" if side == chess.WHITE else "1-0"
            game.termination = {"time": "time forfeit", "hang": "time forfeit (no answer)",
                                "crash": "engine crash", "illegal": "illegal move"}[kind]  # fmt: skip
        game.forfeit, game.forfeiter, game.detail = kind, loser.name, detail

    while not stop.is_set():
        outcome = board.outcome(claim_draw=True)
        if outcome is not None:
            game.result = outcome.result()
            game.termination = outcome.termination.name.lower().replace("_", " ")
            break
        if _adjudicate(game, board, scores, config):
            break
        side = board.turn
        player = players[side]
        limit = chess.engine.Limit(white_clock=clocks[chess.WHITE], black_clock=clocks[chess.BLACK],
                                   white_inc=config.inc_s, black_inc=config.inc_s)  # fmt: skip
        started = time.perf_counter()
        try:
            answer = player.play(board, limit, game_id, clocks[side] + config.margin_s)
        except (TimeoutError, chess.engine.EngineError) as exc:
            if stop.is_set():  # the match was stopped (Ctrl-C kills the engines): no forfeit, no restart
                break
            if isinstance(exc, chess.engine.EngineTerminatedError):
                lose(side, "crash", f"{player.name} died: {exc}")
            elif isinstance(exc, chess.engine.EngineError):  # python-chess refuses an illegal or malformed bestmove
                lose(side, "illegal", f"{player.name}: {' '.join(str(exc).split())}")
            else:
                lose(side, "hang", f"{player.name} gave no move within {clocks[side]:.3f} s + {config.margin_s:g} s")
            player.restart()
            break
        elapsed = time.perf_counter() - started
        clocks[side] -= elapsed
        if clocks[side] < 0:
            lose(side, "time", f"{player.name} took {elapsed:.3f} s, clock {clocks[side]:+.3f} s")
            break
        if answer.move is None or answer.move not in board.legal_moves:
            lose(side, "illegal", f"{player.name} answered {answer.move} in {board.fen()}")
            if not stop.is_set():
                player.restart()
            break
        score = answer.info.get("score")
        scores.append(None if score is None else score.white().score(mate_score=100000))
        board.push(answer.move)
        game.moves.append(answer.move.uci())
        clocks[side] += config.inc_s
    if game.result == "*":
        game.termination = "unfinished: the match was stopped"  # not counted
    game.plies = len(board.move_stack) - len(opening.board.move_stack)
    game.clocks = {"white": round(clocks[chess.WHITE], 3), "black": round(clocks[chess.BLACK], 3)}
    return board


def _adjudicate(game: GameResult, board: chess.Board, scores: list[int | None], config: MatchConfig) -> bool:
    """End the game by both engines' scores if an adjudication rule holds (sets ``game``)."""
    draw, resign = config.draw, config.resign
    if draw.moves and board.fullmove_number >= draw.after and len(scores) >= 2 * draw.moves:
        last = scores[-2 * draw.moves :]
        if all(s is not None and abs(s) <= draw.score for s in last):
            game.result, game.termination = "1/2-1/2", "adjudication"
            game.detail = f"draw: both scores within {draw.score} cp for {draw.moves} moves"
            return True
    if resign.moves and len(scores) >= 2 * resign.moves:
        last = scores[-2 * resign.moves :]
        if all(s is not None for s in last):
            if all(s <= -resign.score for s in last):  # type: ignore[operator]
                game.result = "0-1"
            elif all(s >= resign.score for s in last):  # type: ignore[operator]
                game.result = "1-0"
            else:
                return False
            game.termination = "adjudication"
            game.detail = f"loss: both scores beyond {resign.score} cp for {resign.moves} moves"
            return True
    return False


@dataclass(frozen=True)
class GameJob:
    """One game of the schedule, fixed before the first is played: its number, pairing, pair, colours, opening."""

    index: int
    pairing: int
    pair: int
    k: int  # 0: the pairing's first engine is White; 1: it is Black
    opening_number: int
    opening: Opening  # carried along: a worker on another machine need not read the openings file


@dataclass
class GameOutcome:
    """What a worker hands back for one game: the game, and the engine restarts it cost."""

    game: GameResult
    restarts: dict[str, int]


class GameWorker:
    """Plays whole games (a :class:`transpo.executors.Worker`): starts the engines it needs and keeps them."""

    def __init__(self, config: MatchConfig) -> None:
        self.config = config
        self.players: dict[str, Player] = {}
        self.halt = threading.Event()
        self.lock = threading.Lock()

    def _player(self, number: int) -> Player:
        config = self.config.engines[number]
        with self.lock:
            player = self.players.get(config.name)
            if player is None:
                player = self.players[config.name] = Player(config)
        if player.engine is None:
            player.start()
        return player

    def __call__(self, job: GameJob) -> GameOutcome:
        a, b = self.config.pairings[job.pairing]
        first, second = self._player(a), self._player(b)
        white, black = (first, second) if job.k == 0 else (second, first)
        before = {p.name: p.restarts for p in (first, second)}
        game = GameResult(
            job.index, job.pairing, job.pair, job.opening_number, job.opening.name, white.name, black.name
        )
        play_game(game, job.opening, white, black, self.config, self.halt)
        return GameOutcome(game, {p.name: p.restarts - before[p.name] for p in (first, second)})

    def stop(self, now: bool) -> None:
        """The game in progress ends at the next move (``now``: at once, its engines killed), unfinished."""
        self.halt.set()
        if now:
            with self.lock:
                players = list(self.players.values())
            for player in players:
                player.kill()

    def close(self) -> None:
        """Quit the engines."""
        for player in self.players.values():
            player.quit()


def final_board(game: GameResult, opening: Opening) -> chess.Board:
    """The opening's board with the game's moves played."""
    board = opening.board.copy()
    for move in game.moves:
        board.push_uci(move)
    return board


def game_pgn(game: GameResult, board: chess.Board, config: MatchConfig, event: str) -> chess.pgn.Game:
    """The game as PGN, headers included (Termination: the reason, e.g. checkmate or time forfeit)."""
    pgn = chess.pgn.Game.from_board(board)
    pgn.headers.update({
        "Event": event, "Site": os.uname().nodename, "Date": datetime.date.today().strftime("%Y.%m.%d"),
        "Round": str(game.index + 1), "White": game.white, "Black": game.black, "Result": game.result,
        "TimeControl": config.tc.replace("+", "+"), "Opening": game.opening_name,
        "Termination": game.termination, "PlyCount": str(len(board.move_stack)),
    })  # fmt: skip
    if game.detail:
        pgn.end().comment = game.detail
    return pgn


# --- the match ----------------------------------------------------------------------
@dataclass
class PairingState:
    """The running results of one pairing."""

    first: str
    second: str
    tally: Tally = field(default_factory=Tally)
    forfeits: dict = field(default_factory=dict)  # engine -> {kind: count}
    open_pairs: dict = field(default_factory=dict)  # pair index -> scores of its finished games
    llr_history: list = field(default_factory=list)  # LLR after every finished pair
    verdict: str | None = None


class Match:
    """A match or gauntlet; :meth:`run` plays it, :meth:`interrupt` (another thread) ends it at once."""

    def __init__(self, config: MatchConfig, out: TextIO | None = None, err: TextIO | None = None) -> None:
        self.config = config
        self.out = out or sys.stdout
        self.err = err or sys.stderr
        self.openings = load_openings(config.openings)
        self.order = list(range(len(self.openings)))
        if config.seed is not None:
            random.Random(config.seed).shuffle(self.order)
        self.states = [PairingState(config.engines[a].name, config.engines[b].name) for a, b in config.pairings]
        self.games: list[GameResult] = []
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.restart_counts: dict[str, int] = {}  # engine -> restarts, over the games handed back
        self.total = len(self.schedule())
        self.started = 0.0
        self.stopped_by = ""
        self._say: Callable[[str], None] = lambda line: print(line, file=self.err, flush=True)
        self._check_outputs()
        # Threads here (each drives its engines' processes) or Ray actors; built now, so interrupt() can reach it.
        self.executor = Placement(config.concurrency, config.ray).executor(threads=True)

    # --- outputs -------------------------------------------------------------
    def _check_outputs(self) -> None:
        """Create (empty) the --pgn and --json files now, so a bad path fails before the first game."""
        for path in (self.config.pgn, self.config.json):
            if path:
                if Path(path).is_dir():
                    raise ValueError(f"{path} is a directory")
                with open(path, "w", encoding="utf-8"):
                    pass

    def _write_pgn(self, game: GameResult, board: chess.Board) -> None:
        if not self.config.pgn:
            return
        state = self.states[game.pairing]
        pgn = game_pgn(game, board, self.config, f"{state.first} vs {state.second}")
        with open(self.config.pgn, "a", encoding="utf-8") as handle:
            print(pgn, file=handle, end="\n\n")

    def report(self) -> dict:
        """The JSON report: config, games, summary per pairing."""
        c = self.config
        config = {
            "engines": [{"name": e.name, "command": list(e.command), "options": e.options} for e in c.engines],
            "mode": "match" if len(c.engines) == 2 else "gauntlet",
            "games": c.games, "tc": c.tc, "openings": c.openings or "default", "concurrency": c.concurrency,
            "seed": c.seed, "margin_s": c.margin_s, "sprt": asdict(c.sprt) if c.sprt else None, "ray": c.ray,
            "draw_adjudication": asdict(c.draw), "resign_adjudication": asdict(c.resign),
        }  # fmt: skip
        return {
            "format": "transpo-match/1",
            "config": config,
            "games": [asdict(g) for g in sorted(self.games, key=lambda g: g.index)],
            "summary": [self._summary(s) for s in self.states],
            "restarts": self.restarts(),
            "stopped": self.stopped_by or None,
            "wall_s": round(time.perf_counter() - self.started, 1),
        }

    def _summary(self, state: PairingState) -> dict:
        t = state.tally
        elo = t.elo()
        summary = {
            "first": state.first, "second": state.second, "games": t.games,
            "wins": t.wins, "draws": t.draws, "losses": t.losses, "score": round(t.score, 4),
            "elo": None if elo is None else _finite(elo.elo), "elo_low": None if elo is None else _finite(elo.low),
            "elo_high": None if elo is None else _finite(elo.high),
            "elo_error": None if elo is None else _finite(elo.error),
            "pentanomial": list(t.pairs), "forfeits": state.forfeits,
        }  # fmt: skip
        if self.config.sprt:
            s = self.config.sprt
            summary["sprt"] = {"elo0": s.elo0, "elo1": s.elo1, "alpha": s.alpha, "beta": s.beta,
                               "lower": s.lower, "upper": s.upper, "llr": t.llr(s), "verdict": state.verdict,
                               "llr_history": state.llr_history}  # fmt: skip
        return summary

    def restarts(self) -> dict:
        """Engine name -> how often its processes were restarted after a forfeit (engines that played)."""
        counts = self.restart_counts  # updated under self.lock, which callers may hold: read, not locked
        return {e.name: counts[e.name] for e in self.config.engines if e.name in counts}

    def _write_json(self) -> None:
        if self.config.json:
            replace_file(Path(self.config.json), json.dumps(self.report(), indent=1) + "\n")

    def status_line(self, state: PairingState) -> str:
        """``A vs B: 12 games +5 =3 -4 (54.2%)  Elo +29.0 +- 80.1  pairs 0/1/3/1/1  LLR 0.41 (-2.94, 2.94)``."""
        t = state.tally
        elo = t.elo()
        text = (
            f"{state.first} vs {state.second}: {t.games} games +{t.wins} ={t.draws} -{t.losses} ({100 * t.score:.1f}%)"
        )
        if elo is not None:
            text += f"  Elo {format_elo(elo.elo)} +- {elo.error:.1f}" if math.isfinite(elo.error) else \
                f"  Elo {format_elo(elo.elo)}"  # fmt: skip
        text += f"  pairs {'/'.join(map(str, t.pairs))}"
        if self.config.sprt:
            s = self.config.sprt
            text += f"  LLR {t.llr(s):+.2f} ({s.lower:+.2f}, {s.upper:+.2f})"
            if state.verdict:
                text += f" {state.verdict} accepted"
        return text

    def summary_text(self) -> str:
        """The final summary, a few lines per pairing."""
        lines = []
        wall = time.perf_counter() - self.started
        for state in self.states:
            t = state.tally
            elo = t.elo()
            lines.append(f"{state.first} vs {state.second}, {t.games} games at {self.config.tc}, {wall / 60:.1f} min")
            lines.append(f"  W/D/L {t.wins}/{t.draws}/{t.losses} ({state.first})  score {100 * t.score:.1f}%")
            if elo is not None:
                lines.append(f"  Elo {format_elo(elo.elo)}, 95% interval {format_elo(elo.low)} .. "
                             f"{format_elo(elo.high)} ({'pairs' if sum(t.pairs) and 2 * sum(t.pairs) == t.games else 'games'})")  # fmt: skip
            lines.append(f"  pentanomial (pair scores 0, 0.5, 1, 1.5, 2): {t.pairs}")
            if self.config.sprt:
                s = self.config.sprt
                verdict = {"H1": f"H1 accepted (elo >= {s.elo1:g})", "H0": f"H0 accepted (elo <= {s.elo0:g})"}.get(
                    state.verdict or "", "no decision"
                )
                lines.append(f"  SPRT elo0={s.elo0:g} elo1={s.elo1:g} alpha={s.alpha:g} beta={s.beta:g}: "
                             f"LLR {t.llr(s):+.2f} (bounds {s.lower:+.2f}, {s.upper:+.2f}) {verdict}")  # fmt: skip
            forfeits = ", ".join(f"{name}: " + " ".join(f"{k} {v}" for k, v in kinds.items())
                                 for name, kinds in state.forfeits.items()) or "none"  # fmt: skip
            lines.append(f"  forfeits: {forfeits}")
        restarted = ", ".join(f"{name} {n}" for name, n in self.restarts().items() if n)
        if restarted:
            lines.append(f"restarts: {restarted}")
        if self.stopped_by:
            lines.append(f"stopped: {self.stopped_by}")
        return "\n".join(lines)

    # --- scheduling ----------------------------------------------------------
    def schedule(self) -> list[tuple[int, int, int, int]]:
        """(game index, pairing, pair, game in pair) in playing order: pairs interleaved across pairings."""
        jobs = []
        per_pairing = self.config.games
        for g in range(per_pairing):
            for p in range(len(self.states)):
                jobs.append((p, g // 2, g % 2))
        return [(i, p, pair, k) for i, (p, pair, k) in enumerate(jobs)]

    def _record(self, game: GameResult) -> None:
        with self.lock:
            self.games.append(game)
            state = self.states[game.pairing]
            if game.result == "*":
                return
            score = game.score_of(state.first)
            state.tally.add_game(score)
            if game.forfeit:
                kinds = state.forfeits.setdefault(game.forfeiter, {})
                kinds[game.forfeit] = kinds.get(game.forfeit, 0) + 1
            scores = state.open_pairs.setdefault(game.pair, [])
            scores.append(score)
            if len(scores) == 2:
                state.tally.add_pair(sum(scores))
                del state.open_pairs[game.pair]
                if self.config.sprt:
                    value = state.tally.llr(self.config.sprt)
                    state.llr_history.append(round(value, 4))
                    state.verdict = sprt_verdict(value, self.config.sprt)
                    if state.verdict:
                        self.stopped_by = f"SPRT {state.verdict} accepted after {sum(state.tally.pairs)} pairs"
                        self.stop.set()
                        self.executor.stop()  # no more games; those in progress end unfinished, not counted
            mark = f" ({game.forfeit} forfeit: {game.detail})" if game.forfeit else ""
            self._say(f"game {len(self.games):>4}/{self.total}  {game.white} - {game.black}  {game.result:<7} "
                      f"{game.termination}{mark}  |  {self.status_line(state)}")  # fmt: skip

    def jobs(self) -> list[GameJob]:
        """The schedule as jobs: opening and colours of every game fixed up front."""
        jobs = []
        for index, pairing, pair, k in self.schedule():
            number = self.order[pair % len(self.order)]
            jobs.append(GameJob(index, pairing, pair, k, number, self.openings[number]))
        return jobs

    def _finish(self, job: GameJob, outcome: GameOutcome) -> None:
        """A game handed back: PGN, tally, line, JSON (after every game: a killed match leaves its results)."""
        with self.lock:
            for name, count in outcome.restarts.items():
                self.restart_counts[name] = self.restart_counts.get(name, 0) + count
            if outcome.game.result != "*":
                self._write_pgn(outcome.game, final_board(outcome.game, job.opening))
        self._record(outcome.game)
        with self.lock:
            self._write_json()

    def run(self) -> dict:
        """Play the match; the JSON report (also written to ``--json``)."""
        self.started = time.perf_counter()
        c = self.config
        names = " vs ".join(e.name for e in c.engines) if len(c.engines) == 2 else \
            f"gauntlet of {c.engines[0].name} against {', '.join(e.name for e in c.engines[1:])}"  # fmt: skip
        where = f"Ray {c.ray}" if c.ray else f"concurrency {c.concurrency}"
        print(f"{names}: {c.games} games per pairing at {c.tc} (s), {len(self.openings)} openings, "
              f"{where}, load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs",
              file=self.err, flush=True)  # fmt: skip
        jobs = self.jobs()
        with JobProgress("games", len(jobs)) as progress:
            if self.err is sys.stderr:  # the game lines above the progress, not through it
                self._say = progress.print
            for done in self.executor.run(partial(GameWorker, c), jobs):
                self._finish(jobs[done.job], done.result)
                progress.done(done)
        report = self.report()
        self._write_json()
        print(self.summary_text(), file=self.out, flush=True)
        return report

    def interrupt(self, wait=None) -> None:
        """Ctrl-C: stop, kill every engine process, write the partial JSON, print the partial result."""
        self.stop.set()
        self.stopped_by = "interrupted"
        self.executor.stop(now=True)
        try:
            self._write_json()
        except OSError:
            pass
        print(self.summary_text(), file=self.out, flush=True)


def replace_file(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` whole: into a file beside it, then renamed over it.

    The report is rewritten after every game, from the game threads, and once more by a Ctrl-C in the main
    thread, which cannot wait for the lock a game thread may hold; two plain writes at once left the tail of
    the longer one after the shorter (a JSON file python could not read). A rename replaces the file in one
    step, so a reader sees one complete report or another.
    """
    out = tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=path.parent, prefix=f".{path.name}.", delete=False)
    try:
        with out:
            out.write(text)
        if path.exists():
            shutil.copymode(path, out.name)  # the temporary file's 0600 would otherwise replace the file's mode
        os.replace(out.name, path)
    except BaseException:
        Path(out.name).unlink(missing_ok=True)  # a full disk or a Ctrl-C leaves no temporary file behind
        raise


def _finite(value: float) -> float | None:
    return round(value, 2) if math.isfinite(value) else None
