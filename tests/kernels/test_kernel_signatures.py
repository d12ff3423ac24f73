"""Kernels in C++ as PyCUDA compiles them with nvcc, on both backends: a kernel template is a
kernel where it is instantiated explicitly, each instantiation named by its mangled name
(``SourceModule(..., no_extern_c=True).get_function("_Z1kIfEvPT_i")``), and a reference parameter
(``float &sum``) is passed as the address it binds to, a gpuarray's. On the simulator each was a
g++ error about the simulator's own launch code. The names the simulator gives are those nvcc
gives (its PTX's entries)."""

import re
import subprocess

import numpy as np
import pytest

from helpers.backend import BACKEND, SourceModule, gpuarray

TEMPLATES = r"""
template <typename T> __global__ void fill(T *o, int n, T value) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) o[i] = value + (T)i;
}
template <int N> __global__ void times(float *o) { o[threadIdx.x] *= N; }
template <typename T> __global__ void never_instantiated(T *o) { o[0] = 0; }
template __global__ void fill<float>(float *, int, float);
template __global__ void fill(int *o, int n, int value);
template __global__ void times<3>(float *);
extern "C" __global__ void plain(float *o) { o[0] = 1.0f; }
"""
NAMES = {"_Z4fillIfEvPT_iS0_": np.float32, "_Z4fillIiEvPT_iS0_": np.int32}
TIMES_3 = "_Z5timesILi3EEvPf"

REFERENCES = r"""
__global__ void total(const float *x, int n, float &sum) {
    if (threadIdx.x == 0) {
        float s = 0.0f;
        for (int i = 0; i < n; i++) s += x[i];
        sum = s;
    }
}
__global__ void scale(float &a, const float &b) { a *= b; }
"""


def test_each_instantiation_of_a_kernel_template_runs_under_its_mangled_name():
    module = SourceModule(TEMPLATES, no_extern_c=True)
    for name, dtype in NAMES.items():
        out = gpuarray.zeros(40, dtype)
        module.get_function(name)(out, np.int32(37), dtype(5), block=(16, 1, 1), grid=(3, 1))
        want = np.where(np.arange(40) < 37, 5 + np.arange(40), 0).astype(dtype)
        assert np.array_equal(out.get(), want), name
    x = gpuarray.to_gpu(np.arange(4, dtype=np.float32))
    module.get_function(TIMES_3)(x, block=(4, 1, 1), grid=(1, 1))
    module.get_function("plain")(x, block=(1, 1, 1), grid=(1, 1))
    assert x.get().tolist() == [1.0, 3.0, 6.0, 9.0]


def test_a_reference_parameter_binds_to_the_gpuarray_passed():
    module = SourceModule(REFERENCES)
    x, total = gpuarray.to_gpu(np.arange(10, dtype=np.float32)), gpuarray.zeros(1, np.float32)
    module.get_function("total")(x, np.int32(10), total, block=(32, 1, 1), grid=(1, 1))
    a, b = gpuarray.to_gpu(np.float32([3.0])), gpuarray.to_gpu(np.float32([2.5]))
    module.get_function("scale")(a, b, block=(1, 1, 1), grid=(1, 1))
    assert total.get()[0] == 45.0 and a.get()[0] == 7.5


@pytest.mark.skipif(BACKEND != "simulator", reason="the simulator's names against nvcc's")
def test_the_simulator_names_the_kernels_as_nvcc_does(nvcc, tmp_path):
    """nvcc's PTX has an entry for each instantiation and each plain kernel, none for a template
    never instantiated; the simulator's module the same names."""
    (tmp_path / "k.cu").write_text(TEMPLATES)
    subprocess.run([nvcc, "-arch=sm_90", "--ptx", str(tmp_path / "k.cu"), "-o",
                    str(tmp_path / "k.ptx")], check=True, capture_output=True, timeout=300)
    entries = set(re.findall(r"\.entry\s+(\w+)\s*\(", (tmp_path / "k.ptx").read_text()))
    assert entries == {*NAMES, TIMES_3, "plain"}
    assert set(SourceModule(TEMPLATES, no_extern_c=True).module.kernels) == entries
