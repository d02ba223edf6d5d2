import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))  # the tests' own helpers (references)

from hypothesis import settings  # noqa: E402

# Property tests draw the same examples on every run by default, so a test
# run (and CI) is reproducible; HYPOTHESIS_PROFILE=explore draws new random
# examples each run, to look for new failures (fix them, then add the
# failing case with @example).
settings.register_profile("repeatable", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))


@pytest.fixture(scope="session")
def heart():
    from Orange.data import Table
    return Table("heart_disease")


def pytest_terminal_summary(terminalreporter):
    """Which of the compiled core's code paths this machine ran: the bit
    operations' implementation and the SLS kernel's paths (the vector-scalar
    test runs on each; the others are skipped, with their reason under
    ``-rs``)."""
    try:
        import numpy as np

        from orangecontrib.rules.core import _sls, bits_check
    except ImportError:
        return
    impl = bits_check(np.ones(1, dtype=np.uint64))[4]
    terminalreporter.write_line(
        f"orange-rules kernel paths on this machine: bit operations {impl}; "
        f"SLS {', '.join(_sls.simd_paths())} (ORANGE_RULES_SIMD="
        f"{os.environ.get('ORANGE_RULES_SIMD', 'unset')})")
