// sim_signals.h -- faults inside a kernel become reports, never the end of the process.
//
// While a launch runs, SIGSEGV/SIGBUS (an access outside the memory a kernel may use), SIGFPE
// (integer division by zero), SIGABRT, SIGILL (__builtin_trap), SIGTRAP (watch mode's single steps:
// watch_fault) and SIGUSR2 (a cancel from Python) are caught. A worker that meets one jumps back to
// its own stack (sigsetjmp in sim_grid.h) with the kernel, block, thread, address and instruction
// (Python names its line); a signal that is not the kernel's goes to whatever handler was there
// before. A general-protection fault gives no address (x86's answer to a misaligned SSE load or
// store, or to an address that cannot exist): it is read from the instruction (sim_fault_decode.h).
#pragma once

#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include "sim_fault_decode.h"

#pragma GCC visibility push(hidden)
namespace sim {

inline uintptr_t stack_pointer(void *ctx) {
#if defined(__linux__) && defined(__x86_64__)
    return (uintptr_t)((ucontext_t *)ctx)->uc_mcontext.gregs[REG_RSP];
#elif defined(__linux__) && defined(__aarch64__)
    return (uintptr_t)((ucontext_t *)ctx)->uc_mcontext.sp;
#else
    (void)ctx;
    return 0;
#endif
}

// The instruction the signal stopped at: Python maps it to the learner's line (compile/lines.py).
inline uintptr_t instruction_pointer(void *ctx) {
#if defined(__linux__) && defined(__x86_64__)
    return (uintptr_t)((ucontext_t *)ctx)->uc_mcontext.gregs[REG_RIP];
#elif defined(__linux__) && defined(__aarch64__)
    return (uintptr_t)((ucontext_t *)ctx)->uc_mcontext.pc;
#else
    (void)ctx;
    return 0;
#endif
}

#if defined(__linux__) && defined(__x86_64__)
// x86 traps on a signed division that overflows (INT_MIN / -1) as it does on a division by zero;
// a GPU gives INT_MIN and a remainder of 0. This decodes the faulting instruction: when it is an
// idiv whose divisor is -1, it sets that result, steps over the instruction and lets the kernel go
// on. Anything else (a real division by zero) stays an error.
inline bool finish_division_overflow(void *ctx) {
    greg_t *g = ((ucontext_t *)ctx)->uc_mcontext.gregs;
    const uint8_t *p = (const uint8_t *)g[REG_RIP];
    int bits = 32, rex = 0;
    for (;; p++) {  // prefixes: operand size; others that do not change the operand
        if (*p == 0x66) bits = 16;
        else if (!(*p == 0x67 || *p == 0xF0 || *p == 0xF2 || *p == 0xF3 || *p == 0x2E ||
                   *p == 0x36 || *p == 0x3E || *p == 0x26)) break;
    }
    if ((*p & 0xF0) == 0x40) rex = *p++;
    if (rex & 8) bits = 64;
    if (*p++ != 0xF7) return false;  // idiv r/m16/32/64 (C never divides 8-bit values)
    int modrm = *p;
    if ((modrm >> 3 & 7) != 7) return false;  // div, not idiv: only a division by zero traps
    uint64_t divisor = 0;
    uintptr_t address;
    if (x86_memory_operand(g, p, rex, 0, address)) memcpy(&divisor, (const void *)address, bits / 8);
    else divisor = x86_register(g, (modrm & 7) | (rex & 1) << 3);
    uint64_t mask = bits == 64 ? ~0ull : (1ull << bits) - 1;
    if ((divisor & mask) != mask) return false;  // not -1: a division by zero
    uint64_t &rax = x86_register(g, 0), &rdx = x86_register(g, 2);
    if (bits == 16) rdx &= ~0xffffull;           // the quotient is the dividend, already in ax
    else rax &= mask, rdx = 0;                  // a 32-bit result clears the upper halves
    g[REG_RIP] = (greg_t)p;
    return true;
}
#else
inline bool finish_division_overflow(void *) { return false; }  // Arm64's sdiv does not trap
#endif

inline uintptr_t page_size() { return (uintptr_t)sysconf(_SC_PAGESIZE); }
[[noreturn]] inline void report_write_at(Worker *w, int status, unsigned char *where);

// Watch mode (the second run that looks for the thread that wrote into an array's unguarded slack
// bytes: sim_grid.h) on x86-64 Linux: the pages holding the watched bytes are read-only. A write
// to a watched byte faults, and is reported with its instruction, hence its line. A write to
// another byte of such a page (the array's own elements) is let through: the page is made
// writable, the CPU's trap flag runs that one instruction, and the SIGTRAP that follows makes the
// page read-only again. Elsewhere, and for a write that starts before a watched byte, the bytes
// are compared whenever a thread stops (check_watch), which names the thread but not the line.
inline void protect_watched(Launch *L) {
#if defined(__linux__) && defined(__x86_64__)
    for (auto &range : L->watched) {
        uintptr_t first = (uintptr_t)range.first & ~(page_size() - 1);
        for (uintptr_t page = first; page < (uintptr_t)range.first + range.second.size(); page += page_size())
            if (mprotect((void *)page, page_size(), PROT_READ) == 0) L->watch_pages.push_back(page);
    }
#else
    (void)L;
#endif
}

inline bool watch_fault(Worker *w, Launch *L, int sig, uintptr_t a, void *ctx) {
#if defined(__linux__) && defined(__x86_64__)
    greg_t *g = ((ucontext_t *)ctx)->uc_mcontext.gregs;
    const greg_t kTrapFlag = 0x100;
    if (sig == SIGTRAP && w->stepping) {
        mprotect((void *)w->stepping, page_size(), PROT_READ);
        w->stepping = 0;
        g[REG_EFL] &= ~kTrapFlag;
        return true;
    }
    if (sig != SIGSEGV || !L->watch) return false;
    uintptr_t page = a & ~(page_size() - 1);
    bool watched_page = false;
    for (uintptr_t p : L->watch_pages) watched_page |= p == page;
    if (!watched_page) return false;
    for (auto &range : L->watched)
        if (a >= (uintptr_t)range.first && a < (uintptr_t)range.first + range.second.size()) {
            w->err.pc = (uint64_t)g[REG_RIP];
            report_write_at(w, FAULT, (unsigned char *)a);
        }
    mprotect((void *)page, page_size(), PROT_READ | PROT_WRITE);
    w->stepping = page;
    g[REG_EFL] |= kTrapFlag;
    return true;
#else
    (void)w, (void)L, (void)sig, (void)a, (void)ctx;
    return false;
#endif
}

inline void on_signal(int sig, siginfo_t *si, void *ctx) {
    Worker *w = worker;
    Launch *L = w ? w->launch : nullptr;
    if (!w || !w->in_kernel) {
        if (sig == SIGUSR2) return;
        // Not ours: put back the handler that was there before and let the fault happen again.
        struct sigaction *old = !L ? nullptr : sig == SIGSEGV ? &L->old_segv : sig == SIGBUS ? &L->old_bus
                              : sig == SIGFPE ? &L->old_fpe : sig == SIGILL ? &L->old_ill
                              : sig == SIGTRAP ? &L->old_trap : &L->old_abrt;
        if (old) sigaction(sig, old, nullptr);
        else signal(sig, SIG_DFL);
        return;
    }
    if (sig == SIGUSR2) {
        if (w->no_cancel) {  // sim_runtime.h: hold_cancel
            w->cancel_pending = 1;
            return;
        }
        escape_with(w, INTERRUPTED);
    }
    if (sig == SIGFPE && finish_division_overflow(ctx)) return;
    if (watch_fault(w, L, sig, (uintptr_t)si->si_addr, ctx)) return;
    w->err.address = (uint64_t)(uintptr_t)si->si_addr;
    w->err.pc = (uint64_t)instruction_pointer(ctx);
    w->err.is_write = -1;
    w->err.worker_anchor = (uint64_t)(uintptr_t)&worker;
    w->err.dynamic_shared_base = (uint64_t)(uintptr_t)w->dynamic_shared;
#if defined(__x86_64__) && defined(__linux__)
    if (sig == SIGSEGV) w->err.is_write = (((ucontext_t *)ctx)->uc_mcontext.gregs[REG_ERR] & 2) ? 1 : 0;
    if (sig == SIGSEGV && si->si_code == SI_KERNEL) {  // a general-protection fault: no address
        w->err.refused = 1, w->err.is_write = -1;
        uintptr_t operand;
        int is_write, alignment;
        if (x86_faulting_operand(ctx, operand, is_write, alignment))
            w->err.decoded = 1, w->err.address = operand, w->err.is_write = is_write,
            w->err.alignment = alignment;
    }
#endif
    int status = sig == SIGFPE ? ARITHMETIC : sig == SIGABRT ? ABORT : FAULT;
    uintptr_t a = (uintptr_t)si->si_addr;
    if (sig == SIGSEGV && w->stacks && w->current >= 0) {
        // The thread's stack pointer (or the address) has gone below its stack: large local arrays.
        // (The module is built with -fstack-clash-protection: a frame larger than the space
        // below the stack touches it page by page, so the first touch faults here.)
        uintptr_t base = (uintptr_t)w->stacks + (size_t)w->current * kStackSize;
        uintptr_t bottom = base + kStackSize - kStackUsable, sp = stack_pointer(ctx);
        if ((sp && sp < bottom) || (a >= base && a < bottom)) status = STACK;
        else if (a >= base + kStackSize && a < base + 2 * kStackSize - kStackUsable)
            w->err.past_stack_top = 1;
    }
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t end = (uintptr_t)w->dynamic_shared_end, floor = (uintptr_t)w->dynamic_shared_floor;
    if (sig == SIGSEGV && ((a >= end && a < end + page) || (a < floor && a >= floor - page)))
        note_dynamic_shared(w, a);  // one of the guard pages around the dynamic shared memory
    if (sig == SIGILL) status = ASSERT, copy_text(w->err.text, "illegal instruction (__builtin_trap)");
    if (sig == SIGTRAP) status = ASSERT, copy_text(w->err.text, "a breakpoint trap (SIGTRAP)");
    escape_with(w, status);
}

inline void install_handlers(Launch *L) {
    struct sigaction sa{};
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &L->old_segv);
    sigaction(SIGBUS, &sa, &L->old_bus);
    sigaction(SIGFPE, &sa, &L->old_fpe);
    sigaction(SIGABRT, &sa, &L->old_abrt);
    sigaction(SIGILL, &sa, &L->old_ill);
    sigaction(SIGUSR2, &sa, &L->old_usr2);
    sigaction(SIGTRAP, &sa, &L->old_trap);
}

inline void restore_handlers(Launch *L) {
    sigaction(SIGSEGV, &L->old_segv, nullptr);
    sigaction(SIGBUS, &L->old_bus, nullptr);
    sigaction(SIGFPE, &L->old_fpe, nullptr);
    sigaction(SIGABRT, &L->old_abrt, nullptr);
    sigaction(SIGILL, &L->old_ill, nullptr);
    sigaction(SIGUSR2, &L->old_usr2, nullptr);
    sigaction(SIGTRAP, &L->old_trap, nullptr);
}

}  // namespace sim
#pragma GCC visibility pop
