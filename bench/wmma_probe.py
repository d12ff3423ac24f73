"""The tensor cores as an H200 computes them, beside the simulator: every shape, type and layout of
the warp matrix functions (bench/wmma_kernels.cu, cases in bench/wmma_cases.py), where each
element of a fragment lives, and __float_to_tf32.

    python bench/wmma_probe.py                   # this backend against NumPy and the bound
    CUDA_COURSE_BACKEND=pycuda python bench/wmma_probe.py --store    # on a GPU: store its results
    CUDA_COURSE_BACKEND=simulator python bench/wmma_probe.py --compare   # the simulator against them

Each run prints, for each case, the largest error against the exact product of the rounded
inputs as a fraction of the bound that the order of accumulation allows (at most 1 is right).
``--store`` writes every output, with the device and the command, into
bench/data/h200_wmma_outputs.npz (atomically). ``--compare`` runs the same kernels here and
prints, for each case, the fraction of elements whose bits equal the stored ones and the largest
difference as a fraction of the bound; the fragments' element mapping and __float_to_tf32 must
be equal.
"""

from __future__ import annotations

import argparse
import datetime
import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DATA = ROOT / "bench" / "data" / "h200_wmma_outputs.npz"
STORE_COMMAND = "CUDA_COURSE_BACKEND=pycuda python bench/wmma_probe.py --store"

from bench import wmma_cases as cases  # noqa: E402


def products(module, drv):
    """{name: D} for every case and layout (tf32 with and without __float_to_tf32), and the
    largest error as a fraction of the bound for each case."""
    out, worst = {}, {}
    for case in cases.CASES:
        for round_tf32 in ((0, 1) if case.inputs == "tf32" else (0,)):
            name = f"{case.kernel}_r{round_tf32}"
            for layouts in cases.LAYOUTS:
                D, exact, bound = cases.run(module, drv, case, layouts, layouts, round_tf32)
                out[f"{name}_l{layouts}"] = D
                worst[name] = max(worst.get(name, 0.0), float(np.max(cases.fraction(np.abs(D - exact), bound))))
    return out, worst


