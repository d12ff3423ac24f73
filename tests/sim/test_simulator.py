"""The CPU simulator's own promises: mistakes are caught kindly, never crash the process, and
compiled modules are cached safely. These run the simulator whatever backend is chosen."""

import ctypes
import os
import subprocess
import sys
import textwrap
import threading
import uuid
from pathlib import Path

import numpy as np
import pytest

from helpers.sim import driver as drv, gpuarray
from helpers.sim.compile import builder
from helpers.sim.compiler import SourceModule
from helpers.sim.settings import settings

from caches import seeded

KERNELS = r"""
__global__ void copy(const float *in, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[i];                                   // no bounds guard
}
__global__ void shared_overrun(int *out, int k) {
    __shared__ int s[32];
    s[threadIdx.x + k] = 1;
    __syncthreads();
    out[0] = s[0];
}
__global__ void local_overrun(int *out, int k) {
    int a[4] = {1, 2, 3, 4};
    out[threadIdx.x] = a[threadIdx.x + k];
}
__global__ void divergent_barriers(int *out) {
    if (threadIdx.x < 16) {
        __syncthreads();
    } else {
        __syncthreads();
    }
}
__global__ void exited_lane(int *out) {
    if (threadIdx.x == 5) return;
    out[threadIdx.x] = __shfl_sync(0xffffffff, (int)threadIdx.x, 0);
}
__global__ void checks(int *out) { assert(threadIdx.x < 3); }
__global__ void spin(volatile int *flag) { while (flag[0] == 0) { } }
__global__ void dynamic(float *out) {
    extern __shared__ float buf[];
    buf[threadIdx.x] = 1.0f;
    out[threadIdx.x] = buf[threadIdx.x];
}
__global__ void chase(float **pointers) { pointers[0][0] = 1.0f; }
__global__ void deep(float *out, int k) {
    float big[200000];                                // 800 KB: more than a thread's stack
    for (int i = 0; i < 200000; i++) big[i] = i * k;
    out[0] = big[k];
}
"""


@pytest.fixture(scope="module")
def mod():
    return SourceModule('#line 1 "faults.cu"\n' + KERNELS)


def launch_error(fn, *args, **kw):
    with pytest.raises(drv.LaunchError) as err:
        fn(*args, **kw)
    return str(err.value)


def test_write_past_the_end_names_kernel_block_and_thread(mod):
    n = 1000
    a, b = gpuarray.zeros(n, np.float32), gpuarray.zeros(n, np.float32)
    msg = launch_error(mod.get_function("copy"), a, b, np.int32(n), block=(256, 1, 1), grid=(4, 1))
    assert "illegal memory access" in msg and "'copy'" in msg
    assert "block (3, 0, 0)" in msg and "thread (232, 0, 0)" in msg
    assert "past the end of a 4000-byte allocation" in msg


def test_use_after_free_is_caught(mod):
    a, b = drv.mem_alloc(4096), drv.mem_alloc(4096)
    stale = np.intp(int(b))
    b.free()
    # a freed address given to a kernel is refused before it runs
    with pytest.raises(drv.LogicError, match=r"parameter #1 .*'copy'.*use after free"):
        mod.get_function("copy")(a, stale, np.int32(1), block=(1, 1, 1))
    # one the kernel finds in memory faults where it is used
    pointers = gpuarray.to_gpu(np.array([int(stale)], np.uint64))
    msg = launch_error(mod.get_function("chase"), pointers.gpudata, block=(1, 1, 1))
    assert "a write to" in msg and "use after free" in msg


def test_shared_and_local_overruns_name_the_file_and_line(mod):
    out = gpuarray.zeros(64, np.int32)
    msg = launch_error(mod.get_function("shared_overrun"), out, np.int32(1), block=(32, 1, 1))
    assert "faults.cu:8" in msg and "thread (31, 0, 0)" in msg
    msg = launch_error(mod.get_function("local_overrun"), out, np.int32(2), block=(4, 1, 1))
    assert "faults.cu:14" in msg


def test_threads_at_different_barriers_raise_instead_of_hanging(mod):
    msg = launch_error(mod.get_function("divergent_barriers"), gpuarray.zeros(1, np.int32),
                       block=(32, 1, 1))
    assert "faults.cu:20" in msg and "faults.cu:18" in msg


