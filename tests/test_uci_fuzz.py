"""A UCI fuzzer: thousands of generated lines fed to the real engine process.

The lines (seeded, so a failure replays) mix garbage, truncated and over-long
lines, random tokens, commands in the wrong order, huge and negative numbers,
long move lists (legal and illegal), random FENs (valid ones from random
playouts, corrupted ones), ``setoption`` with bad values, ``go`` with every
limit kind (tiny searches), ``stop`` and ``ponderhit`` at odd times and
``isready``.  They go to ``python -m transpo.cli uci`` in chunks, and the test
keeps its own model of what the engine accepted, built with python-chess:

* a ``position`` whose FEN python-chess rejects (or that breaks one of the
  engine's documented stricter syntax rules) sets no position, and the next
  ``go`` must answer ``bestmove 0000``;
* moves are applied up to the first illegal one;
* every other ``go`` must answer a legal move of the model's position
  (``(none)`` when there is none); every ``isready`` gets ``readyok``;
* the process never dies, never prints a traceback or an internal error, and
  never makes the test wait longer than ``SYNC_TIMEOUT_S`` for an answer.
"""

from __future__ import annotations

import os
import queue
import random
import re
import subprocess
import sys
import threading
import time

import chess
import pytest

ENGINE_CMD = [sys.executable, "-m", "transpo.cli", "uci"]
SEED = int(os.environ.get("TRANSPO_FUZZ_SEED", "20261130"))  # another seed or more lines: more of the same
TARGET_LINES = int(os.environ.get("TRANSPO_FUZZ_LINES", "5000"))
SYNC_TIMEOUT_S = 30.0
COMMANDS = {
    "uci",
    "debug",
    "isready",
    "setoption",
    "register",
    "ucinewgame",
    "position",
    "go",
    "stop",
    "ponderhit",
    "quit",
    "d",
}
START = chess.STARTING_FEN
KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
# python-chess's Board(fen) accepts these positions too; its is_valid() flags them, the engine plays them.
LENIENT = (
    chess.STATUS_BAD_CASTLING_RIGHTS  # dropped, with a warning (python-chess's clean_castling_rights)
    | chess.STATUS_TOO_MANY_WHITE_PIECES
    | chess.STATUS_TOO_MANY_BLACK_PIECES
    | chess.STATUS_TOO_MANY_WHITE_PAWNS
    | chess.STATUS_TOO_MANY_BLACK_PAWNS
    | chess.STATUS_TOO_MANY_CHECKERS
    | chess.STATUS_IMPOSSIBLE_CHECK
)
_CLOCK = re.compile(r"[0-9]+")
_MOVE = re.compile(r"[a-h][1-8][a-h][1-8][nbrq]?")
_CLASS_NAME = re.compile(r"\b[A-Z][a-zA-Z]*(Error|Exception)\b")


def model_board(fen: str) -> chess.Board | None:
    """The position the engine should set for ``fen``, or None if it should refuse it.

    python-chess decides, except where the engine is documented to be stricter on
    syntax: 4 or 6 fields only, clocks of ASCII digits up to 1,000,000, castling
    letters from KQkq without repeats; and more lenient in one: castling letters
    in any order.
    """
    fields = fen.split()
    if len(fields) not in (4, 6):
        return None
    castling = fields[2]
    if castling != "-" and (any(c not in "KQkq" for c in castling) or len(set(castling)) != len(castling)):
        return None
    if len(fields) == 6 and not all(_CLOCK.fullmatch(f) and int(f) <= 1_000_000 for f in fields[4:]):
        return None
    if castling != "-":  # the engine takes the letters in any order; python-chess wants White's first
        fields[2] = "".join(sorted(castling, key="KQkq".index))
    try:
        board = chess.Board(" ".join(fields))
    except ValueError:
        return None
    if board.status() & ~LENIENT:
        return None
    board.castling_rights = board.clean_castling_rights()
    return board


