"""What a failed launch says: the runtime's status in CUDA's words, and where it happened (the
kernel, the block and thread, the source line, the address and the allocation it falls in), with
what to do where the simulator can tell; the same facts as the LaunchError's fields.

The line comes from the runtime where it knows it (an assert, a barrier), else, for a fault that a
signal stopped, from the instruction's address (Module.source_line), as compute-sanitizer's
memcheck names the line of a bad access."""

import ctypes
import re

from ..machine import memory
from . import wrapped
from ..errors import (ArrayBoundsError, LaunchError, MisalignedAddressError, OutOfBoundsError,
                      WarpMaskError)
from .ubsan import as_signed, type_of

STATUS_TEXT = {
    "FAULT": "an illegal memory access was encountered",
    "ASSERT": "device-side assert triggered",
    "BARRIER": "threads of a block cannot all reach the same __syncthreads()",
    "WARP": "a warp function was called with a mask that cannot be satisfied",
    "ARITHMETIC": "integer division by zero",
    "STACK": "a thread's stack overflowed",
    "ABORT": "the kernel called abort()",
    "BOUNDS": "an index ran past the end of a fixed-size array",
    "RESOURCES": "the simulator could not get the memory or threads the launch needs",
    "OVERRUN": "an illegal memory access was encountered",
    "MATRIX": "a warp matrix function (wmma) was called against its rules",
}


# The runtime's status -> LaunchError.kind
KIND = {"FAULT": "out of bounds", "OVERRUN": "out of bounds", "ASSERT": "assert",
        "BARRIER": "divergent barrier", "WARP": "warp mask", "ARITHMETIC": "division by zero",
        "STACK": "stack overflow", "ABORT": "abort", "BOUNDS": "array bounds",
        "RESOURCES": "resources", "MATRIX": "warp matrix"}


WARP_RULES = {1: "leaves out the caller", 2: "names an exited lane", 3: "lanes never arrive"}
"""sim::WarpRule (include/sim_runtime.h) -> WarpMaskError.rule"""


def error(module, name, status, err, record=None):
    """The LaunchError for a launch of kernel ``name`` of ``module`` that ended with ``status``
    (a status name of module.py) and the runtime's ErrorReport ``err``: an OutOfBoundsError for
    a bad access, which names the array where ``record`` (the launch) shows an index wrapped
    around as an unsigned int (run/wrapped.py)."""
    site = f"{err.file.decode()}:{err.line}" if err.file else module.source_line(err.pc)
    found = (wrapped.find(err.address, wrapped.launch_arrays(record, err))
             if status == "FAULT" and not err.refused and record is not None else None)
    facts = {"kernel": name, "kind": KIND.get(status, "failed"), "line": site}
    if status != "RESOURCES":
        facts["block"] = tuple(err.block)
    if status not in ("RESOURCES", "OVERRUN"):
        facts["thread"] = err.failed_thread()
    if status == "BOUNDS" and not err.types[1]:   # through a pointer (sim_grid.h: object-size)
        return local_overrun_error(name, err, site, facts)
    bounds = bounds_index(err) if status == "BOUNDS" else None
    text = f"cuLaunchKernel failed: {message(name, status, err, site, bounds, found)}"
    if bounds:
        (index, declared), length = bounds, re.match(r"[^\[]*\[(\d+)\]", bounds[1])
        wrap = wrapped.unsigned_wrap(index)
        return ArrayBoundsError(text, declared=declared, length=int(length[1]) if length else None,
                                element=index, wrapped=wrap is not None,
                                index=index if wrap is not None else None, **facts)
    if status == "WARP" and err.warp_rule in WARP_RULES:
        facts.pop("kind")
        waiting = tuple(32 * k + lane for k, lanes in enumerate(err.warp_waiting)
                        for lane in range(32) if lanes >> lane & 1)
        return WarpMaskError(text, rule=WARP_RULES[err.warp_rule], mask=err.warp_mask,
                             lane=err.warp_lane if err.warp_lane >= 0 else None,
                             waiting=waiting or None,
                             barrier=f"{err.file2.decode()}:{err.line2}" if err.file2 else None,
                             **facts)
    if err.frame_overwritten:
        return LaunchError(text, **{**facts, "kind": "local array overrun"})
    if status == "MATRIX" and err.warp_rule == MATRIX_ARGS_DIFFER:
        return matrix_error(text, err, facts)
    if status == "MATRIX" and err.warp_rule == MATRIX_MISALIGNED:
        return matrix_misaligned_error(text, err, facts)
    if status == "BARRIER":
        return BarrierError(text, barrier=f"{err.file2.decode()}:{err.line2}" if err.file2
                            else None, **facts)
    if status not in ("FAULT", "OVERRUN"):
        return LaunchError(text, **facts)
    is_write = {1: True, 0: False}.get(err.is_write)
    if status == "FAULT" and (err.past_stack_top or err.stack_guard):
        return OutOfBoundsError(text, is_write=is_write, space="local",
                                **{**facts, "kind": "local array overrun"})
    if status == "FAULT" and err.refused:
        return refused_error(text, err, is_write, facts)
    if found:
        return wrapped_error(text, err, found, is_write, facts)
    if err.in_dynamic_shared:
        return OutOfBoundsError(text, is_write=is_write, array="extern __shared__ array",
                                space="shared", offset=err.dynamic_shared_offset, **facts)
    return OutOfBoundsError(text, is_write=is_write, address=err.address,
                            **{**facts, **memory.fault_facts(err.address)})


