"""Widget, viewer and workflow tests (headless: the root conftest sets
``QT_QPA_PLATFORM=offscreen``)."""
import gc

import pytest


@pytest.fixture(autouse=True)
def _collect_qt_garbage():
    """After each widget test (every test in this folder), collect the
    young garbage it left.

    Widgets leave Python-owned QObjects (orangewidget's cross-thread
    helpers, ``PyOwned``) in reference cycles. Left to a collection at a
    random later moment, one of their ``__del__`` crashed the interpreter
    (a segmentation fault in ``orangewidget/utils/concurrent.py`` during
    ``TestOWRuleScoring.test_send_report``, after an unrelated change had
    moved the collector's timing). Collecting the youngest two generations
    right after each widget test, while its QApplication state is intact,
    removed the crash and costs under a second for the whole run."""
    yield
    gc.collect(1)
