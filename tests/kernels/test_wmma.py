"""The warp matrix functions (mma.h: nvcuda::wmma, the tensor cores) against NumPy: every shape
and type of compute capability 8.0 to 9.0 in floating point and 8-bit integers, every layout, leading dimensions
wider than the matrix, where each element of a fragment lives, and the shapes and types the API
refuses.

The kernels (bench/wmma_kernels.cu) run on whichever backend helpers.backend chose, with
no_extern_c (nvcc refuses mma.h inside PyCUDA's extern "C" block): on the H200 the same tests hold
the GPU's tensor cores to the same model, within the bound their order of accumulation allows
(bench/wmma_cases.py). What is the simulator's own (its order of addition, its runtime errors
and its compile messages) is skipped on PyCUDA.
"""

import textwrap
from pathlib import Path

import numpy as np
import pytest

from bench import wmma_cases as cases
from helpers.backend import BACKEND, SourceModule, drv
from helpers.ch13.numbers import to_tf32

SOURCE = Path(__file__).resolve().parents[2] / "bench" / "wmma_kernels.cu"
simulator_only = pytest.mark.skipif(BACKEND != "simulator", reason="the simulator's own behaviour")


@pytest.fixture(scope="module")
def module():
    return SourceModule(SOURCE.read_text(), no_extern_c=True)


def _within(case, layouts, module, seed=1, round_tf32=0):
    D, exact, bound = cases.run(module, drv, case, layouts, seed, round_tf32)
    assert np.all(np.abs(D - exact) <= bound), (case, layouts, np.abs(D - exact).max())
    return D, exact


def test_a_16x16x16_product_of_halves_is_numpys_on_the_rounded_inputs(module):
    case = cases.Case("half", (16, 16, 16), "float")
    D, exact = _within(case, 0, module)
    _, (A, B, C) = cases.draw(case, 0, 1)
    assert np.abs(D - C).min() > 0 and np.abs(A @ B).max() > 1   # the product was added to c


@simulator_only
def test_the_simulator_adds_in_fp32_k_in_order(module):
    case = cases.Case("half", (16, 16, 16), "float")
    D, _, _ = cases.run(module, drv, case, 0, 2)
    _, (A, B, C) = cases.draw(case, 0, 2)
    want = C.astype(np.float32)
    for k in range(16):
        want = want + (A[:, k:k + 1] * B[k:k + 1, :]).astype(np.float32)  # each product exact
    assert np.array_equal(D, want.astype(np.float64))


@pytest.mark.parametrize("case", cases.CASES, ids=lambda c: c.kernel)
def test_every_shape_and_type_in_every_layout_with_wide_leading_dimensions(module, case):
    for layouts in cases.LAYOUTS:
        _within(case, layouts, module, seed=layouts)


def test_tf32_inputs_are_read_to_ten_bits_rounded_or_not(module):
    case = cases.Case("tf32", (16, 16, 8), "float")
    rounded, exact_rounded = _within(case, 0, module, round_tf32=1)
    dropped, exact_dropped = _within(case, 0, module, round_tf32=0)
    assert not np.allclose(exact_rounded, exact_dropped, rtol=0, atol=1e-5)  # the two differ


def test_float_to_tf32_rounds_to_nearest_ties_away_from_zero(module):
    step = 2.0**-10
    x = np.array([1 + step / 2, 1 + 1.5 * step, -(1 + step / 2), 1 + step / 2 - 2.0**-23, 1.0, 0.0,
                  -0.0, np.inf, -np.inf, np.nan, 3.4e38, 1e-40, 1 + 3 * step / 4], np.float32)
    y = np.zeros_like(x)
    module.get_function("to_tf32")(drv.In(x), drv.Out(y), np.int32(len(x)), block=(32, 1, 1))
    assert np.array_equal(y[:9], [1 + step, 1 + 2 * step, -(1 + step), 1.0, 1.0, 0.0, -0.0, np.inf,
                                  -np.inf])
    assert np.isnan(y[9]) and y[10] == to_tf32(x[10]) and y[12] == 1 + step
    assert np.array_equal(y.view(np.uint32), to_tf32(x).view(np.uint32))


