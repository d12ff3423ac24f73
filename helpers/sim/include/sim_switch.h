// sim_switch.h -- switching a worker thread from one simulated thread's stack to another's.
//
// A block's threads run as fibers: each has a stack of its own, and a thread that waits (at a
// barrier, in a warp function) hands the CPU to the next one. How it hands over decides the cost of
// a barrier, which a shared-memory kernel pays once per thread per __syncthreads().
//
// x86-64 (the default there): the switch is a few instructions of inline assembly placed right in
// the barrier's code. It saves only the stack pointer, the frame pointer and where to resume; it
// tells the compiler that every other register is lost, so the compiler keeps across the switch
// exactly the values that are still needed, in the thread's own stack frame. It never calls or
// returns, so nothing is pushed, and the jump back lands on one of a few places that the branch
// predictor learns. The worker is handed over in a register, so the resumed thread finds its
// bookkeeping without reading its stack.
//
// Arm64, and x86-64 built with -DSIM_SWITCH_CALL (the method used before, kept so that
// bench/simulator.py can measure both): a function in assembly that pushes the callee-saved
// registers, swaps the stack pointers and returns on the other stack.
//
// Anything else, or -DSIM_UCONTEXT: the C library's swapcontext, portable and slower.
#pragma once

#include <stdint.h>

#if !defined(SIM_UCONTEXT) && !(defined(__linux__) && (defined(__x86_64__) || defined(__aarch64__)))
#define SIM_UCONTEXT 1
#endif
#if !defined(SIM_UCONTEXT) && defined(__x86_64__) && !defined(SIM_SWITCH_CALL)
#define SIM_SWITCH_INLINE 1
#endif
#ifdef SIM_UCONTEXT
#include <ucontext.h>
#endif