class Model:
    """What the engine should hold: a python-chess board, or None after a refused position."""

    def __init__(self) -> None:
        self.board: chess.Board | None = chess.Board()

    def position(self, args: list[str]) -> None:
        if "moves" in args:
            at = args.index("moves")
            spec, moves = args[:at], args[at + 1 :]
        else:
            spec, moves = args, []
        if spec == ["startpos"]:
            board = chess.Board()
        elif len(spec) > 1 and spec[0] == "fen":
            board = model_board(" ".join(spec[1:]))
        else:
            board = None
        if board is not None:
            for move in moves:
                if not _MOVE.fullmatch(move):
                    break
                try:
                    parsed = chess.Move.from_uci(move)
                except ValueError:
                    break
                if not board.is_legal(parsed):
                    break
                # python-chess also reads king-takes-own-rook (e1h1) as castling; UCI text is e1g1
                if (
                    board.is_castling(parsed)
                    and abs(chess.square_file(parsed.from_square) - chess.square_file(parsed.to_square)) != 2
                ):
                    break
                board.push(parsed)
        self.board = board

    def expected_best(self) -> set[str]:
        """The acceptable bestmove words for a ``go`` now."""
        if self.board is None:
            return {"0000"}
        legal = {m.uci() for m in self.board.legal_moves}
        return legal or {"(none)"}


