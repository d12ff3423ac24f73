"""The simulator's PyCUDA layer: its settings (device memory, compute capability), what it refuses
where PyCUDA would be silently wrong, and the `pycuda` shim that runs plain PyCUDA programs (what
it says about what it lacks: test_errors.py and test_unsupported.py). These run the simulator
whatever backend is chosen."""

import gc
import os
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest

from helpers.sim import driver as drv, gpuarray, tools
from helpers.sim.compiler import SourceModule
from helpers.sim.elementwise import ElementwiseKernel
from helpers.sim.reduction import ReductionKernel
from helpers.sim.settings import Settings, parse_bytes, settings
from helpers.sim.shim_install import SHIM_DIR

ROOT = Path(__file__).resolve().parents[2]


# ---- settings -----------------------------------------------------------------------------------
def test_memory_and_compute_capability_settings_are_read_from_the_environment():
    s = Settings.from_environ({"CUDA_SIM_MEMORY": "512M", "CUDA_SIM_COMPUTE_CAPABILITY": "8.6"})
    assert s.device_memory == 512 << 20 and s.compute_capability == (8, 6)
    assert Settings.from_environ({}).device_memory > 0
    assert Settings.from_environ({}).compute_capability == (9, 0)
    assert [parse_bytes("x", t) for t in ("4G", "4GiB", "1.5g", "1024")] == [
        4 << 30, 4 << 30, 3 << 29, 1024]
    with pytest.raises(ValueError, match="CUDA_SIM_MEMORY"):
        Settings.from_environ({"CUDA_SIM_MEMORY": "lots"})
    with pytest.raises(ValueError, match="major.minor"):
        Settings.from_environ({"CUDA_SIM_COMPUTE_CAPABILITY": "nine"})


# ---- device memory ------------------------------------------------------------------------------
@pytest.fixture
def small_device():
    """A 64 MiB device, the earlier tests' garbage collected first: an array of theirs freed in
    the middle of a test changed what it measured (on the H200 machine, under pytest-xdist)."""
    gc.collect()
    with settings.changed(device_memory="64M"):
        yield


@pytest.mark.usefixtures("small_device")
def test_allocations_are_charged_against_the_device_memory():
    free, total = drv.mem_get_info()
    assert total == 64 << 20 == drv.Device(0).total_memory()
    first = drv.mem_alloc(32 << 20)
    with pytest.raises(drv.MemoryError, match="CUDA_SIM_MEMORY") as caught:
        gpuarray.empty(40 << 20, np.uint8)
    assert isinstance(caught.value, MemoryError)  # Python's own class catches it too
    assert drv.mem_get_info()[0] <= free - (32 << 20)
    first.free()
    gpuarray.empty(40 << 20, np.uint8)  # fits once the first is freed


