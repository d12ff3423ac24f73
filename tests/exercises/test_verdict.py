"""A verdict on work that does not compile keeps the compiler's first error in its ``error``
field (a notebook prints the whole output above the verdict; a grader's feedback shows the
field), read from g++'s, nvcc's and Clang's way of writing it."""

import pytest

from kernel_sources import stable_file

from helpers.exercises.scale_vector import check_scale_vector
from helpers.exercises.verdict import COMPILE_HINT, first_error, not_yet


@pytest.mark.parametrize("output, first", [
    ("simulator compilation of k.cu failed\nk.cu:14:1: error: expected unqualified-id\n"
     "k.cu:20:1: error: later", "k.cu:14:1: error: expected unqualified-id"),
    ("k.cu(14): warning: unused\nk.cu(15): error: identifier \"q\" is undefined\n",
     "k.cu(15): error: identifier \"q\" is undefined"),
    ("sepia.cl:27:1: Error: unknown type name 'not'", "sepia.cl:27:1: Error: unknown type name 'not'"),
    ("\n  ld: cannot find -lfoo\n", "ld: cannot find -lfoo"),
    ("", "")])
def test_first_error(output, first):
    assert first_error(output) == first


def test_a_verdict_that_is_not_a_compile_error_has_none():
    assert not_yet("wrong", "look").error == ""


def test_a_stub_that_does_not_compile_gives_its_first_error(capsys):
    path = stable_file("verdict_error.cu", "#error the learner's mistake\n")
    verdict = check_scale_vector(path)
    assert verdict.passed is False
    assert "error" in verdict.error and "the learner's mistake" in verdict.error, verdict
    assert verdict.error.startswith(path), verdict  # the file as the compiler named it
    assert verdict.error not in str(verdict)  # printed above the verdict, not in its line
    assert verdict.error in capsys.readouterr().out


def test_a_pass_is_rated_fast_or_says_what_keeps_it_from_fast():
    from helpers.exercises.verdict import passed, rated

    right = passed("every pixel matches")
    assert (right.level, str(right)) == ("PASS", "PASS: every pixel matches")
    fast = rated(right, None, "82% of a copy's bandwidth")
    assert (fast.level, fast.passed, fast.fast) == ("FAST", True, True)
    assert str(fast) == "FAST: every pixel matches; 82% of a copy's bandwidth"
    slow = rated(right, ("4.0 sectors a request, where FAST takes 1", "load neighbours"))
    assert (slow.level, slow.passed, slow.fast, slow.slow, slow.hint) == (
        "PASS", True, False, "4.0 sectors a request, where FAST takes 1", "load neighbours")
    assert str(slow) == ("PASS: every pixel matches; not yet FAST: 4.0 sectors a request, where "
                         "FAST takes 1. Hint: load neighbours")
    assert not_yet("wrong", "look").level == "NOT YET"


# ---- a file that does not compile: the mistake named from the simulator's records -------------
def _record(kind, **fields):
    from helpers.sim.compile.diagnosed import Diagnostic

    return Diagnostic("k.cu", 7, 5, kind, **fields)