# --- generators -----------------------------------------------------------------------------------------
class Generator:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.fens = self._playout_fens(120)

    def _playout_fens(self, count: int) -> list[str]:
        rng = self.rng
        fens = [START, KIWIPETE, "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", "7k/7P/6K1/8/3B4/8/8/8 b - - 0 1"]
        while len(fens) < count:
            board = chess.Board()
            for _ in range(rng.randrange(0, 160)):
                moves = list(board.legal_moves)
                if not moves:
                    break
                board.push(rng.choice(moves))
            fens.append(board.fen())
        return fens

    def playout(self, board: chess.Board, plies: int, legal_only: bool = True) -> list[str]:
        board = board.copy()
        moves = []
        for _ in range(plies):
            legal = list(board.legal_moves)
            if not legal:
                break
            move = self.rng.choice(legal)
            moves.append(move.uci())
            board.push(move)
        if not legal_only and moves:
            bad = self.rng.choice(
                ["e2e5", "a1a1", "e1g1", "0000", "e7e8Q", "z9z9", "e2e4e", "h7h8k", "moves", "\u00e9"]
            )
            moves.insert(self.rng.randrange(len(moves) + 1), bad)
        return moves

    def garbage_token(self) -> str:
        rng = self.rng
        kind = rng.random()
        if kind < 0.3:
            alphabet = "abcdefghijklmnopqrstuvwxyz0123456789-+_./:;!?#$%&*()[]{}<>=~"
            token = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 12)))
        elif kind < 0.5:
            token = "".join(chr(rng.randint(0x21, 0x2FFF)) for _ in range(rng.randint(1, 6)))
        elif kind < 0.7:
            token = str(rng.choice([0, -1, 2**31, 2**63, -(2**63), 10**30, -(10**40), 7]))
        else:
            token = rng.choice(
                [
                    "name",
                    "value",
                    "startpos",
                    "fen",
                    "moves",
                    "depth",
                    "infinite",
                    "on",
                    "off",
                    "Hash",
                    "e2e4",
                    "wtime",
                    "searchmoves",
                    "ponder",
                ]
            )
        return "x" + token if token in COMMANDS else token

    def garbage_line(self) -> str:
        rng = self.rng
        kind = rng.random()
        if kind < 0.5:
            return " ".join(self.garbage_token() for _ in range(rng.randint(1, 8)))
        if kind < 0.6:
            return "".join(self.garbage_token() for _ in range(rng.randint(2000, 6000)))  # over-long, no spaces
        if kind < 0.7:
            return " ".join(self.garbage_token() for _ in range(rng.randint(2000, 5000)))  # over-long, many tokens
        if kind < 0.8:
            return rng.choice(["", "   ", "\t", "\x00", "\x1b[2J", "\x7f\x7f"])
        if kind < 0.9:  # a real command cut short
            text = rng.choice(["position fen " + rng.choice(self.fens), "setoption name Hash value 16", "go depth 2"])
            cut = text[: rng.randint(1, len(text) - 1)]
            tokens = cut.split()
            if tokens and tokens[0] in COMMANDS:
                return "x" + cut  # keep it garbage: a cut command is covered by the command generators
            return cut
        return "".join(chr(rng.randint(1, 0x10FFFF)) for _ in range(rng.randint(1, 40)))

    def corrupt_fen(self, fen: str) -> str:
        rng = self.rng
        fields = fen.split()
        kind = rng.randrange(12)
        if kind == 0:
            fields[1] = "b" if fields[1] == "w" else "w"
        elif kind == 1:
            placement = fields[0]
            at = rng.randrange(len(placement))
            fields[0] = placement[:at] + placement[at + 1 :]
        elif kind == 2:
            placement = list(fields[0])
            letters = [i for i, c in enumerate(placement) if c.isalpha()]
            placement[rng.choice(letters)] = rng.choice("PNBRQKpnbrqk")
            fields[0] = "".join(placement)
        elif kind == 3:
            fields[2] = rng.choice(["KQkq", "Kk", "KQkx", "KK", "-K", "q", "HAha", "kqKQ", "Q"])
        elif kind == 4:
            fields[3] = rng.choice(["e3", "e6", "d6", "z9", "a1", "e4", "-", "h3", "c6"])
        elif kind == 5:
            fields[4] = rng.choice(["-1", "x", "100", "99", "1000001", "+5", "1_0", "0", "\u0661"])
        elif kind == 6:
            fields[5] = rng.choice(["0", "-3", "y", "99999999999999999999", "1", "500"])
        elif kind == 7:
            fields = fields[: rng.choice([0, 1, 2, 3, 4, 5])]
        elif kind == 8:
            fields.append(rng.choice(["7", "moves", "x"]))
        elif kind == 9:
            ranks = fields[0].split("/")
            ranks[rng.randrange(8)] = rng.choice(["9", "44", "p7", "ppppppppp", "", "PPPPPPPP", "K7", "k7", "8/8"])
            fields[0] = "/".join(ranks)
        elif kind == 10:
            fields[0] = fields[0].replace(rng.choice("Kk"), "1", 1)
        else:
            ranks = fields[0].split("/")
            ranks[rng.choice([0, 7])] = rng.choice(["P7", "7p", "pppppppp"])
            fields[0] = "/".join(ranks)
        return " ".join(fields)

    def go_line(self) -> tuple[list[str], bool]:
        """Lines for one go (and what follows it), and whether the go is open-ended."""
        rng = self.rng
        kind = rng.randrange(10)
        extra = []
        if rng.random() < 0.3:
            extra += ["wtime", str(rng.randint(10, 2000)), "btime", str(rng.randint(10, 2000))]
        if rng.random() < 0.2:
            extra += [
                "winc",
                str(rng.randint(-50, 50)),
                "binc",
                str(rng.randint(-50, 50)),
                "movestogo",
                str(rng.randint(1, 40)),
            ]
        if rng.random() < 0.1:
            extra += ["searchmoves", "e2e4", "d2d4"]
        if kind <= 2:
            words = ["depth", str(rng.randint(1, 3))]
        elif kind <= 4:
            words = ["movetime", str(rng.randint(-5, 20))]
            if int(words[1]) <= 0:
                words += ["depth", "2"]  # movetime 0 or less means at once, but keep a bound
        elif kind <= 6:
            words = ["nodes", str(rng.randint(1, 2000))]
        elif kind == 7:
            words = ["mate", str(rng.randint(1, 2)), "depth", str(rng.randint(1, 3))]
        elif kind == 8:
            words = ["infinite"] + (["depth", "2"] if rng.random() < 0.5 else [])
        else:
            words = ["ponder", "wtime", "100", "btime", "100"]
        tokens = words + extra
        rng.shuffle(
            pairs := [
                tokens[i : i + 2] if tokens[i] not in ("infinite", "ponder") else [tokens[i]] for i in _starts(tokens)
            ]
        )
        line = "go " + " ".join(" ".join(p) for p in pairs)
        open_ended = kind >= 8
        lines = [line]
        if open_ended:
            if rng.random() < 0.5:
                lines.append("isready")
            if kind == 9 and rng.random() < 0.5:
                lines.append("ponderhit")
            lines.append("stop")
        elif rng.random() < 0.2:
            lines.append(rng.choice(["stop", "ponderhit", "isready"]))  # odd times
        return lines, open_ended

    def bad_go(self) -> str:
        return self.rng.choice([
            "go depth x", "go depth", "go nodes -5", "go depth 0", "go sideways", "go movetime",
            "go mate 0", "go movestogo 0", "go wtime abc", "go depth 99999999999999999999999999 nodes",
            "go " + self.garbage_token() + " depth 1",
        ])  # fmt: skip

    def setoption(self) -> str:
        rng = self.rng
        return rng.choice([
            f"setoption name Hash value {rng.choice([1, 2, 4, 8, 16])}",
            f"setoption name Hash value {rng.choice([0, -1, 65537, 10**20, 'lots', '', '1.5'])}",
            f"setoption name MultiPV value {rng.choice([1, 2, 3, 0, 257, -4, 'many'])}",
            f"setoption name Threads value {rng.choice([1, 2, 0])}",
            f"setoption name Move Overhead value {rng.choice([0, 10, 50, 5001, -1])}",
            f"setoption name SignatureBits value {rng.choice([8, 16, 32, 64, 7, 65])}",
            f"setoption name Replacement value {rng.choice(['always', 'depth', 'two-tier', 'bucket', 'DEPTH', 'sometimes'])}",
            f"setoption name UseTT value {rng.choice(['true', 'false', 'maybe', ''])}",
            f"setoption name HashAudit value {rng.choice(['true', 'false', 'TRUE', '1'])}",
            f"setoption name Ponder value {rng.choice(['true', 'false'])}",
            "setoption name Clear Hash",
            "setoption name NoSuchOption value 3",
            "setoption name",
            "setoption Hash 16",
            "setoption name Hash",
            "setoption name MultiPV value " + "9" * 50,
        ])  # fmt: skip

    def position(self, model_board: chess.Board | None) -> str:
        rng = self.rng
        kind = rng.randrange(9)
        if kind == 0:
            return "position startpos"
        if kind == 1:
            moves = self.playout(chess.Board(), rng.randint(1, 120), legal_only=rng.random() < 0.7)
            return "position startpos moves " + " ".join(moves)
        if kind == 2:
            fen = rng.choice(self.fens)
            moves = self.playout(chess.Board(fen), rng.randint(0, 30), legal_only=rng.random() < 0.7)
            return f"position fen {fen}" + (" moves " + " ".join(moves) if moves else "")
        if kind == 3:
            return "position fen " + self.corrupt_fen(rng.choice(self.fens))
        if kind == 4:
            fen = self.corrupt_fen(rng.choice(self.fens))
            return f"position fen {fen} moves " + " ".join(self.playout(chess.Board(), 4))
        if kind == 5:  # a long game: knight shuffles past the history's compaction, then a few more moves
            cycles = rng.choice([10, 10, 50, 520, 1200])
            tail = self.playout(chess.Board(), rng.randint(0, 6))
            return "position startpos moves " + " ".join(["g1f3 g8f6 f3g1 f6g8"] * cycles + tail)
        if kind == 6:
            return rng.choice(
                ["position", "position sideways", "position fen", "position startpos extra", "position moves e2e4"]
            )
        if kind == 7:  # junk before the command is skipped, as the UCI spec asks
            return f"{self.garbage_token()} position startpos moves e2e4"
        return "position startpos moves " + " ".join(self.garbage_token() for _ in range(rng.randint(1, 5)))


