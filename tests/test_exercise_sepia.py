"""The sepia exercise (notebook 04): the solution passes, the stub and known-wrong kernels fail,
each with the hint that names its mistake. Also: both grayscale kernels of cuda_src/grayscale.cu
match NumPy within one grey level on awkward sizes."""

import numpy as np
import pytest

from helpers.exercises.sepia import check_sepia, check_sepia_kernel

SIGNATURE = """
__global__ void sepia(const unsigned char *rgb, unsigned char *out, int width, int height)
"""

INDEX = """
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
"""
GUARD = "    if (x >= width || y >= height) return;\n"
READ = """
    int i = y * width + x;
    float r = rgb[3 * i], g = rgb[3 * i + 1], b = rgb[3 * i + 2];
    float r2 = 0.393f * r + 0.769f * g + 0.189f * b;
    float g2 = 0.349f * r + 0.686f * g + 0.168f * b;
    float b2 = 0.272f * r + 0.534f * g + 0.131f * b;
"""
WRITE = """
    out[3 * i]     = (unsigned char)fminf(r2 + 0.5f, 255.0f);
    out[3 * i + 1] = (unsigned char)fminf(g2 + 0.5f, 255.0f);
    out[3 * i + 2] = (unsigned char)fminf(b2 + 0.5f, 255.0f);
"""
RIGHT = INDEX + GUARD + READ + WRITE


def kernel(body):
    """Compile a sepia kernel with the given body (inline source, like a learner's edit)."""
    from helpers.backend import SourceModule

    return SourceModule(SIGNATURE + "{\n" + body + "\n}\n").get_function("sepia")


# name: (kernel body, a piece of the expected verdict)
WRONG = {
    "no_bounds_guard": (INDEX + READ + WRITE, "Hint: no bounds guard"),
    "guard_off_by_one": (INDEX + "    if (x > width || y > height) return;\n" + READ + WRITE,
                         "Hint: no bounds guard"),
    "only_block_0": ("int x = threadIdx.x, y = threadIdx.y;\n" + GUARD + READ + WRITE,
                     "only block 0's pixels were written"),
    "blockIdx_y_missing": ("int x = blockIdx.x * blockDim.x + threadIdx.x, y = threadIdx.y;\n"
                           + GUARD + READ + WRITE, "Hint: blockIdx.y is missing from y"),
    "x_y_swapped": ("""
        int y = blockIdx.x * blockDim.x + threadIdx.x;
        int x = blockIdx.y * blockDim.y + threadIdx.y;
    """ + GUARD + READ + WRITE, "Hint: x and y are swapped"),
    "row_length_is_height": (INDEX + GUARD + READ.replace("y * width + x", "y * height + x")
                             + WRITE, "pixels were never written"),
    "last_row_skipped": (INDEX + "    if (x >= width || y >= height - 1) return;\n" + READ
                         + WRITE, "pixels were never written"),
    "no_clamp": (INDEX + GUARD + READ + """
        out[3 * i]     = (unsigned char)(r2 + 0.5f);
        out[3 * i + 1] = (unsigned char)(g2 + 0.5f);
        out[3 * i + 2] = (unsigned char)(b2 + 0.5f);
    """, "Hint: clamp before converting"),
    "input_read_as_bgr": (INDEX + GUARD + READ.replace(
        "float r = rgb[3 * i], g = rgb[3 * i + 1], b = rgb[3 * i + 2];",
        "float b = rgb[3 * i], g = rgb[3 * i + 1], r = rgb[3 * i + 2];") + WRITE,
        "reads the input bytes as BGR"),
    "outputs_swapped": (INDEX + GUARD + READ + WRITE.replace("r2 + 0.5f", "TMP").replace(
        "b2 + 0.5f", "r2 + 0.5f").replace("TMP", "b2 + 0.5f"), "Hint: channels mixed up"),
    "matrix_transposed": (INDEX + GUARD + """
        int i = y * width + x;
        float r = rgb[3 * i], g = rgb[3 * i + 1], b = rgb[3 * i + 2];
        float r2 = 0.393f * r + 0.349f * g + 0.272f * b;
        float g2 = 0.769f * r + 0.686f * g + 0.534f * b;
        float b2 = 0.189f * r + 0.168f * g + 0.131f * b;
    """ + WRITE, "the matrix's columns used as its rows"),
    "blue_never_written": (INDEX + GUARD + READ + WRITE.replace(
        "out[3 * i + 2] = (unsigned char)fminf(b2 + 0.5f, 255.0f);", "(void)b2;"),
        "only some of their three bytes written (blue missing"),
    "pixel_index_used_as_byte_index": (INDEX + GUARD + READ + """
        out[i] = (unsigned char)fminf(r2 + 0.5f, 255.0f);
        (void)g2; (void)b2;
    """, "only some of their three bytes written"),
    "nothing_written": (INDEX + GUARD, "nothing was written"),
    "wrong_weight": (INDEX + GUARD + READ.replace("0.769f * g", "0.669f * g") + WRITE,
                     "values are wrong"),
}


def test_stub_fails(capsys):
    assert check_sepia("exercises/sepia.cu") is False
    out = capsys.readouterr().out
    assert out.startswith("NOT YET: ")
    assert "only block 0's pixels were written" in out


def test_inline_right_kernel_passes(capsys):
    assert check_sepia_kernel(kernel(RIGHT)) is True
    assert capsys.readouterr().out.startswith("PASS: ")


@pytest.mark.parametrize("name", sorted(WRONG))
def test_wrong_kernel_fails_with_its_hint(name, capsys):
    body, expected = WRONG[name]
    assert check_sepia_kernel(kernel(body)) is False
    out = capsys.readouterr().out
    assert out.startswith("NOT YET: "), out
    assert expected in out, out


# ---- the grayscale kernels of notebook 04 -------------------------------------------------------

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
    else:
        threads = n // 16 + 1
        func(rgb_gpu, out, np.int32(n), block=(256, 1, 1), grid=((threads + 255) // 256, 1))
    drv.Context.synchronize()
    host = out.get()
    return host[:n].reshape(h, w), bool((host[n:] == POISON).all())


# (height, width): odd sides; pixel counts that are not multiples of 4 or 16, one below 16
# (only the tail), one an exact multiple of 16 (no tail).
GRAY_SIZES = [(37, 53), (53, 37), (1, 7), (3, 5), (16, 16), (33, 97), (1, 17)]


@pytest.mark.parametrize("name", ["rgb_to_gray", "rgb_to_gray_x16"])
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
