"""Smoke test of an installed wheel (cibuildwheel's test step): the
compiled core imports, says which code paths this build and CPU use (bit
operations, the SLS kernel's vector paths; a CPU with AVX2 gets the AVX2
path), its bit operations agree with their portable version, and every
learner fits and predicts on iris."""
import numpy as np
from Orange.data import Table

import orangecontrib.rules as R
from orangecontrib.rules import core  # noqa: F401  (the compiled kernels)

from orangecontrib.rules.core import _sls, bits_check

words = np.random.default_rng(0).integers(1, 2 ** 63, 1000, dtype=np.uint64)
pop, ctz, pop_p, ctz_p, impl = bits_check(words)
assert np.array_equal(pop, pop_p) and np.array_equal(ctz, ctz_p)
print(f"bit operations: {impl}; SLS kernel paths: {', '.join(_sls.simd_paths())} "
      f"(this build and CPU)")
# an x86-64 build (GCC, Clang or MSVC) has the AVX2 code: a CPU with AVX2
# (by CPUID, how the MSVC build checks) must get the AVX2 path
assert not _sls.avx2_by_cpuid() or "avx2" in _sls.simd_paths(), \
    "this CPU has AVX2 but the build's SLS kernel does not take its AVX2 path"

data = Table("iris")
for learner in (R.SlipperLearner(T_max=10), R.EVCRuleLearner(n_permutations=5),
                R.RuleLogisticRegressionLearner(rule_learner=R.EVCRuleLearner(n_permutations=5)),
                R.SLSEnsembleLearner(n_rule_sets=2, max_steps=200), R.ROCCERLearner(),
                R.RuleScoringLearner()):
    model = learner(data)
    p = model(data, model.Probs)
    assert p.shape == (150, 3) and np.allclose(p.sum(axis=1), 1), type(learner).__name__
    print(f"{type(learner).__name__}: {len(model.rule_list)} rules, "
          f"accuracy {np.mean(p.argmax(1) == data.Y):.3f}")