class WarpMatrixError(LaunchError):  # beside the one place that raises it (errors.py is full)
    """A warp-wide wmma load whose lanes passed different arguments (kind "warp matrix", rule
    "arguments differ"): ``lanes`` (lane 0 and the first lane whose differ), ``pointers`` (the
    address each passed), ``ldms`` (the leading dimension each passed), ``element_size`` (the
    bytes of one element), and for each pointer ``allocations`` ((start, bytes) of the allocation
    it falls in or nearest, None for none) and ``offsets`` (its distance in bytes from that
    start)."""

    def __init__(self, msg, *, rule, lanes, pointers, ldms, element_size, allocations, offsets,
                 **facts):
        super().__init__(msg, kind="warp matrix", **facts)
        self.rule, self.lanes, self.pointers, self.ldms = rule, lanes, pointers, ldms
        self.element_size, self.allocations, self.offsets = element_size, allocations, offsets



class BarrierError(LaunchError):  # beside the one place that raises it (errors.py is full)
    """Threads of a block that cannot all reach the same __syncthreads() (kind "divergent
    barrier"): ``line`` where the failing thread waits, ``barrier`` the other __syncthreads(),
    where the first threads wait ("file.cu:16"; None where the runtime did not say)."""

    def __init__(self, msg, *, barrier=None, **facts):
        super().__init__(msg, **facts)
        self.barrier = barrier


MATRIX_ARGS_DIFFER, MATRIX_MISALIGNED = 4, 5
"""nvcuda::wmma::__sim::kArgsDiffer and kMisaligned (include/mma.h): a MATRIX error's warp_rule
when a lane's pointer or leading dimension differs from lane 0's, or a pointer to 16-bit
elements lies at an odd element"""


def matrix_misaligned_error(text, err, facts):
    """The MisalignedAddressError of a wmma load or store of 16-bit elements at an odd element:
    in global memory, the allocation and the offset in bytes (``space`` "global"); elsewhere
    neither."""
    where = memory.fault_facts(err.address)
    start, size = where.get("allocation") or (0, 0)
    inside = 0 <= err.address - start < size
    facts = {k: v for k, v in facts.items() if k != "kind"}
    return MisalignedAddressError(text, address=err.address, alignment=4,
                                  misalignment=err.address % 4, size=int(err.operands[1]),
                                  is_write=bool(err.is_write), space="global" if inside else None,
                                  allocation=where["allocation"] if inside else None,
                                  offset=where["offset"] if inside else None, **facts)


def matrix_error(text, err, facts):
    """The WarpMatrixError of a wmma load whose lanes passed different pointers or leading
    dimensions: mma.h's fields (lane 0's in operands[0] and gpu, the lane's in address and cpu)."""
    pointers = (err.operands[0], err.address)
    where = [memory.fault_facts(p) for p in pointers]
    facts.pop("kind")
    return WarpMatrixError(text, rule="arguments differ", lanes=(0, err.warp_lane),
                           pointers=pointers, ldms=(err.gpu, err.cpu),
                           element_size=err.operands[1],
                           allocations=tuple(w.get("allocation") for w in where),
                           offsets=tuple(w.get("offset") for w in where), **facts)


# ---- an access the CPU refused without saying its address -------------------------------------
# x86 raises a general-protection fault, which gives no address, for an SSE load or store that
# needs its address aligned (what g++ makes of a uint4 or float4 access) given one that is not,
# and for an address that cannot exist. The runtime reads the address from the instruction where
# it can (include/sim_fault_decode.h): the facts below tell the two apart.
def refused_kind(err):
    """"misaligned address", "wild pointer" (an address no machine has) or, where the runtime
    could not read the address, "misaligned or impossible address"."""
    if not err.decoded:
        return "misaligned or impossible address"
    if not canonical(err.address):
        return "wild pointer"
    if err.alignment and err.address % err.alignment:
        return "misaligned address"
    return "misaligned or impossible address"


