"""The models of notebook 09's block mean that ``helpers.exercises.block_mean`` compares a
kernel's y with: y[i] = x[i] in every thread but thread 0, whose sum alone held the mean
(``mean_of_thread_0_alone``), and the subtraction the wrong way round
(``subtraction_reversed``)."""

from __future__ import annotations

import numpy as np

from helpers.exercises.block_mean_models import BLOCK


def mean_of_thread_0_alone(x, got, want):
    """Only thread 0 of each block subtracted the mean, the others 0: what a mean kept in a
    local variable (float sum, each thread's own) that thread 0 alone filled gives."""
    model = x.copy()
    model[::BLOCK] = want[::BLOCK]
    if BLOCK >= len(x) or not np.allclose(got, model, rtol=1e-4, atol=1e-5):
        return
    yield (f"y[i] = x[i] in every thread but thread 0 of its block (y[1] = {got[1]:.6g} = x[1], "
           f"NumPy's is {want[1]:.6g}): only thread 0 subtracted its block's mean, the others 0. "
           "A variable declared in the kernel (float sum, say) is each thread's own register: "
           "what thread 0 adds into its sum no other thread sees, theirs stayed 0",
           "share the mean through memory every thread reads: thread 0 stores means[blockIdx.x] "
           "= sum / count, then after a __syncthreads() every thread computes y[i] = x[i] - "
           "means[blockIdx.x]")


def subtraction_reversed(x, got, means):
    """y[i] = means[blockIdx.x] - x[i]: the model, each block's mean minus x, -1 times y."""
    model = np.repeat(means, BLOCK)[:x.size] - x
    if np.allclose(got, model, rtol=1e-4, atol=1e-5):
        yield (f"every element of y is its block's mean minus x[i], the right value's negative "
               f"(y[0] = {got[0]:.6g}, NumPy's is {x[0] - means[0]:.6g}): the subtraction is "
               "the wrong way round", "y[i] = x[i] - means[blockIdx.x]: x[i] first, the mean "
               "taken away from it")
