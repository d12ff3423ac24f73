"""What the simulator leaves out of CUDA's device functions: the one list.

CUDA 13's headers declare some 800 device functions for compute capability 9.0 (the H200's);
`tests/kernels/test_intrinsics_complete.py` reads them from nvcc and checks that each one either
compiles and runs on the simulator or is named here. What is named here needs hardware or a
runtime that a CPU simulator does not model; a kernel that calls one is refused at compile time
with an error that names the function and its feature (`messages.compile_error`), never with a
bare "not declared". Headers a kernel must include itself are refused as a whole (HEADERS), and
the members of cooperative groups beyond block and warp scope by name (MEMBERS).
"""

import re

FEATURES = {
    "textures and surfaces": """tex1D tex1DGrad tex1DLayered tex1DLayeredGrad tex1DLayeredLod
        tex1DLod tex1Dfetch tex2D tex2DGrad tex2DLayered tex2DLayeredGrad tex2DLayeredLod tex2DLod
        tex2Dgather tex3D tex3DGrad tex3DLod texCubemap texCubemapGrad texCubemapLayered
        texCubemapLayeredGrad texCubemapLayeredLod texCubemapLod surf1DLayeredread
        surf1DLayeredwrite surf1Dread surf1Dwrite surf2DLayeredread surf2DLayeredwrite surf2Dread
        surf2Dwrite surf3Dread surf3Dwrite surfCubemapLayeredread surfCubemapLayeredwrite
        surfCubemapread surfCubemapwrite""",
    "thread block clusters (compute capability 9.0's distributed shared memory)": """__clusterDim
        __clusterDimIsSpecified __clusterGridDimInClusters __clusterIdx __clusterRelativeBlockIdx
        __clusterRelativeBlockRank __clusterSizeInBlocks __cluster_barrier_arrive
        __cluster_barrier_arrive_relaxed __cluster_barrier_wait __cluster_map_shared_multicast
        __cluster_map_shared_rank __cluster_query_shared_rank __threadfence_cluster
        __isClusterShared""",
    "address spaces (the simulator has one flat address space, with no generic, global, shared, "
    "constant or local window to ask about or convert to)": """__cvta_constant_to_generic
        __cvta_generic_to_constant __cvta_generic_to_global __cvta_generic_to_grid_constant
        __cvta_generic_to_local __cvta_generic_to_shared __cvta_global_to_generic
        __cvta_grid_constant_to_generic __cvta_local_to_generic __cvta_shared_to_generic
        __isConstant __isCtaShared __isGlobal __isGridConstant __isLocal __isShared""",
    "the device runtime (dynamic parallelism: kernels that launch kernels, and the CUDA runtime "
    "called from device code)": """cudaCGGetIntrinsicHandle cudaCGGetRank cudaCGGetSize
        cudaCGSynchronize cudaCGSynchronizeGrid cudaDeviceGetAttribute cudaDeviceGetCacheConfig
        cudaDeviceGetLimit cudaDeviceGetSharedMemConfig cudaEventCreateWithFlags cudaEventDestroy
        cudaEventRecord cudaEventRecordWithFlags cudaEventRecordWithFlags_ptsz cudaEventRecord_ptsz
        cudaFree cudaFuncGetAttributes cudaGetCurrentGraphExec cudaGetDevice cudaGetDeviceCount
        cudaGetErrorName cudaGetErrorString cudaGetLastError cudaGetParameterBuffer
        cudaGetParameterBufferV2 cudaGraphKernelNodeSetEnabled cudaGraphKernelNodeSetGridDim
        cudaGraphKernelNodeSetParam cudaGraphKernelNodeUpdatesApply cudaGraphLaunch
        cudaGraphSetConditional cudaGridDependencySynchronize cudaLaunchDevice cudaLaunchDeviceV2
        cudaLaunchDeviceV2_ptsz cudaLaunchDevice_ptsz cudaMalloc cudaMemcpy2DAsync
        cudaMemcpy2DAsync_ptsz cudaMemcpy3DAsync cudaMemcpy3DAsync_ptsz cudaMemcpyAsync
        cudaMemcpyAsync_ptsz cudaMemset2DAsync cudaMemset2DAsync_ptsz cudaMemset3DAsync
        cudaMemset3DAsync_ptsz cudaMemsetAsync cudaMemsetAsync_ptsz
        cudaOccupancyMaxActiveBlocksPerMultiprocessor
        cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags cudaOccupancyMaxPotentialBlockSize
        cudaOccupancyMaxPotentialBlockSizeVariableSMem
        cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags
        cudaOccupancyMaxPotentialBlockSizeWithFlags cudaPeekAtLastError cudaRuntimeGetVersion
        cudaStreamCreateWithFlags cudaStreamDestroy cudaStreamWaitEvent cudaStreamWaitEvent_ptsz
        cudaTriggerProgrammaticLaunchCompletion""",
    "warp votes without _sync (gone since compute capability 7.0: ptxas refuses them for sm_90; "
    "use __ballot_sync, __any_sync and __all_sync with a mask)": "__ballot __any __all ballot any all",
    "named barriers (bar.sync with a barrier number and a thread count; __syncthreads() is "
    "barrier 0 for the whole block)": "__barrier_sync __barrier_sync_count",
    "the profiler's performance counters": "__prof_trigger",
    "aligned device-side malloc": "__nv_aligned_device_malloc",
}
# {function: feature}
FUNCTIONS = {name: feature for feature, names in FEATURES.items() for name in names.split()}

