// cuda_pipeline_primitives.h -- CUDA's asynchronous copies from global to shared memory (PTX's
// cp.async, compute capability 8.0 on) through its pipeline primitives, on the simulator, with
// the names and signatures of CUDA 13's header.
//
// A copy is made when it is asked for, by the thread that asks, as one load and one store of its
// 4, 8 or 16 bytes (the race check, init check, bounds check and trace see them at the caller's
// line: the lines marked as the caller's access); __pipeline_commit and __pipeline_wait_prior then find nothing left in flight. So a
// kernel that reads the bytes before its __pipeline_wait_prior gets them here, where a GPU may
// not have written them yet; one that reads another thread's copy without a __syncthreads() after
// the wait is reported by the race check. Before compute capability 8.0 a GPU copies this way too
// (CUDA's header falls back to a load and a store).
#pragma once

#if !defined(__CUDA_ARCH_SIM__)
#error "this cuda_pipeline_primitives.h is the CUDA course simulator's: compile with its prelude"
#endif

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

extern "C++" {
namespace sim {
namespace pipeline {
struct caller {
    __sim_site site;
    caller(const char *__file = __builtin_FILE(), int __line = __builtin_LINE()) : site{__file, __line, -__line} {}
};

template <class _W> __attribute__((always_inline)) inline void copy(void *__dst, const void *__src, bool __zeros) {
    *static_cast<_W *>(__dst) = __zeros ? _W{} : *static_cast<const _W *>(__src);  // the caller's access
}
}  // namespace pipeline
}  // namespace sim

// size_and_align is 4, 8 or 16, and both addresses are aligned to it; the last zfill bytes are
// zeros, not read (zfill == size_and_align reads nothing: a copy from outside an array).
__attribute__((always_inline)) inline void __pipeline_memcpy_async(
    void *__restrict__ __dst_shared, const void *__restrict__ __src_global, size_t __size_and_align,
    size_t __zfill = 0, sim::pipeline::caller __c = sim::pipeline::caller()) {
    const size_t __n = __size_and_align;
    if ((__n != 4 && __n != 8 && __n != 16) || __zfill > __n ||
        ((uintptr_t)__dst_shared | (uintptr_t)__src_global) % __n) {
        char __text[200];
        (snprintf)(__text, sizeof __text, "__pipeline_memcpy_async copies 4, 8 or 16 bytes between "
                   "addresses aligned to that size: asked for %zu bytes (zfill %zu) from %p to %p",
                   __n, __zfill, __src_global, __dst_shared);
        sim::fail_at(sim::current_worker(), sim::ASSERT, __c.site, __text);
    }
    if (__zfill != 0 && __zfill != __n) {  // part read, part zeros
        unsigned char *__d = static_cast<unsigned char *>(__dst_shared);
        const unsigned char *__s = static_cast<const unsigned char *>(__src_global);
        for (size_t __i = 0; __i < __n; __i++)
            __d[__i] = __i < __n - __zfill ? __s[__i] : 0;  // the caller's access
    } else if (__n == 16) {
        sim::pipeline::copy<uint4>(__dst_shared, __src_global, __zfill != 0);  // the caller's access
    } else if (__n == 8) {
        sim::pipeline::copy<uint2>(__dst_shared, __src_global, __zfill != 0);  // the caller's access
    } else {
        sim::pipeline::copy<uint32_t>(__dst_shared, __src_global, __zfill != 0);  // the caller's access
    }
}

// The copies this thread asked for since the last commit are a batch; every copy has landed.
inline void __pipeline_commit() {}

// Waits until at most `prior` of this thread's batches are in flight: none ever is here.
inline void __pipeline_wait_prior(size_t) {}
}
