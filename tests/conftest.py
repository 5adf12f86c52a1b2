"""What pytest needs to run the Python-driven tests of cli/, safetensors/, gguf/, hostile/ and
openvino/ (tests/README.md says how to run them).

CTest runs each test through pytest with the environment its folder's CMakeLists.txt sets. By
hand, what is not set defaults to the build in the repository's build/ folder:

  CLEAVE                  the command under test: build/tools/cleave; a relative path is taken
                          from the current folder, else from the repository's root
  CLEAVE_TEST_TMP         where the tests make their files: one folder per test folder (cli, ...)
                          in pytest's temporary directory
  CLEAVE_SOURCE_DIR       the repository
  CLEAVE_CONFORMANCE_DIR  the repository's tests/conformance
  CLEAVE_WITH_ONNX        as the build of $CLEAVE was configured (its CMakeCache.txt)
  PYTHONPATH              the helpers' folders (clitest.py, st_util.py, ...), also for the tests'
                          own child processes
  PYTHONDONTWRITEBYTECODE 1: no bytecode in the source tree

A check (clitest.check) records a failure and goes on, so that one run reports every broken case;
after the test, the hook below fails it with the list of its failed checks, or if it made no
check at all (a test that checks nothing is broken too). A test that raises fails as usual.
"""
import os
import re
import sys

import pytest

# No __pycache__ in the source tree from here on, nor from the tests' child processes (CTest's
# environment sets PYTHONDONTWRITEBYTECODE too).
sys.dont_write_bytecode = True
os.environ["PYTHONDONTWRITEBYTECODE"] = "1"

TESTS = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(TESTS)
HELPERS = [os.path.join(TESTS, d) for d in ("cli", "safetensors", "gguf", "openvino", "hostile")]


def _cleave():
    """$CLEAVE made absolute (the tests run it from their own folders), or the default build's."""
    given = os.environ.get("CLEAVE")
    if not given:
        return os.path.join(ROOT, "build", "tools", "cleave")
    if os.path.isabs(given) or os.path.exists(given):
        return os.path.abspath(given)
    return os.path.join(ROOT, given)


def _configured_with_onnx(cleave):
    """CLEAVE_WITH_ONNX as the CMakeCache.txt of the build that holds `cleave` says, or OFF."""
    cache = os.path.join(os.path.dirname(os.path.dirname(cleave)), "CMakeCache.txt")
    try:
        with open(cache) as f:
            found = re.search(r"^CLEAVE_WITH_ONNX:BOOL=(\S+)$", f.read(), re.M)
    except OSError:
        return "OFF"
    return found.group(1) if found else "OFF"


os.environ["CLEAVE"] = _cleave()
os.environ.setdefault("CLEAVE_SOURCE_DIR", ROOT)
os.environ.setdefault("CLEAVE_CONFORMANCE_DIR", os.path.join(TESTS, "conformance"))
os.environ.setdefault("CLEAVE_WITH_ONNX", _configured_with_onnx(os.environ["CLEAVE"]))
os.environ["PYTHONPATH"] = os.pathsep.join(
    HELPERS + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])
sys.path[:0] = [d for d in HELPERS if d not in sys.path]

import clitest  # noqa: E402 (reads $CLEAVE, set above)


def _point_workdir(request, tmp_path_factory):
    """Points clitest.workdir at $CLEAVE_TEST_TMP, or at pytest's temporary directory (one
    folder per test folder, as CTest gives each its own)."""
    clitest.TMP_ROOT = (os.environ.get("CLEAVE_TEST_TMP") or
                        str(tmp_path_factory.getbasetemp() / request.path.parent.name))


@pytest.fixture(autouse=True)
def tmp_root(request, tmp_path_factory):
    """Every test: its files where they belong (clitest.workdir), and cleave there to test."""
    if not os.access(clitest.CLEAVE, os.X_OK):
        pytest.fail(f"no cleave at {clitest.CLEAVE}: build it (make demo) or set CLEAVE",
                    pytrace=False)
    _point_workdir(request, tmp_path_factory)


@pytest.fixture
def work(request, tmp_root):
    """A fresh, empty folder for the test: FILE/TEST (test_st_merge/test_round_trip) in the
    folder of the tests' files."""
    name = re.sub(r"[^\w.-]", "_", request.node.name)
    return clitest.workdir(os.path.join(request.path.stem, name))


@pytest.fixture(scope="module")
def shared_work(request, tmp_path_factory):
    """One fresh folder (FILE) for all the tests of a file whose tests read what earlier ones
    wrote; such a file makes it its `work`, and its tests run together, in the file's order."""
    _point_workdir(request, tmp_path_factory)
    return clitest.workdir(request.path.stem)


def pytest_addoption(parser):
    parser.addoption("--cli-fixtures", metavar="DIR",
                     help="the .npy fixtures cli/make_fixtures.py wrote (CTest's cli.fixtures); "
                          "without it, cli/test_dtypes.py makes them itself")


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    clitest.begin()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Fails a test whose checks failed, listing them, or that made no check."""
    report = (yield).get_result()
    if call.when != "call" or report.skipped:
        return
    failures, checks = clitest.results()
    if failures:
        text = f"{len(failures)} of {checks} checks failed:\n" + "\n".join(
            "  " + message for message in failures)
    elif checks == 0 and report.passed:
        text = "no check ran"
    else:
        return
    if report.failed:  # it raised too: the traceback stays, the checks come after it
        report.sections.append(("failed checks", text))
    else:
        report.outcome = "failed"
        report.longrepr = text
