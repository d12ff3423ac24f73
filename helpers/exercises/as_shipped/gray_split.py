def my_gray_split(images, contexts, kernels):
    # images: (count, height, width, 3) uint8 RGB images on the host. contexts[k] and kernels[k]:
    # device k's context and its rgb_to_gray kernel (cuda_src/grayscale.cu, compiled in that
    # context). Return the (count, height, width) uint8 grey images, each device converting a
    # share of the batch. (np, gpuarray and using come from the notebook's first cell.)
    count, height, width, _ = images.shape
    grey = np.zeros(images.shape[:3], np.uint8)
    # TODO 1: with n = len(contexts), device k's share is images[lo:hi], lo = k * count // n,
    #         hi = (k + 1) * count // n. When there are fewer images than devices some shares
    #         are empty: skip those devices.
    # TODO 2: for each device with a share, inside `with using(contexts[k]):` copy its images to
    #         the device (gpuarray.to_gpu), allocate its grey output (gpuarray.empty) and launch
    #         kernels[k]: for the kernel, a share of several images is one image of width x rows
    #         pixels, rows = (hi - lo) * height: block=(32, 8, 1),
    #         grid=((width + 31) // 32, (rows + 7) // 8). Launch on every device before copying
    #         anything back, so that the devices work at the same time.
    # TODO 3: copy each device's results into grey[lo:hi] (with that device's context current).
    return grey
