#!/usr/bin/python3
"""Writes small.npy and packed.npy beside this script: committed fixtures for the CTest runs of
cleave that need no Python (CI's valgrind stage runs them under memcheck). small.npy: big-endian
float64 in Fortran order, shape (4, 6, 5), values 0..119. packed.npy: 180 uint8 bytes (i * 37 mod
256), read as packed data (u4 [40,9], u1 [3,480], u1 [10,144])."""
import os

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
a = np.asfortranarray(np.arange(4 * 6 * 5, dtype=">f8").reshape(4, 6, 5))
np.save(os.path.join(here, "small.npy"), a)
np.save(os.path.join(here, "packed.npy"), (np.arange(180) * 37 % 256).astype(np.uint8))
