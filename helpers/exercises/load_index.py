"""A load at another index than the element's own: ``a[blockIdx.x]`` where ``a[i]`` belongs.

Where an exercise's output is wrong and no model of its own names why, the simulator's trace
(``microscope.accesses_of``) knows which element of each input every thread loaded. ``misread``
compares those loads, array by array, with each index the chapter has taught (i, threadIdx.x,
blockIdx.x, x, y, z, ...), computed for the thread that made them: an array whose every load
equals one of them, and one alone, other than its own, was read at that index."""

from __future__ import annotations

import numpy as np

from helpers.exercises.microscope import accesses_of
from helpers.exercises.origin import ACCESSES
from helpers.exercises.verdict import listed


def _position(linear, dims):
    x, y, _ = dims
    return linear % x, linear // x % y, linear // (x * y)


def coordinates(blocks, threads, block, grid) -> dict:
    """For threads ``threads`` of blocks ``blocks`` (linear indices, as a trace keeps them) of a
    launch of ``block`` and ``grid``: each built-in coordinate and x, y, z, the global ones."""
    block, grid = (tuple(block) + (1, 1))[:3], (tuple(grid) + (1, 1))[:3]
    t, b = _position(threads, block), _position(blocks, grid)
    found = {}
    for k, axis in enumerate("xyz"):
        found[f"threadIdx.{axis}"], found[f"blockIdx.{axis}"] = t[k], b[k]
        found[axis] = b[k] * block[k] + t[k]
    return found


WHOLE = {"i": lambda c: c["x"], "threadIdx.x": lambda c: c["threadIdx.x"],
         "blockIdx.x": lambda c: c["blockIdx.x"]}
"""The indices of a 1-D launch (notebook 01): i = blockIdx.x * blockDim.x + threadIdx.x."""
WHOLE_WORDS = {"i": "blockIdx.x * blockDim.x + threadIdx.x"}


def _what(array, name, block) -> str:
    """What every thread did, in words, for a load at ``name``."""
    if name == "blockIdx.x":
        return f"every thread of block b read {array}[b], the block's number"
    if name == "threadIdx.x":
        return (f"every block read {array}[0] to {array}[{block[0] - 1}] (threadIdx.x counts "
                "from 0 again in every block)")
    return f"each thread read {array}[{name}]"


def misread(kernels, launch, right: dict, indices: dict, statement: str):
    """(problem, hint) for the arrays of ``right`` ({array: the name of its own index}) whose
    loads in ``launch`` on the simulator all came from one other index of ``indices`` ({name: its
    value from ``coordinates``' dict}): the first such array, with every other read at the same
    index; ``statement``: the right line, for the hint. Nothing where the trace failed, or no
    index, or more than one, matches an array's loads."""
    kept = accesses_of(kernels, launch, f"load index {launch.block} {launch.grid}", ACCESSES)
    if kept is None:
        return
    loads = kept[~kept["write"] & ~kept["shared"]]
    where = coordinates(loads["block"], loads["thread"], launch.block, launch.grid)
    values = {name: np.asarray(index(where)) for name, index in indices.items()}
    found = []  # (array, its own index's name, the one index its loads came from)
    for array, own in right.items():
        mine = loads["array"] == array
        got = loads["index"][mine]
        if not mine.any() or np.array_equal(got, values[own][mine]):
            continue
        names = [name for name, v in values.items() if np.array_equal(got, v[mine])]
        if len(names) == 1:
            found.append((array, own, names[0]))
    if not found:
        return
    array, own, name = found[0]
    arrays = [a for a, o, n in found if (o, n) == (own, name)]
    mine = loads["array"] == array
    got = loads["index"][mine]
    first = int(np.flatnonzero(got != values[own][mine])[0])
    thread = tuple(int(where[f"threadIdx.{a}"][mine][first]) for a in "xyz")
    block = tuple(int(where[f"blockIdx.{a}"][mine][first]) for a in "xyz")
    also = f" ({listed(arrays[1:])} the same)" if len(arrays) > 1 else ""
    formula = (f", with {own} = {WHOLE_WORDS[own]}" if indices is WHOLE and own in WHOLE_WORDS
               else "")
    yield (f"{listed(arrays)} {'were' if len(arrays) > 1 else 'was'} read at {name}, where {own} "
           f"belongs: {_what(array, name, launch.block)}{also} (thread {thread} of block {block}, "
           f"whose {own} is {int(values[own][mine][first])}, read {array}[{int(got[first])}])",
           f"read {listed(arrays)} at the element's own index, "
           f"{listed(f'{a}[{own}]' for a in arrays)}: {statement}{formula}")
