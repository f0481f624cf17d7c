"""Transpo: a chess engine built around Zobrist hashing and the transposition table,
and a laboratory that measures what hashing does to a search.

The public names are imported lazily (PEP 562): ``import transpo`` alone must not
import numba, so the UCI engine (``python -m transpo.cli``) can answer ``uci``
at once while the compiled core loads in the background.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

__all__ = ["Position", "IllegalMove", "InvalidFEN", "Status", "START_FEN"]
__version__ = "0.1.0"


# Modules of engine/ with no compiled code that no compiled function imports or reads:
# editing them must not throw away the numba cache.
_PLAIN_ENGINE_MODULES = frozenset({"book.py"})
# The cache folder of one source version: "transpo-" and the first 16 hex digits of the sources' SHA-1.
_VERSION_FOLDER = re.compile(r"transpo-[0-9a-f]{16}")


def _use_versioned_numba_cache() -> None:
    """Point numba's cache at a folder named after a hash of Transpo's sources.

    numba checks only the timestamp of a cached function's own file, so a
    change in a module whose code it inlined (the search inlines make/unmake)
    would leave stale machine code in ``__pycache__``.  One folder per source
    version makes every change compile afresh.  Must run before numba is
    imported; a ``NUMBA_CACHE_DIR`` set by the user becomes the parent folder, and
    one that is already a version's folder (inherited from a Transpo process)
    is replaced by this version's folder beside it.

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
    base = Path(os.environ.get("NUMBA_CACHE_DIR") or Path.home() / ".cache" / "transpo" / "numba")
    if _VERSION_FOLDER.fullmatch(base.name):
        # Inherited from a Transpo parent process: a child of the same version (the UCI engine's
        # compiler) keeps it; another version (an engine started by `transpo match` from another
        # checkout) takes a sibling, not a cold folder nested inside it.
        base = base.parent
    os.environ["NUMBA_CACHE_DIR"] = str(base / version)


_use_versioned_numba_cache()

if TYPE_CHECKING:  # pragma: no cover
    from transpo.core.position import START_FEN, IllegalMove, InvalidFEN, Position, Status


def __getattr__(name: str):
    """Import the public names from :mod:`transpo.core.position` on first use (that loads numba)."""
    if name in __all__:
        from transpo.core import position

        return getattr(position, name)
    raise AttributeError(f"module 'transpo' has no attribute {name!r}")
