"""`pycuda.gpuarray`, for the CPU simulator: a NumPy-shaped array in simulated device memory.

The course uses GPUArray to move data (to_gpu, empty, zeros, get) and to pass it to kernels
(`.gpudata`). Elementwise arithmetic works, computed by NumPy; other calls raise
NotImplementedError naming themselves.
"""

import numpy as np

from . import driver


class GPUArray:
    def __init__(self, shape, dtype, allocator=None, base=None, gpudata=None, order="C"):
        shape = (shape,) if np.isscalar(shape) else tuple(int(s) for s in shape)
        self.shape, self.dtype = shape, np.dtype(dtype)
        self.size = int(np.prod(shape, dtype=np.int64))
        self.nbytes = self.size * self.dtype.itemsize
        strides, step = [], self.dtype.itemsize
        for dim in reversed(shape):  # C order
            strides.insert(0, step)
            step *= dim
        self.strides = tuple(strides)
        self.base = base
        self.gpudata = gpudata if gpudata is not None else driver.mem_alloc(self.nbytes)

    # ---- NumPy-like description
    @property
    def ndim(self):
        return len(self.shape)

    @property
    def ptr(self):
        return int(self.gpudata)

    def __len__(self):
        return self.shape[0]

    def __repr__(self):
        return repr(self.get())

    def __str__(self):
        return str(self.get())

    # ---- moving data
    def get(self, ary=None, pagelocked=False, async_=False, stream=None):
        if ary is None:
            ary = np.empty(self.shape, self.dtype)
        elif ary.shape != self.shape or ary.dtype != self.dtype:
            raise TypeError(f"get: array of shape {ary.shape} and dtype {ary.dtype} does not "
                            f"match the GPUArray's {self.shape} and {self.dtype}")
        if self.nbytes:
            driver.memcpy_dtoh(ary, self.gpudata)
        return ary

    def get_async(self, stream=None, ary=None):
        return self.get(ary)

    def set(self, ary, async_=False, stream=None):
        ary = np.ascontiguousarray(ary)
        if ary.size != self.size or ary.dtype != self.dtype:
            raise ValueError(f"set: array of size {ary.size} and dtype {ary.dtype} does not "
                             f"match the GPUArray's {self.size} and {self.dtype}")
        if self.nbytes:
            driver.memcpy_htod(self.gpudata, ary)

    def set_async(self, ary, stream=None):
        self.set(ary)

    def fill(self, value, stream=None):
        self.set(np.full(self.shape, value, self.dtype))
        return self

    def copy(self):
        out = GPUArray(self.shape, self.dtype)
        if self.nbytes:
            driver.memcpy_dtod(out.gpudata, self.gpudata, self.nbytes)
        return out

    # ---- views sharing the same memory
    def reshape(self, *shape, order="C"):
        shape = shape[0] if len(shape) == 1 and not np.isscalar(shape[0]) else shape
        shape = np.empty(self.size, dtype=np.int8).reshape(shape).shape
        return GPUArray(shape, self.dtype, base=self, gpudata=self.gpudata)

    def ravel(self):
        return self.reshape(self.size)

    def view(self, dtype=None):
        dtype = np.dtype(dtype or self.dtype)
        last = self.shape[-1] * self.dtype.itemsize // dtype.itemsize
        return GPUArray(self.shape[:-1] + (last,), dtype, base=self, gpudata=self.gpudata)

    # ---- arithmetic, by NumPy
    def _binary(self, other, op):
        b = other.get() if isinstance(other, GPUArray) else other
        return to_gpu(np.asarray(op(self.get(), b)).astype(
            np.result_type(self.dtype, b if not isinstance(b, (int, float)) else self.dtype)))

    def __add__(self, o):
        return self._binary(o, np.add)

    __radd__ = __add__

    def __sub__(self, o):
        return self._binary(o, np.subtract)

    def __rsub__(self, o):
        return self._binary(o, lambda a, b: b - a)

    def __mul__(self, o):
        return self._binary(o, np.multiply)

    __rmul__ = __mul__

    def __truediv__(self, o):
        return self._binary(o, np.true_divide)

    def __neg__(self):
        return to_gpu(-self.get())

    def __getattr__(self, name):
        raise NotImplementedError(f"GPUArray.{name} is not provided by the course's CPU simulator")


def to_gpu(ary, allocator=None):
    ary = np.ascontiguousarray(ary)
    result = GPUArray(ary.shape, ary.dtype)
    result.set(ary)
    return result


def to_gpu_async(ary, allocator=None, stream=None):
    return to_gpu(ary)


def empty(shape, dtype, allocator=None, order="C"):
    return GPUArray(shape, dtype)


def zeros(shape, dtype, allocator=None, order="C"):
    return GPUArray(shape, dtype)  # fresh simulated memory is zero-filled


def empty_like(other, dtype=None):
    return GPUArray(other.shape, dtype or other.dtype)


def zeros_like(other, dtype=None):
    return GPUArray(other.shape, dtype or other.dtype)


def arange(*args, dtype=None):
    return to_gpu(np.arange(*args, dtype=dtype))


def sum(a, dtype=None, stream=None):  # noqa: A001 - PyCUDA's name
    return to_gpu(np.asarray(a.get().sum(dtype=dtype)))


def dot(a, b, dtype=None, stream=None):
    return to_gpu(np.asarray(np.dot(a.get().ravel(), b.get().ravel())))


def max(a, stream=None):  # noqa: A001
    return to_gpu(np.asarray(a.get().max()))


def min(a, stream=None):  # noqa: A001
    return to_gpu(np.asarray(a.get().min()))


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise NotImplementedError(f"pycuda.gpuarray.{name} is not provided by the course's CPU simulator")

