"""g++'s errors about the learner's file, read once into records (helpers/sim/compile/diagnosed.py)
that checkers read instead of the compiler's English: each kind from made-up g++ text (in its
typographic quotes and in plain ones, as a C locale writes them), and from a real compile on the
simulator, whose CompileError carries them as ``diagnostics``."""

import pytest

from helpers.sim import errors
from helpers.sim.compile import diagnosed
from helpers.sim.compile.diagnosed import Diagnostic
from helpers.sim.compile.source import INCLUDE_DIR

PRELUDE_H = "/somewhere/helpers/sim/include/cuda_sim.h"
SOURCE = """#line 1 "k.cu"
__global__ void k(const float *m, float *out, int rows, int cols)
{
    float sum = 0.0f;
    sum += m[r][col];
    sum += rows[0];
    out[0] = c < 1 ? m[0] : 0.0f;
    m[col] = sum;
}
    atomicMin(out[0], sum);
    float sq = sum ** 2;
    float re = z_re^2 - z_im^2;
"""


@pytest.mark.parametrize("said, kind, fields", [
    ("k.cu:4:16: error: invalid types ‘const float[int]’ for array subscript", diagnosed.SUBSCRIPT,
     {"types": ("const float", "int"), "expression": "m[r][col]", "operands": ("m", "r", "col"),
      "position": 2}),
    ("k.cu:5:16: error: invalid types 'int[int]' for array subscript", diagnosed.SUBSCRIPT,
     {"types": ("int", "int"), "expression": "rows[0]", "operands": ("rows", "0"), "position": 1}),
    ("k.cu:4:13: error: invalid types ‘const float*[float]’ for array subscript", diagnosed.INDEX,
     {"types": ("const float*", "float")}),
    ("k.cu:15:9: error: continue statement not within a loop", diagnosed.CONTINUE, {}),
    ("k.cu:15:9: error: break statement not within loop or switch", diagnosed.BREAK, {}),
    ("k.cu:16:24: error: ‘nrows’ was not declared in this scope; did you mean ‘rows’?",
     diagnosed.UNDECLARED, {"names": ("nrows", "rows")}),
    ("k.cu:16:24: error: 'True' was not declared in this scope", diagnosed.UNDECLARED,
     {"names": ("True",)}),
    ("k.cu:10:51: error: ‘struct uint3’ has no member named ‘X’", diagnosed.NO_MEMBER,
     {"types": ("uint3",), "names": ("X",)}),
    ("k.cu:13:14: error: cannot convert ‘float*’ to ‘int*’ in initialization",
     diagnosed.CONVERSION, {"types": ("float*", "int*")}),
    ("k.cu:13:16: error: invalid conversion from 'const float*' to 'float*' [-fpermissive]",
     diagnosed.CONVERSION, {"types": ("const float*", "float*")}),
    ("k.cu:6:20: error: operands to ‘?:’ have different types ‘const pair’ and ‘float’",
     diagnosed.CONDITIONAL, {"types": ("const pair", "float"),
                             "expression": "c < 1 ? m[0] : 0.0f",
                             "operands": ("c < 1", "m[0]", "0.0f")}),
    ("k.cu:23:42: error: operands to ‘?:’ have different types ‘const half’ {aka ‘const __half’} "
     "and ‘float’", diagnosed.CONDITIONAL, {"types": ("const half", "float")}),
    ("k.cu:7:12: error: assignment of read-only location ‘*(m + ((sizetype)col))’",
     diagnosed.READ_ONLY, {"expression": "m[col]", "names": ("m",)}),
    ("k.cu:16:16: error: return-statement with a value, in function returning ‘void’ "
     "[-fpermissive]", diagnosed.VOID_RETURN, {}),
    ("k.cu:14:5: error: expected ‘,’ or ‘;’ before ‘for’", diagnosed.EXPECTED,
     {"names": (",", ";", "for")}),
    ("k.cu:13:27: error: conflicting declaration ‘int sum’", diagnosed.REDECLARED,
     {"names": ("sum",), "types": ("int",)}),
    ("k.cu:9:14: error: no matching function for call to ‘atomicMin(float&, float&)’",
     diagnosed.NO_MATCH, {"names": ("atomicMin",), "types": ("float&", "float&"),
                          "expression": "atomicMin(out[0], sum)", "operands": ("out[0]", "sum")}),
    ("k.cu:10:21: error: invalid type argument of unary ‘*’ (have ‘int’)", diagnosed.POWER,
     {"types": ("int",), "expression": "sum ** 2", "names": ("**",), "operands": ("sum", "2")}),
    ("k.cu:11:20: error: invalid operands of types ‘float’ and ‘float’ to binary ‘operator^’",
     diagnosed.POWER, {"types": ("float",), "expression": "z_re^2", "names": ("^",),
                       "operands": ("z_re", "2")}),
    ("k.cu:4:5: error: invalid type argument of unary ‘*’ (have ‘float’)", diagnosed.OTHER, {}),
    ("k.cu:3:1: error: #error not CUDA", diagnosed.OTHER, {}),
])
def test_each_kind_is_read_from_the_compilers_words(said, kind, fields):
    found = diagnosed.diagnostics(f"k.cu: In function ‘void k()’:\n{said}\n", SOURCE)
    assert len(found) == 1 and found[0].kind == kind, found
    file, line, column = said.split(":")[:3]
    assert (found[0].file, found[0].line, found[0].column) == (file, int(line), int(column))
    for field, value in fields.items():
        assert getattr(found[0], field) == value, found[0]