def _starts(tokens: list[str]) -> list[int]:
    """Start indexes of the (flag) or (name value) groups of go tokens."""
    starts, i = [], 0
    while i < len(tokens):
        starts.append(i)
        i += 1 if tokens[i] in ("infinite", "ponder") else (2 if tokens[i] != "searchmoves" else 3)
    return starts


# --- the engine process ----------------------------------------------------------------------------------
class EngineProcess:
    def __init__(self) -> None:
        env = dict(os.environ)
        for name in ("NUMBA_DISABLE_JIT", "NUMBA_BOUNDSCHECK"):
            env.pop(name, None)
        self.proc = subprocess.Popen(
            ENGINE_CMD, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.stderr = b""
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_err, daemon=True).start()

    def _read(self) -> None:
        for raw in self.proc.stdout:
            self.lines.put(raw.decode("utf-8", "replace").rstrip("\n"))
        self.lines.put(None)

    def _read_err(self) -> None:
        self.stderr = self.proc.stderr.read()

    def send(self, lines: list[str]) -> None:
        data = "".join(line + "\n" for line in lines).encode("utf-8", "surrogatepass")
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def next_line(self, timeout: float) -> str:
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"the engine hung: no answer in {timeout} s") from None
        if line is None:
            raise AssertionError(
                f"the engine died (exit {self.proc.wait()}): {self.stderr.decode('utf-8', 'replace')[-2000:]}"
            )
        return line


