"""The matrix_index exercise (notebook 02): the solution passes, the stub and known-wrong kernels
fail, each with the hint that names its mistake."""

import pytest

from helpers.exercises.matrix_index import check_matrix_index, check_matrix_index_kernel

SIGNATURE = """
__global__ void {name}(const float *a, const float *col_scale, const float *row_offset,
                       float *out, int rows, int cols)
"""


def source(name, body):
    """A scale_shift kernel called ``name`` with the given body, as a learner might write it."""
    return SIGNATURE.format(name=name) + "{\n" + body + "\n}\n"


@pytest.fixture(scope="module")
def variants():
    """All the inline kernels, compiled as one module (one compile instead of one each)."""
    from helpers.backend import SourceModule

    text = source("right", RIGHT) + "".join(source(name, body) for name, (body, _) in WRONG.items())
    return SourceModule(text)


RIGHT = """
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= rows || col >= cols) return;
    int i = row * cols + col;
    out[i] = a[i] * col_scale[col] + row_offset[row];
"""

# name: (kernel body, a piece of the expected verdict)
WRONG = {
    "no_bounds_guard": ("""
        int col = blockIdx.x * blockDim.x + threadIdx.x;
        int row = blockIdx.y * blockDim.y + threadIdx.y;
        int i = row * cols + col;
        out[i] = a[i] * col_scale[col] + row_offset[row];
    """, "no bounds guard"),
    "guard_on_rows_only": ("""
        int col = blockIdx.x * blockDim.x + threadIdx.x;
        int row = blockIdx.y * blockDim.y + threadIdx.y;
        if (row >= rows) return;
        int i = row * cols + col;
        out[i] = a[i] * col_scale[col] + row_offset[row];
    """, "no bounds guard"),
    "guard_off_by_one": ("""
        int col = blockIdx.x * blockDim.x + threadIdx.x;
        int row = blockIdx.y * blockDim.y + threadIdx.y;
        if (row > rows || col > cols) return;
        int i = row * cols + col;
        out[i] = a[i] * col_scale[col] + row_offset[row];
    """, "no bounds guard"),
    "guard_on_flat_index": ("""
        int col = blockIdx.x * blockDim.x + threadIdx.x;
        int row = blockIdx.y * blockDim.y + threadIdx.y;
        int i = row * cols + col;
        if (i >= rows * cols) return;
        out[i] = a[i] * col_scale[col] + row_offset[row];
    """, "wrapped around into the next row"),
    "only_block_0": ("""
        int col = threadIdx.x;
        int row = threadIdx.y;
        if (row >= rows || col >= cols) return;
        int i = row * cols + col;
        out[i] = a[i] * col_scale[col] + row_offset[row];
    """, "only block 0's elements are right"),
    "blockIdx_x_missing": ("""
        int col = threadIdx.x;
        int row = blockIdx.y * blockDim.y + threadIdx.y;
        if (row >= rows || col >= cols) return;
        int i = row * cols + col;
        out[i] = a[i] * col_scale[col] + row_offset[row];
    """, "Hint: blockIdx.x is missing from col"),
    "x_y_swapped": ("""
        int row = blockIdx.x * blockDim.x + threadIdx.x;
        int col = blockIdx.y * blockDim.y + threadIdx.y;
        if (row >= rows || col >= cols) return;
        int i = row * cols + col;
        out[i] = a[i] * col_scale[col] + row_offset[row];
    """, "Hint: x and y are swapped"),
    "transposed_index": ("""
        int col = blockIdx.x * blockDim.x + threadIdx.x;
        int row = blockIdx.y * blockDim.y + threadIdx.y;
        if (row >= rows || col >= cols) return;
        int i = col * rows + row;
        out[i] = a[i] * col_scale[col] + row_offset[row];
    """, "the transposed index col * rows + row"),
    "x_y_swapped_and_transposed": ("""
        int row = blockIdx.x * blockDim.x + threadIdx.x;
        int col = blockIdx.y * blockDim.y + threadIdx.y;
        if (row >= rows || col >= cols) return;
        int i = col * rows + row;
        out[i] = a[i] * col_scale[col] + row_offset[row];
    """, "Hint: x and y are swapped"),
    "vectors_mixed_up": ("""
        int col = blockIdx.x * blockDim.x + threadIdx.x;
        int row = blockIdx.y * blockDim.y + threadIdx.y;
        if (row >= rows || col >= cols) return;
        int i = row * cols + col;
        out[i] = a[i] * col_scale[row] + row_offset[col];
    """, "index it with col"),
    "nothing_written": ("""
        int col = blockIdx.x * blockDim.x + threadIdx.x;
        int row = blockIdx.y * blockDim.y + threadIdx.y;
        if (row >= rows || col >= cols) return;
    """, "nothing was written"),
    "last_row_skipped": ("""
        int col = blockIdx.x * blockDim.x + threadIdx.x;
        int row = blockIdx.y * blockDim.y + threadIdx.y;
        if (row >= rows - 1 || col >= cols) return;
        int i = row * cols + col;
        out[i] = a[i] * col_scale[col] + row_offset[row];
    """, "elements were never written"),
    "wrong_formula": ("""
        int col = blockIdx.x * blockDim.x + threadIdx.x;
        int row = blockIdx.y * blockDim.y + threadIdx.y;
        if (row >= rows || col >= cols) return;
        int i = row * cols + col;
        out[i] = a[i] * col_scale[col] - row_offset[row];
    """, "elements are wrong"),
}


