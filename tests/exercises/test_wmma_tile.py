"""The wmma_tile checker (helpers.exercises.wmma_tile) of notebook 13: the solution and two
unusual right kernels pass, the stub fails, and each usual mistake with the warp-level matrix API
fails with the hint written for it. The variants are compiled as one module (no_extern_c: mma.h
is C++), and, on PyCUDA, once more on the simulator, whose twin's text the checker reads (the
order of the wmma calls)."""

import pytest

from kernel_sources import (STABLE, assert_mistake_named, assert_refused_and_named,
                            compile_variant_pairs, simulator_only, solution, stable_file, variant)

from helpers.backend import BACKEND
from helpers.exercises import wmma_tile as checker

KERNEL = solution("wmma_tile.cu")
B_COL = "wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;"
RIGHT = {
    # a separate output fragment d = a b + c
    "separate_d": variant(KERNEL, ("    wmma::mma_sync(fc, fa, fb, fc);\n    wmma::store_matrix_sync(C, fc,",
                                   "    wmma::fragment<wmma::accumulator, 16, 16, 16, float> fd;\n"
                                   "    wmma::mma_sync(fd, fa, fb, fc);\n    wmma::store_matrix_sync(C, fd,")),
    # C^T = B^T A^T: B's memory read as a row-major B^T, A's as a column-major A^T, C stored by columns
    "transposed": variant(KERNEL, (
        "wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;",
        "wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa; // B^T"),
        (B_COL, "wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb; // A^T"),
        ("wmma::load_matrix_sync(fa, A, 16);", "wmma::load_matrix_sync(fa, B, 16);"),
        ("wmma::load_matrix_sync(fb, B, 16);", "wmma::load_matrix_sync(fb, A, 16);"),
        ("wmma::mem_row_major", "wmma::mem_col_major")),
}
WRONG = [
    ("accumulator_never_set", variant(KERNEL, ("    wmma::fill_fragment(fc, 0.0f);\n", "")),
     ["the accumulator started with what its registers held", "fill_fragment(c, 0.0f)"]),
    # blind audit TIB-wmma_tile-1: the store before the multiply (was 'C is all zeros: no product
    # reached the fragment that was stored (mma_sync never called, ...)', causes not this one)
    ("stored_before_mma", variant(KERNEL, ("    wmma::mma_sync(fc, fa, fb, fc);\n    wmma::store_matrix_sync(C, fc, 16, wmma::mem_row_major);",
                                           "    wmma::store_matrix_sync(C, fc, 16, wmma::mem_row_major);\n    wmma::mma_sync(fc, fa, fb, fc);")),
     ["C is all zeros: store_matrix_sync comes before mma_sync", "stored fc while it still held "
      "the 0s of fill_fragment", "Hint: mma_sync first, then store_matrix_sync"]),
    # blind audit TXB-wmma_tile-1: mma_sync before B's load (was 'the accumulator started with
    # what its registers held ... Hint: ... fill_fragment(c, 0.0f)', but fc is filled)
    ("mma_before_b_is_loaded", variant(KERNEL, ("    wmma::load_matrix_sync(fb, B, 16);\n    wmma::mma_sync(fc, fa, fb, fc);\n",
                                                "    wmma::mma_sync(fc, fa, fb, fc);\n    wmma::load_matrix_sync(fb, B, 16);\n")),
     ["mma_sync comes before load_matrix_sync(fb, B, 16) in the kernel", "so it multiplied by fb "
      "before fb held B", "Hint: load both fragments first, then mma_sync"]),
    # blind audit AI (was 'the accumulator started with what its registers held ... Hint: set it
    # to 0 before mma_sync'): fill_fragment given A's fragment, fa, not the accumulator fc
    ("filled_a_s_fragment", variant(KERNEL, ("wmma::fill_fragment(fc, 0.0f);", "wmma::fill_fragment(fa, 0.0f);")),
     ["fill_fragment(fa, 0.0f) set fa, mma_sync's a, not the accumulator fc",
      "load_matrix_sync(fa, A, 16) then overwrote it", "Hint: set the accumulator to 0 before "
      "mma_sync: wmma::fill_fragment(fc, 0.0f)"]),
    # blind audit AW (was PASS: the simulator compiled __launch_bounds__ away): a bound of 16 on
    # a kernel launched with one warp, block = (32, 1, 1), which a GPU refuses to launch
    ("launch_bounds_below_the_warp", variant(KERNEL, ('extern "C" __global__ void wmma_tile(',
                                                      'extern "C" __global__ void '
                                                      '__launch_bounds__(16) wmma_tile(')),
     ["your kernel's __launch_bounds__(16) allows at most 16 threads a block, but the exercise "
      "launches blocks of 32 threads, (32, 1, 1): a GPU refuses that launch", "Hint: "
      "__launch_bounds__(N) promises the compiler that no block has more than N threads"]),
    ("b_row_major", variant(KERNEL, (B_COL, B_COL.replace("col_major", "row_major"))),
     ["C is A B^T", "B was loaded as row_major", "wmma::col_major"]),
    ("a_col_major", variant(KERNEL, ("half, wmma::row_major> fa;", "half, wmma::col_major> fa;")),
     ["C is A^T B", "A was loaded as col_major"]),
    ("stored_by_columns", variant(KERNEL, ("wmma::mem_row_major", "wmma::mem_col_major")),
     ["C holds A B transposed", "wmma::mem_row_major"]),
    # blind audit QQ Q32: the fragments declared 32, 8, 16 (was 'the kernel crashed: ... a read of
    # A ... Hint: ... leading dimension 16 everywhere', already used): named from where C was
    # stored; the same for 8, 32, 16
    *((f"fragments_{m}_{n}_16", KERNEL.replace("16, 16, 16,", f"{m}, {n}, 16,"),
       [f"C was stored as one {m} x {n} tile", "declare the three fragments 16, 16, 16"])
      for m, n in ((32, 8), (8, 32))),
    ("a_loaded_from_b", variant(KERNEL, ("load_matrix_sync(fa, A, 16)", "load_matrix_sync(fa, B, 16)")),
     ["C is B^T B", "load_matrix_sync(fa, A, 16)"]),
    # blind audit TLB-wmma_tile-1: A and B swapped in the loads, C = B^T A^T = (A B)^T (was 'C
    # holds A B transposed: C was stored column after column', the store already mem_row_major)
    ("loads_swapped", variant(KERNEL, ("load_matrix_sync(fa, A, 16);\n    wmma::load_matrix_sync(fb, B, 16);",
                                       "load_matrix_sync(fa, B, 16);\n    wmma::load_matrix_sync(fb, A, 16);")),
     ["C holds A B transposed, though it was stored with mem_row_major", "fa, mma_sync's a, was loaded "
      "from B and fb, its b, from A", "load_matrix_sync(fa, A, 16); load_matrix_sync(fb, B, 16)"]),
    ("b_loaded_from_a", variant(KERNEL, ("load_matrix_sync(fb, B, 16)", "load_matrix_sync(fb, A, 16)")),
     ["C is A A^T", "load_matrix_sync(fb, B, 16)"]),
    ("no_mma", variant(KERNEL, ("    wmma::mma_sync(fc, fa, fb, fc);\n", "")),
     ["C is all zeros", "mma_sync"]),
    ("no_store", variant(KERNEL, ("    wmma::store_matrix_sync(C, fc, 16, wmma::mem_row_major);\n", "")),
     ["C was never written", "store_matrix_sync"]),
    # blind audit F47 (was '... mma_sync never called, or the accumulator set to 0 again'),
    # F48 (was 'C is not A B' and the leading-dimension hint)
    ("result_into_a_fourth_fragment", variant(KERNEL, ("    wmma::mma_sync(fc, fa, fb, fc);\n",
                                                        "    wmma::fragment<wmma::accumulator, 16, 16, 16, float> fd;\n"
                                                        "    wmma::mma_sync(fd, fa, fb, fc);\n")),
     ["C is all zeros", "its result put into another fragment than the one stored",
      "of the fragment mma_sync wrote, its first argument"]),
    ("mma_sync_16_times", variant(KERNEL, ("    wmma::mma_sync(fc, fa, fb, fc);\n",
                                           "    for (int k = 0; k < 16; k++)\n        wmma::mma_sync(fc, fa, fb, fc);\n")),
     ["C is exactly 16 times A B", "mma_sync ran 16 times", "mma_sync(c, a, b, c) once"]),
    ("twice", variant(KERNEL, ("    wmma::mma_sync(fc, fa, fb, fc);\n",
                               "    wmma::mma_sync(fc, fa, fb, fc);\n    wmma::mma_sync(fc, fa, fb, fc);\n")),
     ["C is twice A B"]),
    ("leading_dimension_8", variant(KERNEL, ("wmma::load_matrix_sync(fb, B, 16);",
                                             "wmma::load_matrix_sync(fb, B, 8);")),
     ["C is not A B", "leading dimension is 16"]),
    ("a_leading_dimension_32", variant(KERNEL, ("load_matrix_sync(fa, A, 16)", "load_matrix_sync(fa, A, 32)")),
     ["A was loaded with a leading dimension of 32", "load_matrix_sync(fa, A, 16)"]),
    # blind audit W16: A's ld given as the tile's element count; only row 0 lies inside A, so the
    # reads tell 241 from 256 no more (the verdict said 241 as if exact)
    ("a_leading_dimension_256", variant(KERNEL, ("load_matrix_sync(fa, A, 16)", "load_matrix_sync(fa, A, 256)")),
     ["A was loaded with a leading dimension of 241 or more", "all but the first past the end",
      "load_matrix_sync(fa, A, 16)"]),
    # blind audit TDB-wmma_tile-1: C's ld given in bytes, 16 floats * 4 (was 'elements past C's
    # 256 were written', the ld not named)
    ("c_leading_dimension_64", variant(KERNEL, ("store_matrix_sync(C, fc, 16,", "store_matrix_sync(C, fc, 64,")),
     ["C was stored with a leading dimension of 64: its rows went 64 elements apart",
      "rows 4 to 15 past its end", "16 floats in bytes",
      "store_matrix_sync(C, c, 16, wmma::mem_row_major)"]),
    ("c_leading_dimension_8", variant(KERNEL, ("store_matrix_sync(C, fc, 16,", "store_matrix_sync(C, fc, 8,")),
     ["C was stored with a leading dimension of 8", "C[136] to C[255] were never written",
      "store_matrix_sync(C, c, 16, wmma::mem_row_major)"]),
    ("filled_with_1", variant(KERNEL, ("fill_fragment(fc, 0.0f)", "fill_fragment(fc, 1.0f)")),
     ["C is A B + 1 everywhere", "filled with 1, not 0", "fill_fragment(c, 0.0f)"]),
    ("lane_0_only", variant(KERNEL, ("    wmma::fill_fragment(fc, 0.0f);\n",
                                     "    if (threadIdx.x != 0) return;\n    wmma::fill_fragment(fc, 0.0f);\n")),
     ["the wmma calls are warp-wide", "all 32 lanes", "no if on threadIdx.x"]),
    ("b_row_major_stored_by_columns", variant(
        KERNEL, (B_COL, B_COL.replace("col_major", "row_major")), ("wmma::mem_row_major", "wmma::mem_col_major")),
     ["C holds A B^T transposed", "B was loaded as row_major", "C stored column after column"]),
    ("filled_after_mma", variant(KERNEL, ("    wmma::mma_sync(fc, fa, fb, fc);\n",
                                          "    wmma::mma_sync(fc, fa, fb, fc);\n    wmma::fill_fragment(fc, 0.0f);\n")),
     ["C is all zeros", "set to 0 again after it", "a fill_fragment after it throws the product away"]),
    # audit 2: got 'C was never written' (C + A B was NaN, the poison, in both launches)
    ("accumulator_loaded_from_c", variant(KERNEL, ("    wmma::fill_fragment(fc, 0.0f);\n",
                                                   "    wmma::load_matrix_sync(fc, C, 16, wmma::mem_row_major);\n")),
     ["the accumulator was loaded from C's old contents", "wmma::fill_fragment(c, 0.0f)"]),
    # each lane its own pointer to store_matrix_sync (was 'the kernel crashed: ... a write of C
    # ... past the end of its 1280 bytes', and 'elements past C's 256 were written' for C + lane)
    ("stored_at_c_plus_8_lane", variant(KERNEL, ("store_matrix_sync(C, fc,", "store_matrix_sync(C + threadIdx.x * 8, fc,")),
     ["from a pointer of its own, C + 8 * lane", "124 of them past C's 256",
      "every lane passes the same pointer", "store_matrix_sync(C, c, 16, wmma::mem_row_major)"]),
    ("stored_at_c_plus_lane", variant(KERNEL, ("store_matrix_sync(C, fc,", "store_matrix_sync(C + threadIdx.x % 32, fc,")),
     ["from a pointer of its own, C + lane:", "store_matrix_sync is a warp-wide call"]),
    # blind audit H32 (was 'the kernel crashed: ... a read of A ... 1 byte past the end of its
    # 512 bytes' and the leading-dimension hint)
    ("loaded_at_a_plus_lane", variant(KERNEL, ("load_matrix_sync(fa, A, 16)", "load_matrix_sync(fa, A + threadIdx.x, 16)")),
     ["load_matrix_sync at ", "was given a pointer that differs between lanes (lane 0: A, lane 1: A + 1)",
      "load_matrix_sync is a warp-wide call", "load_matrix_sync(fa, A, 16)"]),
    # blind audit AH (was 'C is not A B (C[3][15] = -6.658, expected 13.19) ... Hint: the leading
    # dimension is 16 ...'): store_matrix_sync replaced by a store of fc.x[e] by hand, lane l's
    # elements at C[8 l + e], as if a fragment's element-to-lane mapping were row order
    ("stored_by_hand_from_fragment_x", variant(KERNEL, (
        "    wmma::store_matrix_sync(C, fc, 16, wmma::mem_row_major);\n",
        "    for (int e = 0; e < fc.num_elements; e++)\n"
        "        C[threadIdx.x * fc.num_elements + e] = fc.x[e];\n")),
     ["C holds A B's 256 values, but in other places", "writes the accumulator's elements fc.x[e] "
      "itself", "store_matrix_sync(C, fc, 16, wmma::mem_row_major)"]),
]


