"""Random kernels on a GPU and on the simulator, compared word for word: the kernels of
tools/random_kernels.py (barriers in loops and branches, shared memory, unsigned and float
arithmetic with fused multiply-adds, a __device__ function, early returns, break and continue),
less the kernels with one of the two errors it makes to test the simulator's messages (a write
to an address nothing maps, a barrier only some threads reach), whose outcome on a GPU is
undefined. (A float's bits are read through ``float_bits``, which makes a NaN a GPU's NaN: which
NaN an invalid operation gives is the one thing of a float the simulator does not promise.)

    python tools/fuzz_gpu.py                       # the simulator against the stored outputs
    CUDA_COURSE_BACKEND=pycuda python tools/fuzz_gpu.py --store            # on a GPU
    CUDA_COURSE_BACKEND=pycuda python tools/fuzz_gpu.py --live --seeds 0:200 [--plain]

A launch counts only where it has one right answer: one the simulator's race check finds a race
in (two threads of a block writing one shared element between two barriers, or one reading what
another writes) depends on the order a GPU's warps ran in, and is left out. ``--store`` runs the
modules of SEEDS (kernels with barriers) and PLAIN_SEEDS (without), the seeds
tests/tools/test_fuzz_loops.py runs (so that CI compiles no module of its own for them), on the
GPU, each kernel on random_kernels' block shapes, and writes every launch's output words, with the
device and a digest of each module's text, into bench/data/h200_fuzz_outputs.npz. The default
mode runs the same launches on the simulator and compares every word (tests/tools/test_fuzz_gpu.py
does it in CI).
``--live`` runs other seeds on the GPU and on the simulator at once, storing nothing. Each
exits with status 1 at a disagreement, printing the kernel and both words.
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

from random_kernels import (INPUTS, SHAPES, first_difference, kernel_text, launch,  # noqa: E402
                            module_source)

DATA = ROOT / "bench" / "data" / "h200_fuzz_outputs.npz"
STORE_COMMAND = "CUDA_COURSE_BACKEND=pycuda python tools/fuzz_gpu.py --store"
SEEDS, PLAIN_SEEDS, KERNELS = range(6), range(4), 12


def modules(seeds=SEEDS, plain_seeds=PLAIN_SEEDS, kernels=KERNELS):
    """(tag, the names of the kernels without either error, module text) of each seed: with
    barriers, then without."""
    for seed_range, plain in ((seeds, False), (plain_seeds, True)):
        for seed in seed_range:
            names, source, hazardous = module_source(seed, kernels, plain)
            yield (f"{'plain' if plain else 'barriers'}-{seed}",
                   [name for name in names if name not in hazardous], source)


def key(tag, name, shape) -> str:
    return f"{tag}.{name}.{'x'.join(map(str, shape))}"


def racy(function, shape) -> bool:
    """Whether the simulator's race check finds a race in the launch (``function``: compiled by
    the simulator)."""
    from helpers.sim import gpuarray
    from helpers.sim.errors import RaceError
    from helpers.sim.settings import settings

    try:
        with settings.changed(racecheck=True):
            launch(function, shape, gpuarray)
    except RaceError:
        return True
    return False


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def disagreement(tag, name, shape, source, got, want) -> str:
    where, at = first_difference(got, want)
    return (f"{tag}, kernel {name}, block {shape}:\n{kernel_text(source, name)}\n{where}: the "
            f"simulator {got[at]:#x}, the GPU {want[at]:#x}")


def gpu_runs(module_list):
    """On a GPU: for each module, (tag, names, source, the simulator's module, {key: the GPU's
    words}) of its launches without a race, and how many launches had one."""
    from helpers.backend import BACKEND, SourceModule, gpuarray
    from helpers.sim.compiler import SourceModule as SimulatorModule

    if BACKEND != "pycuda":
        sys.exit("--store and --live run the kernels on a GPU: run them where PyCUDA finds one "
                 f"({STORE_COMMAND})")
    for tag, names, source in module_list:
        on_gpu = SourceModule(source, options=["-w"])  # (nvcc: its unused variables)
        simulated, words, races = SimulatorModule(source), {}, 0
        for name in names:
            for shape in SHAPES:
                if racy(simulated.get_function(name), shape):
                    races += 1
                    continue
                words[key(tag, name, shape)] = launch(on_gpu.get_function(name), shape, gpuarray)
        yield tag, names, source, simulated, words, races


def store(path):
    from helpers.backend import device_summary, drv

    info = device_summary()
    meta = {"command": STORE_COMMAND, "device": info["device"],
            "compute_capability": info.get("compute_capability", ""),
            "driver_version": str(drv.get_version()),
            "stored_at": datetime.datetime.now().isoformat(timespec="seconds"),
            "sources": {}, "races": 0}
    arrays = {"inputs": INPUTS}
    for tag, _, source, _, words, races in gpu_runs(modules()):
        meta["sources"][tag] = digest(source)
        meta["races"] += races
        arrays.update(words)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, meta=np.array(json.dumps(meta)), **arrays)
    print(f"stored {len(arrays) - 1} launches of {meta['device']} in {path} "
          f"({path.stat().st_size / 1024:.0f} KiB); {meta['races']} launches with a race left out")
    return 0


def live(module_list):
    from helpers.sim import gpuarray

    compared = races = 0
    for tag, names, source, simulated, words, racy_launches in gpu_runs(module_list):
        races += racy_launches
        for name in names:
            for shape in SHAPES:
                want = words.get(key(tag, name, shape))
                if want is None:
                    continue
                got = launch(simulated.get_function(name), shape, gpuarray)
                if not np.array_equal(got, want):
                    print(disagreement(tag, name, shape, source, got, want))
                    return 1
                compared += 1
    print(f"{compared} launches of random kernels give the GPU's words on the simulator "
          f"({races} launches with a race left out)")
    return 0


def load(path=DATA):
    stored = np.load(path)
    return stored, json.loads(str(stored["meta"]))


def compare_module(stored, meta, tag, names, source):
    """(launches compared, the first disagreement or None) of one stored module."""
    from helpers.sim import gpuarray
    from helpers.sim.compiler import SourceModule

    if meta["sources"].get(tag) != digest(source):
        return 0, (f"{tag}: the module's text is not the one whose outputs were stored (the "
                   f"generator changed): store them again on a GPU ({STORE_COMMAND})")
    module, compared = SourceModule(source), 0
    for name in names:
        for shape in SHAPES:
            if key(tag, name, shape) not in stored.files:
                continue  # a launch with a race
            want = stored[key(tag, name, shape)]
            got = launch(module.get_function(name), shape, gpuarray, stored["inputs"])
            if not np.array_equal(got, want):
                return compared, disagreement(tag, name, shape, source, got, want)
            compared += 1
    return compared, None


def compare(path, module_list=None):
    if not path.exists():
        print(f"No stored GPU outputs at {path.relative_to(ROOT)}: make them on a machine with "
              f"an NVIDIA GPU and PyCUDA, from the repository root:\n    {STORE_COMMAND}")
        return 2
    stored, meta = load(path)
    compared = 0
    for tag, names, source in module_list or modules():
        done, problem = compare_module(stored, meta, tag, names, source)
        compared += done
        if problem:
            print(problem)
            return 1
    print(f"{compared} launches of random kernels give {meta['device']}'s words on the simulator "
          f"(stored {meta['stored_at']}; {meta['races']} launches with a race left out)")
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", action="store_true", help="on a GPU: store its outputs")
    parser.add_argument("--live", action="store_true",
                        help="on a GPU: run other seeds on it and on the simulator, compared")
    parser.add_argument("--seeds", default="100:140", help="--live's seeds, first:last")
    parser.add_argument("--plain", action="store_true", help="--live: kernels without barriers")
    parser.add_argument("--data", type=Path, default=DATA, help="the stored outputs' file")
    args = parser.parse_args(argv)
    if args.store:
        return store(args.data)
    if args.live:
        seeds = range(*map(int, args.seeds.split(":")))
        return live(modules(() if args.plain else seeds, seeds if args.plain else ()))
    return compare(args.data)


if __name__ == "__main__":
    sys.exit(main())