def test_stub_fails(capsys):
    assert check_matrix_index("exercises/matrix_index.cu") is False
    out = capsys.readouterr().out
    assert out.startswith("NOT YET: ")
    assert "every thread wrote to the same place" in out


def test_inline_right_kernel_passes(variants, capsys):
    assert check_matrix_index_kernel(variants.get_function("right")) is True
    assert capsys.readouterr().out.startswith("PASS: ")


@pytest.mark.parametrize("name", sorted(WRONG))
def test_wrong_kernel_fails_with_its_hint(name, variants, capsys):
    expected = WRONG[name][1]
    assert check_matrix_index_kernel(variants.get_function(name)) is False
    out = capsys.readouterr().out
    assert out.startswith("NOT YET: "), out
    assert expected in out, out


def test_missing_kernel_is_reported_not_raised(source_file, capsys):
    other = source_file("other.cu", source("scale_and_shift", RIGHT))
    assert check_matrix_index(str(other)) is False
    assert "has no kernel called scale_shift" in capsys.readouterr().out


def test_changed_signature_is_reported_not_raised(capsys):
    """On the simulator a launch whose arguments do not fit the kernel raises TypeError (PyCUDA
    cannot tell); the checker reports it."""
    from helpers.backend import BACKEND, SourceModule

    if BACKEND != "simulator":
        pytest.skip("PyCUDA does not check arguments against an unprepared kernel's parameters")
    other = SourceModule("__global__ void scale_shift(const float *a, float *out, int rows, "
                         "int cols) {}").get_function("scale_shift")
    assert check_matrix_index_kernel(other) is False
    out = capsys.readouterr().out
    assert out.startswith("NOT YET: the kernel's parameters"), out
    assert "keep the signature" in out


def test_wild_write_is_reported_not_raised(capsys):
    """A write far outside every array: the simulator stops the kernel with LaunchError, which
    the checker reports. (Not run on a GPU: there it would leave the CUDA context unusable.)"""
    from helpers.backend import BACKEND, SourceModule

    if BACKEND != "simulator":
        pytest.skip("an illegal address on a GPU breaks the context for the tests after it")
    wild = SourceModule(source("wild", """
        int col = blockIdx.x * blockDim.x + threadIdx.x;
        int row = blockIdx.y * blockDim.y + threadIdx.y;
        ((volatile float *)4096)[row * 16 + col] = 1.0f;  // never mapped: always faults
    """)).get_function("wild")
    assert check_matrix_index_kernel(wild) is False
    out = capsys.readouterr().out
    assert out.startswith("NOT YET: the kernel crashed"), out
    assert "bounds guard" in out