@pytest.mark.parametrize("record, problem, hint", [
    (_record("subscript of a non-array", types=("const float", "int"), expression="m[r][col]",
             operands=("m", "r", "col"), position=2),
     "line 7 indexes m twice, m[r][col], but m is a const float *", "m[r * cols + col]"),
    (_record("subscript of a non-array", types=("int", "int"), expression="rows[0]",
             operands=("rows", "0"), position=1), "rows is an int, one value", "use rows itself"),
    (_record("continue outside a loop"), "line 7 has continue outside any loop", "return"),
    (_record("undeclared", names=("True",)), "line 7 uses True, Python's spelling", "write true"),
    (_record("undeclared", names=("nrows", "rows")), "uses nrows, which nothing declared",
     "or write rows"),
    (_record("no member", types=("uint3",), names=("X",)), "reads .X of threadIdx", "write .x"),
    (_record("no conversion", types=("const float*", "float*")), "drop the const",
     "declare it const float*"),
    (_record("mismatched types in ?:", types=("const half", "float"),
             operands=("k < K", "A[k]", "0.0f")), "gives a const half on one side, A[k]",
     "k < K ? A[k] : __float2half(0.0f)"),
    (_record("store into read-only", expression="m[col]", names=("m",)),
     "stores into m[col], but m is const", "without const"),
    (_record("value returned from a void function"), "a kernel is void", "out[i] = "),
    (_record("expected", names=(",", ";", "for")), "expected a ; before for on line 7",
     "end each statement with ;"),
    (_record("redeclared", names=("sum",), types=("int",)), "declares sum again",
     "sum = ..."),
    (_record("math argument", names=("sqrt",), types=("int",)),
     "line 7 calls sqrt(int): in device code CUDA's sqrt takes a float or a double",
     "(float)n for an int variable"),
    (_record("math argument", names=("ceil",), types=("int",)), "an integer division has "
     "already dropped its fraction", "(n + TILE - 1) / TILE"),
    (_record("math argument", names=("fmin",), types=("float", "int")),
     "CUDA's fmin takes two floats or two doubles", "1.0f for a literal"),
    (_record("math argument", names=("max",), types=("float", "int")),
     "CUDA's max has no version for a float with an int", "fmaxf(a, b) for two floats"),
    (_record("host function", names=("twice", "scale")), "line 7 calls twice, which is declared "
     "without __device__: a host function, which scale, device code, cannot call",
     "__device__ float twice(...)"),
    (_record("kernel called", names=("g", "k")), "line 7 calls the kernel g like a function",
     "a __device__ function"),
    (_record("host variable", names=("weights", "blur")), "line 7: blur reads weights, a "
     "variable declared outside any function without __device__ or __constant__",
     "__constant__ float weights[...] = {...};"),
    (_record("shared initializer", names=("sum",)), "gives the __shared__ variable sum an "
     "initializer", "if (threadIdx.x == 0) sum = ...;"),
    (_record("variable length array", names=("buf",)), "line 7 sizes the local array buf a "
     "value known only when the kernel runs", "#define N 256"),
])
def test_a_compile_error_s_record_names_the_mistake(record, problem, hint):
    from helpers.exercises.compile_errors import verdict

    said = verdict("k.cu", "k.cu:7:5: error: ...", (record,),
                   "if (col >= cols) return;")
    assert said.problem.startswith("k.cu does not compile: ") and problem in said.problem, said
    assert hint in said.hint and said.error == "k.cu:7:5: error: ...", said


FRAGMENT_A = _record("refused by a header", names=("fragment",), expression="fa",
                     types=("matrix_a", "16", "16", "16", "float", "row_major"))


@pytest.mark.parametrize("records, problem, hint", [
    ((FRAGMENT_A,), "line 7 declares fa, a matrix_a fragment, of float: a matrix_a fragment holds "
     "the tensor cores' 16-bit inputs, half, as A is; only the accumulator holds float",
     "declare it half: wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;"),
    # B's fragment too, on the next line; B loaded from __nv_bfloat16 memory (named in the record
    # of the load mma.h refused)
    ((FRAGMENT_A, _record("refused by a header", names=("fragment",), expression="fb",
                          types=("matrix_b", "16", "16", "16", "float", "col_major")),
      _record("refused by a header", names=("load_matrix_sync",),
              types=("fragment<matrix_a, 16, 16, 16, float, row_major>", "__nv_bfloat16"))),
     "line 7 declares fa, a matrix_a fragment, and line 7 fb, a matrix_b fragment, of float",
     "declare them __nv_bfloat16: wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, "
     "wmma::row_major> fa; and wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, "
     "wmma::col_major> fb;"),
    # blind audit AB: half in TF32's shape, 16, 16, 8 (was the plain verdict, in the list below)
    ((_record("refused by a header", names=("fragment",),
              types=("matrix_a", "16", "16", "8", "half", "row_major")),),
     "line 7 declares a fragment, a matrix_a fragment, of half in the shape 16, 16, 8: that is the "
     "shape of precision::tf32 fragments", "declare it 16, 16, 16: wmma::fragment<wmma::matrix_a, "
     "16, 16, 16, half, wmma::row_major>"),
])
def test_a_fragment_mma_h_refuses_is_named(records, problem, hint):
    from helpers.exercises.compile_errors import verdict

    said = verdict("k.cu", "/course/helpers/sim/include/mma.h:199:83: error: ...", records)
    assert problem in said.problem and hint in said.hint, said


