"""Compile the SLS kernel's vector code the way MSVC builds it, on any
machine: a check for developers without a Windows computer.

    pip install ziglang          # a Clang that cross-compiles, from PyPI
    python scripts/windows_compile_check.py

MSVC, which builds the Windows wheels, has no GCC builtins, no
``__attribute__`` and no per-function targets; ``core/_sls_count.h`` gives
it its own way to the AVX2 code (``RULES_SLS_MSVC``: the intrinsics
``_BitScanForward64``, ``__popcnt64``, ``__cpuidex`` and ``_xgetbv``, no
target attributes, a table filled by ``rules_sls_init`` instead of a
constructor). ``RULES_SLS_AS_MSVC`` makes Clang take that way. This script
compiles the header that way for ``x86_64-windows-msvc`` (Clang's MSVC
mode and its ``intrin.h``, by ``python -m ziglang cc``) with every GCC
builtin, ``__attribute__`` and inline assembly poisoned after the system
headers, so the build fails if the MSVC way uses any of them, and checks
the assembly has the AVX2 code, its exit clearing the upper halves of the
vector registers and the CPU check (``vpshufb``, ``vzeroupper``,
``cpuid``, ``xgetbv``) and no library routine for a bit operation. Exit
status 1 if not.

It does not run the code: the kernel's AVX2 code is the GCC and Clang
builds' (tested on every CI machine with AVX2), and the CPU check's logic is
tested there too (``core._sls.avx2_by_cpuid``); the wheel builders run
``scripts/wheel_smoke_test.py`` on Windows.
"""
import os
import re
import subprocess
import sys
import tempfile

from arm64_compile_check import require_cross_compiler

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORE = os.path.join(ROOT, "orangecontrib", "rules", "core")
LIBRARY_BIT_CALLS = re.compile(r"\bcall\w*\s+_*(?:popcount|ctz|clz)[a-z]*di2\b")

HARNESS = r"""
#include <stdint.h>
#include <stddef.h>
#include <intrin.h>
#include <immintrin.h>
/* from here on, nothing MSVC lacks */
#pragma GCC poison __builtin_ctzll __builtin_ctz __builtin_popcountll __builtin_popcount
#pragma GCC poison __builtin_cpu_supports __builtin_cpu_init __attribute__ __asm__ asm
#include "_sls_count.h"

#if !RULES_SLS_MSVC || !RULES_SLS_HAVE_AVX2 || RULES_SLS_HAVE_AVX512
#error "not the MSVC way: AVX2 without AVX-512"
#endif

/* every function the extension calls, so each is compiled */
void *rules_sls_msvc_functions[] = {
    (void *)rules_sls_init, (void *)rules_sls_avx2_available,
    (void *)rules_sls_avx2_by_cpuid, (void *)rules_sls_count_packed_avx2,
    (void *)rules_sls_group_extremes_avx2, (void *)rules_sls_group_ties_avx2,
    (void *)rules_sls_simd_available, (void *)rules_sls_vpopcnt_available,
    (void *)rules_sls_count_packed, (void *)rules_sls_best_literals,
    (void *)rules_sls_best_literals_prefix, (void *)rules_sls_sliced,
    (void *)rules_sls_planes_to_counts, (void *)rules_sls_only_set, (void *)rules_sls_others,
    (void *)rules_sls_changes, (void *)rules_sls_distances, (void *)rules_sls_misclassified,
    (void *)rules_sls_uncovered_delta, (void *)rules_sls_keep, (void *)rules_sls_free_range,
    (void *)rules_sls_group_extremes, (void *)rules_sls_group_ties};

"""


def zig(*args, **kwargs):
    return subprocess.run([sys.executable, "-m", "ziglang", "cc", *args], capture_output=True,
                          text=True, **kwargs)


def main():
    require_cross_compiler()
    features = ["-mavx2", "-mbmi", "-mpopcnt"]  # what MSVC needs no flag for
    common = ["-DRULES_SLS_AS_MSVC", "-I", CORE, "-O2", "-Wall", "-Wno-unused-function",
              "-Werror=implicit-function-declaration", *features]
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        source = os.path.join(tmp, "check.c")
        with open(source, "w") as f:
            f.write(HARNESS)
        asm = os.path.join(tmp, "check.s")
        done = zig("-target", "x86_64-windows-msvc", "-ffreestanding", *common, "-S", source,
                   "-o", asm)
        if done.returncode:
            print(f"x86_64-windows-msvc: does not compile\n{done.stderr[-3000:]}")
            sys.exit(1)
        with open(asm) as f:
            text = f.read()
        found = {op: len(re.findall(rf"^\s+{op}[bwlq]?\b", text, flags=re.MULTILINE))
                 for op in ("vpshufb", "vpcmpeqb", "vzeroupper", "cpuid", "xgetbv", "tzcnt",
                            "bsf", "popcnt")}
        calls = LIBRARY_BIT_CALLS.findall(text)
        print("x86_64-windows-msvc, the MSVC way (RULES_SLS_AS_MSVC): compiles; instructions:",
              ", ".join(f"{op} {n}" for op, n in found.items()))
        if not (found["vpshufb"] and found["vzeroupper"] and found["cpuid"] and found["xgetbv"]):
            print("  missing the AVX2 code or the CPU check")
            failed = True
        if calls:
            print(f"  library routines for bit operations (a loop, not an instruction): {calls}")
            failed = True
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
