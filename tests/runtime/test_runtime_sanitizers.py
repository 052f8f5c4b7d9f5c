"""The runtime under sanitizers, as part of the ordinary test run.

ASan + UBSan + LSan: the whole Python suite runs again in a subprocess against an instrumented
build (build/runtime-asan), with the ASan runtime preloaded into the interpreter, CPython's own
allocations going through malloc, and a suppression file for what CPython never frees. Running
the real suite, rather than a C driver that would repeat it, checks exactly the calls the suite
makes. A canary run leaks one tensor on purpose to show that LSan still reports libTH's leaks.

TSan: Python cannot host a TSan-instrumented library (the interpreter would need building with
TSan too), so the many-threads copy-on-write test is a C driver (tests/runtime/c/cow_threads.c)
linked against an instrumented build (build/runtime-tsan). A second run races on purpose to
show that TSan is really watching.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from th_ctypes import BUILD_ENV, DEFAULT_BUILD, ROOT, BuildError, build

HERE = Path(__file__).resolve().parent
ASAN_BUILD = DEFAULT_BUILD.parent / "runtime-asan"
TSAN_BUILD = DEFAULT_BUILD.parent / "runtime-tsan"
SANITIZER_ENV = "TH_RUNTIME_SANITIZER"

pytestmark = pytest.mark.skipif(bool(os.environ.get(SANITIZER_ENV)),
                                reason="already running under a sanitizer")


def sanitized_build(directory: Path, option: str) -> Path:
    try:
        return build(directory, f"-D{option}=ON", "-DTH_CUDA=OFF")
    except BuildError as e:
        pytest.fail(str(e), pytrace=False)


def runtime_library(build_dir: Path, name: str) -> str:
    """The sanitizer runtime of the compiler the build used, for LD_PRELOAD."""
    compiler = "cc"
    for line in (build_dir / "CMakeCache.txt").read_text().splitlines():
        if line.startswith("CMAKE_C_COMPILER:"):
            compiler = line.split("=", 1)[1]
    found = subprocess.run([compiler, f"-print-file-name={name}"], capture_output=True,
                           text=True).stdout.strip()
    if not os.path.isabs(found) or not os.path.exists(found):
        pytest.skip(f"{compiler} has no {name} to preload")
    return found


@pytest.fixture(scope="module")
def asan_env():
    build_dir = sanitized_build(ASAN_BUILD, "TH_SANITIZE_ADDRESS")
    env = dict(os.environ)
    env.update({
        BUILD_ENV: str(build_dir),
        SANITIZER_ENV: "address",
        "LD_PRELOAD": runtime_library(build_dir, "libasan.so"),
        "PYTHONMALLOC": "malloc",
        "ASAN_OPTIONS": "detect_leaks=1:abort_on_error=0",
        # LSan's tracer crashed on every run of the suite here (gcc 12's libasan, "Tracer caught
        # signal 11" at a small address) while walking the dynamic TLS blocks it tracks through
        # __tls_get_addr for the interpreter's dlopen'ed modules; with verbosity on, it did not.
        # Not tracking them only takes roots away, so it can add leak reports, never hide one.
        # exitcode=0: what CPython itself never frees at exit depends on the interpreter's build
        # (the GPU machine's Ubuntu Python 3.12 left 19,770 unsymbolised blocks no suppression
        # names), so the verdict is libth_leaks() over the report, not LSan's exit status.
        "LSAN_OPTIONS": f"suppressions={HERE / 'lsan-python.supp'}:print_suppressions=0:intercept_tls_get_addr=0"
                        ":exitcode=0",
        "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1",
        "PYTHONDONTWRITEBYTECODE": "1",
    })
    return env


def assert_clean(done: subprocess.CompletedProcess, what: str, leaks_judged: bool = False):
    output = done.stdout + done.stderr
    markers = ["ERROR: AddressSanitizer", "runtime error:", "WARNING: ThreadSanitizer"]
    if not leaks_judged:
        markers.append("ERROR: LeakSanitizer")
    for marker in markers:
        assert marker not in output, f"{what}: {marker}\n{output[-6000:]}"
    assert done.returncode == 0, f"{what} failed ({done.returncode}):\n{output[-6000:]}"


# A frame of libTH: its module (unsymbolised) or one of its sources (symbolised).
LIBTH_FRAME = re.compile(r"libTH\.so|/runtime/TH/")


def libth_leaks(report: str) -> list[str]:
    """LSan's leak blocks with a libTH frame in the allocation's stack.

    Every allocation libTH makes has THAlloc (or malloc called from libTH) at the top of its
    stack, so a leaked libTH object always names libTH; blocks without it are the interpreter's.
    """
    blocks, current = [], None
    for line in report.splitlines():
        if line.startswith(("Direct leak of", "Indirect leak of")):
            current = [line]
            blocks.append(current)
        elif current is not None and line.strip():
            current.append(line)
        else:
            current = None
    return ["\n".join(b) for b in blocks if any(LIBTH_FRAME.search(f) for f in b[1:])]


# LSan's stop-the-world tracer can also segfault at exit intermittently, after the program has
# run (google/sanitizers#1353). Then no leak check happened at all, so the run says nothing
# either way: it is repeated, a few times at most. A real leak report is never retried.
TRACER_CRASH = "LeakSanitizer has encountered a fatal error"
LSAN_ATTEMPTS = 3


def run_under_lsan(argv: list, env: dict, timeout: int) -> subprocess.CompletedProcess:
    for _ in range(LSAN_ATTEMPTS):
        done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
        output = done.stdout + done.stderr
        if not ("Tracer caught signal" in output and TRACER_CRASH in output
                and "ERROR: LeakSanitizer" not in output):
            break
    return done


def test_suite_passes_under_asan_ubsan_and_lsan(asan_env):
    done = run_under_lsan(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(HERE),
         "--ignore", str(HERE / "test_runtime_sanitizers.py")], asan_env, timeout=500)
    assert_clean(done, "the runtime suite under ASan", leaks_judged=True)
    leaks = libth_leaks(done.stderr)
    assert not leaks, "libTH leaked under the suite:\n" + "\n\n".join(leaks)[:6000]
    assert " passed" in done.stdout


def test_lsan_still_reports_a_leak_from_libth(asan_env):
    leak = (f"import sys; sys.path.insert(0, {str(HERE)!r}); from th_ctypes import TH; "
            f"th = TH({asan_env[BUILD_ENV]!r}); th.tensor('Float').newWithSize1d(4)")
    done = run_under_lsan([sys.executable, "-c", leak], asan_env, timeout=120)
    assert "ERROR: LeakSanitizer" in done.stderr
    leaks = libth_leaks(done.stderr)
    assert leaks, done.stderr[-6000:]
    assert any("THFloatTensor_newWithSize1d" in b for b in leaks)


def test_libth_leaks_reads_symbolised_and_bare_frames():
    report = """