def test_a_compile_error_without_a_rule_keeps_the_plain_verdict():
    from helpers.exercises.compile_errors import verdict

    others = [_record("refused by a header", names=("mma_sync",), types=("fragment<...>",)),
              # an input fragment passed where the accumulator d belongs: which was meant is not
              # the record's to say
              _record("refused by a header", names=("mma_sync",),
                      expression="wmma::mma_sync(fa, fa, fb, fc)",
                      types=("fragment<matrix_a, 16, 16, 16, __half, row_major>",
                             "fragment<matrix_a, 16, 16, 16, __half, row_major>",
                             "fragment<matrix_b, 16, 16, 16, __half, col_major>",
                             "fragment<accumulator, 16, 16, 16, float>")),
              _record("refused by a header", names=("fragment",),  # a shape CUDA lacks
                      types=("matrix_a", "16", "16", "8", "signed char", "row_major"))]
    for records in [(), (_record("other"),), (_record("expected", names=(")", "}")),),
                    *[(r,) for r in others]]:
        said = verdict("k.cu", "k.cu:7:5: error: ...", records)
        assert (said.problem, said.hint) == ("k.cu does not compile", COMPILE_HINT), said


def test_on_a_gpu_the_records_come_from_the_simulator(monkeypatch):
    """nvcc's error has no records: the same file is compiled on the simulator for them, for
    every exercise (a simulator twin or not); a file the simulator builds has none."""
    import helpers.backend
    from helpers.exercises.compile_errors import diagnosed

    path = stable_file("verdict_continue.cu", "__global__ void k(int *x)\n{\n    continue;\n}\n")
    monkeypatch.setattr(helpers.backend, "BACKEND", "pycuda")
    nvcc_said = RuntimeError("kernel.cu(3): error: a continue statement may only be used within a loop")
    found = diagnosed(nvcc_said, path, False)
    assert [(d.file, d.line, d.kind) for d in found] == [(path, 3, "continue outside a loop")]
    built = stable_file("verdict_builds.cu", "__global__ void k(int *x)\n{\n    x[0] = 1;\n}\n")
    assert diagnosed(nvcc_said, built, False) == ()


def test_on_a_gpu_a_built_in_used_whole_is_named(monkeypatch):
    """Blind audit R1: int i = threadIdx; nvcc's error has no records, and g++'s, on the
    simulator, lies in the prelude's macro threadIdx; the record is read at the learner's line."""
    import helpers.backend
    from helpers.exercises.compile_errors import diagnosed, verdict

    source = "__global__ void k(int *x)\n{\n    int i = threadIdx;\n    x[i] = 1;\n}\n"
    path = stable_file("verdict_threadidx_whole.cu", source)
    monkeypatch.setattr(helpers.backend, "BACKEND", "pycuda")
    nvcc_said = (f'{path}(3): error: no suitable conversion function from "const uint3" to "int" '
                 "exists")
    found = diagnosed(RuntimeError(nvcc_said), path, False)
    said = verdict(path, nvcc_said, found, source)
    assert said.problem.endswith("line 3 puts threadIdx, a uint3, where an int is needed: "
                                 "threadIdx is a uint3 with fields .x, .y, .z, one number for "
                                 "each dimension, and C++ turns it into no single number"), said
    assert said.hint.startswith("write threadIdx.x") and said.error.startswith(path), said


def test_a_refusal_whose_record_has_no_file_is_a_verdict_not_a_traceback():
    """a21 (audit AV): a host function declared under an asm label has no line the refusal could
    find; its record names no file, and the verdict says "your file"."""
    from helpers.exercises import compile_errors
    from helpers.sim.compile.diagnosed import HOST_FUNCTION, Diagnostic

    record = Diagnostic(None, None, None, HOST_FUNCTION, ("av_creat", "scale_vector"))
    said = compile_errors.verdict("scale_vector.cu", "", (record,))
    assert "your file calls av_creat" in said.problem
