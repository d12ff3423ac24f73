"""NumPy references of notebook 10's point-cloud kernels (``cuda_src/point_cloud.cu``).

Each function does the kernel's float32 operations in the kernel's order, on whole arrays, so
that the kernels can be checked against it: exactly where the kernel's arithmetic allows it
(back-projection, compaction, which voxel a point falls in), to float rounding where a GPU fuses
multiply-adds (normals) or adds in a varying order (the voxels' mean points).

Layouts as in the kernels: an organized cloud is a (3, height, width) float32 array of planes
X, Y, Z with Z = 0 where the pixel has no measurement; a compacted cloud is (count, 3).
"""

from __future__ import annotations

import numpy as np

f4 = np.float32


def backproject(depth, fx, fy, cx, cy, depth_scale):
    """The organized cloud of a uint16 depth image: X = (u - cx) Z / fx, Y = (v - cy) Z / fy."""
    v, u = np.mgrid[0:depth.shape[0], 0:depth.shape[1]].astype(f4)
    z = depth.astype(f4) * f4(depth_scale)
    return np.stack([(u - f4(cx)) * z / f4(fx), (v - f4(cy)) * z / f4(fy), z])


def compact(xyz):
    """The valid points (Z > 0) of an organized cloud, in pixel order: (count, 3)."""
    return np.ascontiguousarray(xyz[:, xyz[2] > 0].T)


def normals(xyz, step, max_jump):
    """Unit normals (3, height, width) from the points `step` pixels away, facing the camera;
    NaN near the border, next to a hole, or across a jump in depth of more than max_jump * Z."""
    _, h, w = xyz.shape
    c = xyz[:, step:h - step, step:w - step]
    left, right = xyz[:, step:h - step, :w - 2 * step], xyz[:, step:h - step, 2 * step:]
    up, down = xyz[:, :h - 2 * step, step:w - step], xyz[:, 2 * step:, step:w - step]
    a, b = right - left, down - up
    n = np.stack([b[1] * a[2] - b[2] * a[1], b[2] * a[0] - b[0] * a[2], b[0] * a[1] - b[1] * a[0]])
    length = np.sqrt((n * n).sum(axis=0))
    length = np.where((n * c).sum(axis=0) > 0, -length, length)  # face the camera
    jump = f4(max_jump) * c[2]
    ok = ((c[2] > 0) & (left[2] > 0) & (right[2] > 0) & (up[2] > 0) & (down[2] > 0)
          & (np.abs(a[2]) <= jump) & (np.abs(b[2]) <= jump))
    out = np.full(xyz.shape, np.nan, f4)
    with np.errstate(invalid="ignore", divide="ignore"):
        out[:, step:h - step, step:w - step] = np.where(ok, n / length, np.nan)
    return out


def voxel_cells(points, corner, voxel):
    """(ix, iy, iz) of the cube of side `voxel` from `corner` that each point falls in."""
    return np.floor((points - np.asarray(corner, f4)) / f4(voxel)).astype(np.int64).T


def voxel_grid(points, corner, voxel, shape):
    """(occupied cube indices j = (iz * ny + iy) * nx + ix in increasing order, the number of
    points in each, their mean points (count, 3)) for a grid of shape (nx, ny, nz)."""
    nx, ny, nz = shape
    ix, iy, iz = voxel_cells(points, corner, voxel)
    inside = (ix >= 0) & (iy >= 0) & (iz >= 0) & (ix < nx) & (iy < ny) & (iz < nz)
    keys = ((iz * ny + iy) * nx + ix)[inside]
    occupied, which, counts = np.unique(keys, return_inverse=True, return_counts=True)
    sums = np.stack([np.bincount(which, weights=points[inside, k]) for k in range(3)], axis=1)
    return occupied, counts, sums / counts[:, None]


def grid_around(points, voxel):
    """(corner, (nx, ny, nz)): the smallest grid of cubes of side `voxel`, aligned to multiples
    of it, that holds every point."""
    corner = (np.floor(points.min(axis=0) / f4(voxel)) * f4(voxel)).astype(f4)
    cells = voxel_cells(points, corner, voxel)
    return corner, tuple(int(c.max()) + 1 for c in cells)
