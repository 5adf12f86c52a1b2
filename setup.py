"""Builds the cleave extension with the project's CMake (the one build of the C code: the AVX2
kernels need their own flags per file, which CMake sets) and lets setuptools package it.

Used by `pip install --no-build-isolation .`; metadata is in pyproject.toml."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent


def library_version():
    """The library's version from include/cleave.h: the package carries the same number."""
    header = (ROOT / "include" / "cleave.h").read_text()
    parts = [re.search(rf"#define CLEAVE_VERSION_{p} (\d+)", header).group(1)
             for p in ("MAJOR", "MINOR", "PATCH")]
    return ".".join(parts)


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build = Path(self.build_temp).resolve() / "cmake"
        jobs = os.environ.get("CLEAVE_BUILD_JOBS", "2")
        subprocess.run(["cmake", "-S", str(ROOT), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
                        "-DBUILD_TESTING=OFF", "-DCLEAVE_BUILD_TOOLS=OFF",
                        "-DCLEAVE_BUILD_BENCH=OFF", "-DCLEAVE_BUILD_PYTHON=ON",
                        f"-DPython3_EXECUTABLE={sys.executable}"], check=True)
        subprocess.run(["cmake", "--build", str(build), "--target", "cleave_python",
                        f"-j{jobs}"], check=True)
        built = next((build / "python" / "cleave").glob("_cleave*.so"))
        target = Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built, target)


# setuptools' own build folder is kept apart from the project's build/ (the CMake build of
# `make test`): build-pip/ (ignored by git, as every /build*/ folder).
setup(version=library_version(), ext_modules=[Extension("cleave._cleave", sources=[])],
      cmdclass={"build_ext": CMakeBuild}, options={"build": {"build_base": "build-pip"}})