def test_only_errors_in_the_learners_file_are_read_in_order():
    said = (f"{PRELUDE_H}:40:5: error: something in the prelude\n"
            "k.cu:15:9: error: continue statement not within a loop\n"
            "k.cu:15:9: note: a note\n"
            "k.cu:16:2: warning: a warning\n"
            "k.cu:17:3: error: break statement not within loop or switch\n")
    assert [d.kind for d in diagnosed.diagnostics(said)] == [diagnosed.CONTINUE, diagnosed.BREAK]
    assert diagnosed.diagnostics("") == ()


def test_a_column_is_counted_with_tabs_as_g_plus_plus_shows_them():
    source = '#line 1 "t.cu"\n\tx = m[r][c];\n'
    found = diagnosed.diagnostics("t.cu:1:17: error: invalid types ‘float[int]’ for array "
                                  "subscript\n", source)
    assert (found[0].expression, found[0].position) == ("m[r][c]", 2), found


MMA_H = f"{INCLUDE_DIR}/mma.h"
FRAGMENTS = """#line 1 "t.cu"
    wmma::fragment<wmma::matrix_a, 16, 16, 16, float, wmma::row_major> fa;
    wmma::load_matrix_sync(fa, A, 16);
"""


def test_a_static_assert_of_a_header_is_read_at_the_learners_line():
    """mma.h refuses a fragment, then its load: each record at the learner's line that set it
    off, with the template and its arguments (namespaces and the simulator's own left out)."""
    said = (f"In file included from t.cu:6:\n{MMA_H}: In instantiation of ‘class nvcuda::wmma::"
            "fragment<nvcuda::wmma::matrix_a, 16, 16, 16, float, nvcuda::wmma::row_major>’:\n"
            "t.cu:1:72:   required from here\n"
            f"{MMA_H}:199:83: error: static assertion failed: wmma::fragment: ...\n"
            f"{MMA_H}:199:83: note: ‘...’ evaluates to false\n"
            f"{MMA_H}: In instantiation of ‘void nvcuda::wmma::load_matrix_sync(_F&, const _T*, "
            "unsigned int, __sim::caller) [with _F = fragment<matrix_a, 16, 16, 16, float, "
            "row_major>; _T = __half; __sim::caller = __sim_caller]’:\n"
            "t.cu:2:27:   required from here\n"
            f"{MMA_H}:273:26: error: static assertion failed: wmma::load_matrix_sync: ...\n"
            f"{MMA_H}:40:5: error: something else in the header\n")
    found = diagnosed.diagnostics(said, FRAGMENTS)
    assert found == (
        Diagnostic("t.cu", 1, 72, diagnosed.REFUSED, ("fragment",),
                   ("matrix_a", "16", "16", "16", "float", "row_major"), "fa"),
        Diagnostic("t.cu", 2, 27, diagnosed.REFUSED, ("load_matrix_sync",),
                   ("fragment<matrix_a, 16, 16, 16, float, row_major>", "__half"),
                   "wmma::load_matrix_sync(fa, A, 16)")), found


