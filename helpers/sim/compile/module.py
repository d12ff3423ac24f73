"""A loaded simulator module: the shared library that `compile/builder.py` made, as Python sees it.

The library exports what Python needs to know about it (`include/sim_launch.h`): its kernels
(name, parameter types), the sizes of the C structs that cross the boundary and the names of the
runtime's status codes. This module holds the ctypes mirrors of those structs, checks them
against the library when it loads, and reads the kernels, the `__device__`/`__constant__`
variables and the `__shared__` bytes of each kernel (from the ELF symbol table).
"""

from __future__ import annotations

import ctypes
import functools
import os
import struct
from pathlib import Path

from . import lines, loader, warned
from .. import errors
from ..machine import memory, stacks


# ---- the C structs that cross into Python (include/sim_runtime.h) -------------------------------
class ErrorReport(ctypes.Structure):
    """sim::Error: what a failed launch reports."""
    _fields_ = [("status", ctypes.c_int32), ("block", ctypes.c_uint32 * 3),
                ("thread", ctypes.c_uint32 * 3), ("is_write", ctypes.c_int32),
                ("address", ctypes.c_uint64), ("pc", ctypes.c_uint64),
                ("file", ctypes.c_char_p), ("line", ctypes.c_int64),
                ("file2", ctypes.c_char_p), ("line2", ctypes.c_int64), ("text", ctypes.c_char * 256),
                ("operands", ctypes.c_uint64 * 2), ("types", ctypes.c_void_p * 2),
                ("gpu", ctypes.c_uint64), ("cpu", ctypes.c_uint64), ("column", ctypes.c_int64),
                ("in_dynamic_shared", ctypes.c_int32), ("dynamic_shared_offset", ctypes.c_int64),
                ("warp_rule", ctypes.c_int32), ("warp_mask", ctypes.c_uint32),
                ("warp_lane", ctypes.c_int32), ("warp_waiting", ctypes.c_uint32 * 32),
                ("refused", ctypes.c_int32), ("decoded", ctypes.c_int32),
                ("alignment", ctypes.c_int32), ("worker_anchor", ctypes.c_uint64),
                ("dynamic_shared_base", ctypes.c_uint64), ("frame_overwritten", ctypes.c_int32),
                ("past_stack_top", ctypes.c_int32), ("stack_guard", ctypes.c_int32)]

    def failed_thread(self):
        """(x, y, z) of the thread that failed; None where the runtime could not tell which (its
        kThreadUnknown: a second run of the block, to name the thread, did not fail again)."""
        return None if self.thread[0] == THREAD_UNKNOWN else tuple(self.thread)


THREAD_UNKNOWN = 0xFFFFFFFF
"""sim::kThreadUnknown (include/sim_runtime.h): ErrorReport.thread when no thread is named."""


class ParamReport(ctypes.Structure):
    """sim::ParamInfo: one kernel parameter's C type."""
    _fields_ = [("kind", ctypes.c_int32), ("size", ctypes.c_int32), ("type_name", ctypes.c_char_p)]


MIRRORS = {"Error": ErrorReport, "ParamInfo": ParamReport}


class Param:
    """A kernel parameter: kind ('P' pointer, 'i'/'u' integer, 'f' floating, 'S' other), size in
    bytes, and the C type's name as the compiler spells it."""
    __slots__ = ("kind", "size", "type_name")

    def __init__(self, kind, size, type_name):
        self.kind, self.size, self.type_name = kind, size, type_name


class Kernel:
    """What the module knows about one kernel: its index in the library's table, its parameters,
    the bytes of its __shared__ arrays, the dynamic shared memory a launch may ask for when
    the kernel opted in to more than 48 KiB (None: it has not, see run/launch.py), and whether
    its threads run as fibers (a stack each) or its blocks as loops (compile/split.py), and the
    first number of its __launch_bounds__ (None: it has none; launch_bounds.py)."""
    __slots__ = ("index", "name", "params", "static_shared", "max_dynamic_shared", "fibers",
                 "max_threads")

    def __init__(self, index, name, params, static_shared=0, fibers=False, max_threads=None):
        self.index, self.name, self.params, self.static_shared = index, name, params, static_shared
        self.max_dynamic_shared, self.fibers, self.max_threads = None, fibers, max_threads


