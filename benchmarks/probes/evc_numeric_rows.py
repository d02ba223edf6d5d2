"""EVC rules on 20 numeric columns (make_classification): fit seconds and
rules at 1,000 and 5,000 rows of two classes and 1,000 rows of ten.

    OMP_NUM_THREADS=1 python benchmarks/probes/evc_numeric_rows.py
"""
import time

from many_classes import classification_table  # this directory

from orangecontrib.rules import EVCRuleLearner

for n, nc in [(1000, 2), (5000, 2), (1000, 10)]:
    d = classification_table(n, nc)
    t = time.perf_counter()
    m = EVCRuleLearner()(d)
    print(n, nc, f"{time.perf_counter() - t:.1f}s", len(m.rules), flush=True)
