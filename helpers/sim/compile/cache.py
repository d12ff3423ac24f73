"""The cache of compiled simulator modules: where it is, and why it can be trusted.

A cached module is a shared library that the learner's process loads and runs, so the cache must
never hold a library that someone else put there, nor a broken one:

- its folders are created private (0700, whatever the umask), and a folder or library that is not
  the user's own, or that others may write to, is refused with a message that says what to do;
- a library is written under a temporary name, flushed to disk (fsync), and renamed into place
  (``os.replace``, atomic), so two notebooks compiling the same source at once cannot corrupt it;
- a library is checked before it is used (whole ELF file), and one that is truncated or empty is
  deleted so that it is built again;
- without a usable HOME, the cache goes to a per-user folder in the temporary directory, and a
  warning says so.
"""

import functools
import os
import stat
import struct
import tempfile
import warnings
from pathlib import Path

from ..settings import settings
from . import messages

LAYOUT_VERSION = "3"  # a new folder when the cache's layout changes: sim-v3


class UnsafeCacheError(PermissionError):
    """A cache folder or library that someone other than the user could have written."""


def default_root():
    """The user's cache folder for the course: $XDG_CACHE_HOME/cuda-course, else
    ~/.cache/cuda-course, else (HOME unset, empty or relative) one in the temporary directory."""
    if settings.xdg_cache_home and os.path.isabs(settings.xdg_cache_home):
        return Path(settings.xdg_cache_home) / "cuda-course"
    if settings.home and os.path.isabs(settings.home) and settings.home != "/":
        return Path(settings.home) / ".cache" / "cuda-course"
    return _temporary_root(settings.home)


@functools.lru_cache(maxsize=None)
def _temporary_root(home):
    root = Path(tempfile.gettempdir()) / f"cuda-course-{os.getuid()}"
    state = "not set" if home is None else "empty" if home == "" else f"{home!r}, not a home folder"
    warnings.warn(f"HOME is {state}, so the simulator caches compiled kernels in {root}, which may "
                  "not survive a restart. Set HOME, or CUDA_COURSE_CACHE_DIR to choose the folder.",
                  stacklevel=6)
    return root


def folder(cache=None):
    """The folder to keep a module in: ``cache`` when given (PyCUDA's ``cache_dir``), else
    ``settings.cache_dir``, else the user's cache; created private, checked, returned.

    The folder and the root it is in must be the user's and closed to others. The one exception:
    the default root in the user's home, which older versions of the course created under the
    umask (group-writable on many systems), is made private again."""
    if cache:
        path = root = Path(cache)
    else:
        root = Path(settings.cache_dir) if settings.cache_dir else default_root()
        path = root / f"sim-v{LAYOUT_VERSION}"
    make_private(path)
    if not cache and not settings.cache_dir and _owned_but_open(root):
        os.chmod(root, 0o700)
    check_owned(root, "cache folder")
    check_owned(path, "cache folder")
    return path


def _owned_but_open(path):
    st = os.stat(path)
    return st.st_uid == os.getuid() and stat.S_ISDIR(st.st_mode) and bool(st.st_mode & 0o022)


def make_private(path):
    """Create path and any missing parent folders, each readable by the user alone (0700)."""
    missing = []
    for p in [path, *path.parents]:
        if p.exists():
            break
        missing.append(p)
    for p in reversed(missing):
        try:
            os.mkdir(p, 0o700)
        except FileExistsError:
            continue
        os.chmod(p, 0o700)  # mkdir's mode is cut by the umask; chmod's is not


def check_owned(path, what):
    """Refuse a folder or file that is not the user's, or that others may write to."""
    st = os.stat(path)
    problem = None
    if st.st_uid != os.getuid():
        problem = f"belongs to another user (uid {st.st_uid})"
    elif st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        problem = f"may be written by other users (mode {stat.filemode(st.st_mode)})"
    if problem:
        fix = ("delete it" if what in ("cached library", "precompiled prelude") else
               f"make it private (chmod 700 {path})" if "written" in problem else
               "choose another folder")
        raise UnsafeCacheError(
            f"the simulator's {what} {path} {problem}: a compiled module found there could run "
            f"someone else's code in this process, so it is not used. Either {fix}, or set "
            "CUDA_COURSE_CACHE_DIR to a folder of your own.")


def looks_whole(path):
    """True when path is a complete ELF library: its section headers, which the linker writes
    last, lie inside the file. A truncated or empty file is not."""
    try:
        with open(path, "rb") as f:
            head = f.read(64)
            size = os.fstat(f.fileno()).st_size
    except OSError:
        return False
    if len(head) < 52 or head[:4] != b"\x7fELF" or head[4] not in (1, 2):
        return False
    order = "<" if head[5] == 1 else ">"
    if head[4] == 2:
        shoff, = struct.unpack_from(order + "Q", head, 40)
        shentsize, shnum = struct.unpack_from(order + "HH", head, 58)
    else:
        shoff, = struct.unpack_from(order + "I", head, 32)
        shentsize, shnum = struct.unpack_from(order + "HH", head, 46)
    return 0 < shoff and shoff + shentsize * shnum <= size


def usable(path):
    """True when a cached library at path may be loaded; a broken one is deleted (it will be
    built again), an unsafe one refused."""
    if not path.exists():
        return False
    check_owned(path, "cached library")
    if looks_whole(path):
        return True
    discard(path)
    return False


def discard(path):
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def install(write, target):
    """Write a library with ``write(partial_path)`` and move it to target atomically: a reader
    sees no library or a whole one, even after a crash (it is on disk before it is renamed)."""
    try:
        fd, partial = tempfile.mkstemp(dir=target.parent, prefix=f".{target.stem}-", suffix=".so")
        os.close(fd)
    except OSError as err:
        raise messages.disk_full(target.name, str(err)) or err
    try:
        write(partial)
        os.chmod(partial, 0o700)  # the linker gives it the umask's mode
        with open(partial, "rb") as f:
            os.fsync(f.fileno())
        os.replace(partial, target)
        _fsync_folder(target.parent)
    except OSError as err:
        raise messages.disk_full(target.name, str(err)) or err
    finally:
        discard(partial)


def _fsync_folder(path):
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
