// sim_atomics.h -- CUDA's atomic functions as real hardware atomics, since blocks run on several
// CPU threads at once. Included by cuda_sim.h, before the learner's code.
#pragma once

// The value's type is taken from the pointer, never deduced from the value: atomicAdd(&count, 1)
// on an unsigned count converts the 1, as CUDA's overloads do.
template <typename T> struct __sim_same { typedef T type; };

#define SIM_ATOMIC_RMW(name, builtin)                                              \
    template <typename T>                                                          \
    static inline typename std::enable_if<std::is_integral<T>::value, T>::type     \
    name(T *p, typename __sim_same<T>::type v) { return builtin(p, v, __ATOMIC_SEQ_CST); }
SIM_ATOMIC_RMW(atomicAdd, __atomic_fetch_add)
SIM_ATOMIC_RMW(atomicSub, __atomic_fetch_sub)
SIM_ATOMIC_RMW(atomicAnd, __atomic_fetch_and)
SIM_ATOMIC_RMW(atomicOr, __atomic_fetch_or)
SIM_ATOMIC_RMW(atomicXor, __atomic_fetch_xor)
SIM_ATOMIC_RMW(atomicExch, __atomic_exchange_n)
#undef SIM_ATOMIC_RMW

namespace sim {
// Floating-point and compound atomics: a compare-and-swap loop over the value's bits. On a GPU
// each call is one atomic, whatever other threads do; on the CPU a compare-and-swap fails and
// is retried when another thread changed the value in between. So the instrumented build sees
// (and the trace counts) one atomic a call: the first read is an atomic that changes nothing,
// and the compare-and-swaps are left out of the instrumentation (SIM_UNTRACED).
template <typename T> SIM_UNTRACED bool compare_and_swap(T *p, T *expected, T *want) {
    return __atomic_compare_exchange(p, expected, want, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}
template <typename T> static inline T atomic_read_noted(T *p) {
    typedef typename std::conditional<
        sizeof(T) == 8, unsigned long long,
        typename std::conditional<sizeof(T) == 4, unsigned,
                                  typename std::conditional<sizeof(T) == 2, unsigned short,
                                                            unsigned char>::type>::type>::type Bits;
    static_assert(sizeof(T) == sizeof(Bits), "atomics on 1-, 2-, 4- and 8-byte values");
    Bits bits = __atomic_fetch_or(reinterpret_cast<Bits *>(p), Bits(0), __ATOMIC_SEQ_CST);
    T value;
    __builtin_memcpy(&value, &bits, sizeof value);
    return value;
}
template <typename T, typename F> static inline T atomic_update(T *p, F f) {
    T old = atomic_read_noted(p), want;
    do {
        want = f(old);
    } while (!compare_and_swap(p, &old, &want));
    return old;
}
}  // namespace sim
static inline float atomicAdd(float *p, float v) {
    return sim::atomic_update(p, [v](float o) { return o + v; });
}
static inline double atomicAdd(double *p, double v) {
    return sim::atomic_update(p, [v](double o) { return o + v; });
}
// compute capability 9.0's vector adds: each element is added atomically on its own
static inline float2 atomicAdd(float2 *p, float2 v) {
    return make_float2(atomicAdd(&p->x, v.x), atomicAdd(&p->y, v.y));
}
static inline float4 atomicAdd(float4 *p, float4 v) {
    return make_float4(atomicAdd(&p->x, v.x), atomicAdd(&p->y, v.y), atomicAdd(&p->z, v.z),
                       atomicAdd(&p->w, v.w));
}
static inline float atomicExch(float *p, float v) {
    float old;
    __atomic_exchange(p, &v, &old, __ATOMIC_SEQ_CST);
    return old;
}
template <typename T> static inline T atomicMin(T *p, typename __sim_same<T>::type v) {
    return sim::atomic_update(p, [v](T o) { return v < o ? v : o; });
}
template <typename T> static inline T atomicMax(T *p, typename __sim_same<T>::type v) {
    return sim::atomic_update(p, [v](T o) { return v > o ? v : o; });
}
static inline unsigned atomicInc(unsigned *p, unsigned limit) {
    return sim::atomic_update(p, [limit](unsigned o) { return o >= limit ? 0u : o + 1; });
}
static inline unsigned atomicDec(unsigned *p, unsigned limit) {
    return sim::atomic_update(p, [limit](unsigned o) { return (o == 0 || o > limit) ? limit : o - 1; });
}
template <typename T>
static inline T atomicCAS(T *p, typename __sim_same<T>::type compare, typename __sim_same<T>::type val) {
    __atomic_compare_exchange(p, &compare, &val, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    return compare;
}

// The _block and _system forms: every atomic is a hardware atomic of the whole CPU, the strongest
// scope, so they are the plain ones.
#define atomicAdd_block atomicAdd
#define atomicAdd_system atomicAdd
#define atomicSub_block atomicSub
#define atomicSub_system atomicSub
#define atomicExch_block atomicExch
#define atomicExch_system atomicExch
#define atomicMin_block atomicMin
#define atomicMin_system atomicMin
#define atomicMax_block atomicMax
#define atomicMax_system atomicMax
#define atomicInc_block atomicInc
#define atomicInc_system atomicInc
#define atomicDec_block atomicDec
#define atomicDec_system atomicDec
#define atomicCAS_block atomicCAS
#define atomicCAS_system atomicCAS
#define atomicAnd_block atomicAnd
#define atomicAnd_system atomicAnd
#define atomicOr_block atomicOr
#define atomicOr_system atomicOr
#define atomicXor_block atomicXor
#define atomicXor_system atomicXor
