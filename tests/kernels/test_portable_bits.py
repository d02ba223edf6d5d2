"""The portable bit operations (``core/_bits.pxd``, what a compiler with
neither builtin nor intrinsic gets) inside the kernels: every kernel is
built again with ``RULES_BITS_PORTABLE`` (``scripts/build_kernels.py``)
and every learner, run in a subprocess on those kernels, must give the
models and probabilities of this build's."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest
from Orange.data import Table

from registry import KINDS, make

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DATA = ("heart_disease", "iris")


def learners():
    """Every learner of the registry with its defaults (SLS with fewer rule
    sets)."""
    return {kind: make(kind, "defaults", **({"n_rule_sets": 8, "random_state": 0}
                                            if kind == "sls" else {}))
            for kind in KINDS}


def fit_all():
    """``{learner/data: (printed rules, probabilities)}`` with the kernels
    this process has loaded. BLAS runs on one thread in both processes:
    OpenBLAS's sums in two threads differ from one thread's in the last bit
    on some CPUs (LR with rules on heart_disease: 5.6e-16 with its Haswell
    kernels on an AMD Zen 3), which is not what this test compares."""
    from threadpoolctl import threadpool_limits
    out = {}
    with threadpool_limits(limits=1):
        for d in DATA:
            data = Table(d)
            for name, learner in learners().items():
                model = learner(data)
                out[f"{name}/{d}"] = ([str(r) for r in model.rule_list],
                                      model(data, model.Probs).tolist())
    return out


CHILD = """
import json, sys
sys.path[:0] = [{scripts!r}, {here!r}, {tests!r}]
from build_kernels import use_kernels
use_kernels({paths!r})
from orangecontrib.rules.core import bits_check
import numpy as np
from test_portable_bits import fit_all
print(json.dumps({{"impl": bits_check(np.ones(1, dtype=np.uint64))[4], "models": fit_all()}}))
"""


@pytest.fixture(scope="module")
def portable_kernels(tmp_path_factory):
    try:
        import Cython  # noqa: F401
    except ImportError:
        pytest.skip("Cython is not installed here, so the kernels cannot be built again "
                    "with RULES_BITS_PORTABLE (pip install 'Cython>=3')")
    sys.path.insert(0, os.path.join(ROOT, "scripts"))
    try:
        from build_kernels import KERNELS, build_kernels
        # the kernels whose code has bit operations (_slipper has none: its
        # build would be the installed one; the child imports that), from
        # the C the source build generated (the macro acts in C), at -O1:
        # half the compiler's time of -O3, and the same results (no
        # -ffast-math: no optimisation level may change what C computes)
        return build_kernels(str(tmp_path_factory.mktemp("portable")),
                             kernels=[k for k in KERNELS if k != "_slipper"], optimize="-O1")
    except Exception as exc:  # no C compiler: say so
        pytest.skip(f"building the kernels with RULES_BITS_PORTABLE failed here: {exc}")
    finally:
        sys.path.remove(os.path.join(ROOT, "scripts"))


@pytest.mark.slow  # builds five kernels again
def test_every_learner_gives_the_same_models_with_the_portable_bit_operations(
        portable_kernels):
    code = CHILD.format(scripts=os.path.join(ROOT, "scripts"), here=HERE,
                        tests=os.path.dirname(HERE), paths=portable_kernels)
    env = dict(os.environ, OMP_NUM_THREADS="1")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    child = json.loads(done.stdout.strip().splitlines()[-1])
    assert child["impl"] == "portable"
    here = fit_all()
    assert child["models"].keys() == here.keys()
    for key, (rules, probs) in here.items():
        assert child["models"][key][0] == rules, key
        np.testing.assert_array_equal(np.array(child["models"][key][1]), np.array(probs),
                                      err_msg=key)