def test_a_mask_naming_an_exited_lane_raises(mod):
    msg = launch_error(mod.get_function("exited_lane"), gpuarray.zeros(32, np.int32),
                       block=(32, 1, 1))
    assert "lane 5" in msg and "exited" in msg


def test_assert_reports_the_condition(mod):
    msg = launch_error(mod.get_function("checks"), gpuarray.zeros(1, np.int32), block=(8, 1, 1))
    assert "device-side assert triggered" in msg and "threadIdx.x < 3" in msg
    assert "thread (3, 0, 0)" in msg


def test_dynamic_shared_memory_past_the_launch_size(mod):
    out = gpuarray.zeros(64, np.float32)
    mod.get_function("dynamic")(out, block=(64, 1, 1), shared=256)
    assert (out.get() == 1).all()
    msg = launch_error(mod.get_function("dynamic"), out, block=(64, 1, 1))
    assert "shared=" in msg


def test_stack_overflow_is_reported(mod):
    msg = launch_error(mod.get_function("deep"), gpuarray.zeros(1, np.float32), np.int32(1),
                       block=(1, 1, 1))
    assert "stack overflowed" in msg


# ---- arguments: stricter than PyCUDA, where PyCUDA would go wrong silently --------------------------
def test_float64_for_a_float_parameter_names_the_c_type():
    f = SourceModule("__global__ void scale(float *x, float a) { x[threadIdx.x] *= a; }") \
        .get_function("scale")
    x = gpuarray.zeros(4, np.float32)
    with pytest.raises(TypeError, match=r"parameter #1.*'float'.*float64.*numpy\.float32"):
        f(x, np.float64(2.0), block=(4, 1, 1))
    with pytest.raises(TypeError, match=r"parameter #0.*copy it to the device|gpuarray\.to_gpu"):
        f(np.zeros(4, np.float32), np.float32(2), block=(4, 1, 1))
    with pytest.raises(TypeError, match="takes 2 parameters"):
        f(x, block=(4, 1, 1))


def test_copies_larger_than_the_allocation_are_refused():
    d = drv.mem_alloc(16)
    with pytest.raises(drv.LogicError, match="do not fit"):
        drv.memcpy_htod(d, np.zeros(5, np.float32))


def test_unknown_kernel_and_unsupported_calls():
    mod = SourceModule("__global__ void only(int *x) {}")
    with pytest.raises(drv.LogicError, match="its kernels: only"):
        mod.get_function("other")
    with pytest.raises(NotImplementedError, match="mem_alloc_pitch"):
        drv.mem_alloc_pitch(16, 16, 4)
    with pytest.raises(NotImplementedError, match="cumsum"):
        gpuarray.cumsum(gpuarray.zeros(3, np.float32))


def test_compile_errors_name_the_file_line_and_unsupported_features():
    with pytest.raises(drv.CompileError, match=r"mine\.cu:2"):
        SourceModule('#line 1 "mine.cu"\n__global__ void k(int *x) {\n  x[0] = y;\n}\n')
    with pytest.raises(drv.CompileError, match="textures"):
        SourceModule("__global__ void k(float *x) { x[0] = tex2D(x, 0, 0); }")
    with pytest.raises(ValueError, match="no meaning on the CPU simulator"):
        SourceModule("__global__ void k() {}", options=["--some-gpu-flag"])


def test_options_reach_the_compiler():
    mod = SourceModule("__global__ void k(int *x) { x[0] = VALUE; }",
                       options=["-DVALUE=42", "-use_fast_math"])
    x = gpuarray.zeros(1, np.int32)
    mod.get_function("k")(x, block=(1, 1, 1))
    assert x.get()[0] == 42


def test_modules_without_barriers_run_as_a_plain_loop():
    plain = SourceModule("__global__ void k(int *x) { x[threadIdx.x] = 1; }")
    fibers = SourceModule("__global__ void k(int *x) { __syncthreads(); x[threadIdx.x] = 1; }")
    assert not plain.module.uses_fibers and fibers.module.uses_fibers