class _DlInfo(ctypes.Structure):
    _fields_ = [("dli_fname", ctypes.c_char_p), ("dli_fbase", ctypes.c_void_p),
                ("dli_sname", ctypes.c_char_p), ("dli_saddr", ctypes.c_void_p)]


_libdl = ctypes.CDLL(None)


def _declare(lib):
    """Argument and return types of the library's exported functions."""
    lib.sim_abi_size.argtypes, lib.sim_abi_size.restype = [ctypes.c_char_p], ctypes.c_int
    lib.sim_status_name.argtypes, lib.sim_status_name.restype = [ctypes.c_int], ctypes.c_char_p
    lib.sim_kernel_name.argtypes, lib.sim_kernel_name.restype = [ctypes.c_int], ctypes.c_char_p
    lib.sim_kernel_nparams.argtypes = [ctypes.c_int]
    lib.sim_kernel_fibers.argtypes = [ctypes.c_int]
    lib.sim_kernel_max_threads.argtypes = [ctypes.c_int]
    lib.sim_kernel_address.argtypes, lib.sim_kernel_address.restype = [ctypes.c_int], ctypes.c_void_p
    lib.sim_describe.argtypes = [ctypes.c_int, ctypes.POINTER(ParamReport)]
    lib.sim_launch_start.restype = ctypes.c_void_p
    lib.sim_launch_start.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_uint),
                                     ctypes.POINTER(ctypes.c_uint), ctypes.c_size_t,
                                     ctypes.POINTER(ctypes.c_void_p), ctypes.c_int,
                                     ctypes.POINTER(ctypes.c_void_p), ctypes.c_int,
                                     ctypes.POINTER(ctypes.c_uint64), ctypes.c_int]
    lib.sim_launch_wait.argtypes = [ctypes.c_void_p, ctypes.c_int]
    lib.sim_set_heap.argtypes, lib.sim_set_heap.restype = [ctypes.c_void_p], None
    lib.sim_set_shared.argtypes = [ctypes.POINTER(ctypes.c_int64), ctypes.c_int]
    lib.sim_set_shared.restype = None
    lib.sim_launch_cancel.argtypes = [ctypes.c_void_p]
    lib.sim_launch_finish.argtypes = [ctypes.c_void_p, ctypes.POINTER(ErrorReport)]


def status_codes(lib) -> dict[str, int]:
    """{name: code} of the runtime's launch statuses (sim::Status), as the library numbers them."""
    codes, code = {}, 0
    while (name := lib.sim_status_name(code)) is not None:
        codes[name.decode()] = code
        code += 1
    return codes


def check_abi(lib, path):
    """The ctypes mirrors must have the C structs' sizes: a mismatch would misread every report."""
    for c_name, mirror in MIRRORS.items():
        size = lib.sim_abi_size(c_name.encode())
        if size != ctypes.sizeof(mirror):
            raise errors.LogicError(
                f"internal error: {path} was built with a sim::{c_name} of {size} bytes, but "
                f"helpers/sim/compile/module.py expects {ctypes.sizeof(mirror)}: the prelude and the "
                "Python side of the simulator are out of step")
    for c_name, value in (("kStackSize", stacks.STACK_BYTES), ("kStackUsable", stacks.STACK_USABLE)):
        if lib.sim_abi_size(c_name.encode()) != value:
            raise errors.LogicError(
                f"internal error: {path} was built with sim::{c_name} = "
                f"{lib.sim_abi_size(c_name.encode())}, but helpers/sim/machine/stacks.py maps {value}")


def _symbol_name(address, fallback):
    """The kernel's symbol: its plain name inside extern "C", else the C++ mangled one, as a
    GPU module names it."""
    info = _DlInfo()
    if _libdl.dladdr(ctypes.c_void_p(address), ctypes.byref(info)) and info.dli_sname \
            and info.dli_saddr == address:
        return info.dli_sname.decode()
    return fallback