#pragma GCC visibility push(hidden)
namespace sim {

struct Worker;

// Where a suspended fiber (or the worker's own scheduler loop) resumes.
struct Context {
#ifdef SIM_UCONTEXT
    ucontext_t uc;
    void *sp = nullptr;  // the top of its stack
#else
    void *sp = nullptr, *pc = nullptr, *bp = nullptr;  // pc and bp: the inline switch only
#endif
};

#ifdef SIM_SWITCH_INLINE
#ifdef __AVX512F__
#define SIM_SWITCH_CLOBBERS_AVX512                                                              \
    , "xmm16", "xmm17", "xmm18", "xmm19", "xmm20", "xmm21", "xmm22", "xmm23", "xmm24", "xmm25", \
        "xmm26", "xmm27", "xmm28", "xmm29", "xmm30", "xmm31", "k1", "k2", "k3", "k4", "k5", "k6", "k7"
#else
#define SIM_SWITCH_CLOBBERS_AVX512
#endif

// Saves the running fiber into `from` and resumes `to`, handing it the worker. Returns (in the
// resumed fiber, later) the worker that the fiber switching back to it handed over.
__attribute__((always_inline)) inline Worker *switch_context(Context *from, Context *to, Worker *w) {
    asm volatile(
        "leaq 1f(%%rip), %%rax\n\t"
        "movq %%rsp, 0(%[from])\n\t"
        "movq %%rax, 8(%[from])\n\t"
        "movq %%rbp, 16(%[from])\n\t"
        "movq 16(%[to]), %%rbp\n\t"
        "movq 0(%[to]), %%rsp\n\t"
        "jmpq *8(%[to])\n"
        "1:"
        : [from] "+D"(from), [to] "+S"(to), "+d"(w)
        :
        : "rax", "rbx", "rcx", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "xmm0", "xmm1", "xmm2",
          "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13",
          "xmm14", "xmm15", "memory", "cc" SIM_SWITCH_CLOBBERS_AVX512);  // r15: the worker
    return w;
}

// A fresh fiber starts in entry() with the stack [bottom, top), as if entry had been called.
inline void prepare_context(Context *c, char *bottom, char *top, void (*entry)()) {
    (void)bottom;
    // entry() starts as if called: the stack pointer 8 bytes below a 16-byte boundary, where a
    // return address would be (it never returns, so none is written: the stack stays untouched)
    c->sp = (void **)((uintptr_t)top & ~(uintptr_t)15) - 1, c->pc = (void *)entry, c->bp = nullptr;
}

#elif !defined(SIM_UCONTEXT)
extern "C" void sim_switch_stack(void **save_sp, void *new_sp);
#if defined(__x86_64__)
#ifdef SIM_GRID_UNIT  // the switch itself is in the grid runner, linked into every module
asm(R"(
    .text
    .p2align 4
    .globl sim_switch_stack
    .hidden sim_switch_stack
    .type sim_switch_stack, @function
sim_switch_stack:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .size sim_switch_stack, .-sim_switch_stack
)");
#endif
// A new stack: six saved registers, then the entry point that the first switch returns into.
inline void prepare_context(Context *c, char *bottom, char *top, void (*entry)()) {
    (void)bottom;
    uint64_t *sp = (uint64_t *)((uintptr_t)top & ~(uintptr_t)15) - 8;
    for (int i = 0; i < 6; i++) sp[i] = 0;
    sp[6] = (uint64_t)entry;
    sp[7] = 0;
    c->sp = sp;
}
#else  // __aarch64__
#ifdef SIM_GRID_UNIT  // the switch itself is in the grid runner, linked into every module
asm(R"(
    .text
    .p2align 4
    .globl sim_switch_stack
    .hidden sim_switch_stack
    .type sim_switch_stack, %function
sim_switch_stack:
    sub sp, sp, #176
    stp x19, x20, [sp, #0]
    stp x21, x22, [sp, #16]
    stp x23, x24, [sp, #32]
    stp x25, x26, [sp, #48]
    stp x27, x28, [sp, #64]
    stp x29, x30, [sp, #80]
    stp d8, d9, [sp, #96]
    stp d10, d11, [sp, #112]
    stp d12, d13, [sp, #128]
    stp d14, d15, [sp, #144]
    mov x2, sp
    str x2, [x0]
    mov sp, x1
    ldp x19, x20, [sp, #0]
    ldp x21, x22, [sp, #16]
    ldp x23, x24, [sp, #32]
    ldp x25, x26, [sp, #48]
    ldp x27, x28, [sp, #64]
    ldp x29, x30, [sp, #80]
    ldp d8, d9, [sp, #96]
    ldp d10, d11, [sp, #112]
    ldp d12, d13, [sp, #128]
    ldp d14, d15, [sp, #144]
    add sp, sp, #176
    ret
    .size sim_switch_stack, .-sim_switch_stack
)");
#endif
inline void prepare_context(Context *c, char *bottom, char *top, void (*entry)()) {
    (void)bottom;
    uint64_t *sp = (uint64_t *)((uintptr_t)top & ~(uintptr_t)15) - 22;
    for (int i = 0; i < 22; i++) sp[i] = 0;
    sp[11] = (uint64_t)entry;  // x30, the link register that ret jumps to
    c->sp = sp;
}
#endif
inline Worker *switch_context(Context *from, Context *to, Worker *w) {
    sim_switch_stack(&from->sp, to->sp);
    return w;
}

#else  // SIM_UCONTEXT
inline void prepare_context(Context *c, char *bottom, char *top, void (*entry)()) {
    getcontext(&c->uc);
    c->uc.uc_stack.ss_sp = bottom;
    c->uc.uc_stack.ss_size = top - bottom;
    c->uc.uc_link = nullptr;
    c->sp = top;
    makecontext(&c->uc, entry, 0);
}
inline Worker *switch_context(Context *from, Context *to, Worker *w) {
    swapcontext(&from->uc, &to->uc);
    return w;
}
#endif

}  // namespace sim
#pragma GCC visibility pop
