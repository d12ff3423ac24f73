def my_upload(h, d, staging, streams):
    # h: a pageable float32 array of n elements; d: a device buffer of n floats; staging: two
    # page-locked float32 arrays of `chunk` elements each; streams: two drv.Streams. Upload h into
    # d through the staging buffers, chunk c (elements lo to hi) through staging[c % 2] on
    # streams[c % 2], so that the host fills one buffer while the other one's copy runs. Return
    # when d holds all of h. (drv comes from the notebook's first cell.)
    n, chunk = h.size, staging[0].size
    for c, lo in enumerate(range(0, n, chunk)):
        hi = min(n, lo + chunk)
        buf = staging[c % 2]
        # TODO 1: with s = streams[c % 2], wait until buf is free: the copy out of it that s ran
        #         two chunks ago must be done
        buf[:hi - lo] = h[lo:hi]
        # TODO 2: queue the copy of buf[:hi - lo] into d from element lo on, on s (drv.memcpy_htod_async;
        #         device addresses count bytes: element lo of d is at int(d) + lo * 4)
    # TODO 3: wait for both streams before returning
