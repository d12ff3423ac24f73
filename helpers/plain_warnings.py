"""Warnings told as plain text: what a compiler said, without the Python file and line.

A warning names the Python source line that raised it; in a notebook that is a path of the
machine that ran it (`/home/you/.../helpers/backend.py:101: UserWarning: ...`), which tells a
reader nothing and, in a stored output, shows the GPU machine's folders. The course's compile
helpers run the compiler inside ``printed_plainly()``, which prints each warning's message on
stderr instead (the compilers' messages say what they are: "The CUDA compiler succeeded, but said
the following: ...").
"""

import contextlib
import sys
import warnings


@contextlib.contextmanager
def printed_plainly():
    """Print the messages of the warnings raised inside on stderr, when it ends. Yields the list
    of caught warnings: remove one from it to tell it another way."""
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        yield said
    for w in said:
        print(w.message, file=sys.stderr)
