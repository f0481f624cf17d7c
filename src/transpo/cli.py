"""The ``transpo`` command: a thin dispatcher over the core, the engine and the lab.

With no arguments it runs the UCI engine.  Every error becomes one line
``error: ...`` on stderr and exit status 2; no traceback reaches the user.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence

from transpo.core.fen import START_FEN
from transpo.core.keys import DEFAULT_PRNG_SEED, KEY_SET_NAMES


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # argparse would print usage and exit 2
        raise _UsageError(message)


class _UsageError(Exception):
    pass


def _position(fen: str, moves: Sequence[str], keys: str = "polyglot", seed: int = DEFAULT_PRNG_SEED):
    from transpo.core.position import Position

    position = Position.from_fen(fen, keys, seed)
    for move in moves:
        position.push(move)
    return position


def cmd_perft(args: argparse.Namespace) -> None:
    position = _position(args.fen, args.moves)
    if args.depth < 0:
        raise ValueError("depth must be >= 0")
    started = time.perf_counter()
    if args.divide and args.depth > 0:
        counts = position.divide(args.depth, args.bulk)
        for move, count in counts.items():
            print(f"{move}: {count}")
        nodes = sum(counts.values())
        print()
    else:
        nodes = position.perft(args.depth, args.bulk)
    elapsed = time.perf_counter() - started
    print(f"Nodes: {nodes}")
    print(f"Time: {elapsed:.3f} s")
    print(f"Nodes/s: {nodes / max(elapsed, 1e-9):,.0f}")


def cmd_key(args: argparse.Namespace) -> None:
    position = _position(args.fen, args.moves, args.keys, args.seed)
    print(f"0x{position.key:016x}")


def _add_position_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--fen", default=START_FEN, help="position (default: start position)")
    parser.add_argument("--moves", nargs="*", default=[], metavar="M", help="UCI moves played from the FEN")


def build_parser(with_lab: bool = True) -> argparse.ArgumentParser:
    """The argument parser; ``with_lab=False`` leaves out ``lab`` (its modules load numba and matplotlib)."""
    parser = _Parser(prog="transpo", description="Transpo chess engine and hash lab (no command: UCI engine)")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)

    perft = sub.add_parser("perft", help="count leaf nodes of the legal move tree")
    perft.add_argument("depth", type=int)
    _add_position_args(perft)
    perft.add_argument("--divide", action="store_true", help="print the count below each root move")
    perft.add_argument("--bulk", action="store_true", help="count the last ply without making its moves")
    perft.set_defaults(func=cmd_perft)

    key = sub.add_parser("key", help="print the Zobrist key of a position")
    _add_position_args(key)
    key.add_argument("--keys", choices=KEY_SET_NAMES, default="polyglot", help="key set (default polyglot)")
    key.add_argument("--seed", type=lambda s: int(s, 0), default=DEFAULT_PRNG_SEED, help="seed of the prng key set")
    key.set_defaults(func=cmd_key)

    if with_lab:
        from transpo.lab.commands import add_lab_parser

        add_lab_parser(sub, _Parser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``transpo`` console command."""
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        args = build_parser(with_lab=bool(argv) and argv[0] in ("lab", "-h", "--help")).parse_args(argv)
        if args.command is None:
            from transpo.engine.uci import run_uci

            run_uci()
            return 0
        args.func(args)
        return 0
    except (_UsageError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
