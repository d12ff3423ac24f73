"""The GPUArray class: a NumPy-shaped array in simulated device memory, with PyCUDA's
semantics (gpuarray.py says which)."""

import builtins
import functools
import numbers
import warnings

import numpy as np

from ..unsupported import NeedsGPU
from ..machine import copies, devices, hostmem, memory, streams
from ..machine.allocations import mem_alloc
from ..unsupported import TEXTURES
from .arithmetic import ONLY_CONTIGUOUS, ArithmeticMixin, c_scalar
from .copying import check_copy, copy_array
from .layout import ArrayFlags, c_strides, compact_strides, device_view, f_strides, splay


class GPUArray(ArithmeticMixin):
    """pycuda.gpuarray.GPUArray: a NumPy-like array whose data is in device memory."""

    def __init__(self, shape, dtype, allocator=mem_alloc, base=None, gpudata=None,
                 strides=None, order="C"):
        dtype = np.dtype(dtype)
        if dtype.hasobject:
            raise TypeError(f"a GPUArray cannot hold Python objects (dtype {dtype}): device memory "
                            "holds numbers, and a kernel would read the objects' addresses. "
                            "Convert first, e.g. np.asarray(a, dtype=np.float32)")
        if isinstance(shape, np.ndarray) and shape.ndim == 0:
            shape = shape.item()
        if isinstance(shape, numbers.Integral):
            shape = (shape,)
        shape = tuple(int(n) for n in shape)
        if strides is None:
            if order not in ("C", "F"):
                raise ValueError(f"invalid order: {order}")
            strides = (f_strides if order == "F" else c_strides)(dtype.itemsize, shape)
        self.shape, self.dtype, self.strides = shape, dtype, tuple(int(s) for s in strides)
        self.size = self.mem_size = int(np.prod(shape, dtype=np.int64))
        self.itemsize = dtype.itemsize
        self.nbytes = self.size * dtype.itemsize
        self.allocator = allocator
        if gpudata is None:
            if base is not None:
                raise ValueError("a GPUArray with a base must be given its gpudata")
            gpudata = allocator(self.nbytes) if self.size else None
        self.gpudata, self.base = gpudata, base
        self._grid, self._block = splay(self.mem_size)

    # ---- description
    @property
    def __cuda_array_interface__(self):
        return {"shape": self.shape, "strides": self.strides, "typestr": self.dtype.str,
                "data": (self.ptr if self.gpudata is not None else 0, False),
                "stream": None, "version": 3}

    @property
    def ndim(self):
        return len(self.shape)

    @functools.cached_property
    def flags(self):
        return ArrayFlags(self)

    @property
    def ptr(self):
        return int(self.gpudata)

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __bool__(self):
        if self.size != 1:
            raise ValueError("The truth value of an array with more than one element is "
                             "ambiguous. Use a.any() or a.all()")
        return bool(self.get())

    def __str__(self):
        return str(self.get())

    def __repr__(self):
        return repr(self.get())

    # ---- the memory, as NumPy sees it
    def _view(self, kernel=True):
        """The array's device memory as NumPy sees it: every host-side read or write of a
        GPUArray (get, set, fill, arithmetic, ...) goes through here, and waits first for the
        work queued on the current device's blocking streams, as PyCUDA's calls in the legacy
        default stream do.
        kernel: PyCUDA does it with a kernel (arithmetic, fill, astype, ...), which may use only
        memory the current device can reach (devices.check_access); copies (get, set, copy)
        reach any device's memory."""
        if self.gpudata is None:
            return np.empty(self.shape, self.dtype)
        streams.wait_default()
        address = int(self.gpudata)
        if kernel:
            devices.check_access([(f"a GPUArray of shape {self.shape} and dtype {self.dtype}",
                                   address)], "a kernel of gpuarray (its arithmetic, fill, "
                                  "astype, ... run as kernels in PyCUDA)")
        return device_view(address, self.shape, self.dtype, self.strides)

    def _flat(self):
        """The elements in memory order, one-dimensional (contiguous arrays only)."""
        if not self.flags.forc:
            raise RuntimeError(ONLY_CONTIGUOUS)
        return self._view().ravel(order="K")

    def _new_like_me(self, dtype=None, order="C"):
        dtype = self.dtype if dtype is None else np.dtype(dtype)
        strides = self.strides if dtype == self.dtype else None
        return type(self)(self.shape, dtype, allocator=self.allocator, strides=strides,
                          order=order)

    # ---- moving data
    def set(self, ary, async_=False, stream=None, **kwargs):
        async_ = async_ or kwargs.pop("async", False)
        if ary.size != self.size:
            raise ValueError("ary and self must be the same size")
        if ary.shape != self.shape:
            warnings.warn("Setting array from one with different shape.", stacklevel=2)
            ary = ary.reshape(self.shape)
        if ary.dtype != self.dtype:
            raise ValueError("ary and self must have the same dtype")
        if self.size:
            self._copy(self, ary, async_, stream)

    def set_async(self, ary, stream=None):
        return self.set(ary, async_=True, stream=stream)

    def get(self, ary=None, pagelocked=False, async_=False, stream=None, **kwargs):
        async_ = async_ or kwargs.pop("async", False)
        if ary is None:
            make = hostmem.pagelocked_empty if pagelocked else np.empty
            ary = np.lib.stride_tricks.as_strided(make(self.size, self.dtype), self.shape,
                                                  compact_strides(self))
        else:
            if ary.size != self.size:
                raise ValueError("self and ary must be the same size")
            if ary.shape != self.shape:
                ary = ary.reshape(self.shape)
            if ary.dtype != self.dtype:
                raise TypeError("self and ary must have the same dtype")
        if self.size:
            self._copy(ary, self, async_, stream)
        return ary

    def get_async(self, stream=None, ary=None):
        return self.get(ary=ary, async_=True, stream=stream)

    def _copy(self, dst, src, queued, stream):
        """dst[...] = src between this array and a host array: now, or (queued) when the stream
        reaches it, as cuMemcpyHtoDAsync and cuMemcpyDtoHAsync do: page-locked host memory is
        read or written when the copy runs; pageable memory is staged at once (a source) or
        waited for (a destination), as CUDA does."""
        after = streams.device_of(stream if queued else None)
        to_host, address = dst is not self, int(self.gpudata)  # no reference to self: see below

        def noted():  # a copy back to the host is noted (copies.to_host)
            if to_host:
                copies.to_host(address, after)

        if not queued:
            copy_array(dst, src)
            noted()
            return
        check_copy(dst, src)
        host = src if isinstance(src, np.ndarray) else dst
        pinned = hostmem.is_pinned(host)
        if host is src and not pinned:
            src = src.copy()
        # The queued copy holds the array's memory by its address, as CUDA's does: an array let
        # go of while its copy waits is freed then, and the free runs the copy first.
        device = device_view(address, self.shape, self.dtype, self.strides)
        pair = (dst, device) if to_host else (device, src)

        def run():
            pair[0][...] = pair[1]
            noted()

        op = streams.submit(stream, run, "GPUArray.get_async" if to_host else
                            "GPUArray.set_async", touches=[memory.find(address)])
        if host is dst and not pinned:
            streams.synchronize([op])

    def copy(self):
        new = type(self)(self.shape, self.dtype, self.allocator, strides=self.strides)
        copy_array(new, self)
        return new

    def fill(self, value, stream=None):
        """Set every element to value, in place (no host array of the array's size)."""
        if not self.flags.forc:
            raise RuntimeError(ONLY_CONTIGUOUS)
        if self.dtype.names is None:
            value = c_scalar(value, self.dtype, "GPUArray.fill")
        self._view()[...] = value
        return self

    # ---- views that share this array's memory
    def _like(self, shape, strides, offset=0, dtype=None, base=None):
        return type(self)(shape, dtype or self.dtype, allocator=self.allocator,
                          base=base if base is not None else self,
                          gpudata=int(self.gpudata) + offset if self.gpudata is not None else None,
                          strides=strides)

    def reshape(self, *shape, order="C"):
        if not self.flags.forc:
            raise RuntimeError(ONLY_CONTIGUOUS)
        if isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        shape = tuple(int(n) for n in shape)
        layout_ok = self.flags.c_contiguous if order == "C" else self.flags.f_contiguous
        if shape == self.shape and layout_ok:
            return self
        if -1 in shape:
            if shape.count(-1) > 1:
                raise ValueError("can only specify one unknown dimension")
            known = -int(np.prod(shape))
            shape = tuple(self.size // known if n == -1 else n for n in shape)
        if int(np.prod(shape)) != self.size:
            raise ValueError("total size of new array must be unchanged")
        if not layout_ok and len([n for n in shape if n > 1]) > 1:
            warnings.warn(
                f"reshape(..., order={order!r}) of an array that is not {order}-ordered in "
                "memory: PyCUDA relabels the memory instead of reordering the elements, so the "
                "result differs from NumPy's reshape (the simulator does as PyCUDA does).",
                stacklevel=2)
        strides = (f_strides if order == "F" else c_strides)(self.itemsize, shape)
        return self._like(shape, strides)

    def ravel(self):
        return self.reshape(self.size)

    def view(self, dtype=None):
        dtype = np.dtype(dtype or self.dtype)
        if not self.shape:
            return self._like((), (), dtype=dtype)
        axis = builtins.min(range(self.ndim), key=lambda i: abs(self.strides[i]))
        if self.shape[axis] * self.itemsize % dtype.itemsize:
            raise ValueError("new type not compatible with array")
        shape, strides = list(self.shape), list(self.strides)
        shape[axis] = self.shape[axis] * self.itemsize // dtype.itemsize
        strides[axis] = self.strides[axis] * dtype.itemsize // self.itemsize
        return self._like(tuple(shape), tuple(strides), dtype=dtype)

    def squeeze(self):
        keep = [i for i, n in enumerate(self.shape) if n > 1]
        return self._like(tuple(self.shape[i] for i in keep), tuple(self.strides[i] for i in keep))

    def transpose(self, axes=None):
        axes = range(self.ndim - 1, -1, -1) if axes is None else axes
        if len(axes) != self.ndim:
            raise ValueError("axes don't match array")
        return self._like(tuple(self.shape[a] for a in axes),
                          tuple(self.strides[a] for a in axes),
                          base=self if self.base is None else self.base)

    @property
    def T(self):  # noqa: N802 - PyCUDA's name
        return self.transpose()

    def __getitem__(self, index):
        shape, strides, offset = _index(self, index if isinstance(index, tuple) else (index,))
        return self._like(tuple(shape), tuple(strides), offset)

    def __setitem__(self, index, value):
        if np.isscalar(value):
            self[index].fill(value)
        else:
            copy_array(self[index], value)

    # ---- textures
    def bind_to_texref(self, texref, allow_offset=False):
        raise NeedsGPU(TEXTURES, "GPUArray.bind_to_texref")

    def bind_to_texref_ext(self, texref, channels=1, allow_double_hack=False,
                           allow_complex_hack=False, allow_offset=False):
        raise NeedsGPU(TEXTURES, "GPUArray.bind_to_texref_ext")


def _index(ary, index):
    """PyCUDA's basic indexing: (shape, strides, byte offset) of ary[index]."""
    shape, strides, offset, axis, seen_ellipsis = [], [], 0, 0, False
    for i, entry in enumerate(index):
        if isinstance(entry, slice):
            if axis >= ary.ndim:
                raise IndexError("too many axes in index")
            start, stop, step = entry.indices(ary.shape[axis])
            shape.append(builtins.max(0, (abs(stop - start) - 1) // abs(step) + 1)
                         if (stop - start) * step > 0 else 0)
            strides.append(step * ary.strides[axis])
            offset += ary.strides[axis] * start if shape[-1] else 0
            axis += 1
        elif isinstance(entry, (numbers.Integral, np.integer)):
            if axis >= ary.ndim:
                raise IndexError("too many axes in index")
            n = int(entry) + (ary.shape[axis] if entry < 0 else 0)
            if not 0 <= n < ary.shape[axis]:
                raise IndexError(f"subindex in axis {i} out of range")
            offset += ary.strides[axis] * n
            axis += 1
        elif entry is Ellipsis:
            if seen_ellipsis:
                raise IndexError("more than one ellipsis not allowed in index")
            seen_ellipsis = True
            rest = builtins.sum(1 for e in index[i + 1:] if e is not None)
            while axis < ary.ndim - rest:
                shape.append(ary.shape[axis])
                strides.append(ary.strides[axis])
                axis += 1
        elif entry is None:
            shape.append(1)
            strides.append(0)
        else:
            raise IndexError(f"invalid subindex in axis {i} (GPUArray supports slices, "
                             "integers, ... and np.newaxis; for a list of indices use "
                             "gpuarray.take on a GPU, or index a.get())")
    shape += ary.shape[axis:]
    strides += ary.strides[axis:]
    return shape, strides, offset
