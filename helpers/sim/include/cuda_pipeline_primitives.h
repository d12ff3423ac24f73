// cuda_pipeline_primitives.h -- CUDA's asynchronous copies from global to shared memory (PTX's
// cp.async, compute capability 8.0 on) through its pipeline primitives, on the simulator, with
// the names and signatures of CUDA 13's header.
//
// A GPU lets a copy land in shared memory at any moment between the thread's asking for it and
// the __pipeline_wait_prior that covers its batch. The simulator takes the latest moment: it
// reads the 4, 8 or 16 bytes from global memory when the thread asks (a load at that line) and
// stores them into shared memory only at that wait (a store at the wait's line; the race check,
// init check, bounds check and trace see both, the lines marked as the caller's accesses). So a
// kernel that reads a tile before waiting, or waits for a batch it never committed, reads shared
// memory's junk, as a GPU's fast copies may hide; one that reads another thread's copy without a
// __syncthreads() after the wait is reported by the race check. A copy never waited for is
// forgotten with its block. Before compute capability 8.0 a GPU copies at once (CUDA's header
// falls back to a load and a store).
#pragma once
// its own sim, whatever the learner's code made of it (compile/source.py: SIM_IN_THE_SCAN)
#pragma push_macro("sim")
#undef sim

#if !defined(__CUDA_ARCH_SIM__)
#error "this cuda_pipeline_primitives.h is the CUDA course simulator's: compile with its prelude"
#endif

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

// The calling thread's number in its block, and the block's threads: whose copies.
#define __SIM_THIS_THREAD threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z), \
                          blockDim.x * blockDim.y * blockDim.z

extern "C++" {
namespace sim {
namespace pipeline {
template <class _W> __attribute__((always_inline)) inline void read(CopyInFlight &__c, const void *__src) {
    *reinterpret_cast<_W *>(&__c.bytes) = *static_cast<const _W *>(__src);  // the caller's access
}
__attribute__((always_inline)) inline void land(const CopyInFlight &__c) {
    if (__c.size == 16)
        *static_cast<uint4 *>(__c.dst) = __c.bytes;  // the caller's access
    else if (__c.size == 8)
        *static_cast<uint2 *>(__c.dst) = uint2{__c.bytes.x, __c.bytes.y};  // the caller's access
    else
        *static_cast<uint32_t *>(__c.dst) = __c.bytes.x;  // the caller's access
}
}  // namespace pipeline
}  // namespace sim

// size_and_align is 4, 8 or 16, and both addresses are aligned to it; the last zfill bytes are
// zeros, not read (zfill == size_and_align reads nothing: a copy from outside an array).
__attribute__((always_inline)) inline void __pipeline_memcpy_async(
    void *__restrict__ __dst_shared, const void *__restrict__ __src_global, size_t __size_and_align,
    size_t __zfill = 0, __sim_caller __at = __sim_caller()) {
    const size_t __n = __size_and_align;
    if ((__n != 4 && __n != 8 && __n != 16) || __zfill > __n ||
        ((uintptr_t)__dst_shared | (uintptr_t)__src_global) % __n) {
        char __text[200];
        (snprintf)(__text, sizeof __text, "__pipeline_memcpy_async copies 4, 8 or 16 bytes between "
                   "addresses aligned to that size: asked for %zu bytes (zfill %zu) from %p to %p",
                   __n, __zfill, __src_global, __dst_shared);
        sim::fail_at(sim::current_worker(), sim::ASSERT, __at.site, __text);
    }
    sim::CopyInFlight __c{__dst_shared, uint4{}, (uint32_t)__n, 0};
    if (__zfill != 0 && __zfill != __n) {  // part read, part zeros
        unsigned char *__d = reinterpret_cast<unsigned char *>(&__c.bytes);
        const unsigned char *__s = static_cast<const unsigned char *>(__src_global);
        for (size_t __i = 0; __i < __n; __i++)  // (a loop GCC does not make a call of memmove)
            __d[__i] = __i < __n - __zfill ? __s[__i] : 0;  // the caller's access
    } else if (__zfill == 0 && __n == 16) {
        sim::pipeline::read<uint4>(__c, __src_global);  // the caller's access
    } else if (__zfill == 0 && __n == 8) {
        sim::pipeline::read<uint2>(__c, __src_global);  // the caller's access
    } else if (__zfill == 0) {
        sim::pipeline::read<uint32_t>(__c, __src_global);  // the caller's access
    }
    sim::ask_copy(__SIM_THIS_THREAD, __c);
}

// Closes a batch: the copies this thread asked for since the last commit.
inline void __pipeline_commit() { sim::commit_copies(__SIM_THIS_THREAD); }

// Waits until at most `prior` of this thread's committed batches are in flight: the copies of
// the others land now (copies asked for since the last commit are in no batch, and stay).
__attribute__((always_inline)) inline void __pipeline_wait_prior(size_t __prior) {
    sim::CopyInFlight __c;
    while (sim::next_copy_due(__SIM_THIS_THREAD, __prior, __c))
        sim::pipeline::land(__c);  // the caller's access
}
}
#undef __SIM_THIS_THREAD
#pragma pop_macro("sim")
