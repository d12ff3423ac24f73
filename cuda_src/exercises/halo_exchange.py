# Exercise (notebook 11): a halo exchange between two devices, device to device.
#
# A 1-D array is cut in two: device 0 holds the left part, device 1 the right. A stencil (the
# moving average of notebook 06, a simulation's update) needs, at the edge of each part, values
# that live on the other device, so each part has a halo of `halo` spare elements on both sides:
#
#     halves[0]:  [ left halo | interior 0 ... m-1 | right halo ]
#     halves[1]:  [ left halo | interior 0 ... m-1 | right halo ]
#
# Device 0's right halo must hold device 1's first `halo` interior elements, and device 1's left
# halo device 0's last `halo` interior elements. The two outer halos are the array's ends: leave
# them alone. Copy device to device, without a stop in host memory: drv.memcpy_dtod(dest, src,
# nbytes) takes device addresses, int(a.gpudata) plus an offset in BYTES (an element is
# halves[0].dtype.itemsize bytes), and under unified addressing it finds the devices itself.
#
# Check it in the notebook with:
#   from helpers.exercises.halo_exchange import check_halo_exchange
#   check_halo_exchange()      # reads cuda_src/exercises/halo_exchange.py again each time


def my_halo_exchange(halves, contexts, halo):
    from helpers.backend import drv

    m = halves[0].size - 2 * halo          # interior elements of each half
    item = halves[0].dtype.itemsize        # bytes an element
    left, right = int(halves[0].gpudata), int(halves[1].gpudata)
    # TODO 1: device 0's right halo (elements halo + m on) <- device 1's elements halo on
    # TODO 2: device 1's left halo (elements 0 on) <- device 0's last interior ones (m on)
