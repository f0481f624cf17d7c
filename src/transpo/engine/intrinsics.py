"""Two processor instructions numba does not offer, emitted as LLVM intrinsics, and a cheap 2-D view.

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
* :func:`as_rows` - a 1-D array seen as a 2-D array of rows of a given width,
  without a copy.  numpy's ``reshape`` does that, but numba's compiles into a
  call of a C helper that checks the strides at run time; the search cuts its
  scratch's 2-D arrays out of one arena at every node (:mod:`transpo.engine.scratch`),
  where such a call cost more than the views save.

All three are plain ``@intrinsic`` functions, usable only inside compiled code.
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
from numba.core.imputils import impl_ret_borrowed
from numba.extending import intrinsic
from numba.np.arrayobj import populate_array

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


@intrinsic
def as_rows(typingctx, vector, width):
    """``as_rows(vector, width)``: the 1-D C array as a 2-D C array of rows of ``width`` (same data; nothing checked)."""
    if not (isinstance(vector, types.Array) and vector.ndim == 1 and vector.layout == "C"):
        return None
    if not isinstance(width, types.Integer):
        return None
    matrix_type = vector.copy(ndim=2, layout="C")

    def codegen(context, builder, signature, args):
        source = context.make_array(signature.args[0])(context, builder, args[0])
        columns = context.cast(builder, args[1], signature.args[1], types.intp)
        rows = builder.sdiv(source.nitems, columns)
        matrix = context.make_array(matrix_type)(context, builder)
        populate_array(
            matrix,
            data=source.data,
            shape=[rows, columns],
            strides=[builder.mul(columns, source.itemsize), source.itemsize],
            itemsize=source.itemsize,
            meminfo=source.meminfo,
            parent=source.parent,
        )
        return impl_ret_borrowed(context, builder, matrix_type, matrix._getvalue())

    return matrix_type(vector, width), codegen
