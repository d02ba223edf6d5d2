import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))  # the tests' own helpers (references)


@pytest.fixture(scope="session")
def heart():
    from Orange.data import Table
    return Table("heart_disease")
