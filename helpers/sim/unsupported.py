"""CUDA features that need a GPU, and the simulator's stand-ins for their names.

PyCUDA's names for these features exist in the simulator's modules, so code that merely
mentions them imports and runs up to the point of use; using one raises NeedsGPU, which names
the feature and says how to run on a GPU (textures and surfaces: SourceModule.get_texref and
get_surfref raise NotImplementedError).
"""

from .errors import NeedsGPU

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
