"""The copies of notebook 05's pipeline (``pipeline.py``), one by one as the learner's function
queues them: the device address a copy was given, and a copy given its arguments in the other
copy's order (the source first), refused before it is made: PyCUDA would raise a TypeError that
names a buffer protocol or a C++ signature, not the swap; the buffers the copies go through,
allocated larger than the budget of one chunk each (``over_budget``); and a later chunk's copy in
queued into a d_in before the launch that reads it (``overwritten_before_read``); a launch told
more elements than its chunk's copy brought into d_in (``read_past_its_copy``); and a size or a
bound divided with /, a float where a whole number belongs (``true_division``)."""

from __future__ import annotations

import ast

import numpy as np

from helpers.exercises.function import Refused
from helpers.exercises.learner_code import code_of, frame_of
from helpers.exercises.verdict import listed


def address(buf) -> int | None:
    """The device address of a DeviceAllocation, a GPUArray (or a view of one) or an int; None
    for anything else."""
    try:
        return int(getattr(buf, "gpudata", buf))
    except (TypeError, ValueError):
        return None


def arguments_swapped(way, c, host, device):
    """Refuse chunk ``c``'s copy given a device buffer where its host array belongs and a host
    array where its buffer belongs: its arguments in the other copy's order, source first."""
    if isinstance(host, np.ndarray) or address(host) is None or not isinstance(device, np.ndarray):
        return
    array = f"a host array of {device.size} {device.dtype}"
    copies = {"htod": ("in", "drv.memcpy_htod_async(d_in, h_in[lo:hi], s)", "device buffer"),
              "dtoh": ("back", "drv.memcpy_dtoh_async(h_out[lo:hi], d_out, s)", "host array")}
    (word, mine, into), (other, theirs, _) = copies[way], copies["dtoh" if way == "htod" else "htod"]
    given = (array, "a device buffer") if way == "htod" else ("a device buffer", array)
    raise Refused((f"chunk {c}'s copy {word}, drv.memcpy_{way}_async, was given {given[0]} as "
                   f"its first argument and {given[1]} as its second: the copy {other}'s order, "
                   f"but memcpy_{way}_async copies into its first argument, the {into}",
                   f"destination first in both copies: {mine}, as {theirs}"))


