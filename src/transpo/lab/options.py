"""The options the lab commands share, parsed one way and checked before anything runs.

* **Lists.**  Every list option takes comma-separated items (``--bits 8,12,16``)
  and, for the commands that always took them so, space-separated ones too
  (``--bits 8 12 16``, or a mix).  Integer items may be written ``1e6`` or ``10**6``.
* **Ranges.**  Every number is checked when it is parsed (``--limit 0``,
  ``--jobs 0`` and ``--trials -1`` are refused), so a bad value is one line on
  stderr through argparse, never a traceback and never half a run.
* **Outputs.**  ``--json`` and ``--plot`` must be writable when the command
  starts, not only when the run is over.

:func:`add_common_options` declares ``--json``, ``--plot``, ``--positions``,
``--limit``, ``--jobs``, ``--ray`` and ``--seed``; :func:`common_config` turns them into a
:class:`CommonConfig`.  What ``--seed`` seeds is the command's to say (its help).
"""

from __future__ import annotations

import argparse
import math
import os
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from transpo.executors import RAY_INSTALL, Placement, require_ray
from transpo.lab.positions import Positions, load_positions
from transpo.settings import DEFAULT_KEY_SET, HASH_MB, KEY_COMBINATIONS, KEY_SET_NAMES, POLICIES

DEFAULT_SEED = 1


class Checker(Protocol):
    """Anything with a ``check(value)`` that returns the value or raises ValueError (e.g. ``settings.IntRange``)."""

    def check(self, value: Any) -> Any: ...


@dataclass(frozen=True)
class Bounds:
    """The bounds of a lab option (either may be absent, either may exclude itself) and the name its errors use."""

    name: str
    low: float | None = None
    high: float | None = None
    low_open: bool = False  # True: the value must be strictly above ``low``
    high_open: bool = False  # True: the value must be strictly below ``high``

    def check(self, value: Any) -> Any:
        """``value`` if it lies within the bounds; otherwise ValueError, e.g. 'jobs must be >= 1, not 0'."""
        too_low = self.low is not None and (value <= self.low if self.low_open else value < self.low)
        too_high = self.high is not None and (value >= self.high if self.high_open else value > self.high)
        if too_low or too_high:
            raise ValueError(f"{self.name} must be {self.text()}, not {value}")
        return value

    def text(self) -> str:
        """The bounds in words: '1..60', '>= 1', '> 0 and < 1'."""
        low = None if self.low is None else f"{'>' if self.low_open else '>='} {self.low:g}"
        high = None if self.high is None else f"{'<' if self.high_open else '<='} {self.high:g}"
        if low and high:
            return f"{self.low:g}..{self.high:g}" if not (self.low_open or self.high_open) else f"{low} and {high}"
        return low or high or "any value"


SEARCH_DEPTH = Bounds("depth", 1, 60)  # a fixed-depth search beyond 60 plies never finishes
JOBS = Bounds("jobs", 1)
LIMIT = Bounds("limit", 1)


# --- item parsers -----------------------------------------------------------------------
def parse_int(text: str) -> int:
    """An integer written ``12``, ``1e6`` or ``10**6``; ValueError otherwise."""
    item = text.strip()
    try:
        if "**" in item:
            base, exponent = item.split("**")
            return int(base) ** int(exponent)
        if "e" in item.lower():
            value = float(item)
            if value != int(value):
                raise ValueError
            return int(value)
        return int(item)
    except ValueError:
        raise ValueError(f"not an integer: {text!r}") from None


def parse_seed(text: str) -> int:
    """A seed: decimal or ``0x`` hexadecimal."""
    try:
        return int(text, 0)
    except ValueError:
        raise ValueError(f"not an integer: {text!r}") from None


def parse_float(text: str) -> float:
    """A finite real number."""
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"not a number: {text!r}") from None
    if not math.isfinite(value):
        raise ValueError(f"not a finite number: {text!r}")
    return value


def choice_of(what: str, choices: Sequence[str]) -> Callable[[str], str]:
    """A parser accepting only ``choices`` (error: 'unknown policy 'x'; choose one of ...')."""

    def parse(text: str) -> str:
        name = text.strip()
        if name not in choices:
            raise ValueError(f"unknown {what} {name!r}; choose one of {', '.join(choices)}")
        return name

    return parse


