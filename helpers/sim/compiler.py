"""`pycuda.compiler.SourceModule` for the CPU simulator: the same .cu source, compiled by the host
C++ compiler (compile/builder.py) and loaded (compile/module.py), its kernels launched by run/launch.py.
"""

import functools

from .compile.builder import build, source_name
from .compile.module import Module
from .compile import cache as module_cache, warp_synchronous
from .errors import CompileError, LogicError
from .machine import devices
from .machine.device import LIMITS
from .run.launch import Function


class SourceModule:
    """pycuda.compiler.SourceModule, for the CPU simulator.

    ``cache_dir`` and ``keep`` mean what they mean in PyCUDA (a folder for the compiled module or
    False for none; keep the intermediate files). ``nvcc``, ``arch`` and ``code`` name the GPU
    compiler and the GPU's architecture, and mean nothing on a CPU."""

    def __init__(self, source, nvcc="nvcc", options=None, keep=False, no_extern_c=False,
                 arch=None, code=None, cache_dir=None, include_dirs=()):
        source = str(source)
        args = (source, options, no_extern_c, include_dirs or ())
        # the instrumented build, made when a launch is traced, race- or init-checked (microscope/),
        # and the twin with line tables, when a fault is to be placed (compile/lines.py)
        rebuild = functools.partial(build, *args, cache=cache_dir)
        self.path = build(*args, cache=cache_dir, keep=keep)
        try:
            self.module = Module(self.path, source, rebuild)
        except OSError:
            # A cached library the loader rejects (damaged after it was written): build it again.
            module_cache.discard(self.path)
            self.path = build(*args, cache=cache_dir, keep=keep)
            self.module = Module(self.path, source, rebuild)
        devices.adopt_module(self.module)  # its kernels run in the current device's context
        self._check_shared_memory(source)
        warp_synchronous.warn(source)

    def _check_shared_memory(self, source):
        limit = LIMITS["MAX_SHARED_MEMORY_PER_BLOCK"]
        for kernel in self.module.kernels.values():
            if kernel.static_shared > limit:
                nbytes = kernel.static_shared
                raise CompileError(
                    f"simulator compilation of {source_name(source)} failed\n"
                    f"ptxas error   : Entry function '{kernel.name}' uses too much shared data "
                    f"(0x{nbytes:x} bytes, 0x{limit:x} max): its __shared__ arrays take {nbytes} "
                    f"bytes, and a block may have {limit} ({limit // 1024} KiB)", None)

    def get_function(self, name):
        devices.check_alive(self.module, "cuModuleGetFunction failed: invalid resource handle")
        kernel = self.module.kernels.get(name)
        if kernel is None:
            known = ", ".join(sorted(self.module.kernels)) or "none"
            raise LogicError(
                f"cuModuleGetFunction failed: named symbol not found: no kernel {name!r} in this "
                f"module (its kernels: {known})")
        return Function(self.module, kernel)

    @property
    def compiler_warnings(self):
        """What g++ warned about the source's code, as records (compile/warned.py), kept with the
        module: a module found in the cache has them too."""
        return self.module.compiler_warnings

    def get_global(self, name):
        """(device pointer, size in bytes) of a __device__ or __constant__ variable."""
        return self.module.global_symbol(name)

    def get_texref(self, name):
        raise NotImplementedError("textures are not provided by the course's CPU simulator")

    get_surfref = get_texref
