"""GCC's UBSan data as the runtime hands it over (helpers/sim/run/ubsan.py): a type descriptor's
kind, bits and signedness, and a value in a pointer-sized word read as its type."""

import ctypes
import struct

import pytest

from helpers.sim.run.ubsan import as_signed, type_of


def descriptor(kind, info, name):
    """A type descriptor as GCC lays it out: u16 kind, u16 info, the quoted name."""
    buffer = ctypes.create_string_buffer(struct.pack("<HH", kind, info) + f"'{name}'".encode() + b"\0")
    return buffer, ctypes.addressof(buffer)


@pytest.mark.parametrize("kind, info, name, expected", [
    (0, 5 << 1 | 1, "int", ("int", 32, True)),                 # log2(32) << 1 | signed
    (0, 5 << 1, "unsigned int", ("unsigned int", 32, False)),
    (0, 6 << 1 | 1, "long int", ("long int", 64, True)),
    (1, 32, "float", ("float", 32, True)),                      # a float: info is its bits
])
def test_a_descriptor_gives_its_type_bits_and_sign(kind, info, name, expected):
    keep, address = descriptor(kind, info, name)
    assert type_of(address) == expected


def test_an_arrays_descriptor_gives_its_declared_type():
    keep, address = descriptor(0xFFFF, 0, "float [256]")
    assert type_of(address)[0] == "float [256]"


def test_a_word_is_read_as_its_type():
    word = (-9) & (2**64 - 1)               # a signed int, sign-extended to the pointer's size
    assert as_signed(word, 32, True) == -9
    assert as_signed(word, 32, False) == 2**32 - 9
    assert as_signed(300, 8, False) == 44   # truncated to the type's bits
