"""Build the Cython core; everything else is declared in pyproject.toml."""
import os
import platform

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup

KERNELS = ["_coverage", "_slipper", "_evc_quality", "_evc", "_sls", "_hull", "_itemsets"]


# The bitset kernels count bits all the time. On x86-64 the POPCNT
# instruction (every x86-64 CPU since 2008) is several times faster than the
# portable fallback in core/_bits.pxd, so the build asks for it.
# MSVC (Windows) takes neither flag and optimises by default (/Ox).
# ORANGE_RULES_PORTABLE=1 builds for an x86-64 CPU without POPCNT (from
# before 2008-2011): the portable bit operations, no -mpopcnt.
PORTABLE = os.environ.get("ORANGE_RULES_PORTABLE") == "1"
EXTRA = [] if platform.system() == "Windows" else ["-O3"]
if (platform.machine().lower() in ("x86_64", "amd64") and platform.system() != "Windows"
        and not PORTABLE):
    EXTRA.append("-mpopcnt")
MACROS = [("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")]
if PORTABLE:
    MACROS.append(("RULES_BITS_PORTABLE", None))
JOBS = os.cpu_count() or 1
# The SLS search spends most of its time in short integer loops over an
# example's attributes; unrolling them makes a step 14% cheaper on
# 5000 x 40 x 11 (3.66 -> 3.15 us, 2e64135:benchmarks/probes/sls_step_cost.py) with
# the same searches. The other kernels are left as they were measured.
UNROLL = {"_sls"} if platform.system() != "Windows" else set()


def kernel(name):
    return Extension(
        f"orangecontrib.rules.core.{name}",
        [f"orangecontrib/rules/core/{name}.pyx"],
        include_dirs=[numpy.get_include()],
        define_macros=MACROS,
        extra_compile_args=EXTRA + (["-funroll-loops"] if name in UNROLL else []),
    )


# The seven kernels are translated and compiled in parallel (about a minute
# on two cores instead of three), quietly.
setup(ext_modules=cythonize([kernel(k) for k in KERNELS], language_level=3,
                            nthreads=JOBS, quiet=True),
      options={"build_ext": {"parallel": JOBS}})