# Headers a kernel includes for a feature the simulator leaves out, and type names its errors may
# mention: {name: feature}. (Half precision and bfloat16 are simulated: include/cuda_fp16.h; the
# tensor cores' warp matrix functions too: include/mma.h; asynchronous copies' primitives:
# include/cuda_pipeline_primitives.h.)
HEADERS = {"cuda_fp8.h": "8-bit floats",
           "cuda_pipeline.h": "the C++ API of asynchronous copies, cuda::pipeline (the simulator has "
                              "their primitives, __pipeline_memcpy_async in cuda_pipeline_primitives.h)",
           "texture": "texture references", "cudaTextureObject_t": "textures and surfaces"}

# Cooperative groups (include/cooperative_groups.h) are simulated at block and warp scope. What a
# grid_group does beyond a normal launch is declared deleted there, and named here as g++ names
# it ("use of deleted function"): {member: feature}.
_GRID_SYNC = ("grid-wide synchronisation, which needs a cooperative launch "
              "(cuLaunchCooperativeKernel): PyCUDA has none, so no PyCUDA kernel can call it; "
              "split the kernel in two launches where the grid must meet")
MEMBERS = {"grid_group::sync": _GRID_SYNC, "grid_group::barrier_arrive": _GRID_SYNC,
           "grid_group::barrier_wait": _GRID_SYNC}

# Inline assembly (asm("...")) is PTX on a GPU: the host's assembler refuses its instructions.
INLINE_PTX = ("inline PTX assembly, the GPU's own instruction set, which a CPU cannot run (most "
              "of what PTX is used for has a CUDA function: __shfl_sync, __activemask, "
              "threadIdx.x % 32 for the lane)")
_ASSEMBLER = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+): Error: (?:no such instruction|"
                        r"unknown pseudo-op|junk|bad register name|invalid instruction suffix)", re.M)


def inline_ptx(stderr, in_prelude):
    """[("asm", INLINE_PTX, file, line)] of the assembler's first refusal of an asm statement in
    the learner's files (not ``in_prelude(file)``), or [] where it refused none."""
    found = next((m for m in _ASSEMBLER.finditer(stderr) if not in_prelude(m.group("file"))), None)
    return [("asm", INLINE_PTX, found.group("file"), int(found.group("line")))] if found else []