def test_an_error_in_a_macro_of_the_prelude_is_read_at_the_learners_line():
    """Blind audit R1, int i = threadIdx;: g++ places the conversion in the prelude's macro, and
    names the learner's line in a note; the macro's name is the record's expression."""
    said = ("t.cu: In function ‘void k(int*)’:\n"
            f"{PRELUDE_H}:107:36: error: cannot convert ‘uint3’ to ‘int’ in initialization\n"
            "  107 | #define threadIdx (__sim_thread_idx())\n"
            "t.cu:3:13: note: in expansion of macro ‘threadIdx’\n"
            f"{PRELUDE_H}:40:5: error: something else in the prelude\n"
            "t.cu:9:5: note: in expansion of macro ‘blockIdx’\n")
    source = '#line 1 "t.cu"\n{\n\n    int i = threadIdx;\n'
    assert diagnosed.diagnostics(said, source) == (
        Diagnostic("t.cu", 3, 13, diagnosed.CONVERSION, types=("uint3", "int"),
                   expression="threadIdx"),
        Diagnostic("t.cu", 9, 5, diagnosed.OTHER, expression="blockIdx"))


MISTAKES = """#line 1 "mistakes.cu"
__global__ void subscript(const float *m, float *out, int cols)
{
    int r = threadIdx.x, col = blockIdx.x;
    out[0] = m[r][col];
}
__global__ void skip(const unsigned short *depth, unsigned int *range)
{
    if (depth[threadIdx.x] == 0)
        continue;
}
__global__ void undeclared(float *out)
{
    out[0] = nrows;
}
__global__ void conversion(float *out)
{
    int *p = out;
}
struct pair { float a, b; };
__global__ void conditional(const pair *x, pair *out, int n)
{
    out[0] = n > 0 ? x[0] : 0.0f;
}
"""


def test_a_real_compile_carries_its_records():
    from helpers.sim.compiler import SourceModule

    with pytest.raises(errors.CompileError) as err:
        SourceModule(MISTAKES)
    found = err.value.diagnostics
    assert [(d.line, d.kind) for d in found] == [
        (4, diagnosed.SUBSCRIPT), (9, diagnosed.CONTINUE), (13, diagnosed.UNDECLARED),
        (17, diagnosed.CONVERSION), (22, diagnosed.CONDITIONAL)], found
    assert found[0] == Diagnostic("mistakes.cu", 4, 18, diagnosed.SUBSCRIPT, (),
                                  ("const float", "int"), "m[r][col]", ("m", "r", "col"), 2)
    assert found[2].names == ("nrows",) and found[3].types == ("float*", "int*"), found
    assert found[4].types == ("const pair", "float"), found
    assert found[4].operands == ("n > 0", "x[0]", "0.0f"), found


def test_an_error_with_its_own_fields_has_no_records():
    from helpers.sim.compiler import SourceModule

    with pytest.raises(errors.NotSimulatedError) as err:
        SourceModule("__global__ void k(float *x) { x[0] = tex2D(x, 0, 0); }")
    assert err.value.diagnostics == ()
