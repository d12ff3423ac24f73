"""Checker for the 3-D exercise of notebook 02: ``cuda_src/exercises/scale_slices.cu``.

The kernel ``scale_slices(vol, scale, out, nx, ny, nz)`` must write ``out(x, y, z) =
vol(x, y, z) * scale[z]`` for a volume of NumPy shape ``(nz, ny, nx)``, launched as a 3-D grid
of 3-D blocks rounded up in every dimension: its one idea is the third index (``z``, its guard,
and the element's place ``(z * ny + y) * nx + x``). The guard zone after ``out`` holds whatever a
grid without its guard on z writes; the index mistakes are recognised by the elements they write.
The last case runs on the simulator, race-checked, whatever the backend: a kernel in which every
thread does the whole loop writes the right values, but each element many times.
"""

from __future__ import annotations

import itertools

import numpy as np

from helpers.exercises import near
from helpers.exercises import load_index
from helpers.exercises.microscope import observe, written_by_two, written_twice
from helpers.exercises.common import Input, Output, one_further
from helpers.exercises.hidden import awkward, pick
from helpers.exercises.kernel import KernelExercise, Launch
from helpers.exercises.origin import Wrong
from helpers.exercises.scale_slices_guards import (THREAD_Z_PROBE, guard_missing_sides,
                                                   guard_on_thread_z, z_against_the_launch)
from helpers.exercises.scale_slices_models import (INDEXES, ORDERS, SCALES, XY_PROBE,
                                                   block_from_another, coordinate_from_another, guard_against_a_side,
                                                   guard_and_binds_first,
                                                   only_slice_0, read_before_the_guard,
                                                   read_from_slice_0,
                                                   step_like_one_short,
                                                   xy_step_mistakes)

# (nx, ny, nz, block): no side a multiple of its block's; last a small one on the simulator,
# race-checked
CASES = [(13, 7, 5, (8, 4, 2)), (10, 6, 3, (4, 4, 2)), (33, 9, 7, (16, 2, 4)),
         (5, 3, 3, (4, 2, 2), "observe")]
BLOCKS = [(8, 4, 2), (4, 4, 2), (16, 2, 4), (8, 8, 4)]
PROBE = (3, 5, 9, (4, 8, 16))
"""A volume whose nx and ny are below the grid's 16 threads in z, and differ: a z guard against
nx writes slices 0 to 2, one against ny 0 to 4, none 0 to 15."""
Z_PROBE = (4, 3, 9, (4, 3, 2))
"""A volume of 5 blocks in z: z = blockIdx.z + threadIdx.z writes slices 0 to 5, a guard one
short (z >= nz - 1) 0 to 7."""

Z_HINT = "z = blockIdx.z * blockDim.z + threadIdx.z, the same formula as x and y"
INDEX_HINT = ("element (x, y, z) is at (z * ny + y) * nx + x: z picks the slice, y the row in "
              "it, x the element in the row")


