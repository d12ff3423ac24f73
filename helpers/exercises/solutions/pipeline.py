"""Reference solution of notebook 05's exercise: the overlapped pipeline with a device-memory
budget of one chunk-sized input and output buffer per stream.

    from helpers.exercises.pipeline import check_pipeline
    from helpers.exercises.solutions.pipeline import my_pipeline
    check_pipeline(my_pipeline)
"""

from __future__ import annotations


def my_pipeline(h_in, h_out, n_chunks, streams, launch):
    """Copy in, compute and copy out ``h_in`` -> ``h_out`` in ``n_chunks`` chunks.

    Chunk c runs on ``streams[c % len(streams)]`` and uses that stream's pair of buffers. Reusing
    them is safe because a stream runs its work in order: the next chunk's copy into ``d_in``
    starts only after the previous chunk of that stream has been copied out of ``d_out``.
    Chunks on different streams have different buffers, so they may run at the same time.
    """
    from helpers.backend import drv

    n = h_in.size
    chunk = -(-n // n_chunks)  # elements per chunk, rounded up: the last chunk may be shorter
    buffers = [(drv.mem_alloc(chunk * h_in.itemsize), drv.mem_alloc(chunk * h_out.itemsize))
               for _ in streams]
    bounds = [(lo, min(n, lo + chunk)) for lo in range(0, n, chunk)]  # [lo, hi) of each chunk
    for c, (lo, hi) in enumerate(bounds):
        stream = streams[c % len(streams)]
        d_in, d_out = buffers[c % len(streams)]
        drv.memcpy_htod_async(d_in, h_in[lo:hi], stream)
        launch(d_in, d_out, hi - lo, stream)
        drv.memcpy_dtoh_async(h_out[lo:hi], d_out, stream)
    for stream in streams:
        stream.synchronize()
