// sim_trace_callbacks.h -- the functions the instrumented build calls (included by sim_trace.h).
//
// GCC's ThreadSanitizer instrumentation (-fsanitize=thread, without its library) calls
// __tsan_read4(address) before a 4-byte load, __tsan_write16 before a 16-byte store, and so on
// (__tsan_unaligned_read4 where it does not take the address to be a multiple of the size; an
// address that is not, in the first, is a misaligned access: sim_bounds.h);
// unlike AddressSanitizer's, it also instruments accesses to a variable at a constant index
// (`s[0]` of a __shared__ array), which a race check must see. Atomic operations become calls
// too, which must do the operation: here they do it, and are noted as atomics (never races).
// -fsanitize-coverage=trace-pc adds a call at the start of each basic block.
#pragma once

#define SIM_CALLBACK extern "C" __attribute__((visibility("hidden"), used)) SIM_UNTRACED

#define SIM_ACCESS_CALLBACKS(n)                                                                      \
    SIM_CALLBACK void __tsan_read##n(void *a) {                                                    \
        if (__builtin_expect((uintptr_t)a & (n - 1), 0))                                           \
            sim::trace::misaligned_access((uintptr_t)a, n, 0, __builtin_return_address(0));       \
        sim::trace::access((uintptr_t)a, n, 0, __builtin_return_address(0));                      \
    }                                                                                              \
    SIM_CALLBACK void __tsan_write##n(void *a) {                                                   \
        if (__builtin_expect((uintptr_t)a & (n - 1), 0))                                           \
            sim::trace::misaligned_access((uintptr_t)a, n, sim::trace::WRITE,                     \
                                          __builtin_return_address(0));                           \
        sim::trace::access((uintptr_t)a, n, sim::trace::WRITE, __builtin_return_address(0));      \
    }                                                                                              \
    SIM_CALLBACK void __tsan_unaligned_read##n(void *a) {                                          \
        sim::trace::access((uintptr_t)a, n, 0, __builtin_return_address(0));                      \
    }                                                                                              \
    SIM_CALLBACK void __tsan_unaligned_write##n(void *a) {                                         \
        sim::trace::access((uintptr_t)a, n, sim::trace::WRITE, __builtin_return_address(0));      \
    }
SIM_ACCESS_CALLBACKS(1)
SIM_ACCESS_CALLBACKS(2)
SIM_ACCESS_CALLBACKS(4)
SIM_ACCESS_CALLBACKS(8)
SIM_ACCESS_CALLBACKS(16)
#undef SIM_ACCESS_CALLBACKS
SIM_CALLBACK void __tsan_read_range(void *a, unsigned long n) {
    sim::trace::access((uintptr_t)a, (unsigned)n, 0, __builtin_return_address(0));
}
SIM_CALLBACK void __tsan_write_range(void *a, unsigned long n) {
    sim::trace::access((uintptr_t)a, (unsigned)n, sim::trace::WRITE, __builtin_return_address(0));
}

SIM_CALLBACK void __sanitizer_cov_trace_pc() {
    if (!(sim::trace::cfg.mode & sim::trace::BLOCKS)) return;
    uintptr_t off = (uintptr_t)__builtin_return_address(0) - sim::trace::text_lo;
    if (off < sim::trace::text_n && sim::trace::site_of[off])
        sim::trace::record_slow(0, 0, sim::trace::BASIC_BLOCK, sim::trace::site_of[off]);
}

// ---- atomics: done here, and noted -------------------------------------------------------------
#define SIM_NOTE(p, n) sim::trace::note_atomic((uintptr_t)(p), n, __builtin_return_address(0))
#define SIM_NOTE_CAS(p, n, c) sim::trace::note_cas((uintptr_t)(p), n, (uint64_t)(c), __builtin_return_address(0))
#define SIM_ATOMIC_CALLBACKS(bits, T)                                                                 \
    SIM_CALLBACK T __tsan_atomic##bits##_load(const volatile T *a, int) {                          \
        return __atomic_load_n(a, __ATOMIC_SEQ_CST);                                               \
    }                                                                                              \
    SIM_CALLBACK void __tsan_atomic##bits##_store(volatile T *a, T v, int) {                       \
        __atomic_store_n(a, v, __ATOMIC_SEQ_CST);                                                  \
    }                                                                                              \
    SIM_CALLBACK T __tsan_atomic##bits##_exchange(volatile T *a, T v, int) {                       \
        SIM_NOTE(a, bits / 8);                                                                     \
        return __atomic_exchange_n(a, v, __ATOMIC_SEQ_CST);                                        \
    }                                                                                              \
    SIM_ATOMIC_RMW(bits, T, fetch_add) SIM_ATOMIC_RMW(bits, T, fetch_sub)                          \
    SIM_ATOMIC_RMW(bits, T, fetch_and) SIM_ATOMIC_RMW(bits, T, fetch_or)                           \
    SIM_ATOMIC_RMW(bits, T, fetch_xor) SIM_ATOMIC_RMW(bits, T, fetch_nand)                         \
    SIM_CALLBACK int __tsan_atomic##bits##_compare_exchange_strong(volatile T *a, T *c, T v, int, int) { \
        SIM_NOTE_CAS(a, bits / 8, *c);                                                             \
        return __atomic_compare_exchange_n(a, c, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);    \
    }                                                                                              \
    SIM_CALLBACK int __tsan_atomic##bits##_compare_exchange_weak(volatile T *a, T *c, T v, int, int) { \
        SIM_NOTE_CAS(a, bits / 8, *c);                                                             \
        return __atomic_compare_exchange_n(a, c, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);    \
    }                                                                                              \
    SIM_CALLBACK T __tsan_atomic##bits##_compare_exchange_val(volatile T *a, T c, T v, int, int) { \
        SIM_NOTE_CAS(a, bits / 8, c);                                                              \
        __atomic_compare_exchange_n(a, &c, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);          \
        return c;                                                                                  \
    }
#define SIM_ATOMIC_RMW(bits, T, op)                                                                   \
    SIM_CALLBACK T __tsan_atomic##bits##_##op(volatile T *a, T v, int) {                           \
        SIM_NOTE(a, bits / 8);                                                                     \
        return __atomic_##op(a, v, __ATOMIC_SEQ_CST);                                              \
    }
SIM_ATOMIC_CALLBACKS(8, uint8_t)
SIM_ATOMIC_CALLBACKS(16, uint16_t)
SIM_ATOMIC_CALLBACKS(32, uint32_t)
SIM_ATOMIC_CALLBACKS(64, uint64_t)
#undef SIM_ATOMIC_RMW
#undef SIM_ATOMIC_CALLBACKS
#undef SIM_NOTE
#undef SIM_NOTE_CAS
SIM_CALLBACK void __tsan_atomic_thread_fence(int) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
SIM_CALLBACK void __tsan_atomic_signal_fence(int) { __atomic_signal_fence(__ATOMIC_SEQ_CST); }

// The sanitizer's start-up and bookkeeping calls: nothing to do without its library.
SIM_CALLBACK void __tsan_init() {}
SIM_CALLBACK void __tsan_func_entry(void *) {}
SIM_CALLBACK void __tsan_func_exit() {}
SIM_CALLBACK void __tsan_vptr_update(void **, void *) {}
SIM_CALLBACK void __tsan_vptr_read(void **) {}