def _grid(case):
    nx, ny, nz, block = case[:4]
    return tuple(-(-side // b) for side, b in zip((nx, ny, nz), block))


def _draw(rng):
    """The grader's cases: three other volumes and blocks."""
    drawn = []
    for _ in range(3):
        block = pick(rng, BLOCKS)
        drawn.append((*(awkward(rng, b, b + 1, 5 * b) for b in block), block))
    return drawn


def _where(case):
    nx, ny, nz, block = case[:4]
    return f"with nx, ny, nz = {nx}, {ny}, {nz}, block = {block}, grid = {_grid(case)}"


def _launch(case):
    nx, ny, nz, block = case[:4]
    rng = np.random.default_rng(nx * ny * nz)
    vol = rng.uniform(-4, 4, (nz, ny, nx)).astype(np.float32)
    scale = rng.uniform(0.5, 3, nz).astype(np.float32)
    spare = int(np.prod([g * b for g, b in zip(_grid(case), block)]))   # threads in the grid
    return Launch((Input(vol, after=spare, junk=1.0), Input(scale, after=spare, junk=1.0),
                   Output((nz, ny, nx), guard=spare), *map(np.int32, (nx, ny, nz))),
                  block=block, grid=_grid(case), model=(vol, scale))


def _observed(kernels, case):
    race = observe(kernels, _launch(case)).race
    if written_by_two(race):
        nx, ny, nz, block = case[:4]
        for access in (race.first, race.second):
            x, y, z = (b * d + t for b, d, t in zip(access.block, block, access.thread))
            if x >= nx or y >= ny:
                yield _wrapped(race.array, race.element, (x, y, z), case)
    yield from written_twice(kernels, _launch(case), "each thread writes only its own element: "
                             "x, y and z from its block and thread, then out[(z * ny + y) * nx + "
                             "x] = vol[...] * scale[z]; no loop over the volume")


def _wrapped(array, element, xyz, case):
    """The mistake of a guard on the flat index alone: the thread at ``xyz`` (outside the volume
    in x or y) wrote ``array[element]``, inside it."""
    nx, ny = case[:2]
    side = "x" if xyz[0] >= nx else "y"
    into = "row" if side == "x" else "slice"
    return (f"threads outside the volume wrote into it: {array}[{element}] was written by the "
            f"thread at x, y, z = {', '.join(map(str, xyz))} ({side} >= n{side}), whose i = "
            f"(z * ny + y) * nx + x runs on into the next {into}; a guard on i alone "
            "(i < nx * ny * nz) lets such threads through",
            "guard each coordinate before computing i: if (x >= nx || y >= ny || z >= nz) "
            "return;")


def _flat_guard_mistakes(case, run):
    """A guard on the flat index alone: threads past nx or ny, whose i wraps into the next row or
    slice, wrote there with their own z. Yields when every wrong element of the output holds
    what such a thread stored."""
    nx, ny, nz, block = case
    (vol, scale), got = run.model, run.out.got
    want = vol * scale[:, None, None]
    tz, ty, tx = np.indices([g * b for g, b in zip(_grid(case), block)][::-1])
    index = (tz * ny + ty) * nx + tx
    stray = (index < vol.size) & ((tx >= nx) | (ty >= ny))
    wrong = ~np.isclose(got, want, rtol=1e-6, atol=0).ravel()
    if not wrong.any() or not stray.any():
        return
    fits = np.isclose(got.ravel()[index[stray]], vol.ravel()[index[stray]] * scale[tz[stray]],
                      rtol=1e-6, atol=0) & wrong[index[stray]]
    if set(index[stray][fits].tolist()) == set(np.flatnonzero(wrong).tolist()):
        first = np.flatnonzero(fits)[0]
        yield _wrapped("out", index[stray][first],
                       (tx[stray][first], ty[stray][first], tz[stray][first]), case)


def _z_step_mistakes(case, written):
    """z stepping by blockDim.x, blockDim.y or gridDim.z (the number of blocks, not their depth)
    from one block to the next, z = blockIdx.z * blockDim.z * threadIdx.z (* where + belongs), or
    z = threadIdx.z * blockDim.z + blockIdx.z (the block's and the thread's roles swapped): whole
    slices written, the ones such a z reaches; then x's and y's steps (``_xy_step_mistakes``)."""
    _, _, nz, block = case
    blocks, depth = np.arange(_grid(case)[2]), np.arange(block[2])
    for reached, why in (
            *((np.add.outer(blocks * side, depth), f"z steps by {name} from one block to the "
               "next, where blockDim.z, the block's depth, belongs")
              for side, name in ((block[0], "blockDim.x"), (block[1], "blockDim.y"),
                                 (_grid(case)[2], "gridDim.z, the grid's number of blocks in z,"))),
            (blocks, f"z = blockIdx.z picks one slice a block, so the threads of a block, "
             f"{block[2]} deep, all stored into its one slice (threadIdx.z and blockDim.z left "
             "out), and only as many slices as the grid has blocks in z were reached"),
            (np.multiply.outer(blocks * block[2], depth), "z = blockIdx.z * blockDim.z * "
             "threadIdx.z multiplies by the thread's place in its block where it is added: every "
             "thread with threadIdx.z = 0 got z = 0, and the slices between were never reached"),
            (np.add.outer(depth * block[2], blocks), "z = threadIdx.z * blockDim.z + blockIdx.z "
             "swaps the roles of block and thread: the thread's place in its block stepped by "
             "whole blocks, and the block's number picked the slice within one")):
        slices = np.isin(np.arange(nz), reached.ravel())
        if not slices.all() and np.array_equal(written, np.broadcast_to(
                slices[:, None, None], written.shape)):
            listed = ", ".join(map(str, np.flatnonzero(slices)))
            yield f"only slices z = {listed} were written: {why}", Z_HINT
    yield from xy_step_mistakes(case, _grid(case), written)


def _slices_as_compared(case, hit):
    """The sides ("nx", "ny") that z compared with would write ``hit`` (the elements written, past
    the end too): whole slices, z = i // (nx * ny), from 0 to min(side, the grid's z) - 1."""
    nx, ny, nz, block = case[:4]
    depth = _grid(case)[2] * block[2]
    return [name for name, side in (("nx", nx), ("ny", ny))
            if min(side, depth) != nz and hit == set(range(min(side, depth) * nx * ny))]


def _z_against_a_side(case, run, hit):
    """z's guard against nx or ny, not nz: the slices written are 0 to min(side, the grid's z)
    - 1. Where the side is the grid's z or more, no z guard writes the same: then a volume whose
    nx and ny are below the grid's z (PROBE) tells them apart, on the same backend."""
    names, depth = _slices_as_compared(case, hit), _grid(case)[2] * case[3][2]
    probed = names and all(case[["nx", "ny"].index(n)] >= depth for n in names)
    if probed:
        probe = _probe_hit(run)
        names = [] if probe is None else _slices_as_compared(PROBE, probe)
    probed = (f" (a volume of nx, ny, nz = {', '.join(map(str, PROBE[:3]))} wrote slices z < its "
              f"{names[0]} alone)" if names and probed else "")
    for name in names[:1]:
        shows = (f"threads with z from nz = {case[2]} on wrote whole slices past the end of out "
                 f"(out[{run.out.past[0]}] on)" if run.out.past.size else
                 f"the slices from z = {min(case[:2][['nx', 'ny'].index(name)], depth)} on were "
                 "never written")
        yield (f"z's guard compared z with {name} (z >= {name}), where nz, the number of slices, "
               f"belongs: {shows}{probed}", "each coordinate is compared with its own side: "
               "if (x >= nx || y >= ny || z >= nz) return;")


def _probe_hit(run, probe=PROBE):
    """The elements (past the end too) the kernel of ``run`` writes in a launch of ``probe``
    (``PROBE``: a volume whose grid reaches 7 slices past nz), on the same backend; None where
    it went wrong in another way (crashed, or held its output)."""
    launched = EXERCISE.run(run.kernel, _launch(probe))
    try:
        next(launched)
        return None
    except StopIteration as stop:
        probe = stop.value
    return None if probe is None else (set(np.flatnonzero(~probe.out.unwritten).tolist())
                                       | set(probe.out.past.tolist()))


def _z_one_past(case, run, hit):
    """z's guard z > nz, which lets z = nz through: every slice written and slice nz, just past
    the end of out, too, and no slice past it. Where the grid reaches only slice nz, a kernel
    with no guard on z writes the same: then the volume ``PROBE``, whose grid reaches 7 slices
    past nz, tells them apart."""
    nx, ny, nz, block = case
    if hit != set(range((nz + 1) * ny * nx)):
        return
    if _grid(case)[2] * block[2] == nz + 1 and _probe_hit(run) != set(
            range((PROBE[2] + 1) * PROBE[1] * PROBE[0])):
        return
    yield (f"the threads with z = nz = {nz} wrote slice {nz}, just past the end of out "
           f"(out[{nz * ny * nx}] to out[{(nz + 1) * ny * nx - 1}]), and no thread past it did: "
           f"z's guard lets z = nz through (z > nz), but the slices are z = 0 to nz - 1",
           "z = nz is already outside the volume: compare with >=, "
           "if (x >= nx || y >= ny || z >= nz) return;")


def _z_without_depth(case, run, written):
    """z = blockIdx.z + threadIdx.z, blockDim.z left out: whole slices 0 to gridDim.z +
    blockDim.z - 2 written. Where that is every slice but the last, as a guard one short (z >=
    nz - 1) writes, the volume ``Z_PROBE`` tells them apart, on the same backend."""
    nx, ny, nz, block = case
    reach = np.arange(nz) < _grid(case)[2] + block[2] - 1
    if reach.all() or not np.array_equal(written, np.broadcast_to(reach[:, None, None],
                                                                  written.shape)):
        return
    px, py, pz = Z_PROBE[:3]
    probed = reach.sum() == nz - 1
    if probed and _probe_hit(run, Z_PROBE) != set(range(6 * py * px)):
        return
    yield (f"only slices z = 0 to {reach.sum() - 1} were written: z = blockIdx.z + threadIdx.z "
           f"steps by 1 from one block to the next, not by blockDim.z = {block[2]}, so the "
           f"blocks' slices overlap and the slices from z = {reach.sum()} on were never reached"
           + (f" (a volume of nz = {pz} slices in blocks 2 deep got slices 0 to 5 alone)"
              if probed else ""), "a block holds blockDim.z slices: " + Z_HINT)


def _left_out(case, run, written):
    """Whole slices, rows or columns at the end never written: z without blockDim.z, or a
    guard one short."""
    yield from _z_without_depth(case, run, written)
    yield from step_like_one_short(case, _grid(case), written,
                                   lambda: _probe_hit(run, XY_PROBE))
    yield from _last_left_out(written)


def _last_left_out(written):
    """A guard that stops one short (z >= nz - 1, or the same on y or x): every element written
    but those of the last slice, row or column."""
    for axis, (side, what) in enumerate((("z", "slice"), ("y", "row"), ("x", "column"))):
        last = np.zeros(written.shape, bool)
        last[(slice(None),) * axis + (-1,)] = True
        if written.shape[axis] > 1 and np.array_equal(written, ~last):
            n = written.shape[axis]
            yield (f"the last {what}, {side} = n{side} - 1 = {n - 1}, was never written, and "
                   f"every other was: the guard returned the threads with {side} = n{side} - 1 "
                   f"too ({side} >= n{side} - 1), but {side} runs from 0 to n{side} - 1",
                   f"only {side} >= n{side} lies outside the volume: "
                   "if (x >= nx || y >= ny || z >= nz) return;")


def _index_mistakes(case, hit):
    """The index mistakes of INDEXES whose elements are ``hit``, the set written (past the end
    too)."""
    nx, ny, nz, _ = case
    z, y, x = np.indices((nz, ny, nx))
    for index, problem in INDEXES:
        model = set(index(x, y, z, nx, ny, nz).ravel().tolist())
        if model != set(range(x.size)) and hit == model:
            yield problem(nx, ny, nz) if callable(problem) else problem, INDEX_HINT
    width, height = (g * b for g, b in zip(_grid(case)[:2], case[3][:2]))
    for index, problem in (
            ((z * height + y) * nx + x, f"slice z starts at z * (gridDim.y * blockDim.y) rows: "
             f"the grid's {height} rows of threads in y, where a slice holds ny = {ny}"),
            ((z * ny + y) * width + x, f"rows are gridDim.x * blockDim.x = {width} elements "
             f"apart in the index, the grid's threads in x, where a row holds nx = {nx}")):
        if hit == set(index.ravel().tolist()) != set(range(x.size)):
            yield (problem, "the launch rounds the grid up to whole blocks; the volume's sides "
                   f"are the parameters: {INDEX_HINT}")


def _guard_mistakes(case, run, hit, first):
    """A guard's mistakes, out written past its end (``first``, the first such index) and
    ``hit`` the set of elements written: the sides joined with &&, every element written, or
    those a guard with its sides swapped writes."""
    nx, ny, nz, block = case
    tz, ty, tx = np.indices([g * b for g, b in zip(_grid(case), block)][::-1])
    index = (tz * ny + ty) * nx + tx
    if hit == set(index[~((tx >= nx) & (ty >= ny) & (tz >= nz))].tolist()):
        yield (f"out was written past its end (out[{first}]): the guard returned only the threads "
               "outside the volume in x and in y and in z at once (&&), so one outside in a "
               "single side wrote", "any side outside the volume must return, the conditions "
               "joined with ||: if (x >= nx || y >= ny || z >= nz) return;")
    yield from guard_missing_sides(case, _grid(case), hit, first)
    if (~run.out.unwritten).all() or hit == set(index[(tx < ny) & (ty < nx) & (tz < nz)].tolist()):
        yield (f"out was written past its end (out[{first}]): threads outside the volume wrote",
               "the grid sticks out in z too: if (x >= nx || y >= ny || z >= nz) return;")


def _guard_sides(case, run, hit):
    """The guard's sides: z's compared with the launch, nx or ny, or one past nz; x's or y's with
    another. Before x's and y's, the tests joined with || and && both, out written past its end:
    x >= nx && y >= ny || z >= nz writes the elements a y guard against nx does, its threads
    not."""
    past = run.out.past[:1]
    yield from itertools.chain(z_against_the_launch(case, _grid(case), hit, run.kernel),
                               _z_against_a_side(case, run, hit), _z_one_past(case, run, hit),
                               *(guard_and_binds_first(case, _grid(case), run, first)
                                 for first in past),
                               guard_against_a_side(case, _grid(case), hit),
                               guard_on_thread_z(case, _grid(case), hit,
                                                 lambda: _probe_hit(run, THREAD_Z_PROBE)))


def _indices(nx, ny):
    """The indices a load may take here: each coordinate, x, y, z and i, the element's."""
    names = [f"{what}.{axis}" for what in ("threadIdx", "blockIdx") for axis in "xyz"] + list("xyz")
    return {"i": lambda c: (c["z"] * ny + c["y"]) * nx + c["x"],
            **{name: (lambda c, name=name: c[name]) for name in names}}


def _mistakes(case, run):
    """The mistakes a launched kernel's output shows, in order (nothing when it is right)."""
    nx, ny, nz, block = case
    (vol, scale), got, written = run.model, run.out.got, ~run.out.unwritten
    yield from one_further("out", "element", run.out.past, run.out.unwritten,
                           "store at out[i], i = (z * ny + y) * nx + x, with nothing added")
    hit = set(np.flatnonzero(written).tolist()) | set(run.out.past.tolist())
    yield from _guard_sides(case, run, hit)
    if run.out.past.size:
        yield from _guard_mistakes(case, run, hit, run.out.past[0])
    yield from itertools.chain(_index_mistakes(case, hit), _left_out(case, run, written))
    if run.out.past.size:  # and elements inside never written, not as a guard leaves them
        yield (f"out was written past its end (out[{run.out.past[0]}]), and "
               f"{int((~written).sum())} of its elements were never written: the index sends "
               "them past the end", INDEX_HINT)
    if not written.any():
        yield "nothing was written: out still holds the NaN it was filled with", INDEX_HINT
    yield from only_slice_0(case, _grid(case), run, Z_HINT)
    if nz > block[2] and written[:block[2]].all() and not written[block[2]:].any():
        yield (f"only the first block's slices (z < {block[2]}) were written: z does not step "
               "by whole blocks of slices (blockIdx.z is missing from it, or multiplied by a side "
               "other than blockDim.z)", Z_HINT)
    yield from _z_step_mistakes(case, written)
    yield from coordinate_from_another(case, _grid(case), written)
    yield from block_from_another(case, _grid(case), run)
    z, y, x = np.indices((nz, ny, nx))
    for axis, same in (("y", z == y), ("x", z == x)):
        if not same.all() and np.array_equal(written, same):
            yield (f"only the elements whose z equals their {axis} were written: z was computed "
                   f"with {axis}'s formula (blockIdx.{axis} * blockDim.{axis} + "
                   f"threadIdx.{axis})", Z_HINT)
    want = vol * scale[:, None, None]
    right = np.isclose(got, want, rtol=1e-6, atol=0)
    if right.all():
        return (yield from read_before_the_guard(run.kernel, case, _grid(case)))
    if not written.all():
        yield f"{int((~written).sum())} of {vol.size} elements were never written", INDEX_HINT
    yield from _flat_guard_mistakes(case, run)
    yield from read_from_slice_0(vol, scale, got, right)
    for index, problem in ORDERS:
        places = index(x, y, z, nx, ny, nz).ravel()
        swapped = np.empty(vol.size, np.float32)
        swapped[places] = vol.ravel()[places] * scale[z.ravel()]
        if np.allclose(got.ravel(), swapped, rtol=1e-6, atol=0):
            yield problem, INDEX_HINT
    if np.allclose(got, vol, rtol=1e-6, atol=0):
        yield "out equals vol: the slices are not scaled", "out[i] = vol[i] * scale[z]"
    for factor, index, what in SCALES:
        if np.allclose(got, vol * scale[factor(np.arange(nz), block[2])][:, None, None],
                       rtol=1e-6, atol=0):
            yield (f"each slice was scaled by scale[{index}] ({what}), not by scale[z]",
                   "the slice's factor is scale[z], z = blockIdx.z * blockDim.z + threadIdx.z")
    yield from near.misses("out", got, want, close=near.within(1e-6, 0), index_hint=INDEX_HINT)
    yield from load_index.misread(run.kernel, _launch(case), {"vol": "i", "scale": "z"},
                                  _indices(nx, ny), "out[i] = vol[i] * scale[z]")
    wrong = np.argwhere(~right)[0]
    yield Wrong(f"{int((~right).sum())} of {vol.size} elements are wrong (the first at x = "
                f"{wrong[2]}, y = {wrong[1]}, z = {wrong[0]})",
                "each slice z is multiplied by its own factor: out[i] = vol[i] * scale[z]",
                "out", np.ravel_multi_index(tuple(wrong), vol.shape))


EXERCISE = KernelExercise(
    stub="exercises/scale_slices.cu", kernel="scale_slices",
    signature="const float *vol, const float *scale, float *out, int nx, int ny, int nz",
    cases=CASES, draw=_draw, where=_where, launch=_launch, mistakes=_mistakes,
    crash_hint="threads outside the volume must not write: if (x >= nx || y >= ny || z >= nz) "
               "return;",
    simulated="runs the race check", observed=_observed, observed_as="race-checked",
    success=f"every slice scaled by its own factor ({len(CASES) - 1} volumes whose sides are not "
            "multiples of the block), each element written by one thread, and nothing written "
            "outside the volume")

check_scale_slices = EXERCISE.check_file          # (path="exercises/scale_slices.cu")
check_scale_slices_kernel = EXERCISE.check_kernel  # (kernel, simulated=None): the same compiled