def over_budget(made, case, itemsize, fn, hint):
    """(problem, hint) where the buffers ``made`` ((address, bytes) of each mem_alloc) hold more
    than one chunk each, 2 x len(streams) chunks in all (``case``: (n, n_chunks, streams); a
    last chunk that takes the remainder may need n_chunks elements more), named with fn's first
    mem_alloc line where its code is known; ``hint``: the budget's."""
    n, n_chunks, n_streams = case
    one = -(-n // n_chunks) * itemsize
    sizes = sorted({size for _, size in made})
    if sum(size for _, size in made) <= 2 * (n_streams * one + n_chunks * itemsize):
        return
    code = code_of(fn)
    call = code and next((c for c in ast.walk(code.tree) if isinstance(c, ast.Call)
                          and getattr(c.func, "attr", "") == "mem_alloc"), None)
    where = f" ({code.at(call)}: {code.text(call)})" if call else ""
    each = " or ".join(str(size) for size in sizes)
    yield (f"the results are right, but your function allocated {len(made)} device buffers of "
           f"{each} bytes{where}, {sum(size for _, size in made)} bytes in all, where the "
           f"kernels need one chunk of each: the budget is one chunk a buffer, chunk * "
           f"h_in.itemsize = {one} bytes, {2 * n_streams} x {one} bytes in all", hint)


def _chunk_of(host, h_in, size):
    """The chunk (of ``size`` elements) that the copy's host array ``host``, a slice of h_in,
    starts, or None where it is not one."""
    if not isinstance(host, np.ndarray) or not np.shares_memory(host, h_in):
        return None
    lo = (host.__array_interface__["data"][0] - h_in.__array_interface__["data"][0]) // h_in.itemsize
    return lo // size


def overwritten_before_read(calls, copies, order, streams, h_in):
    """(problem, hint) where a launch's d_in got another chunk's copy in, on the same stream,
    between its own chunk's copy in and the launch (``order``: for each launch of ``calls``, how
    many of ``copies`` were queued before it): the copies in queued first, breadth first,
    through one buffer pair a stream; the copies out read d_out after later kernels too."""
    for k, (d_in, d_out, count, s) in enumerate(calls[:len(order)]):
        ins = [host for way, host, cs, d in copies[:order[k]]
               if way == "htod" and cs is s and address(d) == d_in]
        rank = sum(c[0] == d_in and c[3] is s for c in calls[:k])
        chunks = [_chunk_of(host, h_in, calls[0][2]) for host in ins[rank:]]
        if len(chunks) < 2 or None in chunks:
            continue
        i = next((j for j, t in enumerate(streams) if t is s), None)
        outs = [j for j, (way, _, cs, d) in enumerate(copies)
                if way == "dtoh" and cs is s and address(d) == d_out]
        mine = sum(c[1] == d_out and c[3] is s for c in calls[:k])  # launch k's copy out
        late = len(outs) > mine and any(c[1] == d_out and c[3] is s and order[m] <= outs[mine]
                                        for m, c in enumerate(calls[k + 1:len(order)], k + 1))
        yield (f"on streams[{i}] the copies in of chunks {listed(chunks)} were all queued before "
               f"chunk {chunks[0]}'s launch, each into the stream's one d_in: chunk {chunks[1]}'s "
               f"copy in overwrote d_in before chunk {chunks[0]}'s kernel read it (a stream runs "
               "its work in the order queued)" + (", and the copies out, queued after the later "
               "kernels, read a d_out they had written over" if late else ""),
               "queue each chunk's copy in, launch and copy out in one loop, one chunk after "
               "another: for c in range(n_chunks): drv.memcpy_htod_async(d_in, h_in[lo:hi], s), "
               "launch(d_in, d_out, hi - lo, s), drv.memcpy_dtoh_async(h_out[lo:hi], d_out, s), "
               "so that the stream's next chunk reuses its buffers only after them")
        return


def read_past_its_copy(calls, copies, order, streams):
    """(problem, hint) where a launch's count is more than the elements of the last copy into its
    d_in queued before it (``order``: for each launch of ``calls``, how many of ``copies`` were
    queued before it): the kernel read elements past the chunk that no copy of its own filled,
    what an earlier chunk left there or memory never written. h_out looks right all the same,
    since the copy back takes hi - lo elements only."""
    for k, (d_in, _, count, _) in enumerate(calls[:len(order)]):
        ins = [(np.asarray(host).size, s) for way, host, s, d in copies[:order[k]]
               if way == "htod" and address(d) == d_in]
        if not ins or count <= ins[-1][0]:
            continue
        copied = ins[-1][0]
        left = next((s for size, s in reversed(ins[:-1]) if size > copied), False)
        number = next((f"streams[{j}]" for j, t in enumerate(streams) if t is left), "a stream")
        held = (f"what an earlier chunk of {number} left there" if left is not False
                else "memory no copy ever filled, uninitialised")
        yield (f"chunk {k}'s launch was given count = {count}, but its copy in brought hi - lo = "
               f"{copied} elements into d_in: the kernel read {count - copied} elements past "
               f"them ({held}) and computed on them; h_out looks right only because the copy "
               f"back takes hi - lo elements", "count is the chunk's own length, that of its "
               "copies: launch(d_in, d_out, hi - lo, s) (the last chunk is shorter than chunk)")
        return


class _Floored(ast.NodeTransformer):  # an expression with each / made //
    def visit_BinOp(self, node):
        self.generic_visit(node)
        return ast.BinOp(node.left, ast.FloorDiv(), node.right) if isinstance(
            node.op, ast.Div) else node


def true_division(fn):
    """For ``run_catching``'s hints (TypeError): the floats that ``fn``'s line which raised used
    (the values in its frame), made by an assignment of its code that divides with / (the first
    whose name holds a float there), where a whole number belongs; None where none is seen."""
    def told(err):
        frame, code = frame_of(err, fn), code_of(fn)
        if frame is None or code is None:
            return None
        seen = frame.f_locals
        line = frame.f_lineno - code.first + 1
        floats = list(dict.fromkeys(n.id for n in sorted(
            (n for n in ast.walk(code.tree) if isinstance(n, ast.Name) and n.lineno == line),
            key=lambda n: n.col_offset) if isinstance(seen.get(n.id), float)))
        split = next((n for n in ast.walk(code.tree) if isinstance(n, ast.Assign)
                      and isinstance(n.targets[0], ast.Name)
                      and isinstance(seen.get(n.targets[0].id), float)
                      and any(isinstance(b, ast.BinOp) and isinstance(b.op, ast.Div)
                              for b in ast.walk(n.value))), None)
        if not floats or split is None:
            return None
        values = ", ".join(f"{name} = {seen[name]!r}" for name in floats)
        whole = f"{split.targets[0].id} = {ast.unparse(_Floored().visit(split.value))}"
        return (f"{' and '.join(floats)} {'is a float' if len(floats) == 1 else 'are floats'} "
                f"({values}), where a whole number belongs: {ast.unparse(split)} "
                f"({code.at(split)}) divides with /, which in Python always gives a float, even "
                "where it comes out whole", f"divide with // where a whole number belongs: {whole}")
    return told
