# Solution (notebook 11): a halo exchange between two devices, device to device.
#
# Two copies of `halo` elements, each from one device's memory straight into the other's: the
# addresses are the arrays' own plus offsets in bytes (elements times itemsize). memcpy_dtod needs
# no context pushed for memory of either device: unified addressing tells it where each lies,
# and it takes the direct path where peer access is on (notebook 11, section 5).


def my_halo_exchange(halves, contexts, halo):
    from helpers.backend import drv

    m = halves[0].size - 2 * halo          # interior elements of each half
    item = halves[0].dtype.itemsize        # bytes an element
    left, right = int(halves[0].gpudata), int(halves[1].gpudata)
    drv.memcpy_dtod(left + (halo + m) * item, right + halo * item, halo * item)
    drv.memcpy_dtod(right, left + m * item, halo * item)