def checked(parse: Callable[[str], Any], bounds: Checker | None = None) -> Callable[[str], Any]:
    """An argparse ``type``: ``parse`` then ``bounds.check``; a ValueError becomes argparse's one-line error."""

    def convert(text: str) -> Any:
        try:
            value = parse(text)
            return bounds.check(value) if bounds is not None else value
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    return convert


# --- list options -----------------------------------------------------------------------
class _Concatenate(argparse.Action):
    """Joins the lists that ``type`` made of each space-separated word into one list."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        setattr(namespace, self.dest, [item for chunk in values for item in chunk])


def parse_list(text: str, parse: Callable[[str], Any] = parse_int, bounds: Checker | None = None) -> list[Any]:
    """The comma-separated items of ``text``, each parsed and checked: ``"8, 12,16"`` -> ``[8, 12, 16]``."""
    items = [item for item in text.split(",") if item.strip()]
    if not items and text.strip():
        raise ValueError(f"no item in {text!r}")
    values = [parse(item) for item in items]
    return [bounds.check(value) for value in values] if bounds is not None else values


def _items(parse: Callable[[str], Any], bounds: Checker | None) -> Callable[[str], list[Any]]:
    """An argparse ``type`` for one word of a list option: :func:`parse_list` with argparse's error."""
    return checked(lambda text: parse_list(text, parse, bounds))


def add_list_option(
    parser: argparse.ArgumentParser,
    flag: str,
    default: Sequence[Any],
    text: str,
    parse: Callable[[str], Any] = parse_int,
    bounds: Checker | None = None,
    allow_empty: bool = False,
) -> None:
    """A list option: ``--bits 8,12,16`` or ``--bits 8 12 16``; each item parsed by ``parse`` and checked.

    With ``allow_empty`` the flag may be given with no item (an empty list: the
    command skips that part); otherwise at least one item is required.
    """
    shown = ",".join(map(str, default)) if default else "none"
    parser.add_argument(
        flag,
        type=_items(parse, bounds),
        nargs="*" if allow_empty else "+",
        action=_Concatenate,
        default=list(default),
        metavar="ITEM",
        help=f"{text}, comma- or space-separated (default {shown})",
    )


def add_policy_list(parser: argparse.ArgumentParser, default: Sequence[str]) -> None:
    """``--policies``: replacement policies of the table (``transpo.settings.POLICIES``)."""
    add_list_option(parser, "--policies", default, "replacement policies", choice_of("policy", POLICIES))


def add_combine_list(parser: argparse.ArgumentParser, what: str) -> None:
    """``--combine``: how feature keys make a position's key, ``xor`` and/or ``add`` (results side by side)."""
    add_list_option(parser, "--combine", ("xor",), f"key combinations of {what} (xor, add: 64-bit addition)",
                    choice_of("key combination", KEY_COMBINATIONS))  # fmt: skip


# --- output paths -----------------------------------------------------------------------
def writable_path(text: str) -> str:
    """``text`` if a file can be written there now (existing file, or a new one in an existing folder)."""
    path = Path(text)
    try:
        if path.is_dir():
            raise ValueError(f"{text} is a directory")
        if path.exists():
            with path.open("a"):  # appending nothing leaves the file as it is
                pass
        else:
            folder = path.parent if str(path.parent) else Path(".")
            if not folder.is_dir():
                raise ValueError(f"cannot write {text}: no directory {folder}")
            # os.access says yes to root even on a read-only mount: try a real file instead
            with tempfile.NamedTemporaryFile(dir=folder, prefix=".transpo-lab-"):
                pass
    except OSError as exc:
        raise ValueError(f"cannot write {text}: {exc.strerror or exc}") from None
    return os.fspath(path)


# --- the common options ---------------------------------------------------------------------
@dataclass(frozen=True)
class CommonConfig:
    """The common options of a run, checked: its positions, workers, seed and output files.

    ``jobs``: local processes, or with ``ray`` (a cluster address or ``local``)
    Ray actors, 0 meaning one per CPU of the cluster.
    """

    positions: Positions
    positions_file: str | None
    limit: int | None
    jobs: int
    seed: int
    json_path: str | None
    plot_path: str | None
    ray: str | None = None

    @property
    def placement(self) -> Placement:
        """Where the jobs run (``transpo.executors``)."""
        return Placement(self.jobs, self.ray)


