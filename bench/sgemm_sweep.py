"""Which shape of cuda_src/matmul_warp_tiled.cu is fastest on this GPU: each configuration of
its compile-time sizes timed at 4096 x 4096 against cuBLAS's SGEMM (CuPy and PyTorch, TF32 off)
and matmul.cu's register-tiled kernel, side by side in one run, each checked against the peer's
result first.

    python -m bench.sgemm_sweep            # on a GPU (PyCUDA)
    python -m bench.sgemm_sweep --size 512 # a quick look at the shapes on the simulator

Prints one row a configuration: its -D options, TFLOP/s, its share of cuBLAS, registers a thread
and whether it spilled (ptxas, where nvcc is on PATH).
"""

from __future__ import annotations

import argparse

import numpy as np

from helpers.backend import BACKEND, compile_cu, gpuarray
from helpers.timing import time_kernel

CONFIGS = {
    "128x128, warps 64x32, k 16 (the default)": [],
    "128x128, warps 64x32, k 8": ["-DWT_BK=8"],
    "128x128, warps 64x32, k 16, 1 block/SM": ["-DWT_MIN_BLOCKS=1"],
    "128x128, warps 64x32, 8x8 pieces": ["-DWT_TN=8", "-DWT_WNITER=1"],
    "128x128, warps 64x64, k 16": ["-DWT_WN=64", "-DWT_WNITER=4"],
    "128x128, warps 32x64, k 16": ["-DWT_WM=32", "-DWT_WN=64"],
    "256x128, warps 64x64, k 8, 1 block/SM": ["-DWT_BM=256", "-DWT_WN=64", "-DWT_WNITER=4",
                                              "-DWT_BK=8", "-DWT_MIN_BLOCKS=1"],
    "128x256, warps 64x64, k 8, 1 block/SM": ["-DWT_BN=256", "-DWT_WN=64", "-DWT_WNITER=4",
                                              "-DWT_BK=8", "-DWT_MIN_BLOCKS=1"],
}


def threads(options):
    """WT_THREADS of a configuration (the kernel's defaults, overridden by its -D options)."""
    sizes = {"WT_BM": 128, "WT_BN": 128, "WT_WM": 64, "WT_WN": 32}
    sizes.update({o[2:].split("=")[0]: int(o.split("=")[1]) for o in options
                  if o[2:].split("=")[0] in sizes})
    return (sizes["WT_BM"] // sizes["WT_WM"]) * (sizes["WT_BN"] // sizes["WT_WN"]) * 32, sizes


def cublas(a, b):
    """{peer: ms} of cuBLAS's SGEMM through CuPy and PyTorch, TF32 off, where importable."""
    found = {}
    try:
        import cupy
        ca, cb = cupy.asarray(a), cupy.asarray(b)
        found["CuPy"] = _time_peer(lambda: ca @ cb, cupy.cuda.Event, cupy.cuda.get_elapsed_time,
                                   cupy.cuda.Device().synchronize)
    except ImportError:
        pass
    try:
        import torch
        torch.backends.cuda.matmul.allow_tf32 = False
        ta, tb = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()
        found["PyTorch"] = _time_peer(lambda: ta @ tb, lambda: torch.cuda.Event(enable_timing=True),
                                      lambda start, end: start.elapsed_time(end),
                                      torch.cuda.synchronize)
    except ImportError:
        pass
    return found


def _time_peer(run, event, elapsed, sync, repeat=20):
    for _ in range(3):
        run()
    sync()
    best = float("inf")
    for _ in range(repeat):
        start, end = event(), event()
        start.record()
        run()
        end.record()
        end.synchronize()
        best = min(best, elapsed(start, end))
    return best


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=4096)
    args = parser.parse_args(argv)
    n = args.size
    rng = np.random.default_rng(8)
    a, b = (rng.random((n, n), dtype=np.float32) - 0.5 for _ in range(2))
    rows_checked = np.arange(0, n, max(1, n // 64))   # rows across every tile row of C
    want = a[rows_checked].astype(np.float64) @ b
    a_gpu, b_gpu, c_gpu = gpuarray.to_gpu(a), gpuarray.to_gpu(b), gpuarray.empty((n, n), np.float32)
    flops, size = 2 * n ** 3, np.int32(n)
    print(f"{n} x {n} float32 on {BACKEND}")
    peers = cublas(a, b) if BACKEND != "simulator" else {}
    for name, ms in peers.items():
        print(f"  cuBLAS through {name:8s} {ms:8.3f} ms  {flops / ms / 1e9:6.1f} TFLOP/s")
    best_peer = min(peers.values()) if peers else None
    reg = compile_cu("matmul.cu").get_function("matmul_register_tiled")
    rows = [("matmul.cu register tiled", lambda: reg(a_gpu, b_gpu, c_gpu, size, size, size,
                                                      block=(256, 1, 1),
                                                      grid=(-(-n // 128), -(-n // 128))), None)]
    for name, options in CONFIGS.items():
        count, sizes = threads(options)
        f = compile_cu("matmul_warp_tiled.cu", options=options).get_function("matmul_warp_tiled")
        grid = (-(-n // sizes["WT_BN"]), -(-n // sizes["WT_BM"]))
        rows.append((name, lambda f=f, grid=grid, count=count: f(
            a_gpu, b_gpu, c_gpu, size, size, size, block=(count, 1, 1), grid=grid),
            getattr(f, "num_regs", None)))
    for name, launch, regs in rows:
        launch()
        err = float(np.abs(c_gpu.get()[rows_checked] - want).max())
        if err > 1e-2:
            print(f"  {name:52s} WRONG: max error {err:.3g}")
            continue
        ms = time_kernel(launch, repeat=20 if BACKEND != "simulator" else 1).min_ms
        share = f"{100 * best_peer / ms:5.1f}% of cuBLAS" if best_peer else ""
        print(f"  {name:52s} {ms:8.3f} ms  {flops / ms / 1e9:6.1f} TFLOP/s  {share}"
              f"  regs {regs}")


if __name__ == "__main__":
    main()
