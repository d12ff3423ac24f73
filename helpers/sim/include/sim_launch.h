// sim_launch.h -- the launcher of a kernel, which takes the kernel's parameter types from the
// compiled kernel itself, and the C functions that Python calls (run/launch.py).
//
// Included by the prelude, before the learner's code. After that code the compiler driver appends
// only the table of kernels, in reserved names (a learner's macros cannot reach it):
//     extern "C" __SIM_CONSTINIT const __sim_kernel_entry __sim_kernel_table[] = {
//         __sim_entry<&k, 1>("k"), ... };
//     extern "C" const int __sim_kernel_table_size = 1;
//     extern "C" const int __sim_kernel_max_threads[] = { 256, ... };  // __launch_bounds__, 0: none
#pragma once

#include <tuple>
#include <utility>

#pragma GCC visibility push(hidden)
namespace sim {

// "float", "const float *", "uchar3": the C type's name, from the compiler.
template <typename T> const char *type_name() {
    static char name[128];
    if (!name[0]) {
        const char *p = __PRETTY_FUNCTION__, *s = strstr(p, "T = ");
        s = s ? s + 4 : p;
        size_t n = strcspn(s, ";]");
        if (n >= sizeof name) n = sizeof name - 1;
        memcpy(name, s, n);
        name[n] = 0;
    }
    return name;
}

// What a parameter receives: its value, or, for a reference (float &x), the address the reference
// binds to, a pointer's 8 bytes, as nvcc passes it, which std::apply turns into the reference.
template <typename T> struct Bound {
    T *address;
    operator T &() const { return *address; }
};
template <typename A> struct Passed { using type = typename std::decay<A>::type; };
template <typename T> struct Passed<T &> { using type = Bound<T>; };

template <typename T> ParamInfo param_info() {
    using D = typename std::decay<T>::type;
    if constexpr (std::is_lvalue_reference<T>::value)
        return ParamInfo{'P', (int)sizeof(D *), type_name<T>()};  // "float&"
    int kind = std::is_pointer<D>::value ? 'P'
             : std::is_floating_point<D>::value ? 'f'
             : std::is_integral<D>::value ? (std::is_signed<D>::value ? 'i' : 'u')
             : std::is_enum<D>::value ? 'i' : 'S';
    return ParamInfo{kind, (int)sizeof(D), type_name<D>()};
}

template <typename F> struct Signature;
template <typename... A> struct Signature<void (*)(A...)> {
    using Tuple = std::tuple<typename Passed<A>::type...>;
    static constexpr int count = sizeof...(A);
    static void describe(ParamInfo *out) {
        int i = 0;
        ((out[i++] = param_info<A>()), ...);
        (void)out, (void)i;
    }
};

#if SIM_INDICES_IN_MODULE && !SIM_FIBERS && !defined(SIM_TRACE)
// A plain module's built-in variables (cuda_sim.h), those of the thread its worker runs: a copy
// of the Frame's indices in variables of the module whose address is never taken, so that the
// compiler knows that no store of the kernel can change them. In the block loop below it keeps
// blockIdx and blockDim in registers and threadIdx.x follows the loop's counter. One variable an
// index, not a struct: a kernel whose code the compiler vectorised read two of a struct's fields
// with one load, through the struct's address, and from then on every kernel of the module after
// it reloaded them all for each thread.
#define SIM_UNPUBLISHED_LOOP 1
static thread_local unsigned thread_x, thread_y, thread_z, block_x, block_y, block_z;
static thread_local unsigned block_dim_x, block_dim_y, block_dim_z, grid_dim_x, grid_dim_y, grid_dim_z;
#if SIM_INDICES_IN_MODULE == 2
// A module with __device__ functions (x86-64): threadIdx.x in r14, which the module reserves
// (-ffixed-r14), set for each thread by a move between registers. As a thread-local variable it
// was a store a thread and, where a call sits in the loop (the float-to-integer check's), the C
// library's lookup of the variable's address (__tls_get_addr) a thread, which made rgb_to_gray
// slower than reading the Frame. Code built without the reservation (the C library, the grid
// runner) saves r14 as its own, so the module's entry points put the caller's value back
// (caller_r14, restore_r14), and a fault's longjmp restores it with the others.
__attribute__((always_inline)) inline unsigned thread_x_now() {
    unsigned x;
    asm volatile("movl %%r14d, %0" : "=r"(x));  // volatile: read where the kernel reads it
    return x;
}
__attribute__((always_inline)) inline void set_thread_x(unsigned x) {
    asm volatile("movl %0, %%r14d" : : "r"(x));
}
// (Saved and restored by hand: a destructor would be a landing pad, and _Unwind_Resume a call.)
__attribute__((always_inline)) inline uint64_t caller_r14() {
    uint64_t r;
    asm volatile("movq %%r14, %0" : "=r"(r));
    return r;
}
__attribute__((always_inline)) inline void restore_r14(uint64_t r) {
    asm volatile("movq %0, %%r14" : : "r"(r));
}
#else
__attribute__((always_inline)) inline unsigned thread_x_now() { return thread_x; }
__attribute__((always_inline)) inline void set_thread_x(unsigned x) { thread_x = x; }
__attribute__((always_inline)) inline uint64_t caller_r14() { return 0; }
__attribute__((always_inline)) inline void restore_r14(uint64_t) {}
#endif
#else
#define SIM_UNPUBLISHED_LOOP 0
#endif

// A block as a loop over its threads, in order, each thread's indices written into its Frame
// first, for the runtime (a fault, an assert or an integer division by zero names its thread from
// there), and `thread` called for each: a kernel called through a pointer, not inlined. The rare
// loops (a second run of a block that failed, to name its thread; the search for an overrun's
// culprit, which checks the watched bytes whenever a thread stops; a block whose threads' indices
// along x pass INT_MAX), one for all the kernels of a module: each inlined copy of a kernel, or
// each copy of this loop, was compile time in every module.
__attribute__((noinline)) inline void run_block_called(void *args, void (*thread)(void *args)) {
    Frame *f = frame();
    const uint3 bd = f->block_dim;
    Worker *w = f->worker;
#if SIM_UNPUBLISHED_LOOP
    const uint64_t r14 = caller_r14();
    block_x = f->block.x, block_y = f->block.y, block_z = f->block.z;
    block_dim_x = bd.x, block_dim_y = bd.y, block_dim_z = bd.z;
    grid_dim_x = f->grid_dim.x, grid_dim_y = f->grid_dim.y, grid_dim_z = f->grid_dim.z;
#endif
    for (unsigned z = 0; z < bd.z; z++) {
        for (unsigned y = 0; y < bd.y; y++) {
            for (unsigned x = 0; x < bd.x; x++) {
                f->thread = uint3{x, y, z};
#if SIM_UNPUBLISHED_LOOP
                set_thread_x(x), thread_y = y, thread_z = z;
#endif
                thread(args);
                if (w->watching) check_watch(w);
            }
        }
    }
#if SIM_UNPUBLISHED_LOOP
    restore_r14(r14);
#endif
}

template <auto K> struct Kernel {
    using Sig = Signature<decltype(K)>;
    using Tuple = typename Sig::Tuple;

    template <size_t... I> static void fill(Tuple &t, void **args, std::index_sequence<I...>) {
        ((memcpy((void *)&std::get<I>(t), args[I], sizeof(std::get<I>(t)))), ...);
        (void)args;
    }
    static void *make_args(void **args) {
        Tuple *t = new Tuple();
        fill(*t, args, std::make_index_sequence<Sig::count>());
        return t;
    }
    static void free_args(void *t) { delete (Tuple *)t; }
    static void run_thread(void *t) { std::apply(K, *(Tuple *)t); }
    // One thread, the kernel called through a pointer the compiler cannot follow, so not inlined.
    static void call(void *t) {
        decltype(K) const volatile k = K;
        std::apply((decltype(K))k, *(const Tuple *)t);
    }
    static void run_block_called(void *t) { sim::run_block_called(t, call); }
#if !SIM_UNPUBLISHED_LOOP
    // A plain module whose kernels read their indices from the Frame (one with __device__
    // functions, or an instrumented one) runs its blocks here: a loop over the block's threads,
    // in order, each thread's indices written into its Frame first, the kernel inlined. The
    // arguments are copied to a local that no store of the kernel can reach, so that the
    // compiler keeps them in registers.
    static void run_block_publishing(void *t) {
        const Tuple args = *(Tuple *)t;
        Frame *f = frame();
        const uint3 bd = f->block_dim;
        for (unsigned z = 0; z < bd.z; z++) {
            f->thread.z = z;
            for (unsigned y = 0; y < bd.y; y++) {
                f->thread.y = y;
                for (unsigned x = 0; x < bd.x; x++) {
                    f->thread.x = x;
                    std::apply(K, args);
                }
            }
        }
    }
#endif
#if SIM_UNPUBLISHED_LOOP
    // Every plain launch of a module whose kernels read their indices from the module's variables
    // runs its blocks here: a loop over the block's threads, in order, the kernel inlined (cuda_sim.h's
    // __global__ makes it so), that the compiler can vectorise across threads. Nothing is written
    // into the Frame: when a thread faults (or asserts, or divides by zero), the runtime runs the
    // block again on run_block_called, which names it (sim_grid.h: name_the_thread).
    //
    // For that the loop's counter is the thread's index in the grid along x, an int, and threadIdx.x
    // is worked out from it: a kernel's  int i = blockIdx.x * blockDim.x + threadIdx.x  is then
    // the counter itself (unsigned arithmetic: base + (g - base) == g), whose every value the
    // compiler can follow. Counted in threadIdx.x, it was (int)(unsigned)(base + x), which may wrap
    // around as far as the compiler knows, so that it could not tell where each thread's element
    // is and vectorised nothing. A block whose indices along x pass INT_MAX runs on run_block_called.
    //
    // GCC's -O2 vectorises only loops that need no check at run time (its "very cheap" cost model);
    // this loop needs one, for every pair of the kernel's pointers that might overlap (the vector
    // code runs only where none do, else the loop as written: the threads' order is kept), and a
    // scalar loop for the threads past the last full vector: "cheap" allows both. The guard of a
    // kernel's last block,  if (i < n),  is a branch in the loop, which keeps it from being
    // vectorised (masked loads and stores would do, but the float operations between them might
    // trap as far as the compiler knows, and AMD's masked stores are slow); -fsplit-loops splits the
    // loop where i reaches n instead. Neither option changes what any thread of a kernel without a
    // loop computes, so only such a kernel runs on run_block_vectorised (the compiler driver says
    // which: compile/source.py's loop_free_kernels). In a kernel's own loop, "cheap" vectorises
    //  sum += a[k] * b[k]  as products in a vector added one by one in order, and a product
    // computed apart from its add is no longer fused as nvcc fuses it (165 of 256 sums of 16
    // products differed in their last bits).
    static void run_block_fast(void *t) { fast_loop(t); }
    __attribute__((optimize("vect-cost-model=cheap", "split-loops")))
    static void run_block_vectorised(void *t) { fast_loop(t); }
    __attribute__((always_inline)) static inline void fast_loop(void *t) {
        const Tuple args = *(Tuple *)t;
        Frame *f = frame();
        const uint3 bd = f->block_dim;
        const unsigned bx = f->block.x, base = bx * bd.x;
        if ((uint64_t)bx * bd.x + bd.x > (uint64_t)__INT_MAX__) return run_block_called(t);
        const uint64_t r14 = caller_r14();
        block_x = bx, block_y = f->block.y, block_z = f->block.z;
        block_dim_x = bd.x, block_dim_y = bd.y, block_dim_z = bd.z;
        grid_dim_x = f->grid_dim.x, grid_dim_y = f->grid_dim.y, grid_dim_z = f->grid_dim.z;
        const int first = (int)base, end = first + (int)bd.x;
        for (unsigned z = 0; z < bd.z; z++) {
            for (unsigned y = 0; y < bd.y; y++) {
                thread_y = y, thread_z = z;
                for (int g = first; g < end; g++) {
                    set_thread_x((unsigned)g - base);
                    std::apply(K, args);
                }
            }
        }
        restore_r14(r14);
    }
#endif
    // Only the runners the module's kind calls (sim_grid.h's fiber_main and plain_main): a fiber a
    // thread with SIM_FIBERS, else a loop over the block's threads. The compiler inlines the kernel into each
    // runner it is given, so each one that is never called was a copy of the kernel compiled for
    // nothing (a module of 24 kernels with barriers: 1.96 CPU-seconds of g++, 1.17 without).
    // Runner: 1 for a kernel that runs on the loop the compiler may vectorise (source.py's
    // loop_free_kernels), 2 for a kernel with barriers rewritten to run once a block (sim_split.h:
    // it loops over the threads itself, writing their indices into the Frame), else 0.
    static void run_once(void *t) { std::apply(K, *(const Tuple *)t); }
    static const void *address() { return (const void *)K; }
    // constexpr: the table of kernels is constant-initialised, so that a module runs no code of
    // its own when it loads (compile/device_calls.py refuses any that does)
    template <int Runner> static constexpr KernelEntry entry(const char *name) {
#if SIM_FIBERS
        if constexpr (Runner == 2)
            return KernelEntry{name, Sig::count, Sig::describe, make_args, free_args, nullptr,
                               run_once, run_once, nullptr, address};
        else
            return KernelEntry{name, Sig::count, Sig::describe, make_args, free_args, run_thread,
                               nullptr, nullptr, nullptr, address};
#elif SIM_UNPUBLISHED_LOOP
        return KernelEntry{name, Sig::count, Sig::describe, make_args, free_args, nullptr,
                           Runner == 1 ? run_block_vectorised : run_block_fast, run_block_called,
                           run_block_called, address};
#else
        return KernelEntry{name, Sig::count, Sig::describe, make_args, free_args, nullptr,
                           run_block_publishing, run_block_called, nullptr, address};
#endif
    }
};

}  // namespace sim
#pragma GCC visibility pop

