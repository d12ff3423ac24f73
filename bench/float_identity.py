"""Floats as the GPU computes them: how many of the simulator's float results are bit for bit an
H200's.

    python bench/float_identity.py            # the simulator against the stored H200 outputs
    CUDA_COURSE_BACKEND=pycuda python bench/float_identity.py --store   # on a GPU: store them

The kernels: a tiled float matrix multiply, a Horner polynomial, a product made in a
``__device__`` function and added in its caller, sums of two products, one of which is fused,
and + - * /, fma, sqrt, negation, fabs, fmin and fmax on every pair of special values, floats and
doubles (NaNs of either sign and other bits, infinities, signed zeros; ``bench/special_kernels.cu``),
the course's float kernels (``cuda_src/``: Mandelbrot, Julia, saxpy, vector_add,
scale_vector, grayscale, sepia, iterate_sin), sinf, cosf, sincosf, logf, log2f and log10f on
floats of every magnitude (``bench/libdevice_kernels.cu``), and the results C++ leaves to the
machine or the CUDA Math API defines bit for bit (``bench/conversion_kernels.cu``: float and
double to integer in every rounding mode, on NaN, infinities and values past each type's range;
the integer and SIMD intrinsics; ``bench/half_kernels.cu``: half precision and bfloat16
conversions and operations), on fixed inputs made from a hash of the index (no random generator
whose stream could change between NumPy versions).

``--store`` runs them with PyCUDA, twice (nvcc's default ``--fmad=true``, and ``--fmad=false``),
and writes the outputs, compressed, with the device, the command and digests of the inputs and
sources, into ``bench/data/h200_float_outputs.npz`` (with ``--only``, those cases join the ones
the file holds, which must come from the same device). The default mode runs the same kernels on
the CPU simulator and prints, for each, the fraction of elements whose bits equal the stored
ones: with fused multiply-adds (the simulator's default, as nvcc's), without (``--fmad=false``
on the simulator only: what the simulator did before it fused), and with ``--fmad=false`` on
both. Floats are compared bit for bit; the largest difference is given in units in the last
place (ulp).
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DATA = ROOT / "bench" / "data" / "h200_float_outputs.npz"
STORE_COMMAND = "CUDA_COURSE_BACKEND=pycuda python bench/float_identity.py --store"
VARIANTS = {"fmad": [], "nofmad": ["--fmad=false"]}


def hashed(n, seed, lo, hi):
    """n floats in [lo, hi) from a 64-bit hash of the index: the same on every machine."""
    h = np.arange(n, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(seed)
    h ^= h >> np.uint64(31)
    h *= np.uint64(0x94D049BB133111EB)
    h ^= h >> np.uint64(29)
    unit = (h >> np.uint64(40)).astype(np.float64) / 2.0**24  # 24 bits: exact in a float
    return (lo + (hi - lo) * unit).astype(np.float32)


def pixels(n, seed):
    return (hashed(n, seed, 0, 256)).astype(np.uint8)


@dataclass
class Case:
    name: str
    file: str                 # under bench/ (float_kernels.cu, special_kernels.cu, ...) or cuda_src/
    function: str
    inputs: dict
    outputs: dict             # name -> (shape, dtype)
    args: list                # array names and numpy scalars, in the kernel's order
    block: tuple
    grid: tuple
    result: str = field(default="")
    no_extern_c: bool = False  # a source that includes C++ headers (cuda_fp16.h) and marks its kernels extern "C"

    def source(self):
        path = ROOT / ("bench" if (ROOT / "bench" / self.file).is_file() else "cuda_src") / self.file
        return f'#line 1 "{self.file}"\n' + path.read_text()


# Where a CPU's answer differs from a GPU's: NaN, infinities, ties, the integer types' limits.
EDGES = [np.nan, np.inf, -np.inf, 0.0, -0.0, 0.5, -0.5, 1.5, 2.5, -2.5, -1.0, 2.0**31, -2.0**31,
         2.0**32, 2.0**63, -2.0**63, 2.0**64, 1e10, -1e10, 3e38, 2147483647.5, 4294967295.5]


# Floats by their bits: NaN as the CPU makes it (0xFFC00000), other NaNs of either sign (one
# signalling, 0x7F800001), the infinities, zeros, a subnormal, the largest float and plain numbers.
SPECIALS = np.array([0x7FC00000, 0xFFC00000, 0x7FFFFFFF, 0x7FC12345, 0xFFD00001, 0x7F800001,
                     0x7F800000, 0xFF800000, 0x00000000, 0x80000000, 0x00000001, 0x7F7FFFFF,
                     0x3F800000, 0xBF800000, 0x40200000, 0xC0490FDB], np.uint32).view(np.float32)
# The same as doubles (0xFFF8000000000000 the CPU's NaN, 0x7FF0000000000001 signalling).
SPECIAL_DOUBLES = np.array(
    [0x7FF8000000000000, 0xFFF8000000000000, 0x7FFFFFFFFFFFFFFF, 0x7FF8000012345678,
     0xFFFA000000000001, 0x7FF0000000000001, 0x7FF0000000000000, 0xFFF0000000000000, 0, 1 << 63, 1,
     0x7FEFFFFFFFFFFFFF, 0x3FF0000000000000, 0xBFF0000000000000, 0x4004000000000000,
     0xC00921FB54442D18], np.uint64).view(np.float64)


def special_pairs(values):
    """Every pair of values as the inputs a and b, and the output's shape: 10 results a pair."""
    a, b = (v.ravel().copy() for v in np.meshgrid(values, values, indexing="ij"))
    return {"a": a, "b": b}, {"out": ((a.size, 10), values.dtype)}