@pytest.fixture(scope="module", autouse=True)
def warm_cache():
    from transpo.core.position import Position
    from transpo.engine.engine import Engine
    from transpo.engine.timeman import Limits

    Engine(hash_mb=1, audit=True).search(Position(), Limits(depth=2))


def _chunks(gen: Generator, target: int):
    """Chunks of lines; each ends with something to wait for (a bestmove or readyok)."""
    rng = gen.rng
    model_board = chess.Board()
    sent = 0
    while sent < target:
        chunk: list[str] = []
        while True:
            r = rng.random()
            if r < 0.22:
                chunk.append(gen.garbage_line())
            elif r < 0.42:
                chunk.append(gen.position(model_board))
            elif r < 0.50:
                chunk.append(gen.setoption())
            elif r < 0.55:
                chunk.append(gen.bad_go())
            elif r < 0.62:
                chunk.append(
                    rng.choice(
                        [
                            "stop",
                            "ponderhit",
                            "ucinewgame",
                            "uci",
                            "debug on",
                            "debug maybe",
                            "register later",
                            "d",
                            "isready",
                        ]
                    )
                )
            else:
                lines, _ = gen.go_line()
                chunk.extend(lines)
            if any(line.split()[:1] in (["go"], ["isready"]) for line in chunk if line.strip()) and rng.random() < 0.5:
                break
        chunk = [_safe(line) for line in chunk]
        waiting = False  # a go infinite / go ponder is waiting for a stop
        for line in chunk:
            command, args = _parse_command(line)
            if command == "go" and _valid_go(args):
                waiting = "infinite" in args or "ponder" in args
            elif command in ("stop", "ucinewgame"):
                waiting = False
        if waiting:
            chunk.append("stop")
        sent += len(chunk)
        yield chunk


def _safe(line: str) -> str:
    """``line`` without line breaks and without a ``quit`` token (that would end the run)."""
    line = line.replace("\n", " ").replace("\r", " ")
    return (
        " ".join("xquit" if token == "quit" else token for token in line.split(" ")) if "quit" in line.split() else line
    )


def _parse_command(line: str) -> tuple[str | None, list[str]]:
    tokens = line.split()
    while tokens and tokens[0] not in COMMANDS:
        tokens.pop(0)
    return (tokens[0], tokens[1:]) if tokens else (None, [])


