// sim_split.h -- a kernel with barriers run as loops over the block's threads, not as fibers.
//
// The compiler driver (helpers/sim/compile/split.py) rewrites a kernel whose only thread-waiting
// calls are statements  __syncthreads();  into one that runs once a block: each stretch of code
// between two barriers is run by every thread of the block in turn, in order, before the next
// stretch, which is the order the fibers run them in (sim_runtime.h: yield). The kernel's body
// becomes the body of a loop over the threads, inside
//     switch (__sim_at) { case 0: <body> }
// where each barrier is  { __sim_next = k; goto __sim_yield; case k:; }:  a thread leaves at
// barrier k, and the next stretch enters each thread's code there again. A local variable in
// scope at a barrier lives in the thread's slot of per-thread storage (a struct of the kernel's
// own, __sim_self), bound to its name by a reference, so that it keeps its value across the
// barrier as on the thread's own stack. Threads that leave the kernel (return, or its end) take
// no part in the stretches that follow, as an exited thread waits at no barrier. Threads that
// leave at different barriers are the fibers' error, with the same fields.
//
// The race check, the init check and the trace build the kernel as written (fibers).
#pragma once

#pragma GCC visibility push(hidden)
namespace sim {

void *split_storage(Worker *w, size_t bytes);  // sim_grid.h: the worker's, grown as needed

class Split {
   public:
    explicit Split(size_t bytes) : f_(frame()), w_(current_worker()), watching_(w_->watching) {
        const uint3 bd = f_->block_dim;
        bx_ = bd.x, by_ = bd.y, n_ = (int)(bd.x * bd.y * bd.z);
        size_ = (bytes + 15) & ~(size_t)15;
        store_ = (unsigned char *)split_storage(w_, (size_ + 1) * (size_t)n_);
        done_ = store_ + size_ * (size_t)n_;
        memset(done_, 0, (size_t)n_);
    }
    // Before each stretch: the first thread comes next.
    // (Each index one below its first value: the first thread's step carries into every one.)
    void first() { i_ = -1, x_ = bx_ - 1, y_ = by_ - 1, z_ = (unsigned)-1; }
    // The next thread that has not left, its indices written into the Frame; false after the last.
    bool more() {
        while (++i_ < n_) {
            if (__builtin_expect(++x_ == bx_, 0)) {
                x_ = 0;
                if (++y_ == by_) y_ = 0, z_++;
            }
            if (__builtin_expect(!left_, 1) || !done_[i_]) {
                f_->thread = uint3{x_, y_, z_};
                return true;
            }
        }
        return false;
    }
    void *self() const { return store_ + (size_t)i_ * size_; }
    // The thread left its stretch at barrier `next` (at `site`), or left the kernel (next < 0).
    void arrive(int next, const Site &site) {
        if (next < 0) {
            done_[i_] = 1, left_ = true;
        } else if (target_ < 0) {
            target_ = next, target_site_ = site;
        } else if (next != target_) {
            w_->err.file2 = target_site_.file;
            w_->err.line2 = target_site_.line;
            fail_at(w_, BARRIER, site, "threads of one block wait at different __syncthreads()");
        }
        if (watching_) check_watch(w_);
    }
    // Where the next stretch starts: the barrier every remaining thread waits at, or -1 when
    // every thread has left.
    int resume() {
        const int at = target_;
        target_ = -1;
        return at;
    }

   private:
    Frame *f_;
    Worker *w_;
    const bool watching_;  // a search for an overrun's culprit: the watched bytes checked
    unsigned char *store_, *done_;
    size_t size_;
    int n_, i_ = -1, target_ = -1;
    bool left_ = false;  // a thread has left the kernel: the loops skip those in done_
    unsigned bx_, by_, x_ = 0, y_ = 0, z_ = 0;
    Site target_site_{};
};

}  // namespace sim
#pragma GCC visibility pop

// What split.py writes: after the kernel's opening brace
//     struct __sim_lifted { <the lifted variables> }; __SIM_SPLIT_BEGIN(__sim_lifted)
//     auto &name = __sim_self->name; ...  switch (__sim_at) { case 0:;
// each barrier as __SIM_BARRIER(k), each return as __SIM_RETURN, and before the closing brace
//     } __SIM_SPLIT_END
// A thread's moved variables beyond 64 KiB (local arrays that a GPU would fit in 512 KiB, or
// not): a compile error here, and the module is built again with fibers, whose stacks end at the
// GPU's limit with the error a GPU gives.
#define __SIM_SPLIT_BEGIN(T)                                                          \
    static_assert(sizeof(T) <= 65536, "split.py: moved variables too large");          \
    ::sim::Split __sim_split(sizeof(T));                                              \
    int __sim_at = 0, __sim_next;                                                     \
    __sim_site __sim_at_site{};                                                       \
    do {                                                                              \
        for (__sim_split.first(); __sim_split.more();                                 \
             __sim_split.arrive(__sim_next, __sim_at_site)) {                          \
            T *__sim_self = (T *)__sim_split.self();                                  \
            (void)__sim_self;
#define __SIM_SPLIT_END                                                               \
            __sim_next = -1;                                                          \
        __sim_yield:;                                                                 \
        }                                                                             \
    } while ((__sim_at = __sim_split.resume()) >= 0);
#define __SIM_BARRIER(k) { __sim_next = k; __sim_at_site = __SIM_SITE; goto __sim_yield; case k:; }
#define __SIM_RETURN { __sim_next = -1; goto __sim_yield; }
