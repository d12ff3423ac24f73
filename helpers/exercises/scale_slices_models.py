"""The models of scale_slices' mistakes (helpers.exercises.scale_slices): the index mistakes
recognised by the elements they write, those that still reach every element once, the factor
mistakes, a coordinate that takes another axis's threadIdx, and the index without z's term,
recognised in a trace on the simulator."""

from __future__ import annotations

import itertools

import numpy as np

# Index mistakes, x, y, z and the guard right: (the element's index from x, y, z, nx, ny, nz; the
# problem, or a function of nx, ny, nz that words it)
INDEXES = [
    (lambda x, y, z, nx, ny, nz: z * ny + y * nx + x,
     "slice z starts at z * ny, a number of rows, not of elements"),
    (lambda x, y, z, nx, ny, nz: (z * nx + y) * ny + x,
     "rows are ny elements apart in the index (y * ny), but a row holds nx elements"),
    (lambda x, y, z, nx, ny, nz: (z * nx + y) * nx + x,
     lambda nx, ny, nz: f"slice z starts at z * nx * nx = z * {nx * nx} elements, not z * ny * "
     f"nx = z * {ny * nx}: the index (z * nx + y) * nx + x takes nx, the length of a row, where "
     "ny, the number of rows in a slice, belongs"),
    (lambda x, y, z, nx, ny, nz: (z * nz + y) * nx + x,
     "slice z starts at z * nz * nx, but a slice holds ny rows of nx elements (nz is the number "
     "of slices)"),
    (lambda x, y, z, nx, ny, nz: z * ny * nz + y * nx + x,
     "slice z starts at z * ny * nz, but a slice holds ny rows of nx elements, ny * nx (nz is "
     "the number of slices)"),
    (lambda x, y, z, nx, ny, nz: (z * ny + y) * ny + x,
     "rows are ny elements apart in the index, (z * ny + y) * ny + x, but a row holds nx "
     "elements (ny, the number of rows in a slice, where nx belongs)"),
    (lambda x, y, z, nx, ny, nz: (z * ny + y) * nz + x,
     "rows are nz elements apart in the index, (z * ny + y) * nz + x, but a row holds nx "
     "elements (nz is the number of slices)"),
    (lambda x, y, z, nx, ny, nz: z * (ny + y) * nx + x,
     "the index's parentheses are misplaced, z * (ny + y) * nx + x: z multiplies the row y "
     "as well (z * y rows), where the slice's ny rows come first and y is added to them"),
]
# Index mistakes that still reach every element once, each with its own vol but the factor of the
# thread's z: (the element's index, the problem)
ORDERS = [
    (lambda x, y, z, nx, ny, nz: (x * ny + y) * nz + z,
     "the index makes x the slowest and z the fastest: (x * ny + y) * nz + z"),
    (lambda x, y, z, nx, ny, nz: (y * nz + z) * nx + x,
     "the index swaps the roles of y and z, (y * nz + z) * nx + x: z steps from one row to the "
     "next and y from one slice to the next, so rows got the factor of another slice"),
]
# Factor mistakes: (the index into scale from z and the block's depth, that index, what it is)
SCALES = [(lambda z, depth: z // depth, "blockIdx.z", "the block's number"),
          (lambda z, depth: z % depth, "threadIdx.z", "the thread's place in its block")]

def read_from_slice_0(vol, scale, got, right):
    """Every slice of out holds slice 0 of vol times its own factor: vol read at y * nx + x, the
    slice's offset z * ny * nx left out of the load alone (the store's index right)."""
    if right.all() or not np.allclose(got, vol[0] * scale[:, None, None], rtol=1e-6, atol=0):
        return
    z, y, x = (int(k) for k in np.argwhere(~right)[0])
    _, ny, nx = vol.shape
    yield (f"out[{(z * ny + y) * nx + x}], element ({x}, {y}, {z}), holds vol[{y * nx + x}] * "
           f"scale[{z}]: vol[{y * nx + x}] is element ({x}, {y}) of slice 0, and every slice of "
           "out holds slice 0 of vol times its own factor: vol is read at y * nx + x, without "
           "the slice's offset z * ny * nx, while out is stored at slice z's element",
           "read vol at the same index as out, i = (z * ny + y) * nx + x: out[i] = vol[i] * "
           "scale[z]")


SIDES = (("x", "the length of a row", "elements", "row"),
         ("y", "the number of rows in a slice", "rows", "slice"))


def guard_against_a_side(case, grid, hit):
    """x's or y's guard against another side (x >= ny, y >= nz, ...), the rest right: the
    elements the threads it lets through write are ``hit`` (the set written, past the end too)
    in the launch of ``case`` (nx, ny, nz, block) on ``grid``. Yields (problem, hint)."""
    nx, ny, nz, block = case[:4]
    sides = (nx, ny, nz)
    tz, ty, tx = np.indices([g * b for g, b in zip(grid, block)][::-1])
    index = (tz * ny + ty) * nx + tx
    for k, (axis, what, items, where) in enumerate(SIDES):
        for j, bound in enumerate(sides):
            bounds = list(sides)
            bounds[k] = bound
            model = set(index[(tx < bounds[0]) & (ty < bounds[1]) & (tz < bounds[2])].tolist())
            if bound == sides[k] or model != hit or model == set(range(nx * ny * nz)):
                continue
            span = f"{bound}" + (f" to {sides[k] - 1}" if bound < sides[k] - 1 else "")
            shows = (f"the {items} {axis} = {span} of every {where} were never written"
                     if bound < sides[k] else f"threads with {axis} from n{axis} = {sides[k]} "
                     f"on wrote into the next {where}, or past the end of out")
            yield (f"{axis}'s guard compared {axis} with n{'xyz'[j]} ({axis} >= n{'xyz'[j]}), "
                   f"where n{axis}, {what}, belongs: {shows}", "each coordinate is compared "
                   "with its own side: if (x >= nx || y >= ny || z >= nz) return;")


def _coordinates(rows, grid, block):
    """x, y and z of the threads that made ``rows`` (a trace's accesses: linear block and thread,
    x the fastest)."""
    b, t = rows["block"].astype(int), rows["thread"].astype(int)
    blocks = (b % grid[0], b // grid[0] % grid[1], b // (grid[0] * grid[1]))
    threads = (t % block[0], t // block[0] % block[1], t // (block[0] * block[1]))
    return tuple(bi * side + ti for bi, side, ti in zip(blocks, block, threads))


def only_slice_0(case, grid, run, z_hint):
    """Slice 0 written and no other: the index without z's term (z right), else every thread's z
    0. Yields (problem, hint)."""
    written = ~run.out.unwritten
    if case[2] > 1 and written[0].all() and not written[1:].any():
        yield from _index_without_z(case, grid, run)
        yield "only slice z = 0 was written: every thread's z is 0", z_hint


def _index_without_z(case, grid, run):
    """The index y * nx + x, z's term left out, z and the guard right: each thread inside the
    volume stored into slice 0 at its own (x, y), having read scale[z] of its own z (a trace of
    ``run``'s launch on the simulator: on a GPU the slices' stores race, whichever lands last
    staying). Yields (problem, hint)."""
    from helpers.exercises.microscope import accesses_of

    nx, ny, nz, block = case[:4]
    threads = int(np.prod(block)) * int(np.prod(grid))
    kept = accesses_of(run.kernel, run.launch, f"index without z {grid}", 4 * threads)
    if kept is None:
        return
    stores = kept[kept["write"] & (kept["array"] == "out")]
    reads = kept[~kept["write"] & (kept["array"] == "scale")]
    x, y, z = _coordinates(stores, grid, block)
    inside = {(int(a), int(b), int(c)) for a, b, c in zip(x, y, z)}
    if len(stores) != nx * ny * nz or len(inside) != nx * ny * nz or \
            not ((x < nx) & (y < ny) & (z < nz)).all() or \
            not (stores["index"] == y * nx + x).all() or \
            not (reads["index"] == _coordinates(reads, grid, block)[2]).all():
        return
    yield ("only slice z = 0 was written, though z is right: the thread at x, y, z = 0, 0, 1 read "
           "scale[1] and stored into out[0], element (0, 0) of slice 0: the index y * nx + x "
           f"leaves out z's term, so each of the {nz} slices was written over slice 0",
           "add z's term to the index: int i = (z * ny + y) * nx + x; z picks the slice (ny * nx "
           "elements each), y the row in it, x the element in the row")


def _written_with(case, grid, coord, axis):
    """The (nz, ny, nx) mask of the elements a kernel writes whose ``coord`` ("x", "y" or "z") is
    blockIdx.<coord> * blockDim.<coord> + threadIdx.<axis>, the others and the guard right."""
    nx, ny, nz, block = case
    t = list(np.indices([g * b for g, b in zip(grid, block)][::-1])[::-1])  # tx, ty, tz
    k, j = "xyz".index(coord), "xyz".index(axis)
    t[k] = t[k] // block[k] * block[k] + t[j] % block[j]
    keep = (t[0] < nx) & (t[1] < ny) & (t[2] < nz)
    written = np.zeros((nz, ny, nx), bool)
    written[t[2][keep], t[1][keep], t[0][keep]] = True
    return written


def coordinate_from_another(case, grid, written):
    """x, y or z taking another axis's threadIdx (y = blockIdx.y * blockDim.y + threadIdx.z),
    the launch on ``grid``: the elements ``written`` are those it reaches. Yields (problem, hint)."""
    for coord, axis in itertools.permutations("xyz", 2):
        if written.all() or not np.array_equal(written, _written_with(case, grid, coord, axis)):
            continue
        k, j, block = "xyz".index(coord), "xyz".index(axis), case[3]
        name, where = {"x": ("element", "row"), "y": ("row", "slice"), "z": ("slice", "volume")}[coord]
        reached = np.flatnonzero(written.any(axis=tuple(a for a in range(3) if a != 2 - k)))
        shows = (f"so only the {name}s {coord} = {', '.join(map(str, reached))} of each {where} were "
                 f"written, of the blocks' {block[k]} {name}s each" if block[j] < block[k] else
                 f"past blockDim.{coord} = {block[k]}, so neighbouring blocks' {name}s overlap")
        yield (f"{coord} takes threadIdx.{axis} where threadIdx.{coord} belongs: threadIdx.{axis} "
               f"runs from 0 to {block[j] - 1} (blockDim.{axis} = {block[j]}), {shows}",
               f"{coord} = blockIdx.{coord} * blockDim.{coord} + threadIdx.{coord}: each coordinate's "
               "formula takes its own letter throughout, in blockIdx, blockDim and threadIdx")


def _block_from(case, grid, coord, axis):
    """(written, reached) of a kernel whose ``coord`` is blockIdx.<axis> * blockDim.<coord> +
    threadIdx.<coord>, the others and the guard right: the (nz, ny, nx) mask it writes, and for
    each blockIdx.<axis> the places of ``coord`` its blocks reach inside the volume."""
    sides, block = case[:3], case[3]
    t = list(np.indices([g * b for g, b in zip(grid, block)][::-1])[::-1])  # x, y, z
    k, j = "xyz".index(coord), "xyz".index(axis)
    t[k] = t[j] // block[j] * block[k] + t[k] % block[k]
    keep = (t[0] < sides[0]) & (t[1] < sides[1]) & (t[2] < sides[2])
    written = np.zeros(sides[::-1], bool)
    written[t[2][keep], t[1][keep], t[0][keep]] = True
    reached = [np.arange(b * block[k], min((b + 1) * block[k], sides[k])) for b in range(grid[j])]
    return written, reached


def _stored_as(case, grid, run, found):
    """Those of ``found`` ((coord, axis, ...) each) whose coordinates give the index of every
    store into out in a trace of ``run``'s launch on the simulator: y from blockIdx.x and x from
    blockIdx.y write the same elements, but not from the same blocks."""
    from helpers.exercises.microscope import accesses_of

    nx, ny, block = case[0], case[1], case[3]
    kept = accesses_of(run.kernel, run.launch, f"block from another {grid}",
                       4 * int(np.prod(block)) * int(np.prod(grid)))
    if kept is None:
        return []
    stores = kept[kept["write"] & (kept["array"] == "out")]
    b = stores["block"].astype(int)
    blocks = (b % grid[0], b // grid[0] % grid[1], b // (grid[0] * grid[1]))
    fits = []
    for coord, axis, *rest in found:
        xyz = list(_coordinates(stores, grid, block))
        k = "xyz".index(coord)
        xyz[k] = xyz[k] - blocks[k] * block[k] + blocks["xyz".index(axis)] * block[k]
        if len(stores) and (stores["index"] == (xyz[2] * ny + xyz[1]) * nx + xyz[0]).all():
            fits.append((coord, axis, *rest))
    return fits


def block_from_another(case, grid, run):
    """x, y or z taking another axis's blockIdx (y = blockIdx.x * blockDim.y + threadIdx.y), the
    launch on ``grid``: each block's rows (or elements, slices) follow its place in the other
    axis, and the elements written are those it reaches. Where two such mistakes write the same
    (y from blockIdx.x, x from blockIdx.y), the trace's stores tell them apart. Yields (problem,
    hint)."""
    written = ~run.out.unwritten
    found = [(coord, axis, reached) for coord, axis in itertools.permutations("xyz", 2)
             for model, reached in [_block_from(case, grid, coord, axis)]
             if not written.all() and np.array_equal(written, model) and len(reached) > 1
             and all(r.size for r in reached)]
    if len(found) > 1:
        found = _stored_as(case, grid, run, found)
    for coord, axis, reached in found[:1] if len(found) == 1 else ():
        name = {"x": "elements", "y": "rows", "z": "slices"}[coord]
        took = " and ".join(f"{'the blocks' if b == 0 else 'those'} with blockIdx.{axis} = {b} "
                            f"{'took ' if b == 0 else ''}the {name} {coord} = {r[0]} to {r[-1]}"
                            f"{' alone' if b == 0 else ''}" for b, r in enumerate(reached))
        yield (f"{coord} takes blockIdx.{axis} where blockIdx.{coord} belongs: {took}, whatever "
               f"their blockIdx.{coord}, so {int((~written).sum())} of {written.size} elements "
               "were never written",
               f"{coord} = blockIdx.{coord} * blockDim.{coord} + threadIdx.{coord}: each "
               "coordinate's formula takes its own letter throughout, in blockIdx, blockDim and "
               "threadIdx")


XY_PROBE = (11, 11, 3, (2, 4, 8))
"""A volume whose block's sides all differ: x or y stepping by another side of the block reaches
other elements or rows than a guard one short (x >= nx - 1) leaves."""


def _reach(case, grid, k, step):
    """Which of the side k's places (x's or y's) an x or y stepping by ``step`` from one block to
    the next reaches, on ``grid``."""
    return np.isin(np.arange(case[k]), np.add.outer(np.arange(grid[k]) * step, np.arange(case[3][k])))


def _steps(case, grid, written):
    """(k, axis, name, step, by, reach) of each x or y stepping by another side of the block whose
    elements reached are ``written``, some left out."""
    block = case[3]
    for k, (axis, name) in enumerate((("x", "element"), ("y", "row"))):
        for step, by in ((block[j], f"blockDim.{'xyz'[j]}") for j in range(3) if j != k):
            reach = _reach(case, grid, k, step)
            mask = reach[None, None, :] if axis == "x" else reach[None, :, None]
            if step != block[k] and not reach.all() and np.array_equal(
                    written, np.broadcast_to(mask, written.shape)):
                yield k, axis, name, step, by, reach


def _step_verdict(case, k, axis, name, step, by, reach, probed=""):
    listed = ", ".join(map(str, np.flatnonzero(reach)))
    return (f"only the {name}s {axis} = {listed} of each slice were written{probed}: {axis} steps "
            f"by {by} = {step} from one block to the next, where blockDim.{axis} = {case[3][k]}, "
            f"the block's own size along {axis}, belongs",
            f"{axis} = blockIdx.{axis} * blockDim.{axis} + threadIdx.{axis}")


def xy_step_mistakes(case, grid, written):
    """x or y stepping by another side of the block (or the grid's number of blocks) from one
    block to the next: whole columns or rows of every slice written, the ones such an x or y
    reaches. Yields (problem, hint)."""
    for found in _steps(case, grid, written):
        yield _step_verdict(case, *found)


def step_like_one_short(case, grid, written, probe_hit):
    """x or y stepping by another side of the block where that reaches every element or row but
    the last, as a guard one short leaves: told apart by a launch of ``XY_PROBE`` (``probe_hit()``,
    the elements it wrote there), on the same backend. Yields (problem, hint)."""
    found = [f for f in _steps(case, grid, written) if f[5][:-1].all()]
    if not found:
        return
    hit, (nx, ny, nz, block) = probe_hit(), XY_PROBE
    probe_grid = tuple(-(-side // b) for side, b in zip(XY_PROBE[:3], block))
    z, y, x = np.indices((nz, ny, nx))
    for k, axis, name, step, by, reach in found:
        probe = _reach(XY_PROBE, probe_grid, k, block["xyz".index(by[-1])])
        if hit == set(np.flatnonzero(probe[x] if k == 0 else probe[y]).tolist()):
            probed = (f" (a volume of nx, ny = {nx}, {ny} in blocks of {block} got only the "
                      f"{name}s {axis} = {', '.join(map(str, np.flatnonzero(probe)))})")
            yield _step_verdict(case, k, axis, name, step, by, reach, probed)


def read_before_the_guard(kernels, case, grid):
    """(problem, hint) where the kernel's body (its simulated twin's source) reads vol or scale
    before its bounds guard, the first if that tests nx, ny or nz (``sepia_guard``'s
    ``read_above_the_guard``): the threads outside the volume (the grid sticks out past it in
    z) read past the input's end before they return. The read's value goes nowhere, and the
    compiler may move it below the guard: the text tells it."""
    from helpers.exercises.microscope import kernel_words, source_line
    from helpers.exercises.sepia_guard import read_above_the_guard

    if (text := kernel_words(kernels)) is None:
        return
    source, tokens, _, _, end = text
    read = read_above_the_guard(source[:tokens[end].end], kernels.simulated.name,
                                ("nx", "ny", "nz"), ("vol", "scale"))
    if read is None:
        return
    name, index, depth, nz = read.array, read.index, grid[2] * case[3][2], case[2]
    reach = f", as far as scale[{depth - 1}]" if (name, index) == ("scale", "z") else ""
    yield (f"{name}[{index}] is read at line {source_line(source, read.read_at)}, before the "
           f"bounds guard if ({read.test}) at line {source_line(source, read.guard_at)}: the "
           f"threads with z >= nz (the grid has {depth} threads in z, nz = {nz}) read past the "
           f"end of {name}{reach}, before they return (a read outside an array is undefined, even "
           "when, as here, its value goes nowhere and out does not show it)",
           f"the guard comes before any access to memory: read {name}[{index}] below "
           "if (x >= nx || y >= ny || z >= nz) return;, not above it")



def guard_and_binds_first(case, grid, run, first):
    """A guard whose three tests are joined with || and && both (x >= nx || y >= ny && z >= nz),
    && binding before ||: the threads that stored into out, in a trace of ``run``'s launch on the
    simulator, are those it lets through; out was written past its end (``first``, the first such
    index). Yields (problem, hint)."""
    from helpers.exercises.microscope import accesses_of

    sides, block = case[:3], case[3]
    t = np.indices([g * b for g, b in zip(grid, block)][::-1])[::-1]  # x, y, z
    out = [t[k] >= sides[k] for k in range(3)]
    kept = accesses_of(run.kernel, run.launch, f"guard joins {grid}",
                       4 * int(np.prod(block)) * int(np.prod(grid)))
    if kept is None:
        return
    stored = np.zeros(out[0].shape, bool)
    x, y, z = _coordinates(kept[kept["write"] & (kept["array"] == "out")], grid, block)
    stored[z, y, x] = True
    for reads, returned, (a, b) in (
            ("x >= nx || (y >= ny && z >= nz)", out[0] | (out[1] & out[2]), "yz"),
            ("(x >= nx && y >= ny) || z >= nz", (out[0] & out[1]) | out[2], "xy")):
        if np.array_equal(stored, ~returned):
            yield (f"out was written past its end (out[{first}]): the guard if "
                   f"({reads.replace('(', '').replace(')', '')}) return; joins its tests with || "
                   f"and &&, and && binds before ||, as * does before +: it reads {reads}, so a "
                   f"thread with {b} >= n{b} but {a} < n{a} is not stopped, nor one with {a} >= "
                   f"n{a} but {b} < n{b}, and such threads wrote",
                   "a thread outside the volume in any one side must return: join all three "
                   "tests with ||, if (x >= nx || y >= ny || z >= nz) return;")
