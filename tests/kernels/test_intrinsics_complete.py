"""Every device function that CUDA 13's headers declare for compute capability 9.0 compiles and
runs on the simulator, or stands in the one list of what it leaves out
(helpers/sim/compile/not_simulated.py) and is refused with an error that names it.

The declarations are read from nvcc's own preprocessing (tests/kernels/cuda_declarations.py), so
a new CUDA that declares a new intrinsic makes this test fail until the simulator has it or the
list names it. Where no CUDA toolkit is installed the test skips, and says why. These tests are
about the simulator: they run on it whichever backend the run chose.
"""

import re

import pytest

import cuda_declarations
from helpers.sim.compile import not_simulated
from helpers.sim.compiler import SourceModule
from helpers.sim.errors import CompileError, NotSimulatedError
from kernel_sources import find_nvcc


@pytest.fixture(scope="module")
def declared(tmp_path_factory):
    nvcc = find_nvcc()
    if nvcc is None:
        pytest.skip("no CUDA toolkit: nvcc is neither on PATH nor in /usr/local/cuda/bin, and "
                    "the list of device functions is read from its headers")
    text = cuda_declarations.preprocess(nvcc, tmp_path_factory.mktemp("cuda_headers"))
    return cuda_declarations.declarations(text)


def _errors_by_call(stderr, where):
    """{function: first error} of the compiler's errors on the lines of the generated calls."""
    found = {}
    for m in re.finditer(r"^[^:\n]*:(\d+):\d+: error: (.*)$", stderr, re.M):
        d = where.get(int(m.group(1)))
        if d is not None:
            found.setdefault(f"{d.name}({', '.join(d.params)})", m.group(2))
    return found


def test_the_headers_declare_the_intrinsics_this_list_is_about(declared):
    names = {d.name for d in declared}
    for name in ("__umul64hi", "__mul64hi", "__byte_perm", "__double2ll_rn", "__funnelshift_l",
                 "__vadd2", "__fns", "__dp4a", "__shfl_sync", "atomicAdd", "sinf", "tex2D"):
        assert name in names, name
    assert len(names) > 700


def test_every_declared_function_compiles_and_runs_on_the_simulator_or_is_listed(declared):
    simulated = cuda_declarations.signatures(
        [d for d in declared if d.name not in not_simulated.FUNCTIONS and not d.template])
    source, where = cuda_declarations.calls_source(simulated)
    try:
        module = SourceModule(source, no_extern_c=True)
    except CompileError as err:
        missing = _errors_by_call(err.stderr or "", where)
        pytest.fail(f"{len(missing)} declared device functions do not compile on the simulator "
                    f"and are not in not_simulated.FEATURES: {missing or err}")
    module.get_function("call_each")(block=(32, 1, 1))  # a warp: the warp functions need one


def test_every_listed_function_is_one_the_headers_declare(declared):
    names = {d.name for d in declared}
    assert set(not_simulated.FUNCTIONS) - names == set()


def test_every_listed_function_is_refused_with_its_name_and_feature(declared):
    listed = sorted({d.name for d in declared} & set(not_simulated.FUNCTIONS))
    source, where = cuda_declarations.refusals_source(listed)
    with pytest.raises(NotSimulatedError) as refused:
        SourceModule(source)
    err = refused.value
    assert (err.function, err.line) == (listed[0], 2)
    assert err.feature == not_simulated.FUNCTIONS[listed[0]]
    assert {(f, line) for f, _, _, line in err.calls} == {(n, line) for line, n in where.items()}
