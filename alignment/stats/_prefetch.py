"""Software prefetching for the numba kernels whose time goes to scattered table loads.

The samplers and E-steps of :mod:`alignment.stats` read (and add to) one entry of a large
word-pair table per (word, position) cell, through a pair index; the entries of one
sentence lie anywhere in the table, so each load waits for memory.  Asking for the next
token's or sentence's entries while the current one is computed overlaps those waits.
A prefetch changes no value: the kernels give the same results bit for bit.
"""

from __future__ import annotations

import numba
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

__all__ = ["prefetch", "prefetch_entries"]


@intrinsic
def prefetch(typingctx, arr, idx):
    """Ask the CPU to fetch ``arr[idx]`` into its caches (``llvm.prefetch``: a read, kept
    in every cache level); no effect on any result."""
    def codegen(context, builder, signature, args):
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        i8p, i32 = ir.IntType(8).as_pointer(), ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
        fn = builder.module.globals.get("llvm.prefetch.p0i8") or ir.Function(
            builder.module, fnty, name="llvm.prefetch.p0i8")
        ptr = builder.bitcast(builder.gep(ary.data, [args[1]]), i8p)
        builder.call(fn, [ptr, ir.Constant(i32, 0), ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return types.void(arr, idx), codegen


@numba.njit(cache=True, nogil=True, inline="always")
def prefetch_entries(table, index, lo, hi):
    """Prefetch ``table[index[c]]`` for ``c`` in ``lo..hi - 1`` (the entries of a row or a
    sentence; negative indices, "no entry", are skipped)."""
    for c in range(lo, hi):
        p = index[c]
        if p >= 0:
            prefetch(table, p)