def canonical(address):
    """Whether x86-64 can address ``address`` at all: its top 17 bits all equal."""
    return address >> 47 in (0, (1 << 17) - 1)


def refused_error(text, err, is_write, facts):
    """The LaunchError of a refused access (``facts``: the kernel, block, thread and line)."""
    kind = refused_kind(err)
    if kind == "misaligned or impossible address" and returns(err.pc):
        return LaunchError(text, **{**facts, "kind": "return address overwritten"})
    if kind == "misaligned address":
        where = memory.fault_facts(err.address)
        return MisalignedAddressError(text, address=err.address, alignment=err.alignment,
                                      misalignment=err.address % err.alignment,
                                      size=err.alignment, is_write=is_write,
                                      allocation=where.get("allocation"),
                                      offset=where.get("offset"),
                                      **{k: v for k, v in facts.items() if k != "kind"})
    if kind == "wild pointer":
        return OutOfBoundsError(text, is_write=is_write, address=err.address,
                                **{**facts, "kind": kind})
    return LaunchError(text, **{**facts, "kind": kind})


def returns(pc) -> bool:
    """Whether the refused instruction at ``pc`` is a function's return (x86's ret: c3, c2 with
    a count, either after a rep or bnd prefix): the address it popped, the caller's, was junk,
    written over by a local array's overrun below it on the stack."""
    if not pc:
        return False
    code = ctypes.string_at(pc, 2)
    code = code[1:] if code[0] in (0xF2, 0xF3) else code
    return code[0] in (0xC3, 0xC2)


def refused_words(err, access):
    """The message's end for a refused access (``access``: "a read of", ...)."""
    kind = refused_kind(err)
    if kind == "misaligned or impossible address" and returns(err.pc):
        return ("a return to an address that cannot exist: the function's return address, kept "
                "on the thread's stack beside its local arrays, was overwritten (a write past the "
                "end of a local array?)")
    if kind == "misaligned address":
        where = memory.describe_address(err.address)
        return (f"{access} address 0x{err.address:x}, {err.address % err.alignment} bytes past a "
                f"multiple of {err.alignment} ({where}): {memory.alignment_rule(err.alignment)}")
    if kind == "wild pointer":
        return (f"{access} address 0x{err.address:x}, which cannot exist (its top bits are not "
                "all equal): a pointer made of junk bytes, such as a local variable read before "
                "anything was written to it?")
    return ("an access the CPU refused without saying its address: misaligned ("
            f"{memory.alignment_rule(16)}) or at an address that cannot exist (a pointer made of junk "
            "bytes)")


def wrapped_error(text, err, found, is_write, facts):
    """The OutOfBoundsError of a fault at an index that wrapped around (``found``, a Wrapped): the
    array and its element -k, as the learner wrote them, ``index`` what the index held."""
    where = {"offset": err.address - found.start}
    if found.space == "global":
        where = memory.fault_facts(found.start)
        where["offset"] = err.address - where["allocation"][0]
    return OutOfBoundsError(text, is_write=is_write, address=err.address, array=found.array,
                            element=found.element, index=found.index, wrapped=True,
                            space=found.space, length=found.length,
                            **{**facts, **where, "kind": "out of bounds"})


def bounds_index(err):
    """(the index, the array's declared type, as "float[256]") of a BOUNDS error: GCC's bounds
    check hands both to the runtime (include/sim_grid.h)."""
    _, width, signed = type_of(err.types[0])
    return as_signed(err.operands[0], width, signed), type_of(err.types[1])[0]


def overrun_words(access, how):
    """The message's end for an access past the end of a local array that ran up the thread's
    stack: ``how`` says how far ("over the record ...", "past its top")."""
    return (f"{access} past the end of a local array (an array declared in the kernel or in a "
            "__device__ function, reached through an index or a pointer too large) ran up the "
            f"thread's stack {how} (on a GPU, compute-sanitizer reports such an access as an "
            "invalid __local__ access). Check every index into the thread's local arrays against "
            "their lengths")


OVERRUN_WORDS = overrun_words(
    "a write", "over the record where the simulator keeps its threadIdx and blockIdx")
"""The message's end for a launch whose failing thread's Frame was written over (the runtime's
Error.frame_overwritten, include/sim_runtime.h)."""