# The simulator only: an accumulator never set holds what its registers held, which on a GPU may
# be the same in both launches (0, even); on the simulator a local never set holds 0xFE bytes. A
# read past A, and wmma calls with lanes missing, are undefined on a GPU.
SIMULATOR_ONLY = {"accumulator_never_set": "a GPU's registers may hold the same in both launches",
                  "filled_a_s_fragment": "a GPU's registers may hold the same in both launches",
                  "a_leading_dimension_32": "reads past the end of A",
                  "fragments_32_8_16": "reads past the end of A",
                  "fragments_8_32_16": "reads past the end of B",
                  "a_leading_dimension_256": "reads past the end of A",
                  "lane_0_only": "calls the warp matrix functions with lanes missing",
                  "stored_at_c_plus_8_lane": "store_matrix_sync given a pointer that differs "
                                             "between lanes",
                  "stored_at_c_plus_lane": "store_matrix_sync given a pointer that differs between "
                                           "lanes",
                  "loaded_at_a_plus_lane": "load_matrix_sync given a pointer that differs between "
                                           "lanes"}


@pytest.fixture(scope="module")
def kernels():
    sources = {"solution": KERNEL, **RIGHT, **{name: source for name, source, _ in WRONG}}
    return compile_variant_pairs("wmma_tile", sources, no_extern_c=True)