class Module:
    """A compiled simulator library, loaded: its kernels, globals and status codes."""

    def __init__(self, path, source=None, rebuild=None):
        """source: the .cu text it was built from; rebuild(instrument=...): the path of its
        instrumented build (the microscope's), rebuild(lines=True) that of its twin with line
        tables (source_line's); None: it cannot be traced, nor its faults placed."""
        self.path = Path(path)
        self._file = _identity(os.stat(self.path))
        self.device_arrays = device_arrays(self.path)
        self.lib = loader.load(self.path, self.device_arrays)
        _declare(self.lib)
        check_abi(self.lib, self.path)
        self.status = status_codes(self.lib)
        self.status_name = {code: name for name, code in self.status.items()}
        self.source, self.rebuild = source, rebuild
        self.compiler_warnings = warned.read(self.lib)  # what g++ warned about its code
        self.kernels = {}
        for i in range(self.lib.sim_kernel_count()):
            n = self.lib.sim_kernel_nparams(i)
            infos = (ParamReport * max(n, 1))()
            self.lib.sim_describe(i, infos)
            params = [Param(chr(p.kind), p.size, p.type_name.decode()) for p in infos[:n]]
            name = _symbol_name(self.lib.sim_kernel_address(i),
                                self.lib.sim_kernel_name(i).decode())
            self.kernels[name] = Kernel(i, name, params,
                                        fibers=bool(self.lib.sim_kernel_fibers(i)),
                                        max_threads=self.lib.sim_kernel_max_threads(i) or None)
        for name, nbytes in static_shared_bytes(self.path, self.kernels).items():
            self.kernels[name].static_shared = nbytes
        shared = shared_variables(self.path)
        # (offset from sim::worker, bytes) of each __shared__ array, for sim_set_shared
        self.shared_variables = ((ctypes.c_int64 * max(2 * len(shared), 1))(
            *[n for pair in shared for n in pair]), len(shared))

    def check_unchanged(self):
        """A LogicError when the library file this module was loaded from has been changed in
        place since (truncated, overwritten): its code is mapped from that file, and running it
        would crash the process (SIGBUS). A file replaced by another (the cache writes new files
        under the same name) leaves the loaded one intact, and is fine."""
        try:
            now = os.stat(self.path)
        except FileNotFoundError:
            return  # deleted: the loaded copy stays mapped
        device_inode, size_mtime = self._file
        if (now.st_dev, now.st_ino) == device_inode and (now.st_size, now.st_mtime_ns) != size_mtime:
            raise errors.LogicError(
                f"cuLaunchKernel failed: the compiled module {self.path.name} was changed on disk "
                f"after it was loaded ({size_mtime[0]} bytes then, {now.st_size} now): running it "
                "could crash this process. Compile the source again with SourceModule (a new "
                "module), and leave the simulator's cache folder to the simulator")

    def source_line(self, pc):
        """"file.cu:12": the learner's line of the instruction at address ``pc`` of this library
        (a fault's), or None where it is not this library's or not the learner's code. A plain
        build's first call builds its twin with line tables (compile/lines.py), about as long as
        the module's own build took; a compile error there gives None, not a second error. An
        instrumented build has line tables of its own."""
        here, there = _DlInfo(), _DlInfo()
        own = ctypes.cast(self.lib.sim_kernel_count, ctypes.c_void_p).value
        if not pc or not _libdl.dladdr(ctypes.c_void_p(pc), ctypes.byref(
                there)) or not _libdl.dladdr(ctypes.c_void_p(own), ctypes.byref(here)) \
                or there.dli_fbase != here.dli_fbase:
            return None
        if lines.has_line_tables(self.path):
            twin = self.path
        elif self.rebuild is None:
            return None
        else:
            try:
                twin = self.rebuild(lines=True)
                if not lines.same_code(self.path, twin):   # it was the first build with its
                    twin = self.rebuild(lines=lines.PARSED)     # flags: it parsed the prelude
            except errors.CompileError:
                return None
        return lines.place(self.path, twin, pc - there.dli_fbase)

    def global_symbol(self, name):
        """(address, size) of a __device__ or __constant__ variable, as get_global gives."""
        try:
            address = ctypes.addressof(ctypes.c_char.in_dll(self.lib, name))
        except ValueError:
            raise errors.LogicError(
                f"cuModuleGetGlobal failed: named symbol not found: {name!r}") from None
        size = _symbol_size(address)
        memory.register_global(address, size)
        return address, size


def _identity(stat):
    """((device, inode), (size, mtime)) of a file: which file it is, and how it was."""
    return (stat.st_dev, stat.st_ino), (stat.st_size, stat.st_mtime_ns)


