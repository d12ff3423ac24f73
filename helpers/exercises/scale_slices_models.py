"""The models of scale_slices' mistakes (helpers.exercises.scale_slices): the index mistakes
recognised by the elements they write, those that still reach every element once, and the
factor mistakes."""

from __future__ import annotations

import numpy as np

# Index mistakes, x, y, z and the guard right: (the element's index from x, y, z, nx, ny, nz; the
# problem)
INDEXES = [
    (lambda x, y, z, nx, ny, nz: z * ny + y * nx + x,
     "slice z starts at z * ny, a number of rows, not of elements"),
    (lambda x, y, z, nx, ny, nz: (z * nx + y) * ny + x,
     "rows are ny elements apart in the index (y * ny), but a row holds nx elements"),
    (lambda x, y, z, nx, ny, nz: (z * nz + y) * nx + x,
     "slice z starts at z * nz * nx, but a slice holds ny rows of nx elements (nz is the number "
     "of slices)"),
    (lambda x, y, z, nx, ny, nz: z * ny * nz + y * nx + x,
     "slice z starts at z * ny * nz, but a slice holds ny rows of nx elements, ny * nx (nz is "
     "the number of slices)"),
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