# ---- the compile cache ------------------------------------------------------------------------
@pytest.mark.slow
def test_cache_is_shared_by_two_processes_compiling_at_once(tmp_path):
    source = f"__global__ void k(int *x) {{ x[0] = {uuid.uuid4().int % 100000}; }}"
    script = textwrap.dedent(f"""
        from helpers.sim.compiler import SourceModule
        print(SourceModule({source!r}).path)
    """)
    env = {**os.environ, "CUDA_COURSE_CACHE_DIR": str(tmp_path),
           "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    procs = [subprocess.Popen([sys.executable, "-c", script], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(2)]
    results = [p.communicate(timeout=120) for p in procs]
    assert all(p.returncode == 0 for p in procs), results
    paths = {out.strip() for out, _ in results}
    assert len(paths) == 1
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    libraries = [p for p in files if not p.parent.name.startswith(("prelude-", "grid-"))]
    assert [p.name for p in libraries] == [Path(paths.pop()).name]  # no partial files left
    assert not [p for p in files if p.name.startswith(".")]  # nor beside what is prebuilt


def test_a_cached_module_is_not_compiled_again(tmp_path, monkeypatch):
    """...until the compiler flags change: a module built with other flags is another module."""
    class Compiled(Exception):
        pass

    def compile_(*args):
        raise Compiled

    source = f"__global__ void k(int *x) {{ x[0] = {uuid.uuid4().int % 100000}; }}"
    with settings.changed(cache_dir=str(seeded(tmp_path))):
        first = SourceModule(source).path
        monkeypatch.setattr(builder, "_run", compile_)
        assert SourceModule(source).path == first
        monkeypatch.setattr(builder, "CXX_FLAGS", [*builder.CXX_FLAGS, "-DANOTHER_FLAG"])
        with pytest.raises(Compiled):
            SourceModule(source)


def test_shared_memory_limits_are_a_gpus():
    big = ("__global__ void k(float *x) { __shared__ float s[12289]; s[threadIdx.x] = 1; "
           "__syncthreads(); x[0] = s[1]; }")
    with pytest.raises(drv.CompileError, match="too much shared data"):
        SourceModule(big)
    mod = SourceModule("__global__ void k(float *x) { __shared__ float s[8192]; "
                       "s[threadIdx.x] = 1; __syncthreads(); x[0] = s[1]; }")
    assert mod.module.kernels["k"].static_shared == 8192 * 4
    x = gpuarray.zeros(1, np.float32)
    mod.get_function("k")(x, block=(32, 1, 1), shared=16 * 1024)
    with pytest.raises(drv.LogicError, match="more than the 49152 bytes"):
        mod.get_function("k")(x, block=(32, 1, 1), shared=16 * 1024 + 4)


def test_an_array_of_the_wrong_element_type_is_named():
    f = SourceModule("__global__ void add(const float *a, float *b) { b[threadIdx.x] += a[threadIdx.x]; }") \
        .get_function("add")
    out = gpuarray.zeros(4, np.float32)
    with pytest.raises(TypeError, match=r"parameter #0.*'const float\*'.*float64.*astype\(np\.float32\)"):
        f(gpuarray.to_gpu(np.ones(4)), out, block=(4, 1, 1))
    with pytest.raises(TypeError, match="int64"):
        f(drv.In(np.ones(4, np.int64)), out, block=(4, 1, 1))
    f(gpuarray.to_gpu(np.ones(4, np.float32)), out, block=(4, 1, 1))          # right type
    f(gpuarray.to_gpu(np.ones(16, np.uint8)), out, block=(4, 1, 1))           # bytes: any view
    assert (out.get() != 0).all()


def test_shared_memory_is_counted_kernel_by_kernel():
    src = "\n".join(f"__global__ void k{i}(float *x) {{ __shared__ float s[10000]; "
                     f"s[threadIdx.x] = {i}; __syncthreads(); x[{i}] = s[1]; }}" for i in range(2))
    mod = SourceModule(src)  # 40 KB each: fine, though 80 KB together
    assert {k.name: k.static_shared for k in mod.module.kernels.values()} == {"k0": 40000, "k1": 40000}


def test_the_portable_fiber_switch_gives_the_same_results():
    """Where the assembly switch is not built (not Linux x86-64 or Arm64), swapcontext is used."""
    src = r"""
    __global__ void block_sum(const int *in, int *out) {
        __shared__ int s[128];
        s[threadIdx.x] = in[blockIdx.x * 128 + threadIdx.x];
        __syncthreads();
        for (int stride = 64; stride > 0; stride /= 2) {
            if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];
            __syncthreads();
        }
        int lane0 = __shfl_sync(0xffffffff, (int)threadIdx.x % 32, 0);  // 0 in every lane
        if (threadIdx.x == 0) out[blockIdx.x] = s[0] + lane0;
    }
    """
    x = np.arange(8 * 128, dtype=np.int32)
    out = gpuarray.zeros(8, np.int32)
    SourceModule(src, options=["-DSIM_UCONTEXT"]).get_function("block_sum")(
        gpuarray.to_gpu(x), out, block=(128, 1, 1), grid=(8, 1))
    assert np.array_equal(out.get(), x.reshape(8, 128).sum(1))


# ---- the boundary between the C runtime and Python ------------------------------------------------
def test_python_mirrors_the_runtime_structs_and_status_codes():
    from helpers.sim.run import report as launch_report
    from helpers.sim.compile import module

    lib = SourceModule("__global__ void k(int *x) { x[0] = 1; }").module.lib
    for c_name, mirror in module.MIRRORS.items():
        assert lib.sim_abi_size(c_name.encode()) == ctypes.sizeof(mirror), c_name
    codes = module.status_codes(lib)
    assert codes["OK"] == 0 and len(codes) == len(set(codes.values()))
    assert set(launch_report.STATUS_TEXT) <= set(codes) - {"OK", "INTERRUPTED"}


def test_module_settings_can_be_changed_for_a_while_and_come_back():
    before = settings.workers
    with settings.changed(workers=1, racecheck=True):
        assert settings.workers == 1 and settings.racecheck
    assert settings.workers == before and not settings.racecheck
    with pytest.raises(AttributeError, match="no setting 'wokers'"):
        settings.update(wokers=2)
    with pytest.raises(ValueError, match="CUDA_SIM_WORKERS='two'"):
        type(settings).from_environ({"CUDA_SIM_WORKERS": "two"})


def test_freeing_memory_from_a_garbage_collection_inside_the_allocator_does_not_deadlock():
    from helpers.sim.machine import memory

    class FreedByCollector:
        def __del__(self):
            memory.release(memory.allocate(64))

    def churn():
        with memory._lock:  # a collection can run __del__ while this thread holds the lock
            FreedByCollector()

    worker = threading.Thread(target=churn, daemon=True)
    worker.start()
    worker.join(10)
    assert not worker.is_alive(), "the allocator deadlocked on its own lock"


def test_cache_dir_and_keep_mean_what_they_mean_in_pycuda(tmp_path, capsys):
    source = f"__global__ void k(int *x) {{ x[0] = {uuid.uuid4().int % 100000}; }}"
    mod = SourceModule(source, cache_dir=str(tmp_path / "mine"))
    assert mod.path.parent == tmp_path / "mine"
    kept = SourceModule(source, cache_dir=False, keep=True)
    out = capsys.readouterr().out
    assert kept.path.parent != tmp_path / "mine" and "*** compiler output in" in out
    folder = Path(out.split("*** compiler output in", 1)[1].split()[0])
    assert (folder / "module.cpp").is_file()


def test_an_installed_copy_of_the_helpers_has_every_file_the_simulator_compiles():
    """pip install . (not editable) copies the package data pyproject.toml names: every header
    and runner source in helpers/sim/include must be among it."""
    tomllib = pytest.importorskip("tomllib")
    root = Path(__file__).resolve().parents[2]
    globs = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"]["helpers"]
    helpers = root / "helpers"
    shipped = {p for pattern in globs for p in helpers.glob(pattern)}
    missing = [p.name for p in (helpers / "sim" / "include").iterdir() if p not in shipped]
    assert not missing, f"add these to [tool.setuptools.package-data] in pyproject.toml: {missing}"