def _symbol_size(address):
    """The size the ELF symbol table gives for the symbol at address (glibc's dladdr1)."""
    class Elf64Sym(ctypes.Structure):
        _fields_ = [("st_name", ctypes.c_uint32), ("st_info", ctypes.c_ubyte),
                    ("st_other", ctypes.c_ubyte), ("st_shndx", ctypes.c_uint16),
                    ("st_value", ctypes.c_uint64), ("st_size", ctypes.c_uint64)]

    info, sym = _DlInfo(), ctypes.POINTER(Elf64Sym)()
    rtld_dl_syment = 1
    if not _libdl.dladdr1(ctypes.c_void_p(address), ctypes.byref(info), ctypes.byref(sym),
                         rtld_dl_syment) or not sym:
        raise NotImplementedError("get_global needs glibc's dladdr1 to find a variable's size")
    return int(sym.contents.st_size)


# ---- __shared__ bytes, from the ELF symbol table -------------------------------------------------
def elf_symbols(library):
    """(name, type, value, size, writable) of every symbol in a built module's symbol table
    (64-bit ELF): type 1 is a variable (STT_OBJECT), 6 a thread-local (STT_TLS, whose value is
    its offset in the module's thread-local block); writable: it lives in a writable section."""
    return [(name, info & 0xF, value, size, writable)
            for name, info, _, value, size, writable in _symbol_table(library)]


def undefined_symbols(path):
    """The names an object or library needs from elsewhere (SHN_UNDEF), in table order."""
    return list(dict.fromkeys(name for name, _, shndx, *_ in _symbol_table(path)
                              if shndx == 0 and name))


def global_symbols(path):
    """The names an object or library defines for others (global or weak binding)."""
    return {name for name, info, shndx, *_ in _symbol_table(path)
            if shndx != 0 and info >> 4 in (1, 2) and name}


def _symbol_table(path):
    """(name, info, section index, value, size, writable) of every symbol of a 64-bit ELF file
    (none for any other file). A module's table is asked for at each load and at each launch
    that the race check or the trace watches: it is read once for the file as it stands (its
    inode, modification time and size), again only where the file was rewritten."""
    stat = os.stat(path)
    return _read_symbol_table(os.fspath(path), stat.st_ino, stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=64)
