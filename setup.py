"""Build the Cython core; everything else is declared in pyproject.toml."""
import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup

KERNELS = ["_coverage", "_slipper", "_evc", "_sls", "_hull", "_itemsets"]


def kernel(name):
    return Extension(
        f"orangecontrib.rules.core.{name}",
        [f"orangecontrib/rules/core/{name}.pyx"],
        include_dirs=[numpy.get_include()],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
        extra_compile_args=["-O3"],
    )


setup(ext_modules=cythonize([kernel(k) for k in KERNELS], language_level=3))
