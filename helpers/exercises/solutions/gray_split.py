"""Reference solution of notebook 11's exercise: a batch of images converted to grey, every
device taking a share.

    from helpers.exercises.gray_split import check_gray_split
    from helpers.exercises.solutions.gray_split import my_gray_split
    check_gray_split(my_gray_split)
"""

from __future__ import annotations

import numpy as np


def my_gray_split(images, contexts, kernels):
    """Grey versions of ``images`` (count, height, width, 3): device k converts images
    k * count // n to (k + 1) * count // n with ``kernels[k]``, in its own context."""
    from helpers.backend import gpuarray
    from helpers.ch11.multigpu import using

    count, height, width, _ = images.shape
    grey = np.zeros(images.shape[:3], np.uint8)
    n = len(contexts)
    queued = []
    for k in range(n):
        lo, hi = k * count // n, (k + 1) * count // n
        if lo == hi:
            continue                     # fewer images than devices: nothing for this one
        with using(contexts[k]):
            rgb_k = gpuarray.to_gpu(images[lo:hi])
            grey_k = gpuarray.empty((hi - lo, height, width), np.uint8)
            rows = (hi - lo) * height    # the share is one tall image for the kernel
            kernels[k](rgb_k, grey_k, np.int32(width), np.int32(rows), block=(32, 8, 1),
                       grid=((width + 31) // 32, (rows + 7) // 8))
        queued.append((k, lo, hi, rgb_k, grey_k))   # rgb_k too: the next device's rgb_k would
                                                     # free it, and freeing device memory waits
                                                     # for the kernel that reads it
    for k, lo, hi, rgb_k, grey_k in queued:     # every device has its work: now collect it
        with using(contexts[k]):
            grey[lo:hi] = grey_k.get()
    return grey
