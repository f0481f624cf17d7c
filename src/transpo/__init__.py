"""Transpo: a chess engine built around Zobrist hashing and the transposition table,
and a laboratory that measures what hashing does to a search.

The public names are imported lazily (PEP 562): ``import transpo`` alone must not
import numba, so the UCI engine (``python -m transpo.cli``) can answer ``uci``
at once while the compiled core loads in the background.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

__all__ = ["Position", "IllegalMove", "InvalidFEN", "Status", "START_FEN"]
__version__ = "0.1.0"


# Modules of engine/ with no compiled code that no compiled function imports or reads:
# editing them must not throw away the numba cache.
_PLAIN_ENGINE_MODULES = frozenset({"book.py"})


def _use_versioned_numba_cache() -> None:
    """Point numba's cache at a folder named after a hash of Transpo's sources.

    numba checks only the timestamp of a cached function's own file, so a
    change in a module whose code it inlined (the search inlines make/unmake)
    would leave stale machine code in ``__pycache__``.  One folder per source
    version makes every change compile afresh.  Must run before numba is
    imported; a ``NUMBA_CACHE_DIR`` set by the user becomes the parent folder.

    Only ``core/`` and ``engine/`` are hashed: the UCI front end, the command
    line, ``settings.py`` and the lab hold no compiled code, and no compiled
    function reads their globals, so editing them keeps the cache (see
    docs/NUMBA.md, trap 5).  ``engine/book.py`` (``_PLAIN_ENGINE_MODULES``) is
    left out for the same reason: plain Python that no compiled function imports.
    """
    if "numba" in sys.modules:
        return
    digest = hashlib.sha1()
    package = Path(__file__).parent
    for path in sorted([*package.glob("core/*.py"), *package.glob("engine/*.py")]):  # the compiled layers
        if path.parent.name == "engine" and path.name in _PLAIN_ENGINE_MODULES:
            continue
        digest.update(path.read_bytes())
    version = "transpo-" + digest.hexdigest()[:16]
    base = os.environ.get("NUMBA_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".cache", "transpo", "numba")
    if Path(base).name != version:  # a child process inherits the parent's versioned folder as it is
        os.environ["NUMBA_CACHE_DIR"] = os.path.join(base, version)


_use_versioned_numba_cache()

if TYPE_CHECKING:  # pragma: no cover
    from transpo.core.position import START_FEN, IllegalMove, InvalidFEN, Position, Status


def __getattr__(name: str):
    """Import the public names from :mod:`transpo.core.position` on first use (that loads numba)."""
    if name in __all__:
        from transpo.core import position

        return getattr(position, name)
    raise AttributeError(f"module 'transpo' has no attribute {name!r}")
