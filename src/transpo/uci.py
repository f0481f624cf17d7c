"""The UCI protocol: Transpo as an engine for chess GUIs and match runners.

Threads
-------
* The **main thread** only reads standard input, line by line.  ``quit`` and
  end of input are acted on there at once (the search is stopped and the
  process exits), so they work even while another command waits.
* A **command thread** executes the other lines in order.  Only it touches the
  position and the options.
* A **warm-up thread**, started before the first line is read, imports the
  compiled engine (numba loads it from the cache, or compiles it: on a cold cache
  in a child process, on the other core) and runs a depth-2 search, then builds
  the real :class:`~transpo.engine.engine.Engine`.  ``uci`` is answered without
  it (this module imports nothing compiled at module level: the option list is
  built from :mod:`transpo.settings`, plain Python).  With a warm cache the other
  commands wait for it (well under a second).  With a cold one (``cold``, decided
  at start) nothing waits for the compile: ``isready`` is answered at once,
  ``position`` is read with python-chess (and replayed into a ``Position`` later)
  and a ``go`` with a clock, a ``movetime``, ``infinite`` or ``ponder`` is
  answered by :mod:`transpo.quicksearch` within its time budget, so a GUI never
  loses on time to the first compile; ``go depth``/``nodes``/``mate`` (no clock
  to keep) and ``d`` wait for the engine.
  ``setoption`` does not wait: the values are kept and applied when the engine exists.
* A **search thread** per ``go`` runs ``Engine.search`` (the compiled search
  releases the GIL, so ``stop`` and ``ponderhit`` get through); with ``Threads``
  above 1 it runs ``Threads - 1`` helper threads beside it (Lazy SMP, see
  :mod:`transpo.engine.engine`), stopped with it.  It prints the
  ``info`` lines and then ``bestmove``; under ``go infinite`` and ``go ponder``
  it holds ``bestmove`` back until ``stop`` (or ``ponderhit``) even if the
  search ended by itself.  A ``go`` sent while a search runs waits for it
  (as in Stockfish) when it ends by itself, and stops it when it waits for
  ``stop``.

``quit`` stops the running search at once; lines read before it are still
executed (a ``go`` among them searches one ply), for at most ``QUIT_GRACE_S``
seconds, then the process exits even if the warm-up is still compiling.
End of input is gentler, for scripts (``printf 'go depth 5\n' | transpo``
answers with a depth-5 search): the warm-up may finish, every line read is
executed and every search runs to its own limits; ``go infinite`` and ``go
ponder``, which could only end by a ``stop`` that will never come, are stopped
``EOF_OPEN_ENDED_GRACE_S`` seconds after end of input.

Opening book
------------
With ``OwnBook`` on and a Polyglot ``BookFile`` open, a ``go`` (not ``go
infinite`` or ``go mate``) whose position is in the book is answered at once
by ``info string book move ...`` and ``bestmove <book move>`` (by weight at
random, or the heaviest with ``BookMode best``), also while the engine is
still compiling (the python-chess board is looked up then).  The book is opened
by ``setoption``: a file that cannot be used is reported by ``info string
error: ...`` and leaves no book; the engine searches as before.

Robustness
----------
Every line is handled inside ``try``: a malformed command, an unknown command,
a bad FEN or an illegal move is answered by ``info string error: ...`` in plain
words (naming the option and its range, never a Python class name).  A
``position`` command reads like Stockfish's: castling rights the board
contradicts are dropped with an ``info string warning``, moves are played up to
the first illegal one (reported); a ``position`` that sets nothing (a refused
FEN) leaves **no** position, and ``go`` then answers ``info string error: no
position`` and ``bestmove 0000``, never a move of an older position.  A
``Hash`` that cannot be allocated is refused and the previous table kept.  A
malformed ``go`` starts no search (and so prints no ``bestmove``).  Leading unknown tokens are skipped as the UCI spec asks
(``joho debug on`` runs ``debug on``).  No traceback is ever printed; output is
flushed line by line.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import threading
import time
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, TextIO

# Plain Python only: the option ranges and names must be known before numba loads.
from transpo.settings import (
    BOOK_MODES,
    CONTEMPT,
    DEFAULT_BOOK_FILE,
    DEFAULT_BOOK_MODE,
    DEFAULT_HASH_AUDIT,
    DEFAULT_LOCKLESS,
    DEFAULT_OWN_BOOK,
    DEFAULT_POLICY,
    DEFAULT_USE_TT,
    HASH_MB,
    MOVE_OVERHEAD_MS,
    MULTIPV,
    NO_BOOK_FILE_NAMES,
    POLICIES,
    SIGNATURE_BITS,
    START_FEN,
    THREADS,
    IntRange,
)

if TYPE_CHECKING:  # pragma: no cover
    import chess

    from transpo.core.position import Position
    from transpo.engine.book import Book, BookEntry
    from transpo.engine.engine import Engine, Info
    from transpo.engine.timeman import Limits

ENGINE_NAME = "Transpo"
ENGINE_AUTHOR = "the Transpo developers"
WARMUP_DEPTH = 2
QUIT_GRACE_S = 2.0  # after quit, how long commands already read may still take
EOF_WARMUP_WAIT_S = 120.0  # at end of input, how long to let the warm-up finish first
EOF_OPEN_ENDED_GRACE_S = 1.0  # at end of input, how long go infinite / go ponder may still run


@dataclass(frozen=True)
class Option:
    """One UCI option as announced by ``option name ... type ...``."""

    name: str
    type: str  # spin, check, combo, button, string
    default: object = None
    min: int | None = None
    max: int | None = None
    choices: tuple[str, ...] = ()

    def declaration(self) -> str:
        """The ``option name ... type ...`` line that ``uci`` sends for this option."""
        parts = [f"option name {self.name} type {self.type}"]
        if self.type == "check":
            parts.append(f"default {'true' if self.default else 'false'}")
        elif self.type == "string" and self.default == "":
            parts.append("default <empty>")  # as Stockfish writes it: a bare "default" would end the line
        elif self.type != "button":
            parts.append(f"default {self.default}")
        if self.type == "spin":
            parts.append(f"min {self.min} max {self.max}")
        for choice in self.choices:
            parts.append(f"var {choice}")
        return " ".join(parts)

    def parse(self, text: str | None) -> object:
        """The value of ``setoption ... value text``; raises ValueError naming the fault."""
        if self.type == "button":
            return True
        if text is None:
            raise ValueError(f"option {self.name} needs a value")
        if self.type == "spin":
            try:
                value = int(text)
            except ValueError:
                raise ValueError(
                    f"option {self.name} needs a whole number from {self.min} to {self.max}, not {text!r}"
                ) from None
            if not self.min <= value <= self.max:
                raise ValueError(f"option {self.name} must be from {self.min} to {self.max}, not {value}")
            return value
        if self.type == "check":
            if text.lower() not in ("true", "false"):
                raise ValueError(f"option {self.name} needs true or false, not {text!r}")
            return text.lower() == "true"
        if self.type == "combo":
            for choice in self.choices:
                if choice.lower() == text.lower():
                    return choice
            raise ValueError(f"option {self.name} must be one of {', '.join(self.choices)}, not {text!r}")
        return text


def _spin(name: str, setting: IntRange) -> Option:
    """A ``spin`` option whose default and bounds are those of a :mod:`transpo.settings` range."""
    return Option(name, "spin", setting.default, setting.low, setting.high)


OPTIONS: tuple[Option, ...] = (
    _spin("Hash", HASH_MB),
    Option("Clear Hash", "button"),
    _spin("Threads", THREADS),
    _spin("Move Overhead", MOVE_OVERHEAD_MS),
    _spin("MultiPV", MULTIPV),
    _spin("Contempt", CONTEMPT),
    Option("Ponder", "check", False),
    _spin("SignatureBits", SIGNATURE_BITS),
    Option("Replacement", "combo", DEFAULT_POLICY, choices=POLICIES),
    Option("UseTT", "check", DEFAULT_USE_TT),
    Option("HashAudit", "check", DEFAULT_HASH_AUDIT),
    Option("LocklessHash", "check", DEFAULT_LOCKLESS),
    Option("OwnBook", "check", DEFAULT_OWN_BOOK),
    Option("BookFile", "string", DEFAULT_BOOK_FILE),
    Option("BookMode", "combo", DEFAULT_BOOK_MODE, choices=BOOK_MODES),
)
OPTIONS_BY_NAME = {option.name.lower(): option for option in OPTIONS}
BOOK_OPTIONS = ("OwnBook", "BookFile", "BookMode")  # the front end's own: the engine never sees them

# Tokens of ``go`` followed by an integer, and the flags.
GO_INT_TOKENS = ("wtime", "btime", "winc", "binc", "movestogo", "movetime", "depth", "nodes", "mate")
GO_FLAGS = ("infinite", "ponder")
COMMANDS = (
    "uci", "debug", "isready", "setoption", "register", "ucinewgame", "position",
    "go", "stop", "ponderhit", "quit", "d",
)  # fmt: skip


class UCIError(ValueError):
    """A command that is refused; its message goes out as ``info string error: ...``."""


def parse_go(tokens: list[str]) -> dict:
    """The arguments of ``go`` as keyword arguments of :class:`~transpo.engine.timeman.Limits`.

    ``searchmoves`` and its moves are skipped (not supported); anything else
    unknown or malformed raises :class:`UCIError`.
    """
    fields: dict = {}
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token in GO_FLAGS:
            fields[token] = True
            i += 1
        elif token in GO_INT_TOKENS:
            if i + 1 >= len(tokens):
                raise UCIError(f"go {token} needs a value")
            try:
                value = int(tokens[i + 1])
            except ValueError:
                raise UCIError(f"go {token} needs an integer, not {tokens[i + 1]!r}") from None
            if token in ("depth", "nodes", "mate", "movestogo") and value < 1:
                raise UCIError(f"go {token} must be at least 1, not {value}")
            if token in ("winc", "binc", "movetime"):
                value = max(0, value)
            fields[token] = value
            i += 2
        elif token == "searchmoves":
            i += 1
            while i < len(tokens) and tokens[i] not in GO_INT_TOKENS and tokens[i] not in GO_FLAGS:
                i += 1
        else:
            raise UCIError(f"unknown go parameter {token!r}")
    return fields


def split_position(tokens: list[str]) -> tuple[str, list[str]]:
    """(FEN, moves) of ``position startpos|fen <FEN> [moves ...]``; UCIError when neither form is given."""
    if not tokens:
        raise UCIError("position needs startpos or fen; no position is set")
    if "moves" in tokens:
        at = tokens.index("moves")
        spec, moves = tokens[:at], tokens[at + 1 :]
    else:
        spec, moves = tokens, []
    if spec == ["startpos"]:
        return START_FEN, moves
    if spec and spec[0] == "fen" and len(spec) > 1:
        return " ".join(spec[1:]), moves
    raise UCIError(f"position needs 'startpos' or 'fen <FEN>', not {_clip(' '.join(spec))!r}; no position is set")


def split_setoption(tokens: list[str]) -> tuple[str, str | None]:
    """(name, value or None) of ``setoption name <words> [value <words>]``."""
    if not tokens or tokens[0] != "name":
        raise UCIError("setoption needs 'name <option>'")
    try:
        at = tokens.index("value")
    except ValueError:
        name, value = tokens[1:], None
    else:
        name, value = tokens[1:at], " ".join(tokens[at + 1 :])
    if not name:
        raise UCIError("setoption needs an option name")
    return " ".join(name), value


def format_info(info: Info) -> str:
    """The UCI ``info`` line of one reported line of the search."""
    mate = info.mate_in
    score = f"mate {mate}" if mate is not None else f"cp {info.score}"
    if info.bound:
        score += f" {info.bound}"
    parts = [
        f"info depth {info.depth} seldepth {info.seldepth} multipv {info.multipv} score {score}",
        f"nodes {info.nodes} nps {info.nps} hashfull {info.hashfull} time {info.time_ms}",
    ]
    if info.pv:
        parts.append("pv " + " ".join(info.pv))
    return " ".join(parts)


class UCI:
    """The protocol state machine; :func:`run_uci` wires it to stdin and stdout."""

    def __init__(self, out: TextIO | None = None, exit_process: bool = False) -> None:
        """A protocol state writing to ``out`` (default stdout); ``exit_process``: ``quit`` ends the process."""
        self._out = out if out is not None else sys.stdout
        self._out_lock = threading.Lock()
        self._exit_process = exit_process
        self.options: dict[str, object] = {option.name: option.default for option in OPTIONS}
        self.ready = threading.Event()
        self._warm_error: str | None = None
        self.engine: Engine | None = None
        self._engine_lock = threading.Lock()  # engine creation against setoption
        self.position: Position | None = None  # the start position once the engine is loaded
        self.no_position = False  # the last position command was refused: go answers bestmove 0000
        # before the engine is ready: the last position as python-chess read it, replayed into a Position later
        self._early_args: list[str] | None = None
        self._early_board: chess.Board | None = None
        self._compiler: subprocess.Popen | None = None  # the child process compiling a cold cache
        self.cold = False  # set by start_warmup: the engine must be compiled, commands must not wait for it
        self._quick_stop = threading.Event()  # stops a quick search (go before the engine is ready)
        self.book: Book | None = None  # the open BookFile; played from only with OwnBook
        self._book_rng = random.Random()  # seeded from the system: games from the book vary
        # search state
        self._search_thread: threading.Thread | None = None
        self._search_lock = threading.Lock()
        self._search_done = threading.Event()
        self._search_done.set()
        self._release = threading.Event()  # bestmove may be printed
        self._ponder_search = False
        self._open_ended = False  # the running go waits for stop (infinite or ponder)
        self._pending: list[str] = []
        self._pending_cv = threading.Condition()
        self._quitting = False

    # --- output ----------------------------------------------------------------
    def send(self, line: str) -> None:
        """Write one line and flush it (a GUI reads line by line); threads take turns."""
        with self._out_lock:
            try:
                self._out.write(line + "\n")
                self._out.flush()
            except (OSError, ValueError):  # the GUI went away; nothing to tell it
                pass

    def error(self, message: str) -> None:
        """Report a refused command as one ``info string error: ...`` line (whitespace collapsed)."""
        self.send(f"info string error: {' '.join(str(message).split())}")

    # --- warm-up ---------------------------------------------------------------
    def start_warmup(self) -> threading.Thread:
        """Start the warm-up thread (see the module docstring) and return it."""
        from transpo.compiling import ENGINE, is_compiled

        # Decided here, before any command is read: a warm cache loads in well under a second, and
        # commands wait for it as before; a cold one takes seconds, and they must not.
        self.cold = not is_compiled(ENGINE)
        thread = threading.Thread(target=self._warm_up, name="transpo-warmup", daemon=True)
        thread.start()
        return thread

    def _warm_up(self) -> None:
        """Load or compile the engine, search once to load every compiled path, then build the real engine."""
        try:
            from transpo.compiling import ENGINE, compile_in_child

            if self.cold:  # compile on the other core; this process stays free for quick searches
                self._compiler = compile_in_child(ENGINE)
                self._compiler.wait()  # if it failed, the imports below compile in this process instead
            from transpo.core.position import Position
            from transpo.engine.engine import Engine
            from transpo.engine.timeman import Limits

            scratch = Engine(hash_mb=1, audit=True)  # audit compiles the check-key path too
            scratch.search(Position(), Limits(depth=WARMUP_DEPTH))
            # Position.push calls make_move from Python, a cache entry the search does not load: load it
            # here, so the first ``position ... moves`` does not wait for it.
            position = Position()
            position.push("e2e4")
            with self._engine_lock:
                options = dict(self.options)

                def build(hash_mb: int) -> Engine:
                    return Engine(
                        hash_mb=hash_mb,
                        policy=options["Replacement"],
                        signature_bits=options["SignatureBits"],
                        use_tt=options["UseTT"],
                        multipv=options["MultiPV"],
                        move_overhead=options["Move Overhead"],
                        audit=options["HashAudit"],
                        threads=options["Threads"],
                        lockless=options["LocklessHash"],
                        contempt=options["Contempt"],
                    )

                try:
                    engine = build(options["Hash"])
                except (ValueError, MemoryError) as exc:  # a Hash set before the engine existed that cannot be had
                    fallback = min(HASH_MB.default, options["Hash"])
                    self.error(f"cannot set Hash to {options['Hash']} MB ({_plain(exc)}); using {fallback} MB")
                    engine = build(fallback)
                    self.options["Hash"] = fallback
                self.engine = engine
            if self.position is None:
                self.position = Position()
        except BaseException as exc:  # noqa: BLE001 - reported, never raised
            self._warm_error = _plain(exc)
        finally:
            self.ready.set()

    def _need_engine(self) -> Engine:
        """The engine, once the warm-up is over; UCIError if it failed to start."""
        self.ready.wait()
        if self.engine is None:
            raise UCIError(f"the engine failed to start ({self._warm_error})")
        return self.engine

    # --- the command loop --------------------------------------------------------
    def submit(self, line: str) -> None:
        """Queue one input line for the command thread."""
        with self._pending_cv:
            self._pending.append(line)
            self._pending_cv.notify()

    def command_loop(self) -> None:
        """Execute queued lines in order until a ``None`` arrives (the command thread)."""
        while True:
            with self._pending_cv:
                while not self._pending:
                    self._pending_cv.wait()
                line = self._pending.pop(0)
            if line is None:
                return
            self.handle(line)

    def handle(self, line: str) -> None:
        """Execute one input line (any failure becomes ``info string error``)."""
        try:
            tokens = line.split()
            skipped = []
            while tokens and tokens[0] not in COMMANDS:
                skipped.append(tokens.pop(0))
            if skipped:
                what = " ".join(skipped)
                if len(what) > 60:
                    what = what[:57] + "..."
                self.error(f"unknown command {what!r}")
            if not tokens:
                return
            command, args = tokens[0], tokens[1:]
            getattr(self, "cmd_" + command)(args)
        except (UCIError, ValueError) as exc:  # refused input: the message says why
            self.error(str(exc))
        except MemoryError:
            self.error("out of memory; command refused")
        except Exception as exc:  # noqa: BLE001 - the engine goes on
            self.error(f"internal error on {line.strip()[:60]!r}: {_plain(exc)}")

    # --- commands --------------------------------------------------------------
    def cmd_uci(self, args: list[str]) -> None:
        """``uci``: name, author, the options, ``uciok``; needs nothing compiled."""
        self.send(f"id name {ENGINE_NAME}")
        self.send(f"id author {ENGINE_AUTHOR}")
        for option in OPTIONS:
            self.send(option.declaration())
        self.send("uciok")

    def cmd_debug(self, args: list[str]) -> None:
        """``debug on|off``: checked, then ignored (the spec lets an engine send no extra debug output)."""
        if args not in (["on"], ["off"]):
            raise UCIError("debug needs on or off")

    def cmd_register(self, args: list[str]) -> None:
        """``register``: accepted and ignored."""
        pass  # nothing to register

    def cmd_isready(self, args: list[str]) -> None:
        """``isready``: ``readyok`` after the commands before it (an error line first if the warm-up failed).

        While the engine compiles it answers at once: every command can be taken
        then (see the module docstring), so a GUI is never kept waiting by the
        first compile.  A warm cache is waited for (it loads in well under a second).
        """
        if not self.cold:
            self.ready.wait()  # loading a warm cache: well under a second
        if self.ready.is_set() and self._warm_error:
            self.error(f"the engine failed to start ({self._warm_error})")
        self.send("readyok")

    def cmd_setoption(self, args: list[str]) -> None:
        """``setoption name N [value V]``: check the value, apply it to the engine if it exists, remember it."""
        name, text = split_setoption(args)
        option = OPTIONS_BY_NAME.get(name.lower())
        if option is None:
            raise UCIError(f"unknown option {name!r}")
        value = option.parse(text)
        if option.name in BOOK_OPTIONS:  # read by the next go only: no search to wait for
            self.options[option.name] = value
            if option.name == "BookFile":
                self._open_book(str(value))
            return
        if self._active() and option.name not in ("Ponder", "Move Overhead", "MultiPV"):
            # Like Stockfish: wait for a search that ends by itself; one that waits for stop cannot be waited for.
            if self._open_ended:
                raise UCIError(f"option {option.name} cannot change during go infinite or go ponder; send stop first")
            self._stop_search(wait_only=True)
        with self._engine_lock:
            if self.engine is not None:
                self._apply(self.engine, option.name, value)
            if option.type != "button":
                self.options[option.name] = value

    def _open_book(self, text: str) -> None:
        """Open the ``BookFile`` named by ``text`` (empty: none); on failure UCIError, and no book."""
        self.book = None
        path = text.strip()
        if path in NO_BOOK_FILE_NAMES:
            return
        from transpo.engine.book import Book, BookError  # plain Python and numpy: fine while compiling

        try:
            self.book = Book(os.path.expanduser(path))
        except BookError as exc:
            raise UCIError(f"{exc}; no book is used") from None
        self.send(f"info string book {_clip(path)}: {len(self.book)} entries")

    @staticmethod
    def _apply(engine: Engine, name: str, value) -> None:
        """Set one option on a live engine."""
        if name == "Hash":
            previous = engine.table.size_mb
            try:
                engine.table.resize(value)
            except (ValueError, MemoryError) as exc:
                raise UCIError(
                    f"cannot set Hash to {value} MB ({_plain(exc)}); keeping the {previous} MB table"
                ) from None
        elif name == "Clear Hash":
            engine.new_game()
        elif name == "Move Overhead":
            engine.move_overhead = value
        elif name == "MultiPV":
            engine.multipv = value
        elif name == "Contempt":
            engine.contempt = value
        elif name == "SignatureBits":
            engine.table.set_signature_bits(value)
        elif name == "Replacement":
            engine.table.set_policy(value)
        elif name == "UseTT":
            engine.table.enabled = value
        elif name == "HashAudit":
            engine.set_audit(value)
        elif name == "Threads":
            engine.set_threads(value)
        elif name == "LocklessHash":
            engine.table.lockless = value  # a change empties the table (entries stored the other way)
        # Ponder (the GUI's business) changes nothing in the engine.

    def cmd_ucinewgame(self, args: list[str]) -> None:
        """``ucinewgame``: stop any search, clear the table and history, back to the start position."""
        if self.cold and not self.ready.is_set():  # the engine is still being compiled: it will start empty anyway
            self._stop_search()
            self._early_args = self._early_board = None
            self.no_position = False
            return
        engine = self._need_engine()
        self._stop_search()
        engine.new_game()
        from transpo.core.position import Position

        self.position = Position()
        self.no_position = False
        self._early_args = self._early_board = None

    def cmd_position(self, args: list[str]) -> None:
        """``position startpos|fen F [moves ...]``, as Stockfish reads it.

        A castling right the board contradicts is dropped with a warning (as
        python-chess does); the moves are played up to the first illegal one,
        which is reported.  A command that sets no position at all (a refused
        FEN, a malformed command) leaves **no** position: the next ``go``
        answers ``bestmove 0000`` instead of a move of an older position.
        """
        if self.cold and not self.ready.is_set():
            self._early_position(args)
        else:
            self.ready.wait()
            self._early_args = self._early_board = None
            self._set_position(args, report=True)

    def _set_position(self, args: list[str], report: bool) -> None:
        """Build the ``Position`` of a ``position`` command; ``report``: warnings and errors go out."""
        from transpo.core.position import IllegalMove, InvalidFEN, Position

        self.no_position = True  # until this command has set one
        fen, moves = split_position(args)
        try:
            position = Position.from_fen(fen, clean_castling=True)
        except InvalidFEN as exc:
            raise UCIError(f"bad fen {_clip(fen)!r}: {_clip(str(exc), 200)}; no position is set") from None
        if report and position.dropped_castling:
            self.send(
                f"info string warning: castling rights {position.dropped_castling} dropped: "
                "their king or rook is not on its home square"
            )
        for index, move in enumerate(moves):
            try:
                position.push(move)
            except IllegalMove as exc:
                self.position, self.no_position = position, False
                if not report:
                    return
                raise UCIError(
                    f"{_clip(str(exc), 200)} (move {index + 1} of {len(moves)}); "
                    f"the position is the one after the {index} moves before it"
                ) from None
        self.position, self.no_position = position, False

    def _early_position(self, args: list[str]) -> None:
        """``position`` before the engine is ready: read by python-chess, kept for the quick search and replayed later."""
        import chess  # python-chess reads positions only while the engine compiles

        self._early_args, self._early_board = list(args), None
        self.no_position = True
        fen, moves = split_position(args)
        try:
            board = chess.Board(fen)
        except ValueError as exc:
            raise UCIError(f"bad fen {_clip(fen)!r}: {_clip(str(exc), 200)}; no position is set") from None
        cleaned = board.clean_castling_rights()
        if cleaned != board.castling_rights:
            kept = chess.Board(fen)
            kept.castling_rights = cleaned
            dropped = "".join(c for c in fen.split()[2] if c not in kept.castling_xfen())
            self.send(
                f"info string warning: castling rights {dropped} dropped: their king or rook is not on its home square"
            )
            board.castling_rights = cleaned
        if not board.is_valid():
            raise UCIError(f"bad fen {_clip(fen)!r}: not a legal position ({board.status()!r}); no position is set")
        for index, text in enumerate(moves):
            try:
                move = chess.Move.from_uci(text)
            except ValueError:
                move = None
            if move is None or move not in board.legal_moves:
                self._early_board, self.no_position = board, False
                raise UCIError(
                    f"illegal move {_clip(text, 20)} in {board.fen()} (move {index + 1} of {len(moves)}); "
                    f"the position is the one after the {index} moves before it"
                )
            board.push(move)
        self._early_board, self.no_position = board, False

    def _settle_position(self) -> None:
        """Once the engine is ready, turn a position read before it into a ``Position`` (its messages were sent)."""
        if self._early_args is not None and self.ready.is_set():
            args, self._early_args, self._early_board = self._early_args, None, None
            try:
                self._set_position(args, report=False)
            except UCIError:
                pass  # refused before: there is still no position

    def cmd_d(self, args: list[str]) -> None:
        """``d`` (not UCI, as in Stockfish): the board, its FEN and its key."""
        self.ready.wait()
        self._settle_position()
        if self.position is None or self.no_position:
            raise UCIError("no position")
        for row in str(self.position).splitlines():
            self.send(row)
        self.send(f"Fen: {self.position.fen()}")
        self.send(f"Key: {self.position.key:016x}")

    def cmd_go(self, args: list[str]) -> None:
        """``go ...``: start a search thread; a malformed ``go`` starts nothing, no position answers ``bestmove 0000``."""
        fields = parse_go(args)
        from transpo.engine.timeman import Limits

        limits = Limits(**fields)
        if self._play_from_book(limits):
            return
        timed = limits.wtime is not None or limits.btime is not None or limits.movetime is not None
        if self.cold and not self.ready.is_set() and (timed or limits.infinite or limits.ponder):
            self._start_quick_search(limits)
            return
        engine = self._need_engine()
        self._settle_position()
        # Like Stockfish, a go waits for a search that ends by itself (a script's go after go gets both
        # searches in full); one that waits for stop (infinite, ponder) is stopped.
        if self.no_position or self.position is None:  # a refused position: no move of an older position
            self._stop_search(wait_only=not self._open_ended)
            self.error("no position")
            self.send("bestmove 0000")
            return
        if self._quitting:  # input ended: answer what was asked, but at once
            limits = Limits(depth=1)
        self._stop_search(wait_only=not self._open_ended)
        position = self.position.copy()
        engine.arm(position, limits)  # now, so a stop or ponderhit sent at once is not lost
        self._launch(self._search, (engine, position, limits), limits)

    def _play_from_book(self, limits: Limits) -> bool:
        """Answer ``go`` with a book move if ``OwnBook`` is on and the book has one; True if it did.

        Not under ``go infinite`` or ``go mate`` (analysis wants a search).  Under
        ``go ponder`` the move waits for ``ponderhit`` or ``stop``, as a search's would.
        """
        if not self.options["OwnBook"] or self.book is None or limits.infinite or limits.mate:
            return False
        from transpo.engine.book import choose

        entries = self._book_entries()
        move = None if entries is None else choose(entries, str(self.options["BookMode"]), self._book_rng)
        if move is None:
            return False
        self._stop_search(wait_only=not self._open_ended)
        total = sum(entry.weight for entry in entries)
        weight = sum(entry.weight for entry in entries if entry.move_uci == move)
        self.send(f"info string book move {move} weight {weight} of {total}")
        self._launch(self._book_answer, (move,), limits)
        return True

    def _book_entries(self) -> list[BookEntry] | None:
        """The book's legal entries for the current position; None when there is no position.

        While the engine compiles, the position is the python-chess board read by
        ``position`` (keyed by python-chess's PolyGlot hash); afterwards, the ``Position``.
        """
        if self.no_position:
            return None
        if self.cold and not self.ready.is_set():
            import chess
            import chess.polyglot

            board = self._early_board if self._early_board is not None else chess.Board()
            king = board.king(board.turn)
            return self.book.lookup(
                chess.polyglot.zobrist_hash(board),
                (move.uci() for move in board.legal_moves),
                None if king is None else chess.square_name(king),
            )
        self.ready.wait()
        self._settle_position()
        if self.no_position or self.position is None:
            return None
        return self.book.entries(self.position)

    def _book_answer(self, move: str) -> None:
        """Body of the search thread of a book move: ``bestmove`` as soon as it may go out."""
        with self._search_lock:
            self._search_done.set()
        self._release.wait()
        self.send(f"bestmove {move}")

    def cmd_stop(self, args: list[str]) -> None:
        """``stop``: end the search and let ``bestmove`` out; ignored when idle."""
        if not self._active():
            return  # stop when idle is ignored
        self._release.set()
        self._halt()

    def cmd_ponderhit(self, args: list[str]) -> None:
        """``ponderhit``: the pondered move was played; the search goes on under the clock."""
        if not self._active() or not self._ponder_search:
            return
        self._ponder_search = False
        with self._search_lock:  # a search that has ended needs no clock
            if not self._search_done.is_set():
                if self.engine is not None:
                    self.engine.ponderhit()
                self._quick_stop.set()  # a quick search (no clock of its own) answers now
        self._release.set()

    def cmd_quit(self, args: list[str]) -> None:
        """``quit`` after skipped unknown tokens (a line starting with ``quit`` is acted on by the reader)."""
        self.quit()

    # --- the search ------------------------------------------------------------
    def _active(self) -> bool:
        """A ``go`` has not had its ``bestmove`` yet (the search may be over, waiting for stop)."""
        thread = self._search_thread
        return thread is not None and thread.is_alive()

    def _stop_search(self, wait_only: bool = False) -> None:
        """Stop a running search (or, ``wait_only``, let it end) and wait until its bestmove is out."""
        thread = self._search_thread
        if thread is None:
            return
        if not wait_only:
            self._release.set()
            self._halt()
        thread.join()
        self._search_thread = None

    def _search(self, engine: Engine, position: Position, limits: Limits) -> None:
        """Body of the search thread: search, wait until ``bestmove`` may go out, send it."""
        best = ponder = None
        audit = engine.table.audit
        before = engine.table.counters() if audit else {}
        try:
            result = engine.search(position, limits, on_info=self._on_info)
            best, ponder = result.best_move, result.ponder_move
        except Exception as exc:  # noqa: BLE001 - a move must still come out
            self.error(f"search failed: {_plain(exc)}")
            moves = position.legal_moves()
            best = moves[0] if moves else None
        finally:
            with self._search_lock:
                self._search_done.set()
        self._release.wait()
        if audit:
            after = engine.table.counters()
            false_hits = after["false_hits"] - before.get("false_hits", 0)
            probes = after["probes"] - before.get("probes", 0)
            self.send(f"info string hash false hits {false_hits} of {probes} probes")
        if best is None:
            self.send("bestmove (none)")
        elif ponder:
            self.send(f"bestmove {best} ponder {ponder}")
        else:
            self.send(f"bestmove {best}")

    def _halt(self) -> None:
        """Stop whichever search runs: the engine's or a quick one (thread-safe)."""
        self._quick_stop.set()
        if self.engine is not None:
            self.engine.stop()

    def _start_quick_search(self, limits: Limits) -> None:
        """A ``go`` before the engine is ready: the quick search answers within the move's budget."""
        import chess

        self._stop_search(wait_only=not self._open_ended)
        if self.no_position:
            self.error("no position")
            self.send("bestmove 0000")
            return
        board = self._early_board if self._early_board is not None else chess.Board()
        self._quick_stop.clear()
        self._launch(self._quick_search, (board, limits), limits)

    def _launch(self, body, args: tuple, limits: Limits) -> None:
        """Start the search thread running ``body(*args)``; under infinite or ponder its bestmove waits for stop."""
        self._release.clear()
        if not (limits.infinite or limits.ponder):
            self._release.set()
        self._ponder_search = limits.ponder
        self._open_ended = limits.infinite or limits.ponder
        self._search_done.clear()
        self._search_thread = threading.Thread(target=body, args=args, name="transpo-search", daemon=True)
        self._search_thread.start()

    def _quick_search(self, board: chess.Board, limits: Limits) -> None:
        """Body of a quick search thread: deepen until the soft budget (or stop), then ``bestmove``."""
        import chess

        from transpo.engine.timeman import allot
        from transpo.quicksearch import MAX_DEPTH as MAX_QUICK_DEPTH
        from transpo.quicksearch import QuickSearch

        started = time.monotonic()
        budget = allot(limits, board.turn == chess.WHITE, int(self.options["Move Overhead"]))
        deadline = None if budget.soft_ms is None else started + budget.soft_ms / 1000
        self.send("info string the engine is still compiling: this move comes from the quick search")

        def report(result) -> None:
            elapsed = max(1, int((time.monotonic() - started) * 1000))
            self.send(
                f"info depth {result.depth} score cp {result.score} nodes {result.nodes} "
                f"nps {result.nodes * 1000 // elapsed} time {elapsed} pv {' '.join(result.pv)}"
            )

        result = None
        try:
            max_depth = min(limits.depth or MAX_QUICK_DEPTH, MAX_QUICK_DEPTH)
            result = QuickSearch(board, deadline, self._quick_stop).run(max_depth, on_iteration=report)
        except Exception as exc:  # noqa: BLE001 - a move must still come out
            self.error(f"quick search failed: {_plain(exc)}")
        finally:
            with self._search_lock:
                self._search_done.set()
        self._release.wait()
        if result is not None and result.best_move is not None:
            self.send(f"bestmove {result.best_move}")
        elif any(board.legal_moves):
            self.send(f"bestmove {next(iter(board.legal_moves)).uci()}")
        else:
            self.send("bestmove (none)")

    def _on_info(self, info: Info) -> None:
        """Send one ``info`` line for the search."""
        self.send(format_info(info))

    # --- shutdown --------------------------------------------------------------
    def drain(self, worker: threading.Thread) -> None:
        """End of input: execute every line read, each search to its own limits, then return.

        A search that waits for ``stop`` (``go infinite``, ``go ponder``) can never
        get one now: it is stopped ``EOF_OPEN_ENDED_GRACE_S`` seconds after it is seen.
        """
        self.submit(None)
        stop_at: dict[threading.Thread, float] = {}
        try:
            while worker.is_alive() or self._active():
                thread = self._search_thread
                if thread is not None and thread.is_alive() and self._open_ended:
                    when = stop_at.setdefault(thread, time.monotonic() + EOF_OPEN_ENDED_GRACE_S)
                    if time.monotonic() >= when:
                        self._release.set()
                        self._halt()
                time.sleep(0.02)
        except KeyboardInterrupt:
            pass

    def begin_quit(self) -> None:
        """``quit`` or end of input: stop the search; commands still queued run with depth-1 searches."""
        self._quitting = True
        self._halt()
        self._release.set()

    def quit(self) -> None:
        """Stop everything and leave (the process, when run from :func:`run_uci`)."""
        self._quitting = True
        self._halt()
        self._release.set()
        if self._compiler is not None and self._compiler.poll() is None:
            self._compiler.kill()  # its cache files are written whole or not at all
        thread = self._search_thread
        if thread is not None:
            thread.join(timeout=2.0)
        if self._exit_process:
            _hard_exit(0)


def _clip(text: str, limit: int = 80) -> str:
    """``text`` cut to ``limit`` characters (with ...), so one bad line gives one short answer."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _plain(exc: BaseException | None) -> str:
    """An exception's message in plain words (no Python class name), never empty."""
    text = " ".join(str(exc).split()) if exc is not None else ""
    if isinstance(exc, MemoryError):
        return f"out of memory{': ' + text if text else ''}"
    return text or "unexpected failure"


def _hard_exit(status: int) -> None:
    """Leave now: flush what was said, skip interpreter shutdown (a daemon thread may be compiling)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(status)


def _install_quiet_hooks(uci: UCI) -> None:
    """No traceback reaches the GUI: uncaught exceptions become info strings."""

    def report(exc_type, exc, tb) -> None:
        """Send an uncaught exception as ``info string error: internal: ...``."""
        if exc_type is not None and issubclass(exc_type, KeyboardInterrupt):
            return
        uci.error(f"internal error: {_plain(exc)}")

    sys.excepthook = report
    threading.excepthook = lambda args: report(args.exc_type, args.exc_value, args.exc_traceback)
    warnings.simplefilter("ignore")


def run_uci(stdin: TextIO | None = None, stdout: TextIO | None = None, exit_process: bool = True) -> int:
    """Run the UCI engine on stdin/stdout until ``quit`` or end of input.

    With ``exit_process`` (the ``transpo`` command) the process ends with
    ``os._exit`` right after ``quit``, so a warm-up compiling in the background
    cannot delay it.
    """
    if stdin is None:
        stdin = sys.stdin
        try:
            stdin.reconfigure(errors="replace")  # garbage bytes are a malformed line, not a crash
        except (AttributeError, ValueError):
            pass
    uci = UCI(stdout, exit_process=exit_process)
    if exit_process:
        _install_quiet_hooks(uci)
    uci.start_warmup()
    worker = threading.Thread(target=uci.command_loop, name="transpo-commands", daemon=True)
    worker.start()
    try:
        while True:
            try:
                line = stdin.readline()
            except UnicodeDecodeError:
                uci.error("input is not valid text")
                continue
            except (OSError, ValueError):
                break
            if not line:
                # End of input: a script piped in (printf 'go depth 5\n' | transpo) gets its answers.
                uci.ready.wait(timeout=EOF_WARMUP_WAIT_S)  # also completes the numba cache
                uci.drain(worker)
                break
            tokens = line.split()
            if tokens and tokens[0] == "quit":
                break
            uci.submit(line)
    except KeyboardInterrupt:
        pass
    uci.begin_quit()
    uci.submit(None)
    worker.join(timeout=QUIT_GRACE_S)  # lines read before quit are still answered, briefly
    uci.quit()
    return 0
