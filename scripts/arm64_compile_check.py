"""Compile the core's C for ARM64 (Linux) on any machine and check its bit
operations: a check for developers without an ARM64 computer.

    pip install ziglang          # a Clang that cross-compiles, from PyPI
    python setup.py build_ext --inplace   # Cython writes the kernels' .c
    python scripts/arm64_compile_check.py

Each ``orangecontrib/rules/core/*.c`` is compiled to ARM64 assembly with the
build's flags (``-O3``; ``-funroll-loops`` as ``setup.py`` gives GCC and
Clang) by ``python -m ziglang cc -target aarch64-linux-gnu``, with this
Python's and numpy's headers (both LP64 Linux, as on ARM64 Linux). Printed
per kernel: the instructions its popcounts and trailing-zero counts became
(``cnt``: NEON's byte popcount; ``rbit`` + ``clz``: count trailing zeros)
and its NEON vector instructions (the loops the compiler vectorised, such
as SLS's scoring passes, doc/sls.md). The check fails (exit status 1) if a
kernel calls a library routine for a bit operation (``__popcountdi2``,
``__ctzdi2``: a loop instead of an instruction) or does not compile. It
does not run the code: the wheel builders run ``scripts/wheel_smoke_test.py``
on ARM64 for that.
"""
import glob
import os
import re
import subprocess
import sys
import sysconfig
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORE = os.path.join(ROOT, "orangecontrib", "rules", "core")
LIBRARY_BIT_CALLS = re.compile(r"\b(?:bl|b)\s+_*(?:popcount|ctz|clz)[a-z]*di2\b")


def count(pattern, text):
    return len(re.findall(pattern, text, flags=re.MULTILINE))


def require_cross_compiler():
    """Exit saying what to install unless ``python -m ziglang`` runs."""
    try:
        subprocess.run([sys.executable, "-m", "ziglang", "version"], check=True,
                       capture_output=True)
    except (subprocess.CalledProcessError, FileNotFoundError):
        sys.exit("needs a cross-compiler: pip install ziglang")


def main():
    require_cross_compiler()
    import numpy
    sources = sorted(glob.glob(os.path.join(CORE, "*.c")))
    if not sources:
        sys.exit("no kernels' .c: run `python setup.py build_ext --inplace` first")
    flags = ["-target", "aarch64-linux-gnu", "-O3", "-funroll-loops", "-w", "-S",
             "-DNPY_NO_DEPRECATED_API=NPY_1_7_API_VERSION", "-I", CORE,
             "-I", sysconfig.get_paths()["include"], "-I", numpy.get_include()]
    failed = False
    print("kernel        cnt  rbit   clz  NEON vector  library bit calls")
    for source in sources:
        name = os.path.splitext(os.path.basename(source))[0]
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, name + ".s")
            done = subprocess.run([sys.executable, "-m", "ziglang", "cc", *flags, source,
                                   "-o", out], capture_output=True, text=True)
            if done.returncode:
                print(f"{name:<12} does not compile:\n{done.stderr[-2000:]}")
                failed = True
                continue
            with open(out, encoding="utf-8", errors="replace") as f:
                asm = f.read()
        calls = LIBRARY_BIT_CALLS.findall(asm)
        failed |= bool(calls)
        cnt, rbit = count(r"^\s+cnt\s", asm), count(r"^\s+rbit\s", asm)
        clz, vector = count(r"^\s+clz\s", asm), count(r"\bv[0-9]+\.(?:16b|8h|4s|2d)\b", asm)
        print(f"{name:<12} {cnt:>4} {rbit:>5} {clz:>5} {vector:>12}  {len(calls)}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
