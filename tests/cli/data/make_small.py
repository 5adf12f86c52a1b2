#!/usr/bin/python3
"""Writes small.npy beside this script: a committed fixture for the CTest runs of cleave that
need no Python (CI's valgrind stage runs them under memcheck). Big-endian float64 in Fortran
order, shape (4, 6, 5), values 0..119."""
import os

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
a = np.asfortranarray(np.arange(4 * 6 * 5, dtype=">f8").reshape(4, 6, 5))
np.save(os.path.join(here, "small.npy"), a)
