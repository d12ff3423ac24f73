"""gray_coalesced (helpers.exercises.gray_coalesced) with only row 0 of gray written, every
thread's y 0: told apart by who stored into row 0 on the simulator. The row from the column,
y = x / width (every thread stores, height of them a pixel), or grayscale.cu's 2-D index kept on
the flat grid, and the right split guarded by width alone (the threads t < width store once each,
the others return)."""

import re

import pytest

from kernel_sources import assert_mistake_named, compile_variant_pairs, solution, variant

from helpers.exercises import gray_coalesced as checker

KERNEL = solution("gray_coalesced.cu")
X, Y = "int x = t % width;", "int y = t / width;"

# name: (replacements in the solution, words the NOT YET line must contain)
WRONG = {
    # blind audit R2-14: the row from the column, y = x / width, always 0 (was 'the last 6 rows
    # of the image (from y = 1) was never written: the bounds guard returns too early ...')
    "y_from_the_column": ([(Y, "int y = x / width;")],
                          ["only row 0 of gray was written, the 6 rows below never",
                           "written by 7 threads", "Hint: the row comes from t, not from the "
                           "column: x = t % width, y = t / width"]),
    # blind audit AS (was '... y came out 0 for every t (as x / width does ...), and each pixel of
    # row 0 was written by 7 threads ...', each written once): grayscale.cu's 2-D index kept on
    # the flat grid, y from blockIdx.y and threadIdx.y (0 there) and the guard x >= width
    "grid2d_index_carried": ([("int t = blockIdx.x * blockDim.x + threadIdx.x;",
                               "int x = blockIdx.x * blockDim.x + threadIdx.x;\n"
                               "    int y = blockIdx.y * blockDim.y + threadIdx.y;"),
                              ("t >= width * height", "x >= width || y >= height"), (X, ""),
                              (Y, "")],
                             ["only row 0 of gray was written, the 6 rows below never",
                              "each pixel of row 0 by one thread (t = 0 to 44), and every thread "
                              "from t = 45 on returned without storing",
                              "y = blockIdx.y * blockDim.y + threadIdx.y is 0 on this flat grid",
                              "the guard x >= width returned every thread past the first row",
                              "Hint: on a flat grid take x and y from t = blockIdx.x * "
                              "blockDim.x + threadIdx.x: x = t % width, y = t / width"]),
    # the same pixels from the right split guarded by the row's length alone, t >= width
    "guard_on_width_only": ([("t >= width * height", "t >= width")],
                            ["only row 0 of gray was written, the 6 rows below never",
                             "every thread from t = 45 on returned without storing",
                             "return when t >= width * height"]),
}
HELPER = re.compile(r"\bbt601_gray\b")


@pytest.fixture(scope="module")
def kernels():
    return compile_variant_pairs("gray_coalesced", {
        name: HELPER.sub(f"bt601_gray__{name}", variant(KERNEL, *r))
        for name, (r, _) in WRONG.items()})


@pytest.mark.parametrize("name", sorted(WRONG))
def test_only_row_0_written_is_named_by_who_stored_it(name, kernels, capsys):
    verdict = checker.check_gray_coalesced_kernel(*kernels[name])
    assert_mistake_named(verdict, capsys.readouterr().out, name, WRONG[name][1])