# ---- where each element lives: the H200's, from PTX's mma.m16n8k16 (m16n8k8 for tf32) pieces ---
def _h200_16bit(lane, i, shape, use):
    """(row, column) of x[i] in lane `lane`, as the H200 gave it (bench/data/h200_wmma_outputs.npz).
    PTX ISA, 'Matrix fragments for mma.m16n8k16 with floating point type': g = lane / 4,
    t = lane % 4; A and C: a0 a1 at (g, 2t, 2t+1), a2 a3 eight rows down, a4..a7 eight columns
    right; B: b0 b1 at (2t, 2t+1; g), b2 b3 eight rows down. A larger A or C is more of them in
    bands of 16 rows, one band after the other; m8n32k16 is m32n8k16 transposed (its A is
    m32n8k16's B transposed, its B m32n8k16's A, its C m32n8k16's C)."""
    m, n, k = shape
    if (m, n) == (8, 32):
        r, col = _h200_16bit(lane, i, (32, 8, 16), {"a": "b", "b": "a", "c": "c"}[use])
        return col, r
    rows, cols = {"a": (m, k), "b": (k, n), "c": (m, n)}[use]
    distinct = rows * cols // 32
    g, t, j, core = lane // 4, lane % 4, i % distinct % 2, i % distinct // 2
    if use == "b":
        return (core % (rows // 8)) * 8 + 2 * t + j, (core // (rows // 8)) * 8 + g
    down = min(rows, 16) // 8
    band, within = divmod(core, down * (cols // 8))
    return band * 16 + (within % down) * 8 + g, (within // down) * 8 + 2 * t + j


@pytest.mark.parametrize("shape", cases.SHAPES16, ids=lambda s: "x".join(map(str, s)))
def test_fragments_hold_the_elements_the_h200_gives_each_lane(module, shape):
    m, n, k = shape
    a = np.arange(m * k, dtype=np.float16)
    b = np.arange(k * n, dtype=np.float16)
    c = np.arange(m * n, dtype=np.float32)
    out = [np.zeros(32 * 16, np.float32), np.zeros(32 * 16, np.float32), np.zeros(32 * 8, np.float32)]
    module.get_function("where_%dx%dx%d" % shape)(drv.In(a), drv.In(b), drv.In(c),
                                                   *[drv.Out(o) for o in out], block=(32, 1, 1))
    for got, use, cols, count in [(out[0], "a", k, 16), (out[1], "b", n, 16), (out[2], "c", n, 8)]:
        want = [[r * cols + col for r, col in (_h200_16bit(lane, i, shape, use) for i in range(count))]
                for lane in range(32)]
        assert np.array_equal(got.reshape(32, count), want), use


def test_the_mapping_is_the_one_the_h200_stored():
    stored = np.load(Path(__file__).resolve().parents[2] / "bench" / "data" / "h200_wmma_outputs.npz")
    for m, n, k in cases.SHAPES16:
        for use, cols, count in [("a", k, 16), ("b", n, 16), ("c", n, 8)]:
            want = [[r * cols + col for r, col in (_h200_16bit(lane, i, (m, n, k), use) for i in range(count))]
                    for lane in range(32)]
            assert np.array_equal(stored[f"where_{m}x{n}x{k}_{use}"].reshape(32, count), want), (m, n, use)


def test_every_lane_holds_what_the_h200s_lane_held(module):
    """Each where_* kernel's output (which element of A, B and C each lane holds, 16-bit, 8-bit
    and tf32 inputs) and the tf32 rounding equal to the H200's, as bench/wmma_probe.py --store
    kept them."""
    from bench.wmma_probe import mappings

    stored = np.load(Path(__file__).resolve().parents[2] / "bench" / "data" / "h200_wmma_outputs.npz")
    got = mappings(module, drv)
    assert sorted(got) == sorted(k for k in stored.files if k.startswith(("where_", "to_tf32")))
    assert any(name.startswith("where_u8_") for name in got)
    for name, lanes in got.items():
        assert np.array_equal(lanes, stored[name], equal_nan=True), name


def test_tf32_fragments_hold_the_elements_ptx_mma_m16n8k8_gives_each_lane(module):
    a, b = np.arange(16 * 8, dtype=np.float32), np.arange(8 * 16, dtype=np.float32)
    oa, ob = np.zeros(32 * 4, np.float32), np.zeros(32 * 4, np.float32)
    module.get_function("where_tf32")(drv.In(a), drv.In(b), drv.Out(oa), drv.Out(ob), block=(32, 1, 1))
    g, t = np.arange(32)[:, None] // 4, np.arange(32)[:, None] % 4
    rows_a = g + 8 * np.array([0, 1, 0, 1]), t + 4 * np.array([0, 0, 1, 1])
    k_b, n_b = t + 4 * np.array([0, 1, 0, 1]), g + 8 * np.array([0, 0, 1, 1])
    assert np.array_equal(oa.reshape(32, 4), rows_a[0] * 8 + rows_a[1])
    assert np.array_equal(ob.reshape(32, 4), k_b * 16 + n_b)


# ---- what the API refuses ------------------------------------------------------------------------
REFUSED = {  # a declaration or a call: the start of the simulator's static_assert message
    "wmma::fragment<wmma::matrix_a, 16, 8, 16, half, wmma::row_major> f;": "no such shape",
    "wmma::fragment<wmma::matrix_a, 16, 16, 8, half, wmma::row_major> f;":
        "__half and __nv_bfloat16 inputs take the shapes",
    "wmma::fragment<wmma::matrix_b, 16, 16, 16, wmma::precision::tf32, wmma::col_major> f;":
        "precision::tf32 inputs take the shape 16, 16, 8",
    "wmma::fragment<wmma::matrix_a, 16, 16, 8, float, wmma::row_major> f;":
        "matrix_a and matrix_b hold __half, __nv_bfloat16 or precision::tf32",
    "wmma::fragment<wmma::accumulator, 16, 16, 16, unsigned> f;": "an accumulator holds float, __half or int",
    "wmma::fragment<wmma::accumulator, 16, 16, 8, int> f;": "__half and __nv_bfloat16 inputs take the shapes",
    ("wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> a; "
     "wmma::fragment<wmma::matrix_b, 16, 16, 16, signed char, wmma::row_major> b; "
     "wmma::fragment<wmma::accumulator, 16, 16, 16, float> c; wmma::mma_sync(c, a, b, c);"):
        "signed char and unsigned char inputs accumulate in int",
    "wmma::fragment<wmma::accumulator, 16, 16, 16, float, wmma::row_major> f;": "an accumulator takes none",
    "wmma::fragment<wmma::matrix_a, 16, 16, 16, half> f; wmma::load_matrix_sync(f, h, 16);":
        "declared without a layout cannot be loaded",
    ("wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> a; "
     "wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> b; "
     "wmma::fragment<wmma::accumulator, 16, 16, 16, half> c; wmma::mma_sync(c, a, b, c);"):
        "__nv_bfloat16 and precision::tf32 inputs accumulate in float",
    ("wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a; "
     "wmma::fragment<wmma::matrix_b, 32, 8, 16, half, wmma::row_major> b; "
     "wmma::fragment<wmma::accumulator, 16, 16, 16, float> c; wmma::mma_sync(c, a, b, c);"):
        "the four fragments must have the same shape",
    "wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> f; wmma::load_matrix_sync(f, x, 16);":
        "a fragment loads from memory of its own element type",
}


def _refused_source(body):
    return ("#include <mma.h>\nusing namespace nvcuda;\n"
            f'extern "C" __global__ void k(const half *h, const float *x) {{ {body} }}\n')


@pytest.mark.parametrize("body", list(REFUSED), ids=range(len(REFUSED)))
def test_shapes_and_types_the_api_does_not_allow_do_not_compile(body):
    with pytest.raises(drv.CompileError) as info:
        SourceModule(_refused_source(body), no_extern_c=True)
    if BACKEND == "simulator":
        first = str(info.value).splitlines()[1]
        assert first.startswith("kernel.cu:3: error: static assertion failed: wmma::"), first
        assert REFUSED[body] in first


RUNTIME = r"""
#include <mma.h>
using namespace nvcuda;
extern "C" __global__ void product(const half *a, const half *b, float *d, int ld) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
    wmma::fill_fragment(fc, 0.0f);
    wmma::load_matrix_sync(fa, a, ld);
    wmma::load_matrix_sync(fb, b, 16);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(d, fc, 16, wmma::mem_row_major);
}
"""


@simulator_only
@pytest.mark.parametrize("threads, ld, line, says", [
    (16, 16, 9, "needs all 32 lanes of a warp, and this block's last warp has 16 threads"),
    (32, 12, 9, "the leading dimension 12 is not a multiple of 16 bytes")])
def test_a_partial_warp_and_a_leading_dimension_ptx_forbids_stop_the_launch(threads, ld, line, says):
    module = SourceModule(RUNTIME, no_extern_c=True)
    a = np.ones(16 * 16, np.float16)
    with pytest.raises(drv.LaunchError) as info:
        module.get_function("product")(drv.In(a), drv.In(a), drv.Out(np.zeros(256, np.float32)),
                                       np.int32(ld), block=(threads, 1, 1))
    assert info.value.line == f"kernel.cu:{line}" and info.value.kind == "warp matrix"
    assert says in str(info.value)


OFFSET = r"""
#include <mma.h>
using namespace nvcuda;
extern "C" __global__ void offset(const half *a, float *d, int at) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
    wmma::fill_fragment(fc, 0.0f);
    wmma::load_matrix_sync(fa, a + at, 16);
    wmma::load_matrix_sync(fb, a, 16);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(d, fc, 16, wmma::mem_row_major);
}
"""


@pytest.mark.parametrize("at", [2, 4, 8])
def test_a_tile_at_an_even_element_loads_as_on_an_h100(at):
    """An H100 ran these (CUDA asks for 256 bits; it refused only an odd element, below)."""
    a = np.random.default_rng(at).uniform(-1, 1, 16 * 16 + at).astype(np.float16)
    d = np.zeros(256, np.float32)
    SourceModule(OFFSET, no_extern_c=True).get_function("offset")(
        drv.In(a), drv.Out(d), np.int32(at), block=(32, 1, 1))
    want = a[at:at + 256].astype(np.float32).reshape(16, 16) @ a[:256].astype(np.float32).reshape(16, 16).T
    assert np.allclose(d.reshape(16, 16), want, rtol=1e-2, atol=1e-2)


@simulator_only
def test_a_tile_at_an_odd_element_is_a_misaligned_address():
    """An H100 stopped the launch with "misaligned address" (and its context with it)."""
    a = np.zeros(16 * 16 + 1, np.float16)
    with pytest.raises(drv.LaunchError) as info:
        SourceModule(OFFSET, no_extern_c=True).get_function("offset")(
            drv.In(a), drv.Out(np.zeros(256, np.float32)), np.int32(1), block=(32, 1, 1))
    err = info.value
    assert err.kind == "misaligned address" and err.line == "kernel.cu:9"
    assert (err.alignment, err.misalignment, err.size, err.offset, err.space, err.is_write) == (
        4, 2, 2, 2, "global", False)
    assert err.allocation[1] == a.nbytes and err.thread == (0, 0, 0)


# the product of a shared tile's two halves, in the kernels of the race check's tests below
PRODUCT = """\
    wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 8, float> fc;
    wmma::fill_fragment(fc, 0.0f);
    wmma::load_matrix_sync(fa, tile, 8);
    wmma::load_matrix_sync(fb, tile + 128, 8);
    wmma::mma_sync(fc, fa, fb, fc);
"""

STAGED = r"""
#include <mma.h>
using namespace nvcuda;
extern "C" __global__ void staged(const float *a, float *d, int synced) {
    __shared__ float tile[256];
    for (int i = threadIdx.x; i < 256; i += blockDim.x) tile[i] = a[i];  // both warps stage it
    if (synced) __syncthreads();
    if (threadIdx.x < 32) {
{product}        wmma::store_matrix_sync(d, fc, 16, wmma::mem_row_major);
    }
}
""".replace("{product}", textwrap.indent(PRODUCT, "    "))


@simulator_only
def test_the_race_check_sees_a_fragment_loaded_before_the_barrier():
    from helpers.sim.settings import settings

    module = SourceModule(STAGED, no_extern_c=True)
    a, d = np.ones(256, np.float32), np.zeros(256, np.float32)
    with settings.changed(racecheck=True):
        module.get_function("staged")(drv.In(a), drv.Out(d), np.int32(1), block=(64, 1, 1))
        assert np.all(d == 8)
        with pytest.raises(drv.LaunchError) as info:
            module.get_function("staged")(drv.In(a), drv.Out(d), np.int32(0), block=(64, 1, 1))
    race = info.value
    assert race.kind == "race" and race.array == "tile" and race.space == "shared"
    assert "kernel.cu:13" in (race.first.line, race.second.line)  # load_matrix_sync's line


ONE_WARP = r"""
#include <mma.h>
using namespace nvcuda;
extern "C" __global__ void one_warp(const float *a, float *d, int synced) {
    __shared__ float tile[256];
    __shared__ float out[256];
    for (int i = threadIdx.x; i < 256; i += 32) tile[i] = a[i];   // the warp stages the tiles
    if (synced) __syncwarp();
{product}    wmma::store_matrix_sync(out, fc, 16, wmma::mem_row_major);
    if (synced) __syncwarp();
    for (int i = threadIdx.x; i < 256; i += 32) d[i] = out[255 - i];  // others' elements
}
""".replace("{product}", PRODUCT)


@simulator_only
@pytest.mark.parametrize("unsynced, lines", [(0, (7, 13)), (1, (16, 18))],
                         ids=["staged_then_loaded", "stored_then_read"])
def test_the_matrix_functions_wait_for_the_warp_but_order_no_memory(unsynced, lines):
    """CUDA promises memory ordering for __syncwarp(), not for load_matrix_sync and
    store_matrix_sync, which only wait for the warp's lanes: a lane's staged element loaded by
    another lane (line 7, then 13), or a stored fragment's element read by another lane (16, then
    18), with no __syncwarp() between, is a race."""
    from helpers.sim.settings import settings

    syncs = ONE_WARP.split("if (synced) __syncwarp();")
    source = "".join(part + ("" if i == unsynced else "__syncwarp();") for i, part in
                     enumerate(syncs[:-1])) + syncs[-1]
    a, d = np.ones(256, np.float32), np.zeros(256, np.float32)
    with settings.changed(racecheck=True):
        SourceModule(ONE_WARP, no_extern_c=True).get_function("one_warp")(
            drv.In(a), drv.Out(d), np.int32(1), block=(32, 1, 1))
        assert np.all(d == 8)
        with pytest.raises(drv.LaunchError) as info:
            SourceModule(source, no_extern_c=True).get_function("one_warp")(
                drv.In(a), drv.Out(d), np.int32(0), block=(32, 1, 1))
    race = info.value
    assert race.kind == "race" and race.space == "shared"
    assert {race.first.line, race.second.line} == {f"kernel.cu:{n}" for n in lines}

WRAP = r"""
#include <mma.h>
using namespace nvcuda;
extern "C" __global__ void wrap(const signed char *a, const signed char *b, const int *c, int *d) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, signed char, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, int> fc;
    wmma::load_matrix_sync(fa, a, 16);
    wmma::load_matrix_sync(fb, b, 16);
    wmma::load_matrix_sync(fc, c, 16, wmma::mem_row_major);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(d, fc, 16, wmma::mem_row_major);
}
"""


def test_an_int_accumulator_wraps_around_as_an_int_does():
    module = SourceModule(WRAP, no_extern_c=True)
    a = np.full(256, -128, np.int8)
    b = np.full(256, -128, np.int8)
    c = np.array([2**31 - 2**18, -2**31, 0, 7] * 64, np.int32)
    d = np.zeros(256, np.int32)
    module.get_function("wrap")(drv.In(a), drv.In(b), drv.In(c), drv.Out(d), block=(32, 1, 1))
    want = (c.astype(np.int64) + 16 * 128 * 128 + 2**31) % 2**32 - 2**31   # 16 * 2^14 = 2^18
    assert np.array_equal(d, want.astype(np.int32)) and d[0] == -2**31
