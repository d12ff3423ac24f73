"""Compile caches of a test's own that hold what the run's cache has prebuilt."""

import os
import shutil

from helpers.sim.compile import cache, prebuilt
from helpers.sim.settings import settings

PREBUILT = tuple(f"{kind}-" for kind in [*prebuilt.RUNNERS, "prelude"])


def _link_or_copy(source, target):
    try:
        os.link(source, target)
    except OSError:  # another file system
        shutil.copy2(source, target)


def seeded(folder):
    """``folder`` made a simulator compile cache (a settings.cache_dir, CUDA_COURSE_CACHE_DIR)
    holding what the run's cache has prebuilt (helpers/sim/compile/prebuilt.py: runners, precompiled
    preludes), hard-linked, as any cache does after its first modules: for the tests about the
    modules in a cache of their own, where building those parts again took 0.5 to 1 s each."""
    parts = [p for p in cache.folder().iterdir() if p.name.startswith(PREBUILT)]
    with settings.changed(cache_dir=str(folder)):
        target = cache.folder()
    for part in parts:
        shutil.copytree(part, target / part.name, copy_function=_link_or_copy)
    return folder
