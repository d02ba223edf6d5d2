#!/bin/bash
# The widget and learner tests against each supported Orange release: for
# every version a fresh virtual environment gets that Orange and the add-on
# wheel given as the first argument (build it with `python -m build`), and
# runs the fast tests from a directory outside the source tree (so the
# installed package is the one tested). Deferred-decorator warnings of
# Orange's widget base are counted: the add-on must cause none.
#
#     bash scripts/test_orange_versions.sh dist/orange3_rules-*.whl [3.38.1 3.39.0 3.40.0]
#
# Writes one line per version to stdout (results in
# benchmarks/results/orange_versions.md were made with it).
set -u
WHEEL=$(readlink -f "$1"); shift
VERSIONS=${*:-"3.38.1 3.39.0 3.40.0"}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d)
for v in $VERSIONS; do
    env="$WORK/orange-$v"
    python3 -m venv "$env"
    "$env/bin/pip" install -q "Orange3==$v" "$WHEEL" pytest hypothesis PyQt5 > "$env.install.log" 2>&1 \
        || { echo "Orange $v: install failed (see $env.install.log)"; continue; }
    (cd "$WORK" && QT_QPA_PLATFORM=offscreen "$env/bin/pytest" -q -p no:cacheprovider \
        -rs -m "not slow and not dask" -W "default" "$ROOT/tests" > "$env.tests.log" 2>&1)
    status=$?
    summary=$(grep -E "passed|failed" "$env.tests.log" | tail -1)
    deferred=$(grep -c "gui.deferred" "$env.tests.log")
    numpy=$("$env/bin/python" -c "import numpy; print(numpy.__version__)")
    echo "Orange $v (numpy $numpy): exit $status; $summary; deferred warnings: $deferred"
done
echo "logs in $WORK"
