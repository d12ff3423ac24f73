// sim_prelude_end.h -- what the unit includes after the prelude (cuda_sim.h), which may be
// precompiled: GCC does not carry into a precompiled header what these lines do.
//
// The worker that runs the calling thread is kept in a register (r15) that the
// whole module reserves for it, in a module whose threads run as fibers on x86-64 (sim_runtime.h
// says when). The C library saves the register across calls, so a barrier finds its bookkeeping
// without a single load, where reading it from the thread's Frame is a chain of loads that every
// barrier waits for. Outside the worker loop the register is the caller's (code not built with
// this reservation expects it back): a worker thread puts it back when it ends (KeepRegister).
//
// GCC reserves the register when it reads this declaration; a precompiled prelude carried the
// declaration without the reservation (the module's code then used the register for its own
// values).
//
// Then the prelude's own macros end: from now on these names are the learner's to define. (After
// a precompiled prelude GCC defines the command line's macros again, SIM_FIBERS among them.)
#pragma once

#ifdef __SIM_WORKER_IN_REGISTER
#pragma GCC visibility push(hidden)
namespace sim {
register Worker *worker_register asm("r15");
inline Worker *current_worker() { return worker_register; }
inline void set_current_worker(Worker *w) { worker_register = w; }
}  // namespace sim
#pragma GCC visibility pop
#undef __SIM_WORKER_IN_REGISTER
#endif

#undef SIM_EXPORT
#undef SIM_UNTRACED
#undef SIM_FIBERS
#undef SIM_INDICES_IN_MODULE
#undef SIM_UCONTEXT
#undef SIM_SCAN