def local_overrun_error(name, err, site, facts):
    """The OutOfBoundsError of an access through a pointer past the end of a local array, caught
    before it happened (GCC's object-size check, include/sim_grid.h): its thread, line, type."""
    type_name = type_of(err.types[0])[0]
    is_write = {1: True, 0: False}.get(err.is_write)
    access = {True: "a write", False: "a read"}.get(is_write, "an access")
    where = f" at {site}" if site else ""
    text = (f"cuLaunchKernel failed: {STATUS_TEXT['BOUNDS']} in kernel {name!r}, block "
            f"({', '.join(map(str, err.block))}), {thread_words(err)}{where}: {access} of "
            f"{type_name} through a pointer, past the end of the local array it points into (an "
            "array declared in the kernel or in a __device__ function, handed on as a pointer)")
    return OutOfBoundsError(text, is_write=is_write, address=err.operands[0], space="local",
                            **{**facts, "kind": "local array overrun"})


def thread_words(err):
    """"thread (3, 0, 0)", or, where the runtime could not tell which thread failed, words that
    say so."""
    thread = err.failed_thread()
    if thread is None and err.frame_overwritten:
        return "by one of its threads (which one is not known: its record was written over)"
    if thread is None:
        return ("by one of its threads (which one is not known: the block, run again to name it, "
                "did not fail the second time)")
    return f"thread ({', '.join(map(str, thread))})"


def message(name, status, err, site, bounds=None, found=None):
    """The LaunchError text for a launch that ended with ``status`` (a status name of
    module.py), the runtime's ErrorReport ``err`` and the line ``site`` ("file.cu:12" or None);
    ``bounds``: a BOUNDS error's (index, declared type), ``bounds_index``'s; ``found``: a fault's
    wrapped index (run/wrapped.py), or None."""
    where = (f"in kernel {name!r}, block ({', '.join(map(str, err.block))}), "
             f"{thread_words(err)}")
    if status == "OVERRUN":  # found after the block ended: which thread did it is not known
        where = f"in kernel {name!r}, block ({', '.join(map(str, err.block))}), by one of its threads"
    elif status == "RESOURCES":
        where = f"for kernel {name!r}"
    text = err.text.decode(errors="replace")
    head = STATUS_TEXT.get(status, "the kernel failed")
    if err.frame_overwritten:
        return f"{head} {where}: {OVERRUN_WORDS}"

    if status == "FAULT" and err.refused and refused_kind(err) == "misaligned address":
        head = "misaligned address"  # CUDA's words
    message = f"{head} {where}"
    if status in ("FAULT", "OVERRUN"):
        message += f" at {site}" if site else ""
        access = {1: "a write to", 0: "a read of"}.get(err.is_write, "an access to")
        if status == "FAULT" and err.refused:
            message += f": {refused_words(err, access)}"
        elif status == "FAULT" and err.past_stack_top:
            access = {1: "a write", 0: "a read"}.get(err.is_write, "an access")
            message += f": {overrun_words(access, 'and past its top')}"
        elif status == "FAULT" and err.stack_guard:
            message += (": " + overrun_words("a write", "over the guard word the compiler keeps "
                                             "below the function's return address"))
        elif found:
            message += f": {wrapped.access_words(found, access)}"
        elif err.in_dynamic_shared and err.dynamic_shared_offset >= 0:
            message += (f": {access} dynamic shared memory past the end of the bytes the launch "
                        "gave it (its shared= argument)")
        elif err.in_dynamic_shared:
            message += f": {access} an address before the start of its dynamic shared memory"
        else:
            message += f": {access} address 0x{err.address:x}, {memory.describe_address(err.address, by_a_kernel=True)}"
    elif status == "BARRIER":
        message += f": {text} ({site}" + (
            f" and {err.file2.decode()}:{err.line2})" if err.file2 else ")")
        message += (". Every thread of a block that has not returned must reach the same "
                    "__syncthreads(): keep barriers out of code that only some threads run.")
    elif status == "STACK":
        message += (": are its local arrays larger than the 512 KiB a GPU gives a thread? Move "
                    "them to global memory.")
    elif status == "RESOURCES":
        message += (f": {text}. Free device arrays you no longer need, or run fewer workers "
                    "(CUDA_SIM_WORKERS).")
    elif status == "BOUNDS":
        index, declared = bounds
        message += (f" at {site}" if site else "") + (f": index {index} of an array declared "
                                                      f"{declared}")
        if wrapped.unsigned_wrap(index) is not None:
            message += f": {wrapped.index_words(wrapped.unsigned_wrap(index), index)}"
    elif site:
        message += f" at {site}" + (f": {text}" if text else "")
    return message
