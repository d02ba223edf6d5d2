"""Build some of the Cython kernels into a directory of their own, with
extra C macros, and load them in place of the installed ones: how the tests
and ``benchmarks/bench_bits.py`` run the portable bit operations
(``RULES_BITS_PORTABLE``, ``core/_bits.pxd``) on a machine whose compiler
has the builtins.

    python scripts/build_kernels.py OUT_DIR [--define RULES_BITS_PORTABLE]
        [--kernels _coverage,_evc,_sls]

Needs Cython and a C compiler (as installing the add-on from source does).
A kernel whose C file the source build generated beside its ``.pyx`` (and
that is newer than every Cython and C source of the core) is compiled from
that file, so only the C compiler runs; the others are translated into
``OUT_DIR``. The source tree's build is untouched either way.
"""
import argparse
import glob
import importlib.util
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KERNELS = ("_coverage", "_slipper", "_evc_quality", "_evc", "_sls", "_hull", "_itemsets")


def generated_c(name):
    """The C file of kernel ``name`` that the source build generated beside
    its ``.pyx``, if it is newer than every ``.pyx``, ``.pxd`` and ``.h`` of
    the core (the macros act in C: one translation serves every build);
    else ``None``."""
    core = os.path.join(ROOT, "orangecontrib", "rules", "core")
    c_file = os.path.join(core, f"{name}.c")
    sources = [f for ext in ("pyx", "pxd", "h") for f in glob.glob(os.path.join(core, f"*.{ext}"))]
    if os.path.exists(c_file) and os.path.getmtime(c_file) >= max(map(os.path.getmtime, sources)):
        return c_file
    return None


def build_kernels(out_dir, defines=("RULES_BITS_PORTABLE",), kernels=KERNELS, optimize="-O3"):
    """Compile ``kernels`` (names in ``orangecontrib/rules/core``) with the
    C macros ``defines`` into ``out_dir``, optimised with ``optimize`` (the
    source build's ``-O3``; GCC and Clang); returns ``{name: path of the
    built module}``."""
    import numpy
    from Cython.Build import cythonize
    from setuptools import Distribution, Extension

    os.makedirs(out_dir, exist_ok=True)
    flags = [] if sys.platform == "win32" else [optimize]
    extensions = [Extension(
        f"orangecontrib.rules.core.{name}",
        [generated_c(name) or os.path.join(ROOT, "orangecontrib", "rules", "core", f"{name}.pyx")],
        include_dirs=[numpy.get_include(), os.path.join(ROOT, "orangecontrib", "rules", "core")],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")]
        + [(d, None) for d in defines],
        extra_compile_args=flags) for name in kernels]
    jobs = os.cpu_count() or 1
    dist = Distribution({"ext_modules": cythonize(
        extensions, build_dir=os.path.join(out_dir, "c"), quiet=True,
        language_level=3, include_path=[ROOT], nthreads=jobs)})
    cmd = dist.get_command_obj("build_ext")
    cmd.parallel = jobs
    cmd.build_lib = os.path.join(out_dir, "lib")
    cmd.build_temp = os.path.join(out_dir, "tmp")
    cmd.ensure_finalized()
    cmd.run()
    core = os.path.join(out_dir, "lib", "orangecontrib", "rules", "core")
    return {name: glob.glob(os.path.join(core, f"{name}.*"))[0] for name in kernels}


def use_kernels(paths):
    """Load the built modules ``paths`` (``{name: path}``) under the
    installed kernels' names, before ``orangecontrib.rules`` is imported:
    the add-on then runs them. Returns the loaded modules."""
    if "orangecontrib.rules.core" in sys.modules:
        raise RuntimeError("use_kernels must run before orangecontrib.rules is imported")
    loaded = {}
    for name, path in paths.items():
        full = f"orangecontrib.rules.core.{name}"
        spec = importlib.util.spec_from_file_location(full, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[full] = module
        spec.loader.exec_module(module)
        loaded[name] = module
    return loaded


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("out_dir")
    p.add_argument("--define", action="append", default=None,
                   help="a C macro to define (default: RULES_BITS_PORTABLE)")
    p.add_argument("--kernels", default=",".join(KERNELS))
    args = p.parse_args()
    paths = build_kernels(args.out_dir, tuple(args.define or ["RULES_BITS_PORTABLE"]),
                          args.kernels.split(","))
    for name, path in paths.items():
        print(name, path)


if __name__ == "__main__":
    main()
