"""Test configuration. Where a test goes: tests/README.md.

The whole suite (README's command, in two pytest-xdist workers)::

    QT_QPA_PLATFORM=offscreen .venv/bin/python -m pytest -q -rs -n 2 --dist loadgroup tests

The quick tier, for the edit-test loop (under a minute)::

    QT_QPA_PLATFORM=offscreen .venv/bin/python -m pytest -q -n 2 -m quick tests

``quick`` is every test of ``kernels/``, ``learners/`` and ``contract/``
that is marked neither ``slow`` nor ``dask`` (``pytest_collection_modifyitems``
below marks them): the kernels against their references, each learner on
real data and the fast profile of every contract property. The widgets
(``widgets/``), packaging and docs (``project/``), the Dask cluster and the
``slow`` tests (long property profiles, the example workflows, tests that
build the core again or start fresh interpreters) run in the whole suite.
"""
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
sys.path.insert(0, str(TESTS))  # the tests' own helpers (registry, references)

#: the folders (layers) whose tests not marked slow or dask are ``quick``
QUICK_LAYERS = ("kernels", "learners", "contract")

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


def pytest_collection_modifyitems(items):
    """Mark the quick tier (see the module's docstring)."""
    for item in items:
        try:
            layer = item.path.resolve().relative_to(TESTS).parts[0]
        except ValueError:  # a test outside this folder
            continue
        if (layer in QUICK_LAYERS and item.get_closest_marker("slow") is None
                and item.get_closest_marker("dask") is None):
            item.add_marker(pytest.mark.quick)
