"""The staging of notebook 14's tiled attention read past k's or v's end: thread t of each block
stages key j = tile * TILE + t of every tile, and in the last, partial tile the keys j >= n do not
exist. Read with no test, they run past the inputs' end, which the launch on the simulator (its
inputs allocated to the byte) finds; a GPU reads what lies there, and the staged slot is never
scored, so only that launch tells."""

from __future__ import annotations

import os

from helpers.exercises.attention_tiles_models import D, TILE


def staged_past_n(failure):
    """(problem, hint) of a read of k or v past n by thread t at key j = tile * TILE + t, the key
    it stages in some tile: the staging had no test j < n (``failure``: the launch's
    ``failure.Failure``, its launch's fifth argument n)."""
    err, launch = failure.error, failure.launch
    if failure.kind != "out of bounds" or getattr(err, "is_write", None) is not False or \
            getattr(err, "array", None) not in ("k", "v") or err.element is None or \
            err.thread is None or launch is None:
        return
    n, key, t = int(launch.args[4]), err.element // D, err.thread[0]
    if key < n or key % TILE != t:
        return
    tile, name, other = key // TILE, err.array, "Vs" if err.array == "k" else "Ks"
    at = f" at {os.path.basename(err.line)}" if err.line else ""
    which = "the last, partial tile" if tile == (n - 1) // TILE else f"tile {tile}"
    yield (f"the staging of {which} read {name} past its end: thread {t} of block {err.block[0]} "
           f"staged key j = tile * TILE + t = {tile} * {TILE} + {t} = {key}, past the last key, "
           f"{n - 1} (n = {n}), and read {name}[{err.element}]{at}",
           "stage a zero where the staged key j is past the end, under its own test: "
           f"{name.upper()}s[t][c] = j < n ? __half2float({name}[(size_t)j * HEAD_DIM + c]) : "
           f"0.0f, the same for {other} (not the query's i < n: in the last block it would "
           "zero keys that exist)")
