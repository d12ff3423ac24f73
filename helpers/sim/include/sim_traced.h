// sim_traced.h -- what the code of an instrumented module sees of the memory trace and race check
// (included by cuda_sim.h when the build defines SIM_TRACE). The trace's runtime (sim_trace.h) is
// compiled once for each kind of module and linked in (sim_trace.cpp, compile/prebuilt.py):
// the module's code reaches it through the instrumentation's calls (__tsan_read4, ...) and the
// three functions declared here.
#pragma once

#if !defined(__GNUC__) || defined(__clang__)
#error "the simulator's memory trace and race check need GCC's g++ (its instrumentation and attributes)"
#elif defined(SIM_TRACE_BLOCKS) && __GNUC__ < 12
#error "trace(divergence=True) needs g++ 12 or newer (the no_sanitize_coverage attribute)"
#endif

#pragma GCC visibility push(hidden)
namespace sim {
namespace trace {
void after_barrier();   // __syncthreads() has let this thread go
void after_syncwarp();  // and __syncwarp()
void fence(bool across_blocks);  // some thread called a fence (sim_trace.h)
}  // namespace trace
}  // namespace sim
#pragma GCC visibility pop

// ---- bytes of no array around the learner's __shared__ arrays -----------------------------------------
// The __shared__ arrays are thread-locals of the module, side by side in its thread-local block
// with no gap between them: the bounds check (sim_bounds.h) can tell an overrun of the first or
// last array from an access it may make only where the overrun lands inside that block. So the
// instrumented build adds a run of bytes no array owns before the learner's code (here) and one
// after it (compile/source.py's translation_unit). GCC lays out a unit's
// thread-locals in the reverse order of their definitions, so the two bracket the learner's
// arrays; in any other order they would still be bytes of no array. Namespaced, they are the
// runtime's: never taken for the learner's (compile/module.py).
#define __SIM_SHARED_GUARD(name) \
    namespace sim {              \
    __attribute__((used)) static thread_local unsigned char name[256];  \
    }
__SIM_SHARED_GUARD(shared_guard_after)

// ---- the built-in variables, read without a callback ----------------------------------------------
// threadIdx and friends live in the thread's Frame: reading them is no access to the learner's
// data, and a callback for each would cost more than the kernel. Inline assembly is not
// instrumented: each field is read by one 4-byte load into a small object (not a uint3 returned
// by value, which this build keeps in memory and would copy with wider loads than the runtime's
// stores, stalling on store forwarding). As everywhere in the prelude, the macros expand to
// reserved names only (__sim_...): the learner's own macros cannot change them.
struct __sim_quiet_dim {
    unsigned x, y, z;
    __attribute__((always_inline)) explicit __sim_quiet_dim(const uint3 *__p) {
#if defined(__x86_64__)
        asm("movl %1, %0" : "=r"(x) : "m"(__p->x));
        asm("movl %1, %0" : "=r"(y) : "m"(__p->y));
        asm("movl %1, %0" : "=r"(z) : "m"(__p->z));
#elif defined(__aarch64__)
        asm("ldr %w0, %1" : "=r"(x) : "m"(__p->x));
        asm("ldr %w0, %1" : "=r"(y) : "m"(__p->y));
        asm("ldr %w0, %1" : "=r"(z) : "m"(__p->z));
#else
        x = __p->x, y = __p->y, z = __p->z;  // instrumented, and left out: on the thread's stack
#endif
    }
    operator uint3() const { return uint3{x, y, z}; }
    operator dim3() const { return dim3(x, y, z); }
};
// The object is made where the macro is used (a function returning it would copy it).
#define __SIM_FIELD(name, field) \
    __attribute__((always_inline)) inline const uint3 *__sim_##name() { return &sim::frame()->field; }
__SIM_FIELD(thread_ptr, thread)
__SIM_FIELD(block_ptr, block)
__SIM_FIELD(block_dim_ptr, block_dim)
__SIM_FIELD(grid_dim_ptr, grid_dim)
#undef __SIM_FIELD
#undef threadIdx
#undef blockIdx
#undef blockDim
#undef gridDim
#define threadIdx (__sim_quiet_dim(__sim_thread_ptr()))
#define blockIdx (__sim_quiet_dim(__sim_block_ptr()))
#define blockDim (__sim_quiet_dim(__sim_block_dim_ptr()))
#define gridDim (__sim_quiet_dim(__sim_grid_dim_ptr()))

// ---- CUDA's synchronisation, seen by the trace ------------------------------------------------------
SIM_UNTRACED inline void __sim_trace_after_barrier() { sim::trace::after_barrier(); }
SIM_UNTRACED inline int __sim_trace_after_barrier_value(int __v) {
    sim::trace::after_barrier();
    return __v;
}
SIM_UNTRACED inline void __sim_trace_syncwarp(__sim_site __s, __sim_warp_mask __m) {
    sim::sync_warp(__s, __m.__mask);
    sim::trace::after_syncwarp();
}
SIM_UNTRACED inline void __sim_trace_fence(bool __across_blocks) { sim::trace::fence(__across_blocks); }
// cooperative_groups.h's barriers, at its caller's site (cuda_sim.h has the plain build's)
SIM_UNTRACED inline void __sim_sync_block_at(__sim_site __s) {
    sim::sync_block(__s);
    sim::trace::after_barrier();
}
SIM_UNTRACED inline void __sim_sync_warp_at(__sim_site __s, unsigned __mask) {
    __sim_trace_syncwarp(__s, __sim_warp_mask(__mask));
}
#undef __syncthreads
#undef __syncthreads_count
#undef __syncthreads_and
#undef __syncthreads_or
#undef __syncwarp
#define __syncthreads() (__sim_sync_block(__SIM_SITE), __sim_trace_after_barrier())
#define __syncthreads_count(p) __sim_trace_after_barrier_value(__sim_sync_block_reduce(__SIM_SITE, (p), 0))
#define __syncthreads_and(p) __sim_trace_after_barrier_value(__sim_sync_block_reduce(__SIM_SITE, (p), 1))
#define __syncthreads_or(p) __sim_trace_after_barrier_value(__sim_sync_block_reduce(__SIM_SITE, (p), 2))
#define __syncwarp(...) __sim_trace_syncwarp(__SIM_SITE, __sim_warp_mask(__VA_ARGS__))
#define __threadfence() __sim_trace_fence(true)
#define __threadfence_system() __sim_trace_fence(true)
#define __threadfence_block() __sim_trace_fence(false)
