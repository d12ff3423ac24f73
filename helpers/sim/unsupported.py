"""What the simulator lacks: CUDA features that need a GPU, the simulator's stand-ins for their
names, and the two errors that say so.

PyCUDA's names for these features exist in the simulator's modules, so code that merely
mentions them imports and runs up to the point of use; using one raises NeedsGPU, which names
the feature and says how to run on a GPU (textures and surfaces: SourceModule.get_texref and
get_surfref raise NotImplementedError). A name of PyCUDA's that the simulator does not have
(yet) raises NotProvided: an AttributeError, which `hasattr`, `copy.copy` and `np.asarray` probe
for, and a NotImplementedError, as it was before.
"""

RUN_ON_GPU = "run on a GPU with CUDA_COURSE_BACKEND=pycuda"

TEXTURES = "textures (texture and surface references, CUDA arrays)"
OPENGL = "OpenGL interoperability"
CURAND = "the cuRAND library"
IPC = "inter-process memory sharing (IPC)"
DYNAMIC_PARALLELISM = "dynamic parallelism (kernels that launch kernels)"
GPU_BINARIES = "loading compiled GPU code (cubin, PTX, fatbin)"

# pycuda.driver's names, by the feature each belongs to.
DRIVER_FEATURES = {
    **dict.fromkeys([
        "TextureReference", "SurfaceReference", "Array", "ArrayDescriptor", "ArrayDescriptor3D",
        "array_format", "array3d_flags", "address_mode", "filter_mode", "matrix_to_array",
        "matrix_to_texref", "np_to_array", "gpuarray_to_array", "make_multichannel_2d_array",
        "bind_array_to_texref", "dtype_to_array_format", "memcpy_htoa", "memcpy_atoh",
        "memcpy_dtoa", "memcpy_atod", "memcpy_atoa", "TRSA_OVERRIDE_FORMAT",
        "TRSF_READ_AS_INTEGER", "TRSF_NORMALIZED_COORDINATES", "TR_DEFAULT"], TEXTURES),
    **dict.fromkeys(["IPCMemoryHandle", "mem_get_ipc_handle", "ipc_mem_flags"], IPC),
    **dict.fromkeys(["module_from_buffer", "module_from_file", "Linker", "jit_input_type",
                     "jit_option"], GPU_BINARIES),
}


def gpu_only(feature, call):
    """A stand-in for a function or class of a GPU-only feature: calling it raises NeedsGPU."""
    def stand_in(*args, **kwargs):
        raise NeedsGPU(feature, call)

    stand_in.__name__ = call.rsplit(".", 1)[-1]
    stand_in.__qualname__ = stand_in.__name__
    stand_in.__doc__ = f"{call}: needs a GPU ({feature}); the CPU simulator does not provide it."
    return stand_in


class NotProvided(AttributeError, NotImplementedError):
    """A name of PyCUDA's that the simulator does not provide."""


class NeedsGPU(NotImplementedError):
    """A CUDA feature that only a GPU has: ``feature`` (unsupported.py's words for it) and the
    ``call`` that used it ("gpuarray.take"; None where none is named); the message names both."""

    def __init__(self, feature, call=None):
        self.feature, self.call = feature, call
        what = f"{call} needs a GPU: it uses {feature}" if call else (
            f"{feature[0].upper()}{feature[1:]} need a GPU")
        super().__init__(f"{what}, which the course's CPU simulator does not provide. "
                         f"To use it, {RUN_ON_GPU}.")


def not_provided(module, name, advice=""):
    """The NotProvided error for `module.name`, saying what to do instead."""
    return NotProvided(
        f"{module}.{name} is not provided by the course's CPU simulator. "
        + (advice or f"To use it, {RUN_ON_GPU}."), name=name)


def module_getattr(module):
    """A module-level __getattr__ that answers unknown names with NotProvided."""
    def __getattr__(name):
        if name.startswith("__"):
            raise AttributeError(f"module {module!r} has no attribute {name!r}", name=name)
        raise not_provided(module, name)
    return __getattr__