@pytest.mark.usefixtures("small_device")
def test_filling_the_device_as_pycudas_example_does_stops_at_its_size():
    free, _ = drv.mem_get_info()
    with pytest.raises(drv.MemoryError):
        gpuarray.empty((free + 4096) // 4, np.float32)
    ary = gpuarray.empty(free // 4 - 1024, np.float32).fill(np.nan)
    assert np.isnan(ary[-3:].get()).all()


@pytest.mark.usefixtures("small_device")
def test_a_memory_pool_frees_what_it_holds_when_the_device_is_full():
    pool = tools.DeviceMemoryPool()
    held = pool.allocate(40 << 20)
    del held
    assert pool.held_blocks == 1
    other = pool.allocate(50 << 20)  # another bin: the held block must go first
    assert pool.held_blocks == 0 and int(other)


# ---- what PyCUDA would get wrong without an error: the simulator refuses ------------------------
def test_reshape_in_the_other_order_warns_that_pycuda_relabels_memory():
    a = gpuarray.to_gpu(np.arange(6, dtype=np.float32).reshape(2, 3))
    with pytest.warns(UserWarning, match="relabels the memory"):
        b = a.reshape((3, 2), order="F")
    assert np.array_equal(b.get(), np.arange(6, dtype=np.float32).reshape((3, 2), order="F"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        a.reshape(3, 2)


# ---- generated kernels are kernels -----------------------------------------------------------
def test_an_elementwise_expression_that_reads_past_the_end_is_caught():
    x = gpuarray.zeros(1000, np.float32)
    y = gpuarray.empty_like(x)
    shift = ElementwiseKernel("float *x, float *y", "y[i] = x[i + 1]", "shift")
    with pytest.raises(drv.LaunchError) as err:
        shift(x, y)
    e = err.value
    assert (e.kind, e.kernel, e.is_write) == ("out of bounds", "shift", False)
    assert (e.allocation, e.offset) == ((int(x.gpudata), 4000), 4000)  # x[1000]: just past its end


def test_generated_reductions_have_no_races():
    x = gpuarray.to_gpu(np.arange(5000, dtype=np.float64))
    total = ReductionKernel(np.float64, "0", "a+b", arguments="const double *in")
    with settings.changed(racecheck=True):
        assert float(total(x).get()) == 5000 * 4999 / 2


def test_macros_in_the_learners_code_do_not_reach_the_simulators_headers():
    mod = SourceModule("#define K 6\n#define I 3\n#define Tuple int\n"
                       "__global__ void k(int *x) { x[0] = K * I; }")
    x = gpuarray.zeros(1, np.int32)
    mod.get_function("k")(x, block=(1, 1, 1))
    assert x.get()[0] == 18


# ---- plain PyCUDA programs: python -m helpers.sim ----------------------------------------------
def run_python(args, env_backend="simulator", pythonpath=None, cwd=None):
    paths = [pythonpath, str(ROOT), *os.environ.get("PYTHONPATH", "").split(os.pathsep)]
    env = dict(os.environ, CUDA_COURSE_BACKEND=env_backend,
               PYTHONPATH=os.pathsep.join(filter(None, paths)))
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env,
                          cwd=cwd, timeout=300)


def test_a_plain_pycuda_program_runs_on_the_simulator(tmp_path):
    script = tmp_path / "prog.py"
    script.write_text(textwrap.dedent("""
        import sys
        import numpy
        import pycuda.autoinit
        import pycuda.driver as cuda
        import pycuda.gpuarray as gpuarray
        from pycuda.compiler import SourceModule
        from pycuda.elementwise import ElementwiseKernel
        mod = SourceModule("__global__ void twice(float *a) { a[threadIdx.x] *= 2; }")
        a = numpy.arange(4, dtype=numpy.float32)
        mod.get_function("twice")(cuda.InOut(a), block=(4, 1, 1))
        print(cuda.__name__, a.tolist(), sys.argv[1:])
    """))
    proc = run_python(["-m", "helpers.sim", str(script), "x", "y"])
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "helpers.sim.driver [0.0, 2.0, 4.0, 6.0] ['x', 'y']"
    proc = run_python(["-m", "helpers.sim", "-c", "import pycuda.gl"])
    assert "OpenGL interoperability" in proc.stderr and "needs a GPU" in proc.stderr


def test_a_notebook_line_makes_pycuda_importable():
    proc = run_python(["-c", "import helpers.sim.as_pycuda; import pycuda.gpuarray as g; "
                             "print(g.__name__)"])
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "helpers.sim.gpuarray"
    assert "CPU simulator" in proc.stderr


def test_a_pycuda_that_works_is_never_shadowed(tmp_path):
    fake = tmp_path / "pycuda"
    fake.mkdir()
    (fake / "__init__.py").write_text("REAL = True\n")
    (fake / "driver.py").write_text("def init(): pass\nclass Device:\n"
                                    "    @staticmethod\n    def count(): return 1\n")
    for name in ("autoprimaryctx", "gpuarray"):
        (fake / f"{name}.py").write_text("")
    (fake / "compiler.py").write_text("SourceModule = None\n")
    proc = run_python(["-m", "helpers.sim", "-c", "import pycuda; print(pycuda.REAL)"],
                      env_backend="auto", pythonpath=str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "True"
    assert str(SHIM_DIR) not in proc.stdout


def test_unknown_kernel_and_unsupported_calls():
    mod = SourceModule("__global__ void only(int *x) {}")
    with pytest.raises(drv.LogicError, match="its kernels: only"):
        mod.get_function("other")
    with pytest.raises(NotImplementedError) as missing:
        drv.Memcpy3DPeer()
    assert missing.value.name == "Memcpy3DPeer"
    with pytest.raises(NotImplementedError) as missing:
        gpuarray.cumsum(gpuarray.zeros(3, np.float32))
    assert missing.value.name == "cumsum"