def test_uci_fuzz():
    gen = Generator(SEED)
    model = Model()
    engine = EngineProcess()
    counts = {
        "lines": 0,
        "go": 0,
        "bestmove 0000": 0,
        "bestmove (none)": 0,
        "isready": 0,
        "refused positions": 0,
        "chunks": 0,
    }
    started = time.monotonic()
    try:
        engine.send(["uci"])
        while engine.next_line(SYNC_TIMEOUT_S) != "uciok":
            pass
        for chunk in _chunks(gen, TARGET_LINES):
            counts["chunks"] += 1
            expected_best: list[tuple[set[str], str, str]] = []
            readyoks = 0
            for line in chunk:
                command, args = _parse_command(line)
                if command == "position":
                    model.position(args)
                    counts["refused positions"] += model.board is None
                elif command == "ucinewgame":
                    model.board = chess.Board()
                elif command == "go" and _valid_go(args):
                    fen = model.board.fen() if model.board is not None else "(no position)"
                    expected_best.append((model.expected_best(), fen, line))
                elif command == "isready":
                    readyoks += 1
            counts["lines"] += len(chunk)
            counts["go"] += len(expected_best)
            counts["isready"] += readyoks
            engine.send(chunk)
            got_best: list[str] = []
            got_ready = 0
            received: list[str] = []
            while len(got_best) < len(expected_best) or got_ready < readyoks:
                try:
                    out = engine.next_line(SYNC_TIMEOUT_S)
                except AssertionError as exc:
                    shown = [line[:300] for line in chunk]
                    raise AssertionError(
                        f"{exc}; chunk {shown}; got {[o[:200] for o in received[-30:]]}; waiting for "
                        f"{len(expected_best)} bestmove, {readyoks} readyok"
                    ) from None
                received.append(out)
                assert "Traceback" not in out and "internal error" not in out, (out, chunk)
                if out.startswith("info string error"):
                    assert not _CLASS_NAME.search(out), out
                if out.startswith("bestmove"):
                    got_best.append(out)
                elif out == "readyok":
                    got_ready += 1
            assert got_ready == readyoks
            for out, (legal, fen, line) in zip(got_best, expected_best):
                move = out.split()[1]
                assert move in legal, f"{out!r} after {line!r} in {fen}; chunk {chunk[:20]}"
                counts["bestmove 0000"] += move == "0000"
                counts["bestmove (none)"] += move == "(none)"
        assert engine.proc.poll() is None, "the engine exited"
    finally:
        if engine.proc.poll() is None:
            try:
                engine.send(["quit"])
                engine.proc.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                engine.proc.kill()
    elapsed = time.monotonic() - started
    stderr = engine.stderr.decode("utf-8", "replace")
    assert "Traceback" not in stderr, stderr[-3000:]
    assert engine.proc.returncode == 0
    summary = f"UCI fuzz: {counts} in {elapsed:.1f} s"
    print(summary)
    assert counts["lines"] >= TARGET_LINES, summary
    assert counts["go"] >= 300 and counts["bestmove 0000"] >= 10, summary


def _valid_go(args: list[str]) -> bool:
    """Whether a ``go`` starts a search: the model of the engine's documented go syntax."""
    ints = ("wtime", "btime", "winc", "binc", "movestogo", "movetime", "depth", "nodes", "mate")
    i = 0
    while i < len(args):
        token = args[i]
        if token in ("infinite", "ponder"):
            i += 1
        elif token in ints:
            if i + 1 >= len(args):
                return False
            try:
                value = int(args[i + 1])
            except ValueError:
                return False
            if token in ("depth", "nodes", "mate", "movestogo") and value < 1:
                return False
            i += 2
        elif token == "searchmoves":
            i += 1
            while i < len(args) and args[i] not in ints and args[i] not in ("infinite", "ponder"):
                i += 1
        else:
            return False
    return True
