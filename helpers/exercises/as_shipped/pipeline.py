def my_pipeline(h_in, h_out, n_chunks, streams, launch):
    n = h_in.size
    chunk = -(-n // n_chunks)  # elements per chunk, rounded up: the last chunk may be shorter
    # TODO 1: for each stream, allocate an input and an output buffer of `chunk` float32
    #         (drv.mem_alloc takes bytes).
    bounds = [(lo, min(n, lo + chunk)) for lo in range(0, n, chunk)]  # [lo, hi) of each chunk
    for c, (lo, hi) in enumerate(bounds):
        # TODO 2: with s = streams[c % len(streams)] and that stream's buffers: copy h_in[lo:hi]
        #         in (drv.memcpy_htod_async), launch(d_in, d_out, hi - lo, s), and copy the
        #         results back into h_out[lo:hi] (drv.memcpy_dtoh_async).
        pass  # TODO 2: your code goes here instead
    # TODO 3: wait for every stream before returning.