Direct leak of 56 byte(s) in 1 object(s) allocated from:
    #0 0x7f in malloc (/usr/lib/libasan.so.8+0xdb)
    #1 0x7f in PyUnicode_New (/usr/bin/python3.12+0x1a2b)

Direct leak of 48 byte(s) in 1 object(s) allocated from:
    #0 0x7f in malloc (/usr/lib/libasan.so.8+0xdb)
    #1 0x7f  (/work/build/runtime-asan/libTH.so+0x2c1f)
    #2 0x7f  (/usr/bin/python3.12+0x1a2b)

Indirect leak of 16 byte(s) in 1 object(s) allocated from:
    #0 0x7f in malloc (/usr/lib/libasan.so.8+0xdb)
    #1 0x7f in THAlloc /work/runtime/TH/THGeneral.c:88
"""
    leaks = libth_leaks(report)
    assert len(leaks) == 2
    assert "libTH.so+0x2c1f" in leaks[0] and "THGeneral.c:88" in leaks[1]


@pytest.fixture(scope="module")
def tsan_driver():
    build_dir = sanitized_build(TSAN_BUILD, "TH_SANITIZE_THREAD")
    return build_dir / "cow_threads"


def test_concurrent_materializations_under_tsan(tsan_driver):
    done = subprocess.run([str(tsan_driver)], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "TSAN_OPTIONS": "halt_on_error=1"})
    assert_clean(done, "cow_threads under TSan")
    assert "rounds of 8 threads passed" in done.stdout


def test_tsan_sees_an_unsynchronized_write(tsan_driver):
    done = subprocess.run([str(tsan_driver), "--race"], capture_output=True, text=True,
                          timeout=120)
    assert "WARNING: ThreadSanitizer: data race" in done.stderr