def add_common_options(parser: argparse.ArgumentParser, seed_help: str) -> None:
    """The options every lab command takes; ``seed_help`` says what ``--seed`` seeds in this command."""
    path = checked(writable_path)
    parser.add_argument("--json", type=path, metavar="FILE", help="write the report (schema transpo-lab/1) to FILE")
    parser.add_argument("--plot", type=path, metavar="FILE.png", help="draw the result to a PNG file")
    parser.add_argument("--positions", metavar="FILE", help="EPD or FEN lines (default: the built-in set)")
    parser.add_argument("--limit", type=int_type(LIMIT), metavar="N", help="use only the first N positions")
    parser.add_argument("--jobs", type=int_type(JOBS), metavar="N",
                        help="spread the work over N processes (default 1), or N Ray workers with --ray "
                             "(default one per CPU of the cluster)")  # fmt: skip
    parser.add_argument("--ray", metavar="ADDRESS",
                        help="run the jobs on the Ray cluster at ADDRESS (HOST:6379), or 'local' to start one "
                             f"here for the run (needs the ray extra: {RAY_INSTALL})")  # fmt: skip
    parser.add_argument("--seed", type=checked(parse_seed), default=DEFAULT_SEED,
                        help=f"{seed_help} (default {DEFAULT_SEED})")  # fmt: skip


def common_config(args: argparse.Namespace, uses_positions: bool = True) -> CommonConfig:
    """The common options as a :class:`CommonConfig`; the positions file is read (and checked) here.

    A command that ``uses_positions=False`` refuses ``--positions`` and ``--limit``.
    """
    if uses_positions:
        positions = load_positions(args.positions)
        if args.limit is not None:
            positions = positions[: args.limit]
    elif args.positions is not None or args.limit is not None:
        raise ValueError(f"lab {args.lab_command} uses no positions (--positions/--limit)")
    else:
        positions = ()
    if args.ray is not None:
        require_ray()  # now, not after the positions are read and the engine loaded
    return CommonConfig(
        positions=positions,
        positions_file=args.positions,
        limit=args.limit,
        jobs=args.jobs if args.jobs is not None else 0 if args.ray is not None else 1,
        seed=args.seed,
        json_path=args.json,
        plot_path=args.plot,
        ray=args.ray,
    )


# --- options of the search experiments --------------------------------------------------------
def add_key_option(parser: argparse.ArgumentParser) -> None:
    """``--keys``: the Zobrist key set of the searched positions; with ``prng`` the common ``--seed`` seeds it."""
    parser.add_argument("--keys", choices=KEY_SET_NAMES, default=DEFAULT_KEY_SET,
                        help=f"Zobrist key set of the searched positions (default {DEFAULT_KEY_SET}; "
                             "prng is seeded by --seed)")  # fmt: skip


def add_depth_option(parser: argparse.ArgumentParser, default: int) -> None:
    """``--depth``: the fixed depth of every search."""
    parser.add_argument(
        "--depth", type=int_type(SEARCH_DEPTH), default=default, help=f"fixed depth (default {default})"
    )


def add_hash_option(parser: argparse.ArgumentParser, default: int, what: str = "table size") -> None:
    """``--hash-mb``: the table size of every engine (``what`` says what it is for in this command)."""
    parser.add_argument("--hash-mb", type=int_type(HASH_MB), default=default, metavar="MB",
                        help=f"{what} (default {default})")  # fmt: skip


SEARCH_SEED_HELP = "seed of the prng key set (--keys prng); the searches themselves make no random choice"


def int_type(bounds: Checker) -> Callable[[str], int]:
    """An argparse ``type`` for one integer within ``bounds``."""
    return checked(parse_int, bounds)


def float_type(bounds: Checker) -> Callable[[str], float]:
    """An argparse ``type`` for one real number within ``bounds``."""
    return checked(parse_float, bounds)
