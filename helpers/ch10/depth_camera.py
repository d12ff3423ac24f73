"""Notebook 10's depth camera: the scene, the camera, and a NumPy renderer to check the kernel.

``cuda_src/depth_render.cu`` renders a depth image of a small analytic scene (spheres and
axis-aligned boxes; the floor and the wall are boxes too) the way a depth camera delivers it:
millimetres in ``uint16``, 0 where there is no measurement, noise that grows with the square of
the depth. ``render_numpy`` does the same computation with NumPy, pixel for pixel, and also
returns what a real camera never tells you: the true depth and the true surface normal of every
pixel. That is the ground truth the point cloud is checked against.

World coordinates are metres, x to the right, y up, z forward. The camera's own coordinates
(those of the point cloud) are the usual ones of computer vision: X to the right, Y down, Z
forward, so that pixel (u, v) and point (X, Y, Z) are related by u = fx X / Z + cx,
v = fy Y / Z + cy.
"""

from __future__ import annotations

import dataclasses

import numpy as np

SPHERES = np.array([  # centre x, y, z, radius: resting on the floor
    [-0.55, 0.25, 1.9, 0.25],
    [0.55, 0.35, 2.5, 0.35],
    [0.05, 0.15, 1.4, 0.15],
])
BOXES = np.array([  # min x, y, z, max x, y, z
    [-20.0, -1.0, -20.0, 20.0, 0.0, 20.0],  # the floor: its top face is y = 0
    [-2.0, 0.0, 3.5, 2.0, 2.5, 3.6],        # a wall, 3.5 m ahead, 4 m wide and 2.5 m high
    [-1.5, 0.0, 2.6, -0.9, 0.6, 3.1],
    [0.75, 0.0, 1.5, 1.25, 0.45, 2.0],
])
NAMES = (["nothing"] + [f"sphere {k + 1}" for k in range(len(SPHERES))]
         + ["floor", "wall"] + [f"box {k + 1}" for k in range(len(BOXES) - 2)])
"""NAMES[label]: what the label image's numbers stand for."""

CAMERA_HEIGHT = 1.2    # metres above the floor
PITCH_DEG = 20.0       # looking down by this much
BASELINE = 0.075       # the projector sits this far to the right of the camera (metres)
MAX_RANGE = 5.0        # no reading of a surface beyond this (metres); noise may carry one past it
NOISE_MM_AT_1M = 0.6   # standard deviation of the noise at 1 m (mm); it grows as Z^2
SEED = 2024
DEPTH_SCALE = 0.001    # metres per unit of the uint16 image (millimetres)


@dataclasses.dataclass(frozen=True)
class Intrinsics:
    """A pinhole camera's image size and intrinsics (pixels)."""

    width: int
    height: int
    fx: float
    fy: float
    cx: float
    cy: float

    def scaled(self, factor: float) -> Intrinsics:
        """The same field of view with factor times as many pixels along each side (the sides
        rounded to whole pixels)."""
        factor = float(factor)
        return Intrinsics(round(self.width * factor), round(self.height * factor),
                          self.fx * factor, self.fy * factor, (self.cx + 0.5) * factor - 0.5,
                          (self.cy + 0.5) * factor - 0.5)


VGA = Intrinsics(640, 480, 525.0, 525.0, 319.5, 239.5)
"""640 x 480 with the intrinsics of the first Kinect, as the TUM RGB-D benchmark gives them."""


def pose(height=CAMERA_HEIGHT, pitch_deg=PITCH_DEG) -> np.ndarray:
    """The camera's centre, then its right, down and forward axes, in world coordinates
    (12 float64: the kernel's ``pose``)."""
    p = np.radians(pitch_deg)
    centre = [0.0, height, 0.0]
    right = [1.0, 0.0, 0.0]
    down = [0.0, -np.cos(p), -np.sin(p)]
    forward = [0.0, -np.sin(p), np.cos(p)]
    return np.array(centre + right + down + forward)