@pytest.mark.parametrize("name", ["solution", *RIGHT])
def test_right_kernels_pass(name, kernels, capsys):
    verdict = checker.check_wmma_tile_kernel(*kernels[name])
    out = capsys.readouterr().out
    assert verdict.passed is True, out


def test_the_stub_as_shipped_is_not_yet(capsys):
    verdict = checker.check_wmma_tile()
    out = capsys.readouterr().out
    assert not verdict and out.startswith("NOT YET:") and "C was never written" in out, out


@pytest.mark.parametrize("name, source, expected", simulator_only(WRONG, SIMULATOR_ONLY))
def test_known_mistake_fails_with_its_hint(name, source, expected, kernels, capsys):
    verdict = checker.check_wmma_tile_kernel(*kernels[name])
    out = capsys.readouterr().out
    assert_mistake_named(verdict, out, name, expected)
    assert out.count("NOT YET:") == 1, out


# Mistakes the compiler refuses (mma.h's static_assert on the simulator; nvcc: incomplete type is
# not allowed), each named from the simulator's record of it (on a GPU, the same file compiled on
# the simulator): blind audit I33, the input fragments declared float like the accumulator (was
# g++'s whole template error and 'does not compile. Hint: read the compiler's first error ...')
FLOAT_A = ("wmma::matrix_a, 16, 16, 16, half,", "wmma::matrix_a, 16, 16, 16, float,")
FLOAT_B = ("wmma::matrix_b, 16, 16, 16, half,", "wmma::matrix_b, 16, 16, 16, float,")
DOES_NOT_COMPILE = {
    "inputs_declared_float": ([FLOAT_A, FLOAT_B], [
        "line 11 declares fa, a matrix_a fragment, and line 12 fb, a matrix_b fragment, of float",
        "matrix_a and matrix_b fragments hold the tensor cores' 16-bit inputs, half, as A and B "
        "are; only the accumulator holds float"], [
        "declare them half: wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa; "
        "and wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;"], ""),
    # blind audit TOB-wmma_tile-1 (was "... does not compile. Hint: read the compiler's first
    # error: it names the file and line"): the inputs declared float, the fragments half
    "input_pointers_declared_float": ([("const half *A, const half *B", "const float *A, const float *B")], [
        "line 15's wmma::load_matrix_sync(fa, A, 16) loads fa, a matrix_a fragment of half, from A, "
        "a float pointer, and line 16's wmma::load_matrix_sync(fb, B, 16) loads fb, a matrix_b "
        "fragment of half, from B, a float pointer: load_matrix_sync loads a fragment from memory "
        "of its own element type"], ["declare A and B half, as their fragments are: const half *A, "
                                     "const half *B"], ""),
    # B's fragment is right: the verdict does not name it
    "a_declared_float": ([FLOAT_A], ["line 11 declares fa, a matrix_a fragment, of float: a "
                                     "matrix_a fragment holds", "half, as A is"],
                         ["declare it half: wmma::fragment<wmma::matrix_a, 16, 16, 16, half, "
                          "wmma::row_major> fa; (the tensor cores"], "matrix_b"),
    # blind audit M16: B's fragment declared matrix_a (was g++'s template error and 'does not
    # compile. Hint: read the compiler's first error ...'); mma_sync's b must be a matrix_b
    "b_declared_matrix_a": ([("wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;",
                              "wmma::matrix_a, 16, 16, 16, half, wmma::col_major> fb;")],
                            ["line 17 passes fb as mma_sync's third argument, b, but line 12 declares "
                             "fb a matrix_a fragment: mma_sync(d, a, b, c) multiplies a matrix_a "
                             "fragment, a, by a matrix_b fragment, b"],
                            ["declare fb as B's fragment, a matrix_b one: wmma::fragment<wmma::"
                             "matrix_b, 16, 16, 16, half, wmma::col_major> fb;"], "fa"),
    # blind audit TSB-wmma_tile-1: A's fragment passed twice, mma_sync(fc, fa, fa, fc) (was the
    # same problem, but 'Hint: declare fa as B's fragment, a matrix_b one: ...', which breaks fa
    # as A's fragment): pass fb
    "a_passed_twice": ([("mma_sync(fc, fa, fb, fc)", "mma_sync(fc, fa, fa, fc)")],
                       ["line 17 passes fa as mma_sync's third argument, b, but line 11 declares fa "
                        "a matrix_a fragment", "fa is already its second argument, a, and fb, the "
                        "matrix_b fragment line 12 declares, is not passed"],
                       ["pass B's fragment, fb, as b: wmma::mma_sync(fc, fa, fb, fc)"], "declare fa"),
    "inputs_swapped_in_mma_sync": ([("mma_sync(fc, fa, fb, fc)", "mma_sync(fc, fb, fa, fc)")],
                                   ["line 17 passes fb, a matrix_b fragment, as a and fa, a "
                                    "matrix_a fragment, as b"],
                                   ["the matrix_a fragment goes second and the matrix_b one third: "
                                    "wmma::mma_sync(fc, fa, fb, fc) where fa holds A"], ""),
    # blind audit AB (was "... does not compile. Hint: read the compiler's first error: it names
    # the file and line", that error in mma.h): the fragments declared with section 3's TF32
    # shape, 16, 16, 8, for half inputs
    "tf32_shape_with_half_inputs": ([(f"wmma::{use}, 16, 16, 16,", f"wmma::{use}, 16, 16, 8,")
                                     for use in ("matrix_a", "matrix_b", "accumulator")],
                                    ["line 11 declares fa, a matrix_a fragment, and line 12 fb, a "
                                     "matrix_b fragment, of half in the shape 16, 16, 8",
                                     "the shape of precision::tf32 fragments", "half inputs take "
                                     "16, 16, 16 (or 32, 8, 16 and 8, 32, 16)"],
                                    ["declare them 16, 16, 16: wmma::fragment<wmma::matrix_a, 16, "
                                     "16, 16, half, wmma::row_major> fa; and wmma::fragment<wmma::"
                                     "matrix_b, 16, 16, 16, half, wmma::col_major> fb;",
                                     "the accumulator in the same shape"], ""),
    # blind audit AD (was "... does not compile. Hint: read the compiler's first error: it names
    # the file and line", a static_assert in mma.h): the accumulator declared with a layout, as
    # the inputs are
    "accumulator_given_a_layout": ([("wmma::accumulator, 16, 16, 16, float> fc;",
                                     "wmma::accumulator, 16, 16, 16, float, wmma::row_major> fc;")],
                                   ["line 13 declares fc, the accumulator fragment, with a layout, "
                                    "wmma::row_major: an accumulator fragment takes none"],
                                   ["wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;",
                                    "wmma::mem_row_major"], "fa"),
    # blind audit S16: the accumulator declared double (was g++'s template error and 'does not
    # compile. Hint: read the compiler's first error ...')
    "accumulator_declared_double": ([("wmma::accumulator, 16, 16, 16, float> fc;",
                                      "wmma::accumulator, 16, 16, 16, double> fc;")],
                                    ["line 13 declares fc, the accumulator fragment, of double",
                                     "16 x 16 x 16 multiply of 16-bit inputs has no double "
                                     "accumulator", "store_matrix_sync writes that float to C's "
                                     "float elements"],
                                    ["declare it float: wmma::fragment<wmma::accumulator, 16, 16, "
                                     "16, float> fc;"], "fa"),
    # blind audit THB-wmma_tile-1: the accumulator declared half, stored to float C (was g++'s
    # template error and 'does not compile. Hint: read the compiler's first error ...')
    "accumulator_declared_half": ([("wmma::accumulator, 16, 16, 16, float> fc;",
                                    "wmma::accumulator, 16, 16, 16, half> fc;")],
                                  ["line 18's wmma::store_matrix_sync(C, fc, 16, "
                                   "wmma::mem_row_major) stores fc, an accumulator fragment of "
                                   "half, to C, a float pointer", "fc was declared half where C's "
                                   "float belongs"],
                                  ["wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;"],
                                  "fa"),
    # blind audit TMB-wmma_tile-1: C declared half *C, the float accumulator stored to it (was
    # 'does not compile. Hint: read the compiler's first error: it names the file and line')
    "c_declared_half": ([("half *B, float *C", "half *B, half *C")],
                        ["line 18's wmma::store_matrix_sync(C, fc, 16, wmma::mem_row_major) "
                         "stores fc, an accumulator fragment of float, to C, a half pointer",
                         "C was declared half where the accumulator's float belongs"],
                        ["declare C float, as the accumulator is: float *C"], "fa"),
    # blind audit AC (was "... does not compile. Hint: read the compiler's first error: it names
    # the file and line", a static_assert in mma.h): B's load given a layout, as the store takes
    "b_load_given_a_layout": ([("load_matrix_sync(fb, B, 16);",
                                "load_matrix_sync(fb, B, 16, wmma::mem_col_major);")],
                              ["line 16 gives load_matrix_sync a layout, wmma::mem_col_major, for "
                               "fb, a matrix_b fragment", "only an accumulator's load and store "
                               "take one"], ["wmma::load_matrix_sync(fb, B, 16);"], "fa"),
    # blind audit AK (was "... does not compile. Hint: read the compiler's first error: it names
    # the file and line"): the accumulator's store left without its layout, as the loads are
    "store_without_a_layout": ([("store_matrix_sync(C, fc, 16, wmma::mem_row_major);",
                                 "store_matrix_sync(C, fc, 16);")],
                               ["line 18's store_matrix_sync(C, fc, 16) stores fc, an "
                                "accumulator fragment, without a layout", "an accumulator fragment "
                                "has none of its own"],
                               ["wmma::store_matrix_sync(C, fc, 16, wmma::mem_row_major)"], "fa"),
}