def mappings(module, drv):
    """{name: what each lane holds}: the where_* kernels (bench/wmma_kernels.cu), the 8-bit
    ones (where_u8_*) among them."""
    out = {}
    for m, n, k in cases.SHAPES16:
        a, b = np.arange(m * k, dtype=np.float16), np.arange(k * n, dtype=np.float16)
        c = np.arange(m * n, dtype=np.float32)
        got = [np.zeros(32 * 16, np.float32), np.zeros(32 * 16, np.float32), np.zeros(32 * 8, np.float32)]
        module.get_function(f"where_{m}x{n}x{k}")(drv.In(a), drv.In(b), drv.In(c),
                                                   *[drv.Out(g) for g in got], block=(32, 1, 1))
        for use, g in zip("abc", got):
            out[f"where_{m}x{n}x{k}_{use}"] = g
    for m, n, k in cases.SHAPES16:   # 8-bit inputs: each lane's element numbers, a byte at a time
        a, b = np.arange(m * k), np.zeros((k, max(n, 16)), np.int64)
        b[:, :n] = np.arange(k * n).reshape(k, n)
        got = [np.zeros(m * k, np.int32), np.zeros(k * n, np.int32)]
        for byte in (0, 1):
            part = [np.zeros(m * k, np.int32), np.zeros(k * n, np.int32)]
            module.get_function(f"where_u8_{m}x{n}x{k}")(
                drv.In((a >> 8 * byte).astype(np.uint8)), drv.In((b >> 8 * byte).astype(np.uint8)),
                *[drv.Out(x) for x in part], block=(32, 1, 1))
            got = [g + (x << 8 * byte) for g, x in zip(got, part)]
        out[f"where_u8_{m}x{n}x{k}_a"], out[f"where_u8_{m}x{n}x{k}_b"] = got
    a, b = np.arange(128, dtype=np.float32), np.arange(128, dtype=np.float32)
    oa, ob = np.zeros(128, np.float32), np.zeros(128, np.float32)
    module.get_function("where_tf32")(drv.In(a), drv.In(b), drv.Out(oa), drv.Out(ob), block=(32, 1, 1))
    out["where_tf32_a"], out["where_tf32_b"] = oa, ob
    x = tf32_inputs()
    y = np.zeros_like(x)
    module.get_function("to_tf32")(drv.In(x), drv.Out(y), np.int32(len(x)), block=(256, 1, 1),
                                   grid=((len(x) + 255) // 256, 1))
    out["to_tf32"] = y
    return out


def tf32_inputs():
    """Floats of every kind: hashed bit patterns, and the ties of tf32's rounding."""
    h = np.arange(1 << 14, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    h ^= h >> np.uint64(29)
    bits = (h & np.uint64(0xFFFFFFFF)).astype(np.uint32)
    bits[:4096] = (bits[:4096] & np.uint32(0xFFFFE000)) | np.uint32(0x1000)  # exactly halfway
    return bits.view(np.float32)


def compare(mine, stored):
    """One line a case: the simulator's outputs against the stored GPU's."""
    for name in sorted({k.rsplit("_l", 1)[0] for k in stored if k.startswith("mma_")}):
        keys = [k for k in stored if k.rsplit("_l", 1)[0] == name]
        same = sum(int(np.sum(mine[k].astype(np.float32).view(np.uint32)
                              == stored[k].astype(np.float32).view(np.uint32))) for k in keys)
        total = sum(stored[k].size for k in keys)
        case = next(c for c in cases.CASES if name.startswith(c.kernel))
        worst = 0.0
        for k in keys:
            layouts = int(k.rsplit("_l", 1)[1])
            _, bound = cases.expected(case, layouts, layouts, int(name[-1]))
            worst = max(worst, float(np.max(cases.fraction(np.abs(mine[k] - stored[k]), bound))))
        print(f"{name:34s} {same / total:7.2%} of elements bit for bit; largest difference "
              f"{worst:.3f} of the bound")
    for k in sorted(k for k in stored if not k.startswith("mma_")):
        print(f"{k:34s} {'equal' if np.array_equal(mine[k], stored[k], equal_nan=True) else 'DIFFERENT'}")


def store(results, device):
    DATA.parent.mkdir(parents=True, exist_ok=True)
    tmp = DATA.with_name(DATA.name + f".{os.getpid()}.tmp")
    with open(tmp, "wb") as f:
        np.savez_compressed(f, **results, device=np.array(device), command=np.array(STORE_COMMAND),
                            date=np.array(datetime.date.today().isoformat()))
    os.replace(tmp, DATA)
    print(f"stored {len(results)} outputs from {device} in {DATA.relative_to(ROOT)}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", action="store_true", help="store this GPU's outputs")
    parser.add_argument("--compare", action="store_true", help="compare with the stored outputs")
    args = parser.parse_args(argv)
    from helpers.backend import BACKEND, SourceModule, device_summary, drv

    module = SourceModule((ROOT / "bench" / "wmma_kernels.cu").read_text(), no_extern_c=True)
    results, worst = products(module, drv)
    results.update(mappings(module, drv))
    for name, w in worst.items():
        print(f"{name:34s} largest error {w:.3f} of the bound" + ("" if w <= 1 else "  OUTSIDE"))
    if args.store:
        if BACKEND != "pycuda":
            parser.error("--store stores a GPU's outputs: run it with CUDA_COURSE_BACKEND=pycuda")
        store(results, device_summary()["device"])
    if args.compare:
        with np.load(DATA) as stored:
            print(f"against {stored['device']} ({stored['date']}):")
            compare(results, {k: stored[k] for k in stored.files if k not in ("device", "command", "date")})
    return 0 if all(w <= 1 for w in worst.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
