"""One home for every name, range and default a user can set.

Plain Python with no numba import, so the UCI front end, the command line and
the lab can check a value without loading the compiled core; the table, the
key sets and the FEN parser take their names and limits from here too.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

START_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"

# --- Zobrist key sets (transpo.core.keys builds them) ------------------------
KEY_SET_NAMES = ("polyglot", "prng", "knuth")
DEFAULT_KEY_SET = "polyglot"
DEFAULT_PRNG_SEED = 0x5452414E53504F  # "TRANSPO" in ASCII
# How the keys of a position's features are combined into its key: XOR (Zobrist, PolyGlot) or
# 64-bit wrapping addition (a lab option; the opening book needs XOR).
KEY_COMBINATIONS = ("xor", "add")
DEFAULT_COMBINE = "xor"

# --- transposition table (transpo.engine.table) --------------------------------
POLICIES = ("always", "depth", "two-tier", "bucket")  # replacement policies; the index is stored in the table
DEFAULT_POLICY = "bucket"
DEFAULT_USE_TT = True  # the UCI option UseTT: probe and store at all
DEFAULT_HASH_AUDIT = False  # the UCI option HashAudit: a 64-bit check key per entry to count false hits
DEFAULT_LOCKLESS = True  # the UCI option LocklessHash: word 0 holds key ^ data, so a torn entry fails its check

# --- opening book (transpo.engine.book) ----------------------------------------
DEFAULT_OWN_BOOK = False  # the UCI option OwnBook: play book moves when a BookFile is set
DEFAULT_BOOK_FILE = ""  # the UCI option BookFile: a Polyglot .bin file; empty: no book
NO_BOOK_FILE_NAMES = ("", "<empty>")  # what GUIs send for an empty string option
BOOK_MODES = ("weighted", "best")  # the UCI option BookMode: at random by weight, or the heaviest move
DEFAULT_BOOK_MODE = "weighted"


@dataclass(frozen=True)
class IntRange:
    """An integer setting: its inclusive bounds and default, and the name its errors use."""

    name: str
    low: int
    high: int
    default: int
    unit: str = ""

    def check(self, value: int) -> int:
        """``value`` if it lies within the bounds; otherwise ValueError, e.g. 'hash size must be 1..65536 MB, not 0'."""
        if not self.low <= value <= self.high:
            raise ValueError(f"{self.name} must be {self.low}..{self.high}{self.unit}, not {value}")
        return value


HASH_MB = IntRange("hash size", 1, 65536, 64, " MB")
SIGNATURE_BITS = IntRange("signature bits", 8, 64, 64)
MULTIPV = IntRange("MultiPV", 1, 256, 1)
MOVE_OVERHEAD_MS = IntRange("move overhead", 0, 5000, 50, " ms")
# A draw's score for the side the engine plays is minus this (centipawns): above 0 it plays on
# in positions it judges about level instead of taking a repetition or an exchange into a drawn ending.
CONTEMPT = IntRange("contempt", -100, 100, 0, " cp")
THREADS = IntRange("threads", 1, 2 * (os.cpu_count() or 1), 1)  # search threads (Lazy SMP), up to 2 per CPU


def check_choice(what: str, value: str, choices: Sequence[str]) -> str:
    """``value`` if it is one of ``choices``; otherwise ValueError naming them all."""
    if value not in choices:
        raise ValueError(f"unknown {what} {value!r}; choose one of {', '.join(choices)}")
    return value


def available_memory_bytes() -> int:
    """Memory the machine can give now: ``MemAvailable`` on Linux, else the physical memory."""
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


MEMORY_HEADROOM = 0.9  # a single allocation may take at most this share of the available memory


def check_fits(nbytes: int, what: str, freed: int = 0) -> None:
    """ValueError naming ``what`` and what fits, if ``nbytes`` cannot be allocated now
    (``freed``: bytes the caller releases first)."""
    room = int(available_memory_bytes() * MEMORY_HEADROOM) + freed
    if nbytes > room:
        raise ValueError(f"{what} needs {nbytes >> 20} MB but only about {room >> 20} MB of memory is available")