def wide(n, seed):
    """n floats of every magnitude from 2^-4 to 2^70, either sign, the edge cases first."""
    scale = np.exp2(np.floor(hashed(n, seed + 1, -4, 70)))
    values = (hashed(n, seed, -1, 1) * scale).astype(np.float64)
    values[:len(EDGES)] = EDGES
    return values


def conversion_cases(n=4096):
    """The type casts and the integer intrinsics (bench/conversion_kernels.cu)."""
    bits = lambda seed: hashed(n, seed, 0, 1).view(np.uint32) * np.uint32(2654435761)  # noqa: E731
    return [
        Case("casts", "conversion_kernels.cu", "casts",
             {"x": wide(n, 20).astype(np.float32), "y": wide(n, 22) * 1.000001},
             {"out": ((n, 32), np.uint64)}, ["x", "y", "out", np.int32(n)], (256, 1, 1),
             (n // 256, 1), "out"),
        Case("integer_intrinsics", "conversion_kernels.cu", "integer_intrinsics",
             {"a": bits(24), "b": bits(25)}, {"out": ((n, 24), np.uint32)},
             ["a", "b", "out", np.int32(n)], (256, 1, 1), (n // 256, 1), "out"),
    ]


def half_cases(n=65536):
    """Half precision and bfloat16 (bench/half_kernels.cu): floats, doubles and ints to 16 bits in
    each rounding mode, and 24 operations on every 16-bit pattern against hashed operands."""
    bits = lambda seed: (hashed(n, seed, 0, 1).view(np.uint32) * np.uint32(2654435761) >> 16).astype(np.uint16)  # noqa: E731
    x = wide(n, 30).astype(np.float32)
    common = dict(block=(256, 1, 1), grid=(n // 256, 1), no_extern_c=True)
    ops = [Case(f"{kind}_ops", "half_kernels.cu", f"{kind}_ops",
                {"a": np.arange(n, dtype=np.uint16), "b": bits(31), "c": bits(32)},
                {"out": ((n, 24), np.uint16), "ints": ((n, 6), np.int32)},
                ["a", "b", "c", "out", "ints", np.int32(n)], result="out", **common)
           for kind in ("half", "bfloat16")]
    return [Case("half_narrow", "half_kernels.cu", "narrow",
                 {"x": x, "d": wide(n, 33) * 1.000001, "k": hashed(n, 34, -70000, 70000).astype(np.int32)},
                 {"out": ((n, 16), np.uint16)}, ["x", "d", "k", "out", np.int32(n)], result="out",
                 **common), *ops]


def cases():
    """The kernels, their inputs and launches."""
    n_mm, n = 128, 16384
    w, h = 256, 192
    i32, f32 = np.int32, np.float32
    fractal = dict(outputs={"iters": ((h, w), i32)}, block=(16, 16, 1),
                   grid=(w // 16, h // 16), result="iters")
    coeffs = hashed(13, 7, -1, 1)
    return [
        Case("matmul_tiled", "float_kernels.cu", "matmul_tiled",
             {"a": hashed(n_mm * n_mm, 1, -1, 1), "b": hashed(n_mm * n_mm, 2, -1, 1)},
             {"c": ((n_mm, n_mm), f32)}, ["a", "b", "c", i32(n_mm)], (16, 16, 1),
             (n_mm // 16, n_mm // 16), "c"),
        Case("horner", "float_kernels.cu", "horner", {"x": hashed(2 * n, 3, -1.5, 1.5),
                                                      "coeffs": coeffs},
             {"y": ((2 * n,), f32)}, ["x", "coeffs", i32(12), "y", i32(2 * n)], (256, 1, 1),
             (2 * n // 256, 1), "y"),
        Case("across_calls", "float_kernels.cu", "across_calls",
             {"x": hashed(n, 14, -4, 4), "y": hashed(n, 15, -4, 4)}, {"out": ((n,), f32)},
             ["x", "y", "out", i32(n)], (256, 1, 1), (n // 256, 1), "out"),
        Case("two_products", "float_kernels.cu", "two_products",
             {"x": hashed(n, 16, -4, 4), "y": hashed(n, 17, -4, 4)}, {"out": ((2 * n,), f32)},
             ["x", "y", "out", i32(n)], (256, 1, 1), (n // 256, 1), "out"),
        Case("special_values", "special_kernels.cu", "special_values", *special_pairs(SPECIALS),
             ["a", "b", "out", i32(len(SPECIALS) ** 2)], (256, 1, 1), (1, 1), "out"),
        Case("special_doubles", "special_kernels.cu", "special_doubles",
             *special_pairs(SPECIAL_DOUBLES), ["a", "b", "out", i32(len(SPECIAL_DOUBLES) ** 2)],
             (256, 1, 1), (1, 1), "out"),
        Case("mandelbrot", "mandelbrot.cu", "mandelbrot", {},
             args=["iters", i32(w), i32(h), f32(-2.0), f32(-1.125), f32(3.0 / w), f32(2.25 / h),
                   i32(256)], **fractal),
        Case("julia", "solutions/julia.cu", "julia", {},
             args=["iters", i32(w), i32(h), f32(-1.6), f32(-0.9), f32(3.2 / w), f32(1.8 / h),
                   f32(-0.8), f32(0.156), i32(256)], **fractal),
        Case("saxpy", "indexing.cu", "saxpy", {"x": hashed(n, 4, -10, 10), "y": hashed(n, 5, -10, 10)},
             {}, [i32(n), f32(2.5), "x", "y"], (256, 1, 1), (n // 256, 1), "y"),
        Case("vector_add", "vector_add.cu", "vector_add",
             {"a": hashed(n, 6, -1, 1), "b": hashed(n, 8, -1, 1)}, {"out": ((n,), f32)},
             ["a", "b", "out", i32(n)], (256, 1, 1), (n // 256, 1), "out"),
        Case("scale_vector", "solutions/scale_vector.cu", "scale_vector", {"x": hashed(n, 9, -5, 5)},
             {"y": ((n,), f32)}, ["x", "y", f32(1.7), i32(n)], (256, 1, 1), (n // 256, 1), "y"),
        Case("rgb_to_gray", "grayscale.cu", "rgb_to_gray", {"rgb": pixels(3 * 128 * 128, 10)},
             {"gray": ((128 * 128,), np.uint8)}, ["rgb", "gray", i32(128), i32(128)],
             (16, 16, 1), (8, 8), "gray"),
        Case("sepia", "solutions/sepia.cu", "sepia", {"rgb": pixels(3 * 128 * 128, 11)},
             {"out": ((3 * 128 * 128,), np.uint8)}, ["rgb", "out", i32(128), i32(128)],
             (16, 16, 1), (8, 8), "out"),
        Case("iterate_sin", "streams.cu", "iterate_sin", {"x": hashed(n, 12, -3, 3)},
             {"y": ((n,), f32)}, ["x", "y", i32(n), i32(16)], (256, 1, 1), (n // 256, 1), "y"),
        Case("libdevice", "libdevice_kernels.cu", "libdevice_functions",
             {"x": wide(n, 40).astype(f32)}, {"out": ((n, 7), f32)}, ["x", "out", i32(n)],
             (256, 1, 1), (n // 256, 1), "out"),
        *conversion_cases(),
        *half_cases(),
    ]


def run(case, source_module, gpuarray, options):
    """The case's result on the backend of source_module and gpuarray, with nvcc options."""
    f = source_module(case.source(), options=options, no_extern_c=case.no_extern_c).get_function(
        case.function)
    buffers = {k: gpuarray.to_gpu(v) for k, v in case.inputs.items()}
    buffers.update({k: gpuarray.zeros(shape, dtype) for k, (shape, dtype) in case.outputs.items()})
    f(*[buffers[a] if isinstance(a, str) else a for a in case.args], block=case.block,
      grid=case.grid)
    return buffers[case.result].get()


def simulated(case, variant="fmad"):
    """The case's result on the CPU simulator, built with the variant's options."""
    from helpers.sim import gpuarray
    from helpers.sim.compiler import SourceModule

    return run(case, SourceModule, gpuarray, VARIANTS[variant])


def load(path=DATA):
    """(the stored outputs, their meta: the device, the command, the digests)."""
    stored = np.load(path)
    return stored, json.loads(str(stored["meta"]))


def digest(*arrays_or_texts):
    h = hashlib.sha256()
    for item in arrays_or_texts:
        h.update(item.encode() if isinstance(item, str) else np.ascontiguousarray(item).tobytes())
    return h.hexdigest()[:16]


def input_digest(case):
    return digest(*[case.inputs[k] for k in sorted(case.inputs)],
                  *[str(a) + str(getattr(a, "dtype", "")) for a in case.args if not isinstance(a, str)])


# ---- --store: on a GPU --------------------------------------------------------------------------------
def store(path, only, allow_simulator):
    from helpers.backend import BACKEND, SourceModule, device_summary, drv, gpuarray

    if BACKEND != "pycuda" and not allow_simulator:
        sys.exit("--store records a GPU's outputs: run it where PyCUDA finds a GPU "
                 f"({STORE_COMMAND}); --allow-simulator stores the simulator's, for tests")
    info = device_summary()
    meta = {"command": STORE_COMMAND, "backend": BACKEND, "device": info["device"],
            "compute_capability": info.get("compute_capability", ""),
            "stored_at": datetime.datetime.now().isoformat(timespec="seconds"),
            "driver_version": str(drv.get_version()) if BACKEND == "pycuda" else "",
            "inputs": {}, "sources": {}}
    arrays = _kept(path, meta) if only else {}
    for case in cases():
        if only and case.name not in only:
            continue
        meta["inputs"][case.name], meta["sources"][case.name] = input_digest(case), digest(case.source())
        for variant, options in VARIANTS.items():
            arrays[f"{case.name}.{variant}"] = run(case, SourceModule, gpuarray, options)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, meta=np.array(json.dumps(meta)), **arrays)
    print(f"stored {len(arrays)} outputs of {meta['device']} in {path} "
          f"({path.stat().st_size / 1024:.0f} KiB)")


def _kept(path, meta):
    """With --only: the other cases' outputs already stored in path (and their digests, into
    meta), which the new ones join; a file from another device is refused, not mixed."""
    if not path.exists():
        return {}
    stored, old = load(path)
    if old["device"] != meta["device"]:
        sys.exit(f"{path} holds the outputs of {old['device']}, not {meta['device']}: store "
                 f"every case (without --only), or use another --data file")
    meta["inputs"].update(old["inputs"])
    meta["sources"].update(old["sources"])
    return {name: stored[name] for name in stored.files if name != "meta"}


# ---- the default: the simulator against the stored outputs -------------------------------------------
def ulps(a, b):
    """|a - b| in units in the last place, for float32 or float64 arrays: 0 only where the bits
    are equal (-0 and +0 are 1 apart)."""
    u = np.uint32 if a.dtype == np.float32 else np.uint64
    top = u(1) << u(8 * a.itemsize - 1)

    def ordered(x):  # the bits as an unsigned integer that grows with the float
        bits = x.view(u)
        return np.where(bits & top, ~bits, bits | top)
    oa, ob = ordered(a), ordered(b)
    return np.where(oa > ob, oa - ob, ob - oa)


def identical(got, want):
    """(fraction of elements with the same bits, largest difference in ulp where not both are
    NaN (None for integers), how many are NaN in both but with other bits)."""
    if got.dtype in (np.float32, np.float64):
        diff, both_nan = ulps(got, want), np.isnan(got) & np.isnan(want)
        return (float((diff == 0).mean()), int(diff[~both_nan].max(initial=0)),
                int((both_nan & (diff != 0)).sum()))
    return float((got == want).mean()), None, 0


def compare(path, only):
    from helpers.sim.compile import toolchain

    if not path.exists():
        shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
        print(f"No stored H200 outputs at {shown}. Make them on a machine with an "
              f"NVIDIA GPU and PyCUDA, from the repository root:\n    {STORE_COMMAND}")
        return 2
    stored, meta = load(path)
    print(f"Float results of the CPU simulator against {meta['device']} (compute capability "
          f"{meta['compute_capability']}), stored {meta['stored_at']} by `{meta['command']}`.")
    cxx = toolchain.find_compiler()
    print(f"This CPU {'has' if toolchain.cpu_has_fma() else 'has NO'} fused multiply-add; the "
          f"compiler is {cxx[1]}, with {' '.join(toolchain.float_flags([]))}. Share of elements "
          "with the GPU's bits (largest difference in ulp; NaN on both sides with other bits "
          "counted apart):\n")
    rows = [("kernel", "elements", "FMA (default)", "no FMA", "--fmad=false on both")]
    for case in cases():
        if (only and case.name not in only) or f"{case.name}.fmad" not in stored:
            continue
        notes = _drift(case, meta)
        fused, unfused = simulated(case, "fmad"), simulated(case, "nofmad")
        cells = [identical(fused, stored[f"{case.name}.fmad"]),
                 identical(unfused, stored[f"{case.name}.fmad"]),
                 identical(unfused, stored[f"{case.name}.nofmad"])]
        rows.append((case.name + notes, f"{fused.size:,}", *map(_cell, cells)))
    _print_table(rows)
    print("\nFMA (default): the simulator as it runs (fused multiply-adds, as nvcc's default "
          "--fmad=true). no FMA: the simulator with --fmad=false, against the GPU's default. "
          "* the kernel's source file or inputs changed since the outputs were stored (a "
          "change anywhere in the file marks each of its kernels: store them again).")
    return 0


def _drift(case, meta):
    same = (meta["inputs"].get(case.name) == input_digest(case) and
            meta["sources"].get(case.name) == digest(case.source()))
    return "" if same else " *"


def _cell(result):
    fraction, ulp, nan_bits = result
    cell = f"{100 * fraction:.2f}%" + ("" if ulp is None else f" ({ulp})")
    return cell + (f", {nan_bits:,} NaN other bits" if nan_bits else "")


def _print_table(rows):
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    line = lambda r: "| " + " | ".join(c.ljust(w) for c, w in zip(r, widths)) + " |"  # noqa: E731
    print(line(rows[0]))
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for r in rows[1:]:
        print(line(r))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--store", action="store_true", help="run on the GPU and store the outputs")
    p.add_argument("--data", type=Path, default=DATA, help=f"the outputs' file (default {DATA})")
    p.add_argument("--only", default="", help="comma-separated kernel names (default: all; "
                   "--store adds them to the file's others)")
    p.add_argument("--allow-simulator", action="store_true",
                   help="let --store record the simulator's outputs (for tests)")
    args = p.parse_args(argv)
    only = {s for s in args.only.split(",") if s}
    if args.store:
        store(args.data, only, args.allow_simulator)
        return 0
    return compare(args.data, only)


if __name__ == "__main__":
    sys.exit(main())
