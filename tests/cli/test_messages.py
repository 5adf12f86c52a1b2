#!/usr/bin/python3
"""Messages of the .npy commands speak the user's language: counts in the singular for one, and
a --dtype that NumPy spells differently explained where it clashes with the file."""
import os

import numpy as np

import clitest


def plurals(work):
    # Packed data: the file's size against the shape's, each count in its number.
    np.save(os.path.join(work, "one.npy"), np.zeros(1, np.uint8))
    clitest.expect_failure("1 byte", ["split", "-a", "0", "-n", "1", "--dtype", "u4", "--shape",
                                      "[4]", "one.npy"], work, 65,
                           ["'one.npy' holds 1 byte, but --shape [4] of u4 takes 2 bytes "
                            "(ceil(4 elements x 4 bits / 8))"])
    np.save(os.path.join(work, "two.npy"), np.zeros(2, np.uint8))
    clitest.expect_failure("1 element", ["split", "-a", "0", "-n", "1", "--dtype", "u1",
                                         "--shape", "[1]", "two.npy"], work, 65,
                           ["'two.npy' holds 2 bytes, but --shape [1] of u1 takes 1 byte "
                            "(ceil(1 element x 1 bit / 8))"])


def main():
    plurals(clitest.workdir("messages_plurals"))
    clitest.finish()


if __name__ == "__main__":
    main()
