"""Notebook 04's three grayscale kernels (cuda_src/grayscale.cu) against NumPy: within one grey
level on awkward sizes (odd sides; pixel counts that are not multiples of 4 or 16), nothing written
past the end of gray."""

import numpy as np
import pytest

GUARD_BYTES = 64
POISON = 0xA5


def gray_reference(rgb):
    return np.floor(rgb @ np.array([0.299, 0.587, 0.114]) + 0.5).astype(np.uint8)


@pytest.fixture(scope="module")
def grayscale():
    from helpers.backend import compile_cu

    return compile_cu("grayscale.cu")


def run_gray(mod, name, rgb):
    """Run one grayscale kernel on ``rgb`` (h, w, 3); return (gray, guard zone untouched)."""
    from helpers.backend import drv, gpuarray

    h, w, _ = rgb.shape
    n = h * w
    rgb_gpu = gpuarray.to_gpu(np.ascontiguousarray(rgb))
    out = gpuarray.to_gpu(np.full(n + GUARD_BYTES, POISON, np.uint8))
    func = mod.get_function(name)
    if name == "rgb_to_gray":
        func(rgb_gpu, out, np.int32(w), np.int32(h), block=(32, 8, 1),
             grid=((w + 31) // 32, (h + 7) // 8))
    else:                                   # rgb_to_gray_x4 or rgb_to_gray_x16: a 1D grid
        threads = n // int(name.rsplit("_x", 1)[1]) + 1
        func(rgb_gpu, out, np.int32(n), block=(256, 1, 1), grid=((threads + 255) // 256, 1))
    drv.Context.synchronize()
    host = out.get()
    return host[:n].reshape(h, w), bool((host[n:] == POISON).all())


# (height, width): odd sides; pixel counts that are not multiples of 4 or 16, one below 16
# (only the tail), one an exact multiple of 16 (no tail).
GRAY_SIZES = [(37, 53), (53, 37), (1, 7), (3, 5), (16, 16), (33, 97), (1, 17)]


@pytest.mark.parametrize("name", ["rgb_to_gray", "rgb_to_gray_x4", "rgb_to_gray_x16"])
@pytest.mark.parametrize("size", GRAY_SIZES, ids=[f"{h}x{w}" for h, w in GRAY_SIZES])
def test_grayscale_kernel_matches_numpy(grayscale, name, size):
    rng = np.random.default_rng(size[0] * 100 + size[1])
    rgb = rng.integers(0, 256, (*size, 3), dtype=np.uint8)
    rgb[0, 0] = 255                       # white: the largest sum, must stay 255
    rgb[-1, -1] = 0
    gray, guard_untouched = run_gray(grayscale, name, rgb)
    want = gray_reference(rgb)
    diff = np.abs(gray.astype(np.int16) - want.astype(np.int16))
    assert guard_untouched, f"{name} wrote past the end of gray"
    assert diff.max() <= 1, f"{name}: {int((diff > 1).sum())} pixels off by more than 1"
    assert gray[0, 0] == 255 and gray[-1, -1] == 0
