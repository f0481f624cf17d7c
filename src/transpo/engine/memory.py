"""Zeroed numpy arrays on huge pages, for the big tables the search reads at random.

The processor translates every memory address through its TLB, a small cache
of page translations: with 4 KiB pages it covers a few megabytes at most, so a
probe of a 16 MB transposition table, or of the 2 MB continuation history,
usually misses it and waits for a page walk on top of the cache miss itself.
A 2 MiB page needs one TLB entry where 4 KiB pages need 512.  Linux backs
anonymous memory with such pages ("transparent huge pages") when the region
asks for them (``madvise(MADV_HUGEPAGE)``) and the system allows it
(``/sys/kernel/mm/transparent_hugepage/enabled`` set to ``madvise`` or
``always``); strong engines (Stockfish's large pages) do the same.

:func:`large_zeros` maps a fresh anonymous region (zero-filled by the kernel),
starts the array on a 2 MiB boundary and advises huge pages for it.  Where the
platform has no ``MADV_HUGEPAGE``, or the array is small, it is plain
``np.zeros``: the arrays hold the same values either way, only the speed differs.
The array keeps its region alive; the region is unmapped when the array goes.
"""

from __future__ import annotations

import mmap

import numpy as np

HUGE_PAGE = 2 * 1024 * 1024  # bytes: the x86-64 and AArch64 transparent huge page
SMALL_ARRAY = HUGE_PAGE // 8  # below this many bytes np.zeros: a region of its own would waste most of a page


def large_zeros(shape: int | tuple[int, ...], dtype: type | np.dtype) -> np.ndarray:
    """A zeroed, C-contiguous, writable array of ``shape`` and ``dtype`` on huge pages where possible."""
    dtype = np.dtype(dtype)
    count = int(np.prod(shape))
    nbytes = count * dtype.itemsize
    advice = getattr(mmap, "MADV_HUGEPAGE", None)
    if advice is None or nbytes < SMALL_ARRAY:
        return np.zeros(shape, dtype=dtype)
    length = -(-nbytes // HUGE_PAGE) * HUGE_PAGE + HUGE_PAGE  # whole huge pages, plus room to align the start
    try:
        region = mmap.mmap(-1, length, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    except OSError as error:
        raise MemoryError(f"cannot map {length} bytes: {error}") from None
    raw = np.frombuffer(region, dtype=np.uint8)
    offset = -raw.ctypes.data % HUGE_PAGE  # a multiple of the small page: the region starts on one
    try:
        region.madvise(advice, offset, length - offset)
    except OSError:
        pass  # huge pages refused (disabled, or no kernel support): ordinary pages, same values
    return raw[offset : offset + nbytes].view(dtype).reshape(shape)