def camera_to_world(points: np.ndarray, camera_pose: np.ndarray | None = None) -> np.ndarray:
    """Points (..., 3) in the camera's coordinates (X right, Y down, Z forward) -> world."""
    p = pose() if camera_pose is None else camera_pose
    axes = p[3:].reshape(3, 3)  # rows: right, down, forward
    return p[:3] + np.asarray(points, np.float64) @ axes


# ---- the NumPy renderer: the kernel's computation, for every pixel at once --------------------
NO_HIT = 1e300


def _mix32(x):
    """The kernel's lowbias32 hash on a uint32 array (wrapping arithmetic)."""
    x = x ^ (x >> np.uint32(16))
    x = x * np.uint32(0x7FEB352D)
    x = x ^ (x >> np.uint32(15))
    x = x * np.uint32(0x846CA68B)
    return x ^ (x >> np.uint32(16))


def uniform(pixel, k, seed=SEED):
    """The kernel's random number k of each pixel (a uint32 array): uniform in [0, 1)."""
    salt = np.uint32((k + seed * 0x9E3779B9) % 2**32)
    return (_mix32(pixel.astype(np.uint32) * np.uint32(8) + salt) >> np.uint32(8)) * (
        1.0 / 16777216.0)


def _sphere_t(s, o, d, t_min):
    ox, oy, oz = o[0] - s[0], o[1] - s[1], o[2] - s[2]
    a = d[0] * d[0] + d[1] * d[1] + d[2] * d[2]
    b = ox * d[0] + oy * d[1] + oz * d[2]
    c = ox * ox + oy * oy + oz * oz - s[3] * s[3]
    disc = b * b - a * c
    t = (-b - np.sqrt(np.maximum(disc, 0.0))) / a
    return np.where((disc >= 0.0) & (t > t_min), t, NO_HIT)


def _box_t(box, o, d, t_min):
    """(t, axis of the face entered) of every ray, as the kernel's box_t."""
    shape = np.broadcast_shapes(np.shape(o[0]), np.shape(d[0]))
    t_near, t_far = np.full(shape, -NO_HIT), np.full(shape, NO_HIT)
    axis, miss = np.zeros(shape, np.int64), np.zeros(shape, bool)
    for a in range(3):
        parallel = d[a] == 0.0
        miss |= parallel & ((o[a] < box[a]) | (o[a] > box[3 + a]))
        with np.errstate(divide="ignore", invalid="ignore"):
            t1, t2 = (box[a] - o[a]) / d[a], (box[3 + a] - o[a]) / d[a]
        lo, hi = np.fmin(t1, t2), np.fmax(t1, t2)
        nearer = ~parallel & (lo > t_near)
        t_near, axis = np.where(nearer, lo, t_near), np.where(nearer, a, axis)
        t_far = np.where(parallel, t_far, np.fmin(t_far, hi))
    return np.where(~miss & (t_near <= t_far) & (t_near > t_min), t_near, NO_HIT), axis


def cast(o, d, t_min, spheres=SPHERES, boxes=BOXES):
    """(t, label, normal (3, ...)) of the first object each ray o + t*d meets at t > t_min."""
    shape = np.broadcast_shapes(np.shape(o[0]), np.shape(d[0]))
    t, label, normal = np.full(shape, NO_HIT), np.zeros(shape, np.int64), np.zeros((3, *shape))
    for k, s in enumerate(spheres):
        tk = _sphere_t(s, o, d, t_min)
        nearer = tk < t
        t, label = np.where(nearer, tk, t), np.where(nearer, 1 + k, label)
        for a in range(3):
            normal[a] = np.where(nearer, (o[a] + tk * d[a] - s[a]) / s[3], normal[a])
    for k, box in enumerate(boxes):
        tk, axis = _box_t(box, o, d, t_min)
        nearer = tk < t
        t, label = np.where(nearer, tk, t), np.where(nearer, 1 + len(spheres) + k, label)
        for a in range(3):
            facing = np.where(axis == a, np.where(d[a] > 0.0, -1.0, 1.0), 0.0)
            normal[a] = np.where(nearer, facing, normal[a])
    return t, label, normal


