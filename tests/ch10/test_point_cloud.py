"""Notebook 10's kernels (cuda_src/depth_render.cu, cuda_src/point_cloud.cu) against their NumPy
references (helpers/ch10/depth_camera.py, helpers/ch10/point_cloud.py), on sizes that are not multiples of
the block, on whichever backend runs the tests; and the ground-truth helpers on points whose
distance to the scene is known."""

import numpy as np
import pytest

from helpers.ch10 import depth_camera as camera
from helpers.ch10 import point_cloud as reference
from helpers.backend import compile_cu, drv, gpuarray

f4, i4 = np.float32, np.int32
SMALL = camera.VGA.scaled(0.15)                          # 96 x 72, the notebook's camera
ODD = camera.Intrinsics(101, 67, 110.0, 96.0, 49.3, 35.8)  # odd sides, fx != fy, off-centre
SCAN_BLOCK = 256


@pytest.fixture(scope="module")
def render():
    return compile_cu("depth_render.cu").get_function("render_depth")


@pytest.fixture(scope="module")
def mod():
    return compile_cu("point_cloud.cu")


def render_on_device(kernel, cam, seed=camera.SEED):
    depth = gpuarray.empty((cam.height, cam.width), np.uint16)
    label = gpuarray.empty((cam.height, cam.width), np.uint8)
    f8 = np.float64
    kernel(depth, label, i4(cam.width), i4(cam.height), f8(cam.fx), f8(cam.fy), f8(cam.cx),
           f8(cam.cy), gpuarray.to_gpu(camera.pose()), gpuarray.to_gpu(camera.SPHERES),
           i4(len(camera.SPHERES)), gpuarray.to_gpu(camera.BOXES), i4(len(camera.BOXES)),
           f8(camera.BASELINE), f8(camera.MAX_RANGE), f8(camera.NOISE_MM_AT_1M), np.uint32(seed),
           block=(16, 16, 1), grid=((cam.width + 15) // 16, (cam.height + 15) // 16))
    return depth.get(), label.get()


@pytest.mark.parametrize("cam", [SMALL, ODD], ids=["96x72", "101x67"])
def test_the_renderer_matches_numpy(render, cam):
    depth, label = render_on_device(render, cam)
    truth = camera.render_numpy(cam)
    assert np.array_equal(label, truth.label)
    assert np.abs(depth.astype(np.int32) - truth.depth).max() <= 1
    assert (depth != truth.depth).mean() <= 1e-3
    assert (depth == 0).any() and (depth > 0).mean() > 0.8 and len(np.unique(label)) >= 5


def test_the_renderer_is_the_same_every_run_and_changes_with_the_seed(render):
    first, _ = render_on_device(render, SMALL)
    again, _ = render_on_device(render, SMALL)
    other, _ = render_on_device(render, SMALL, seed=camera.SEED + 1)
    assert np.array_equal(first, again)
    assert (first != other).mean() > 0.5


def backproject_on_device(mod, depth, cam):
    h, w = depth.shape
    xyz = gpuarray.to_gpu(np.full((3, h, w), np.nan, np.float32))
    mod.get_function("backproject")(
        gpuarray.to_gpu(depth), xyz, i4(w), i4(h), f4(cam.fx), f4(cam.fy), f4(cam.cx),
        f4(cam.cy), f4(camera.DEPTH_SCALE), block=(32, 8, 1), grid=((w + 31) // 32, (h + 7) // 8))
    return xyz.get()


def test_backprojection_equals_numpy_bit_for_bit(mod):
    depth = camera.render_numpy(ODD).depth
    got = backproject_on_device(mod, depth, ODD)
    want = reference.backproject(depth, ODD.fx, ODD.fy, ODD.cx, ODD.cy, camera.DEPTH_SCALE)
    assert np.array_equal(got, want)


def test_four_pixels_a_thread_give_the_same_points_to_the_bit(mod):
    cam = camera.Intrinsics(104, 67, 110.0, 96.0, 49.3, 35.8)  # width a multiple of 4, not of 32
    depth = camera.render_numpy(cam).depth
    h, w = depth.shape
    xyz = gpuarray.to_gpu(np.full((3, h, w), np.nan, np.float32))
    groups = w * h // 4
    mod.get_function("backproject_x4")(
        gpuarray.to_gpu(depth), xyz, i4(w), i4(h), f4(cam.fx), f4(cam.fy), f4(cam.cx),
        f4(cam.cy), f4(camera.DEPTH_SCALE), block=(64, 1, 1), grid=((groups + 63) // 64, 1))
    assert np.array_equal(xyz.get(), backproject_on_device(mod, depth, cam))


def organized_cloud(n, valid_fraction, seed):
    """A (3, 1, n) cloud: random points, Z = 0 where not valid."""
    rng = np.random.default_rng(seed)
    xyz = rng.uniform(-2, 2, (3, 1, n)).astype(np.float32)
    xyz[2] = np.where(rng.random((1, n)) < valid_fraction, rng.uniform(0.5, 5, (1, n)), 0)
    return xyz


def compact_on_device(mod, xyz, how):
    n = xyz.shape[-1]
    xyz_gpu = gpuarray.to_gpu(xyz)
    points = gpuarray.to_gpu(np.full((n + 1, 3), np.nan, np.float32))
    total = gpuarray.zeros(1, np.int32)
    blocks = (n + SCAN_BLOCK - 1) // SCAN_BLOCK
    if how == "atomic":
        mod.get_function("compact_atomic")(xyz_gpu, i4(n), points, total,
                                           block=(SCAN_BLOCK, 1, 1), grid=(blocks, 1))
    else:
        offsets = gpuarray.empty(blocks, np.int32)
        mod.get_function("count_valid")(np.uintp(int(xyz_gpu.gpudata) + 8 * n), i4(n), offsets,
                                        block=(SCAN_BLOCK, 1, 1), grid=(blocks, 1))
        mod.get_function("scan_counts")(offsets, i4(blocks), total, block=(1024, 1, 1),
                                        grid=(1, 1))
        mod.get_function("scatter_points")(xyz_gpu, i4(n), offsets, points,
                                           block=(SCAN_BLOCK, 1, 1), grid=(blocks, 1))
    drv.Context.synchronize()
    count = int(total.get()[0])
    got = points.get()
    assert np.isnan(got[count:]).all(), "written past the last point"
    return got[:count]


# (n, fraction valid): one block and less, a partial last block, no points, every point, and
# more than 1024 blocks (scan_counts then gives each thread a run of several counts).
COMPACTION = [(1, 1.0), (255, 0.5), (257, 0.9), (1000, 0.0), (4099, 1.0), (300_001, 0.97)]


@pytest.mark.parametrize("n, fraction", COMPACTION, ids=[f"{n}-{f}" for n, f in COMPACTION])
def test_prefix_sum_compaction_gives_numpy_points_in_order(mod, n, fraction):
    xyz = organized_cloud(n, fraction, n)
    assert np.array_equal(compact_on_device(mod, xyz, "scan"), reference.compact(xyz))


@pytest.mark.parametrize("n, fraction", COMPACTION[:5], ids=[f"{n}-{f}" for n, f in COMPACTION[:5]])
def test_atomic_compaction_gives_numpy_points_as_a_set(mod, n, fraction):
    xyz = organized_cloud(n, fraction, n)
    got, want = compact_on_device(mod, xyz, "atomic"), reference.compact(xyz)
    order = np.lexsort(got.T[::-1]), np.lexsort(want.T[::-1])
    assert np.array_equal(got[order[0]], want[order[1]])


def test_normals_match_numpy(mod):
    depth = camera.render_numpy(ODD).depth
    xyz = reference.backproject(depth, ODD.fx, ODD.fy, ODD.cx, ODD.cy, camera.DEPTH_SCALE)
    nrm = gpuarray.empty(xyz.shape, np.float32)
    mod.get_function("normals")(gpuarray.to_gpu(xyz), nrm, i4(ODD.width), i4(ODD.height), i4(3),
                                f4(0.05), block=(32, 8, 1),
                                grid=((ODD.width + 31) // 32, (ODD.height + 7) // 8))
    got, want = nrm.get(), reference.normals(xyz, 3, 0.05)
    assert np.array_equal(np.isnan(got), np.isnan(want))
    assert np.isfinite(want[0]).mean() > 0.3
    assert np.nanmax(np.abs(got - want)) < 1e-4
    assert np.allclose(np.nansum(got**2, axis=0)[np.isfinite(got[0])], 1, atol=1e-5)


def test_voxel_grid_matches_numpy(mod):
    points = reference.compact(organized_cloud(5000, 0.9, 7))
    voxel = f4(0.5)
    corner, shape = reference.grid_around(points, voxel)
    cells = int(np.prod(shape))
    acc = gpuarray.zeros((4, cells), np.float32)
    count = len(points)
    mod.get_function("voxel_accumulate")(gpuarray.to_gpu(points), i4(count), acc,
                                         *(i4(s) for s in shape), *corner, voxel,
                                         block=(256, 1, 1), grid=((count + 255) // 256, 1))
    blocks = (cells + SCAN_BLOCK - 1) // SCAN_BLOCK
    offsets, total = gpuarray.empty(blocks, np.int32), gpuarray.empty(1, np.int32)
    centroids = gpuarray.empty((cells, 3), np.float32)
    mod.get_function("count_valid")(np.uintp(int(acc.gpudata) + 12 * cells), i4(cells), offsets,
                                    block=(SCAN_BLOCK, 1, 1), grid=(blocks, 1))
    mod.get_function("scan_counts")(offsets, i4(blocks), total, block=(1024, 1, 1), grid=(1, 1))
    mod.get_function("scatter_centroids")(acc, i4(cells), offsets, centroids,
                                          block=(SCAN_BLOCK, 1, 1), grid=(blocks, 1))
    occupied, counts, means = reference.voxel_grid(points, corner, voxel, shape)
    assert int(total.get()[0]) == len(occupied)
    assert np.array_equal(np.flatnonzero(acc.get()[3]), occupied)
    assert np.array_equal(acc.get()[3][occupied], counts)
    assert np.allclose(centroids.get()[:len(occupied)], means, atol=1e-5)


def test_points_on_the_surfaces_are_at_distance_zero_and_others_are_not():
    sphere = camera.SPHERES[0]
    box = camera.BOXES[2]
    on = np.array([sphere[:3] + [0, 0, -sphere[3]],            # the sphere's front
                   [box[0], 0.3, (box[2] + box[5]) / 2],       # the box's left face
                   [0.0, 0.0, 1.0]])                           # the floor
    labels = np.array([1, 1 + len(camera.SPHERES) + 2, 1 + len(camera.SPHERES)])
    assert np.allclose(camera.distance_to_surface(on, labels), 0, atol=1e-12)
    off = on + [[0, 0, -0.01], [-0.02, 0, 0], [0, 0.03, 0]]
    assert np.allclose(camera.distance_to_surface(off, labels), [0.01, 0.02, 0.03])
    inside = np.array([[box[0] + 0.05, 0.3, (box[2] + box[5]) / 2]])
    assert np.allclose(camera.distance_to_surface(inside, labels[1:2]), 0.05)


def test_camera_coordinates_turn_into_world_coordinates():
    p = camera.pose()
    assert np.allclose(camera.camera_to_world([[0, 0, 0]]), [p[:3]])
    forward = camera.camera_to_world([[0, 0, 1]])[0] - p[:3]
    assert np.isclose(forward[1], -np.sin(np.radians(camera.PITCH_DEG)))  # looking down
    assert np.isclose(np.linalg.norm(forward), 1)
