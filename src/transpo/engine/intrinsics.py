"""Two processor instructions numba does not offer, emitted as LLVM intrinsics.

* :func:`prefetch` - start loading an array element into the cache now, because
  it is read soon.  A transposition-table probe is mostly a wait for memory:
  the table is far larger than the caches, so the bucket a key picks is almost
  never in them.  The search knows the child's key right after ``make_move``
  and probes it a little later (after the repetition and check tests), so
  asking for the bucket at once hides part of that wait (Stockfish does the
  same in ``do_move``).  A prefetch cannot fault or change memory: results and
  node counts stay exactly the same, only the speed changes.
* :func:`popcount` - the number of set bits of a ``uint64`` (LLVM ``ctpop``, one
  ``popcnt`` instruction where the processor has it): the evaluation counts a
  piece's mobility and king-zone attacks as bits of a bitboard.

Both are plain ``@intrinsic`` functions, usable only inside compiled code.
Functions that call them cache like any other: the machine code holds no
run-time address, and numba's cache index includes the processor's features
(``popcnt`` or not).  numba itself would not notice an edit of this file in its
callers' caches, but Transpo names its cache folder after a hash of every
``core/`` and ``engine/`` source (``transpo/__init__.py``), this one included.

The prefetch is emitted as ``llvm.prefetch.p0``: the name of the intrinsic for
LLVM's opaque pointers (LLVM 15 on, which llvmlite 0.4x+ uses).
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

_READ = 0  # llvm.prefetch's rw argument: 0 read, 1 write
_KEEP = 3  # locality 0..3: 3 keeps the line in every cache level
_DATA = 1  # cache type: 1 data, 0 instruction


@intrinsic
def prefetch(typingctx, array, index):
    """``prefetch(array, index)``: start loading ``array[index]`` (a 1-D array; the index is not checked)."""
    if not (isinstance(array, types.Array) and array.ndim == 1 and isinstance(index, types.Integer)):
        return None

    def codegen(context, builder, signature, args):
        array_type = signature.args[0]
        array_struct = context.make_array(array_type)(context, builder, args[0])
        index = context.cast(builder, args[1], signature.args[1], types.intp)
        address = cgutils.get_item_pointer(context, builder, array_type, array_struct, [index], wraparound=False)
        i32 = ir.IntType(32)
        pointer = ir.PointerType()  # opaque: any address
        hint_type = ir.FunctionType(ir.VoidType(), [pointer, i32, i32, i32])
        hint = cgutils.get_or_insert_function(builder.module, hint_type, "llvm.prefetch.p0")
        builder.call(hint, [address, i32(_READ), i32(_KEEP), i32(_DATA)])
        return context.get_dummy_value()

    return types.void(array, index), codegen


@intrinsic
def popcount(typingctx, bits):
    """``popcount(bits)``: the number of set bits of a ``uint64``, as an ``int64``."""
    if bits != types.uint64:
        return None

    def codegen(context, builder, signature, args):
        i64 = ir.IntType(64)
        count_type = ir.FunctionType(i64, [i64])
        count = cgutils.get_or_insert_function(builder.module, count_type, "llvm.ctpop.i64")
        return builder.call(count, [args[0]])

    return types.int64(types.uint64), codegen