// ---- the table of kernels, defined after the learner's code -------------------------------------
typedef sim::KernelEntry __sim_kernel_entry;
template <auto __K, int __V> constexpr __sim_kernel_entry __sim_entry(const char *__name) {
    return sim::Kernel<__K>::template entry<__V>(__name);
}
extern "C" const __sim_kernel_entry __sim_kernel_table[];
// the table's definition (source.py) says it is constant-initialised: a compile error otherwise,
// with GCC 10 on; other compilers initialise it as constantly (every entry is a constant
// expression, so C++ requires it), and device_calls.py would refuse a module that did not
#if !defined(__clang__) && __GNUC__ >= 10
#define __SIM_CONSTINIT __constinit
#else
#define __SIM_CONSTINIT
#endif
extern "C" const int __sim_kernel_table_size;
extern "C" const int __sim_kernel_max_threads[];

// ---- what Python calls ------------------------------------------------------------------------
SIM_EXPORT int sim_kernel_count() { return __sim_kernel_table_size; }
SIM_EXPORT const sim::KernelEntry *sim_kernel(int i) { return &__sim_kernel_table[i]; }

// The layout Python must agree with (compile/module.py checks it when it loads a module).
SIM_EXPORT int sim_abi_size(const char *name) {
    if (!strcmp(name, "Error")) return (int)sizeof(sim::Error);
    if (!strcmp(name, "ParamInfo")) return (int)sizeof(sim::ParamInfo);
    if (!strcmp(name, "kStackSize")) return (int)sim::kStackSize;
    if (!strcmp(name, "kStackUsable")) return (int)sim::kStackUsable;
    return -1;
}
SIM_EXPORT const char *sim_status_name(int code) {
    constexpr int n = sizeof sim::kStatusNames / sizeof sim::kStatusNames[0];
    return code >= 0 && code < n ? sim::kStatusNames[code] : nullptr;
}

SIM_EXPORT const char *sim_kernel_name(int k) { return sim_kernel(k)->name; }
SIM_EXPORT int sim_kernel_nparams(int k) { return sim_kernel(k)->nparams; }
// 1 where the kernel's threads run as fibers, 0 where a block runs as a loop (split ones too)
SIM_EXPORT int sim_kernel_fibers(int k) { return sim_kernel(k)->run_thread != nullptr; }
SIM_EXPORT const void *sim_kernel_address(int k) { return sim_kernel(k)->address(); }
SIM_EXPORT void sim_describe(int k, sim::ParamInfo *out) { sim_kernel(k)->describe(out); }
// the first number of the kernel's __launch_bounds__ (its maxThreadsPerBlock); 0 where it has none
SIM_EXPORT int sim_kernel_max_threads(int k) { return __sim_kernel_max_threads[k]; }
