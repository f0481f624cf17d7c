#!/usr/bin/env python3
"""Where ``transpo bench`` spends its time, compiled function by compiled function (Linux ``perf``).

``perf`` samples the instruction pointer, but numba's machine code lives in
memory that no file on disk describes, so on its own ``perf report`` shows bare
addresses.  This script compiles the engine afresh in a temporary numba cache
(about three minutes: a function loaded from the cache keeps no LLVM module to
list), writes ``/tmp/perf-PID.map`` (perf's map format for generated code:
start address, size, name) for every function of every compiled ``transpo``
entry point, then records the bench at ``--depth`` with ``perf record -p`` on
its own process and prints the share of the samples per function.

A function LLVM inlined into its caller counts in the caller: ``negamax``
holds the evaluation, move ordering, the table's store and everything else
marked ``inline="always"``; the functions that stay apart are those with their
own symbol (move generation, the attack test, make/unmake, the exchange test,
the table's probe, the evaluation's piece pass ``_pieces``).

    python benchmarks/profile_search.py                  # bench depth 11
    python benchmarks/profile_search.py --depth 12 --top 12
    python benchmarks/profile_search.py --pushes transpo.engine.search.negamax

Needs ``perf`` (Debian/Ubuntu: ``apt-get install linux-perf`` or ``linux-tools``)
and permission to sample one's own process (``kernel.perf_event_paranoid`` <= 2).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter


def readable(symbol: str) -> str:
    """``transpo.engine.search.negamax`` from a numba symbol name (the symbol itself if it is not one)."""
    if not symbol.startswith("_ZN"):
        return symbol
    parts = []
    rest = symbol[3:]
    while rest and rest[0].isdigit():
        digits = re.match(r"\d+", rest).group()
        length = int(digits)
        parts.append(rest[len(digits) : len(digits) + length])
        rest = rest[len(digits) + length :]
    return ".".join(parts) or symbol


def write_perf_map() -> dict[str, tuple[int, int]]:
    """Write /tmp/perf-PID.map for every compiled transpo function; {readable name: (address, size)}."""
    from numba.core.registry import CPUDispatcher

    entries: set[tuple[int, str]] = set()
    for name, module in list(sys.modules.items()):
        if not name.startswith("transpo"):
            continue
        for value in vars(module).values():
            if not isinstance(value, CPUDispatcher):
                continue
            for compiled in value.overloads.values():
                library = compiled.library
                for function in library._final_module.functions:
                    if function.is_declaration:
                        continue
                    address = library.get_pointer_to_function(function.name)
                    if address:
                        entries.add((address, function.name))
    ordered = sorted(entries)
    placed: dict[str, tuple[int, int]] = {}
    with open(f"/tmp/perf-{os.getpid()}.map", "w") as out:
        for (address, symbol), following in zip(ordered, ordered[1:] + [(ordered[-1][0] + 4096, "")]):
            size = min(following[0] - address, 1 << 20)
            out.write(f"{address:x} {size:x} {readable(symbol)}\n")
            placed.setdefault(readable(symbol), (address, size))
    return placed


def argument_pushes(data: str, address: int, size: int) -> None:
    """Print how much of one function's samples fall on ``push`` instructions, and how many it has.

    Beyond six machine words a call passes its arguments on the stack, one
    ``push`` each: the pushes before each call of a recursive function are what
    its bundles of arrays cost a call (one array: seven or nine words).
    """
    import ctypes

    if shutil.which("objdump") is None:
        print("objdump is not installed: no instruction listing")
        return
    with tempfile.NamedTemporaryFile(suffix=".bin") as code:
        code.write(ctypes.string_at(address, size))
        code.flush()
        listing = subprocess.run(
            ["objdump", "-D", "-b", "binary", "-mi386:x86-64", code.name], capture_output=True, text=True, check=True
        ).stdout
    script = subprocess.run(["perf", "script", "-i", data, "-F", "ip"], capture_output=True, text=True, check=True)
    samples = Counter(int(ip, 16) - address for ip in script.stdout.split() if 0 <= int(ip, 16) - address < size)
    total = pushed = pushes = widest = run = 0
    for line in listing.splitlines():
        match = re.match(r"\s*([0-9a-f]+):\s+(?:[0-9a-f]{2} )+\s*(\w+)", line)
        if not match:
            continue
        count = samples.get(int(match.group(1), 16), 0)
        total += count
        if match.group(2).startswith("push"):
            pushed += count
            pushes += 1
            run += 1
        elif match.group(2).startswith("call"):
            widest = max(widest, run)
            run = 0
    print(f"{pushes} push instructions ({widest} before the widest call), {pushed / max(total, 1):.1%} of its samples")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=11, help="bench depth of the profiled run (default 11)")
    parser.add_argument("--top", type=int, default=10, help="functions to list (default 10)")
    parser.add_argument(
        "--pushes",
        metavar="FUNCTION",
        help="also count the argument pushes in FUNCTION's machine code (e.g. transpo.engine.search.negamax; objdump)",
    )
    args = parser.parse_args()
    if shutil.which("perf") is None:
        print("error: perf is not installed (apt-get install linux-perf)", file=sys.stderr)
        return 2
    cache = tempfile.mkdtemp(prefix="transpo-profile-")
    os.environ["NUMBA_CACHE_DIR"] = cache  # a fresh compile: only then does each function keep its module
    from transpo.engine.bench import run_bench

    print("compiling in a fresh cache (a few minutes) ...", flush=True)
    run_bench(depth=2)
    placed = write_perf_map()
    data = os.path.join(cache, "perf.data")
    recorder = subprocess.Popen(
        ["perf", "record", "-q", "-F", "1999", "-o", data, "-p", str(os.getpid())],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    time.sleep(1.0)  # perf attaches
    try:
        result = run_bench(depth=args.depth)
    finally:
        recorder.send_signal(signal.SIGINT)
        recorder.wait()
    report = subprocess.run(
        ["perf", "report", "-i", data, "--no-children", "--sort", "sym", "--stdio", "-q"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    shares: Counter[str] = Counter()
    for line in report.splitlines():
        match = re.match(r"\s*([\d.]+)%\s+\[\.\]\s+(.*\S)", line)
        if match:
            shares[match.group(2)] += float(match.group(1))
    speed = f"{result.nodes:,} nodes, {result.nps:,} nodes/s while sampled"
    print(f"bench depth {args.depth}: {speed}; {len(placed)} symbols")
    print(f"{'share':>7}  function")
    for symbol, share in shares.most_common(args.top):
        print(f"{share:6.2f}%  {symbol}")
    if args.pushes:
        if args.pushes not in placed:
            print(f"error: no compiled function {args.pushes}", file=sys.stderr)
        else:
            print(f"{args.pushes}: ", end="")
            argument_pushes(data, *placed[args.pushes])
    shutil.rmtree(cache, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
