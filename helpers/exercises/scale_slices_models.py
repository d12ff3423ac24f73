"""The models of scale_slices' mistakes (helpers.exercises.scale_slices): the index mistakes
recognised by the elements they write, those that still reach every element once, and the
factor mistakes."""

from __future__ import annotations

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