@pytest.mark.parametrize("name", sorted(DOES_NOT_COMPILE))
def test_a_mistake_the_compiler_refuses_is_named(name, capsys):
    replacements, problem, hint, absent = DOES_NOT_COMPILE[name]
    verdict = assert_refused_and_named(checker.check_wmma_tile, "wmma_tile", name, replacements, {})
    for field, words in [("problem", w) for w in problem] + [("hint", w) for w in hint]:
        assert words in getattr(verdict, field), verdict
    # (the file's folder, named in the problem, is the machine's: its hash may hold any letters)
    assert not absent or absent not in str(verdict).replace(str(STABLE), ""), verdict
    out = capsys.readouterr().out
    assert out.strip().splitlines()[-1] == str(verdict) and "\n" not in str(verdict), out


def test_no_verdict_prints_a_path_of_the_machine(capsys):
    """The simulator's mma.h refuses the fragments from its folder on this machine: what the
    check prints (g++'s output above the verdict) and the verdict's fields name it mma.h. On a
    GPU nvcc refuses them, and its first error (the verdict's error) names the learner's line,
    not the simulator's mma.h: that alone is the simulator's."""
    from pathlib import Path

    import helpers
    from helpers.sim.compile.source import INCLUDE_DIR

    verdict = assert_refused_and_named(checker.check_wmma_tile, "wmma_tile", "inputs_declared_float",
                                       [FLOAT_A, FLOAT_B], {})
    out = capsys.readouterr().out
    course = str(Path(helpers.__file__).resolve().parent.parent)
    for said in (out, verdict.problem, verdict.hint, verdict.error):
        assert str(INCLUDE_DIR) not in said and course not in said, said
    if BACKEND == "simulator":   # on a GPU the first error is nvcc's, in the learner's file
        assert verdict.error.startswith("mma.h:"), verdict


def test_on_a_gpu_the_refused_fragments_are_named_from_the_simulator(monkeypatch, capsys):
    """nvcc refuses the float fragments too (incomplete type is not allowed), with no records:
    the same file compiled on the simulator names the mistake (before any twin is built)."""
    import helpers.backend
    from helpers.backend import drv

    path = stable_file("wmma_tile_inputs_declared_float.cu", variant(KERNEL, FLOAT_A, FLOAT_B))
    nvcc_said = "kernel.cu(11): error: incomplete type is not allowed\n"

    def nvcc(name, **options):
        raise drv.CompileError("nvcc compilation of kernel.cu failed", ["nvcc"], stderr=nvcc_said)

    monkeypatch.setattr(helpers.backend, "BACKEND", "pycuda")
    monkeypatch.setattr(helpers.backend, "compile_cu", nvcc)
    verdict = checker.check_wmma_tile(path)
    assert "line 11 declares fa, a matrix_a fragment, and line 12 fb" in verdict.problem, verdict
    assert verdict.error == nvcc_said.strip(), verdict
