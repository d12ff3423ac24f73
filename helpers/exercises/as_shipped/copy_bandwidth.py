def my_copy_gbs(h, d, stream):
    # h: a page-locked float32 array; d: a device buffer of h.nbytes bytes; stream: a drv.Stream.
    # Copy h into d on stream, time the copy with two CUDA events, and return its bandwidth in
    # GB/s (1 GB = 1e9 bytes). (drv comes from the notebook's first cell.)
    # TODO 1: two events, start, end = drv.Event(), drv.Event(); record start on stream, queue
    #         the copy, drv.memcpy_htod_async(d, h, stream), and record end on stream.
    # TODO 2: wait for end (end.synchronize()); then ms = start.time_till(end), in milliseconds.
    raise NotImplementedError("my_copy_gbs")  # TODO 3: return h.nbytes bytes in ms ms, in GB/s
