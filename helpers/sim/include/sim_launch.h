// sim_launch.h -- the launcher of a kernel, which takes the kernel's parameter types from the
// compiled kernel itself, and the C functions that Python calls (helpers/sim/launch.py).
//
// Included by the prelude, before the learner's code. After that code the compiler driver appends
// only the table of kernels, in reserved names (a learner's macros cannot reach it):
//     extern "C" const __sim_kernel_entry __sim_kernel_table[] = { __sim_entry<&k>("k"), ... };
//     extern "C" const int __sim_kernel_table_size = 1;
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

template <typename T> ParamInfo param_info() {
    using D = typename std::decay<T>::type;
    int kind = std::is_pointer<D>::value ? 'P'
             : std::is_floating_point<D>::value ? 'f'
             : std::is_integral<D>::value ? (std::is_signed<D>::value ? 'i' : 'u')
             : std::is_enum<D>::value ? 'i' : 'S';
    return ParamInfo{kind, (int)sizeof(D), type_name<D>()};
}

template <typename F> struct Signature;
template <typename... A> struct Signature<void (*)(A...)> {
    using Tuple = std::tuple<typename std::decay<A>::type...>;
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
// blockIdx and blockDim in registers and threadIdx.x is the loop's counter. The Frame is still
// written, for the runtime: a fault names its thread from there. One variable an index, not a
// struct: a kernel whose code the compiler vectorised read two of a struct's fields with one
// load, through the struct's address, and from then on every kernel of the module after it
// reloaded them all for each thread.
static thread_local unsigned thread_x, thread_y, thread_z, block_x, block_y, block_z;
static thread_local unsigned block_dim_x, block_dim_y, block_dim_z, grid_dim_x, grid_dim_y, grid_dim_z;
#endif

// Writes an index of the running thread into its Frame, for the runtime (a fault or an integer
// division by zero names its thread from there), and returns it as the kernel is to see it.
// Where the kernels read the indices from the module's own variables they never read the Frame:
// the index is read back from it, as a volatile read, so that the compiler can neither drop nor
// delay the store nor start the thread's work, which depends on the index, before it. (An empty
// asm that reads the Frame did the same, but made the compiler write those variables back for
// each thread too.)
__attribute__((always_inline)) inline unsigned publish(unsigned &slot, unsigned index) {
    slot = index;
#if SIM_INDICES_IN_MODULE && !SIM_FIBERS && !defined(SIM_TRACE)
    return *(volatile unsigned *)&slot;
#else
    return index;
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
    // The kernel called through a pointer the compiler cannot follow, so not inlined: for the
    // rare loops below, each inlined copy of the kernel was compile time in every module.
    static void call(const Tuple &args) {
        decltype(K) const volatile k = K;
        std::apply((decltype(K))k, args);
    }
    // A block as a loop over its threads, in order: the kernel inlined (every plain launch runs
    // it: cuda_sim.h's __global__ makes it so), or called, checking the watched bytes after each
    // thread (the search for an overrun's culprit). The arguments are copied to a local that no
    // store of the kernel can reach, so that the compiler keeps them in registers, and each
    // index of the Frame is written only when it changes (publish).
    template <bool Watched> static void run_block_loop(void *t) {
        const Tuple args = *(Tuple *)t;
        Frame *f = frame();
        const uint3 bd = f->block_dim;
#if SIM_INDICES_IN_MODULE && !SIM_FIBERS && !defined(SIM_TRACE)
        block_x = f->block.x, block_y = f->block.y, block_z = f->block.z;
        block_dim_x = bd.x, block_dim_y = bd.y, block_dim_z = bd.z;
        grid_dim_x = f->grid_dim.x, grid_dim_y = f->grid_dim.y, grid_dim_z = f->grid_dim.z;
#endif
        for (unsigned z = 0; z < bd.z; z++) {
            const unsigned tz = publish(f->thread.z, z);
            for (unsigned y = 0; y < bd.y; y++) {
                const unsigned ty = publish(f->thread.y, y);
                for (unsigned x = 0; x < bd.x; x++) {
                    const unsigned tx = publish(f->thread.x, x);
#if SIM_INDICES_IN_MODULE && !SIM_FIBERS && !defined(SIM_TRACE)
                    thread_x = tx, thread_y = ty, thread_z = tz;
#else
                    (void)tx, (void)ty, (void)tz;
#endif
                    if constexpr (Watched) call(args);
                    else std::apply(K, args);
                    if (Watched) check_watch(f->worker);
                }
            }
        }
    }
    // Only the runners the module's kind calls (sim_grid.h's fiber_main and plain_main): a fiber a
    // thread with SIM_FIBERS, else a loop over the block's threads. The compiler inlines the kernel into each
    // runner it is given, so each one that is never called was a copy of the kernel compiled for
    // nothing (a module of 24 kernels with barriers: 1.96 CPU-seconds of g++, 1.17 without).
    static KernelEntry entry(const char *name) {
#if SIM_FIBERS
        return KernelEntry{name, Sig::count, Sig::describe, make_args, free_args, run_thread,
                           nullptr, nullptr, (const void *)K};
#else
        return KernelEntry{name, Sig::count, Sig::describe, make_args, free_args, nullptr,
                           run_block_loop<false>, run_block_loop<true>, (const void *)K};
#endif
    }
};

}  // namespace sim
#pragma GCC visibility pop

// ---- the table of kernels, defined after the learner's code -------------------------------------
typedef sim::KernelEntry __sim_kernel_entry;
template <auto __K> __sim_kernel_entry __sim_entry(const char *__name) { return sim::Kernel<__K>::entry(__name); }
extern "C" const __sim_kernel_entry __sim_kernel_table[];
extern "C" const int __sim_kernel_table_size;

// ---- what Python calls ------------------------------------------------------------------------
SIM_EXPORT int sim_kernel_count() { return __sim_kernel_table_size; }
SIM_EXPORT const sim::KernelEntry *sim_kernel(int i) { return &__sim_kernel_table[i]; }

SIM_EXPORT int sim_fibers() { return SIM_FIBERS; }

// The layout Python must agree with (helpers/sim/module.py checks it when it loads a module).
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
SIM_EXPORT const void *sim_kernel_address(int k) { return sim_kernel(k)->address; }
SIM_EXPORT void sim_describe(int k, sim::ParamInfo *out) { sim_kernel(k)->describe(out); }