@dataclasses.dataclass
class Rendering:
    """What ``render_numpy`` returns: the camera's image and the scene's truth."""

    depth: np.ndarray         # (height, width) uint16 millimetres, 0: no measurement
    label: np.ndarray         # (height, width) uint8: NAMES[label] was hit
    true_depth: np.ndarray    # (height, width) float64 metres, inf where nothing is in range
    true_normal: np.ndarray   # (3, height, width) unit normals in camera coordinates, towards it


def render_numpy(cam: Intrinsics = VGA, camera_pose=None, seed=SEED) -> Rendering:
    """The depth image ``render_depth`` makes, computed with NumPy, with the ground truth."""
    p = pose() if camera_pose is None else camera_pose
    o, right, down, forward = p[:3], p[3:6], p[6:9], p[9:]
    v, u = np.mgrid[0:cam.height, 0:cam.width]
    a, b = (u - cam.cx) / cam.fx, (v - cam.cy) / cam.fy
    d = [right[k] * a + down[k] * b + forward[k] for k in range(3)]
    t, label, normal = cast(o, d, 1e-9)
    in_range = t <= MAX_RANGE
    t_hit = np.where(in_range, t, 1.0)  # (beyond the range nothing is measured)
    q = [o[k] + t_hit * d[k] for k in range(3)]
    projector = o + BASELINE * right
    blocked, _, _ = cast(projector, [q[k] - projector[k] for k in range(3)], 1e-9)
    length = np.sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2])
    cos_incidence = np.abs(normal[0] * d[0] + normal[1] * d[1] + normal[2] * d[2]) / length
    pixel = np.arange(cam.width * cam.height, dtype=np.uint32).reshape(cam.height, cam.width)
    mm = _measure(t_hit, cos_incidence, pixel, seed)
    depth = np.where(in_range & ~(blocked < 1.0 - 1e-9), mm, 0).astype(np.uint16)
    camera_normal = np.einsum("kj,j...->k...", np.stack([right, down, forward]), normal)
    return Rendering(depth, np.where(in_range, label, 0).astype(np.uint8),
                     np.where(in_range, t, np.inf), camera_normal)


def _measure(z, cos_incidence, pixel, seed):
    """The kernel's measure(): millimetres as float64, 0 where the measurement is dropped."""
    p_drop = 0.01 + 0.6 * np.fmax(0.0, 1.0 - cos_incidence / 0.25)
    n = (uniform(pixel, 0, seed) + uniform(pixel, 1, seed) + uniform(pixel, 2, seed)
         + uniform(pixel, 3, seed) - 2.0) * 1.7320508075688772
    mm = np.floor(z * 1000.0 + n * NOISE_MM_AT_1M * z * z + 0.5)
    return np.where(uniform(pixel, 4, seed) < p_drop, 0.0, np.fmin(np.fmax(mm, 1.0), 65535.0))


def noise_bound_m(z):
    """The largest depth error the camera can make at true depth z (metres): the noise never
    exceeds 2 sqrt(3) standard deviations, and rounding to millimetres adds half a millimetre."""
    return 2 * np.sqrt(3.0) * NOISE_MM_AT_1M * 1e-3 * np.asarray(z) ** 2 + 0.5e-3


def distance_to_surface(points_world: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Distance (metres) from each point (n, 3) to the surface of the object its label names."""
    dist = np.full(len(points_world), np.inf)
    for k, s in enumerate(SPHERES):
        mine = labels == 1 + k
        dist[mine] = np.abs(np.linalg.norm(points_world[mine] - s[:3], axis=1) - s[3])
    for k, box in enumerate(BOXES):
        mine = labels == 1 + len(SPHERES) + k
        dist[mine] = _box_surface_distance(points_world[mine], box)
    return dist


def _box_surface_distance(p, box):
    lo, hi = box[:3], box[3:]
    outside = np.maximum(np.maximum(lo - p, p - hi), 0.0)
    inside = np.minimum(p - lo, hi - p).min(axis=1)  # to the nearest face, from within
    return np.where((outside > 0).any(axis=1), np.linalg.norm(outside, axis=1),
                    np.maximum(inside, 0.0))