def _read_symbol_table(path, *_identity):
    data = Path(path).read_bytes()
    if data[:4] != b"\x7fELF" or data[4] != 2:
        return ()
    shoff, = struct.unpack_from("<Q", data, 40)
    shentsize, shnum = struct.unpack_from("<HH", data, 58)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    names_at = sections[struct.unpack_from("<H", data, 62)[0]][4]  # .shstrtab
    # writable at run time: SHF_WRITE, but not relocated read-only data (.data.rel.ro)
    writable_sections = {i for i, sec in enumerate(sections) if sec[2] & 1 and not data[
        names_at + sec[0]:].startswith(b".data.rel.ro")}
    symbols = []
    for _, kind, _, _, offset, size, link, _, _, entsize in sections:
        if kind != 2:  # SHT_SYMTAB
            continue
        strings = sections[link][4]
        for j in range(size // entsize):
            name, info, _, shndx, value, nbytes = struct.unpack_from("<IBBHQQ", data,
                                                                     offset + j * entsize)
            start = strings + name
            symbols.append((data[start:data.index(b"\0", start)].decode(), info, shndx, value,
                            nbytes, shndx in writable_sections))
    return tuple(symbols)


def _tls_symbols(library):
    """(name, size) of every thread-local symbol in a built module's symbol table."""
    return [(name, size) for name, kind, _, size, _ in elf_symbols(library) if kind == 6]


_ANONYMOUS = "_ZN12_GLOBAL__N_1"
"""The mangled prefix of a name in an anonymous namespace."""
LIBRARY_TLS = ("_ZN3sim", "_ZZN3sim", "_ZZN12_GLOBAL__N_110get_globalEv")
"""Thread-locals that are not the learner's: the runtime's (sim::worker) and libstdc++ 13's
exception globals (``get_global()::global``, there when it is linked statically)."""


def _is_learners(name):
    """A thread-local of the learner's code (a __shared__ array), not of the runtime or the C++
    library, whose names are namespaced (sim::worker; libstdc++ 13's get_global()::global)."""
    return not name.startswith(("_ZN", "_ZZN", "_ZZSt"))


def device_arrays(library):
    """(name, bytes) of the module's __device__ and __constant__ variables, largest first: the
    device memory that loading the module takes (devices.adopt_module), as a GPU's module load
    takes it for every one of them, however small. The runtime's and the C++ library's own
    variables (a few hundred bytes) are not the learner's, and are left out (_is_learners_variable)."""
    return sorted(((name, size) for name, kind, _, size, writable in elf_symbols(library)
                   if kind == 1 and writable and size and _is_learners_variable(name)),
                  key=lambda pair: -pair[1])


def _is_learners_variable(name):
    """A variable of the learner's code: a plain identifier (extern "C", PyCUDA's default, names
    namespaced ones plainly too) or a C++ name in a namespace of the learner's; not one that C++
    reserves for the compiler and its library (``__sim_kernel_table``, ``completed.0``,
    ``DW.ref.__gxx_personality_v0``) nor one of the runtime's namespace (``sim::heap``) or the C++
    library's (vtables, type names, guards: ``_ZT...``, ``_ZGV...``, ``_ZNSt...``, ``_ZNSs``:
    every name of std:: abbreviated). A libstdc++ linked statically (g++ 13 on Ubuntu 24.04 made
    one so) brings the facets of its anonymous namespace (``_ZN12_GLOBAL__N_17ctype_cE``): those
    are left out too, so a learner's own variable in an anonymous namespace is not charged."""
    if name.startswith("_Z"):
        return name.startswith(("_ZN", "_ZL")) and not name.startswith(
            ("_ZN3sim", "_ZNS", "_ZNKS", "_ZN9__gnu_cxx", "_ZN10__cxxabiv1", _ANONYMOUS))
    return name.isidentifier() and not name.startswith("__")


def shared_variables(library):
    """(offset from the runtime's sim::worker, bytes) of each of the learner's __shared__ arrays
    (thread-locals of the module, include/cuda_sim.h): where a worker thread finds its copy."""
    symbols = [(name, value, size) for name, kind, value, size, _ in elf_symbols(library)
               if kind == 6]
    anchor = next(value for name, value, _ in symbols if name == "_ZN3sim6workerE")
    return [(value - anchor, size) for name, value, size in symbols if _is_learners(name) and size]


def _kernel_prefixes(kernels):
    """{kernel: the prefix of the names of its function-local statics (_ZZ<kernel>E)}."""
    return {k: "_ZZ" + (k[2:] if k.startswith("_Z") else f"{len(k)}{k}") + "E" for k in kernels}


def static_shared_bytes(library, kernels):
    """{kernel: bytes of its __shared__ arrays}. They are thread-local statics of the kernel
    (symbols _ZZ<kernel>E...); those of no kernel (file scope: plain or _ZL names; statics of
    __device__ functions) count for every kernel. Namespaced thread-locals belong to the runtime
    or the C++ library (sim::worker; libstdc++ 13's get_global()::global) and are left out."""
    prefixes = _kernel_prefixes(kernels)
    per_kernel, common = dict.fromkeys(kernels, 0), 0
    for name, nbytes in _tls_symbols(library):
        owner = next((k for k, prefix in prefixes.items() if name.startswith(prefix)), None)
        if owner is not None:
            per_kernel[owner] += nbytes
        elif _is_learners(name) and name.startswith(("_ZZ", "_ZL")) or not name.startswith("_"):
            common += nbytes  # not namespaced: the learner's code, not the library's
    return {k: n + common for k, n in per_kernel.items()}


def kernel_shared_arrays(library, kernels):
    """{kernel: [(offset in the module's thread-local block, bytes, symbol)]} of the thread-locals
    a launch of each kernel may touch, sorted: every one but the runtime's (sim::) and the
    statics of the other kernels (a block has only its own kernel's __shared__ arrays). For the
    bounds check (include/sim_bounds.h), which lets through what it cannot tell apart."""
    prefixes = _kernel_prefixes(kernels)
    symbols = sorted((value, size, name) for name, kind, value, size, _ in elf_symbols(library)
                     if kind == 6 and size and not name.startswith(LIBRARY_TLS))
    return {k: [(value, size, name) for value, size, name in symbols
                if not any(name.startswith(p) for other, p in prefixes.items() if other != k)]
            for k in kernels}
