#!/usr/bin/env python3
"""The speed targets of notebooks 10 and 11, measured on the backend `auto` picks:

- back-projection (cuda_src/point_cloud.cu: one pixel a thread, and four, backproject_x4) on an
  8192 x 6144 depth image against a device-to-device copy of its output, every byte read or
  written counted once (2 read and 12 written a pixel); target on an H200: at least 70% of the
  copy's rate;
- the Mandelbrot image (cuda_src/mandelbrot_rows.cu), 8192 x 6144 at 16384 steps, split by rows
  over 1, 2, ... N devices, from launching to every band in host memory; target on two H200s: at
  least 1.8x one device, each device computing its band for at least 20 ms.

Each result is checked first (the back-projection against NumPy, the split image against one
device's); a wrong one prints WRONG instead of its figure. --tiny runs small sizes (for tests).

    CUDA_COURSE_BACKEND=pycuda python3 bench/point_cloud_and_split.py
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from helpers.ch10 import depth_camera as camera  # noqa: E402 - after the path is set
from helpers.ch10 import point_cloud as reference  # noqa: E402
from helpers.backend import BACKEND, compile_cu, device_summary, drv, gpuarray  # noqa: E402
from helpers.ch11.multigpu import compile_on_each, device_contexts, using  # noqa: E402
from helpers.timing import bandwidth_gbs, time_kernel  # noqa: E402

f4, i4 = np.float32, np.int32


def backprojection(tiny: bool) -> list[str]:
    """Lines: each back-projection kernel's rate against the copy's."""
    cam = camera.VGA if tiny else camera.VGA.scaled(12.8)
    depth = _rendered_depth(cam)
    module = compile_cu("point_cloud.cu")
    xyz = gpuarray.empty((3, cam.height, cam.width), np.float32)
    copy = gpuarray.empty_like(xyz)
    args = (depth, xyz, i4(cam.width), i4(cam.height), f4(cam.fx), f4(cam.fy), f4(cam.cx),
            f4(cam.cy), f4(camera.DEPTH_SCALE))
    groups = cam.width * cam.height // 4  # backproject_x4: four pixels a thread (width % 4 == 0)
    launches = {
        "one pixel a thread": lambda: module.get_function("backproject")(
            *args, block=(32, 8, 1), grid=((cam.width + 31) // 32, (cam.height + 7) // 8)),
        "four pixels a thread": lambda: module.get_function("backproject_x4")(
            *args, block=(256, 1, 1), grid=((groups + 255) // 256, 1)),
    }
    repeat, batch = (3, 1) if BACKEND == "simulator" else (10, 20)
    copy_ms = time_kernel(lambda: drv.memcpy_dtod(copy.gpudata, xyz.gpudata, xyz.nbytes),
                          repeat=repeat, batch=batch).median_ms
    copy_gbs = bandwidth_gbs(2 * xyz.nbytes, copy_ms)
    want = reference.backproject(depth.get(), cam.fx, cam.fy, cam.cx, cam.cy, camera.DEPTH_SCALE)
    size = f"{cam.width} x {cam.height}"
    lines = [f"copy of the cloud {size}: {copy_ms:.4f} ms, {copy_gbs:.1f} GB/s"]
    for name, launch in launches.items():
        xyz.fill(0)
        kernel_ms = time_kernel(launch, repeat=repeat, batch=batch).median_ms
        if not np.array_equal(xyz.get(), want):
            lines.append(f"back-projection, {name}: WRONG (differs from NumPy)")
            continue
        gbs = bandwidth_gbs(14 * cam.width * cam.height, kernel_ms)
        lines.append(f"back-projection, {name}: {kernel_ms:.4f} ms, {gbs:.1f} GB/s; "
                     f"{100 * gbs / copy_gbs:.0f}% of the copy (target: 70%)")
    return lines


def _rendered_depth(cam):
    """The course's scene as seen by ``cam``: a uint16 depth image on the device."""
    f8 = np.float64
    depth = gpuarray.empty((cam.height, cam.width), np.uint16)
    label = gpuarray.empty((cam.height, cam.width), np.uint8)
    compile_cu("depth_render.cu").get_function("render_depth")(
        depth, label, i4(cam.width), i4(cam.height), f8(cam.fx), f8(cam.fy), f8(cam.cx),
        f8(cam.cy), gpuarray.to_gpu(camera.pose()), gpuarray.to_gpu(camera.SPHERES),
        i4(len(camera.SPHERES)), gpuarray.to_gpu(camera.BOXES), i4(len(camera.BOXES)),
        f8(camera.BASELINE), f8(camera.MAX_RANGE), f8(camera.NOISE_MM_AT_1M),
        np.uint32(camera.SEED), block=(16, 16, 1),
        grid=((cam.width + 15) // 16, (cam.height + 15) // 16))
    return depth


def split_mandelbrot(tiny: bool) -> list[str]:
    """Lines: the whole image from 1, 2, ... N devices, its time and each device's kernel."""
    width, height, max_iter = (256, 192, 64) if tiny else (8192, 6144, 16384)
    view = (f4(-2.2), f4(-1.2), f4(3.2 / width), f4(2.4 / height), i4(max_iter))
    contexts = device_contexts()
    kernels = compile_on_each(contexts, "mandelbrot_rows.cu", "mandelbrot_rows")
    image = drv.pagelocked_empty((height, width), np.int32,
                                 mem_flags=drv.host_alloc_flags.PORTABLE)
    devices = []
    for context in contexts:
        with using(context):
            devices.append((drv.Stream(), gpuarray.empty((height, width), np.int32),
                            drv.Event(), drv.Event()))

    def render(n):
        edges = [height * k // n for k in range(n + 1)]
        t0 = time.perf_counter()
        for k in range(n):
            stream, band, start, end = devices[k]
            rows = edges[k + 1] - edges[k]
            with using(contexts[k]):
                start.record(stream)
                kernels[k](band, i4(width), i4(edges[k]), i4(rows), *view, block=(16, 16, 1),
                           grid=((width + 15) // 16, (rows + 15) // 16), stream=stream)
                end.record(stream)
                drv.memcpy_dtoh_async(image[edges[k]:edges[k + 1]], band.gpudata, stream)
        kernel_ms = []
        for k in range(n):
            stream, _, start, end = devices[k]
            with using(contexts[k]):
                stream.synchronize()
                kernel_ms.append(start.time_till(end))
        return time.perf_counter() - t0, kernel_ms

    lines, one = [], None
    for n in range(1, len(contexts) + 1):
        render(n)
        runs = sorted((render(n) for _ in range(5)), key=lambda r: r[0])
        seconds, kernel_ms = runs[2]
        if n == 1:
            one, first = seconds, image.copy()
        elif not np.array_equal(image, first):
            lines.append(f"split Mandelbrot over {n} devices: WRONG (differs from one device's)")
            continue
        lines.append(f"split Mandelbrot {width} x {height}, {max_iter} steps, {n} device(s): "
                     f"{1e3 * seconds:.2f} ms, {one / seconds:.2f}x one device; kernel ms of each "
                     f"device: {', '.join(f'{ms:.1f}' for ms in kernel_ms)}"
                     + (" (target with 2: 1.8x, each at least 20 ms)" if n == 2 else ""))
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tiny", action="store_true", help="small sizes, for a quick check")
    args = parser.parse_args(argv)
    info = device_summary()
    print(f"{BACKEND}: {info['device']}, {drv.Device.count()} device(s)")
    print("\n".join(backprojection(args.tiny)))
    print("\n".join(split_mandelbrot(args.tiny)))
    if BACKEND == "simulator":
        print("(simulator: the CPU's figures; its devices share the CPU, so no speed-up)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
