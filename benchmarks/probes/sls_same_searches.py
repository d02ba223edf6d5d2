"""Do two builds of the SLS kernel make the same searches? 216 searches
(seven data sets: the shapes 1000x20x2, 360x90x15, 5000x40x11, Orange's
heart_disease, titanic and zoo, and 1000x10x11 with random example
weights; up to three classes, k = 1, 2, 4, 8, three seeds, 3000 steps):
record them with one build, compare (exactly: rules, score, steps, regions,
best step) with another, and print the seconds per data set.

    python benchmarks/probes/sls_same_searches.py record FILE
    python benchmarks/probes/sls_same_searches.py compare FILE
"""
import os
import pickle
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from bench_shapes import make_shape, split  # noqa: E402

from Orange.data import Table  # noqa: E402

from orangecontrib.rules.core import SLSData, pack_bits, sls_search  # noqa: E402
from orangecontrib.rules.features import encode_table, interval_codes  # noqa: E402
from orangecontrib.rules.sls import SLSPreprocessor  # noqa: E402


def problems():
    for name in ["1000x20x2", "360x90x15", "5000x40x11", "heart_disease", "titanic", "zoo", "w:1000x10x11"]:
        weighted = name.startswith("w:")
        nm = name[2:] if weighted else name
        if "x" in nm:
            data, _ = split(make_shape(nm))
        else:
            data = Table(nm)
        data = SLSPreprocessor(10, "thresholds")(data)
        codes, n_bins, ordinal, cuts = interval_codes(data, encode_table(data, with_order=False), 10)
        w = np.random.default_rng(0).uniform(0.2, 3, len(data)) if weighted else np.ones(len(data))
        sd = SLSData(codes, n_bins, ordinal, w)
        y = data.Y.astype(int)
        yield name, sd, y

out = {}
tt = {}
for name, sd, y in problems():
    t = time.perf_counter()
    for c in np.unique(y)[:3]:
        pos = pack_bits((y == c).astype(np.uint8))
        for k in (1, 2, 4, 8):
            for seed in range(3):
                r = sls_search(sd, pos, k, 3000, 0.2, 0.01, 7919 * seed + k)
                out[name, c, k, seed] = r
    tt[name] = time.perf_counter() - t
    print(name, round(tt[name], 3), flush=True)
print("total", round(sum(tt.values()), 3))
if sys.argv[1] == "record":
    pickle.dump(out, open(sys.argv[2], "wb"))
else:
    ref = pickle.load(open(sys.argv[2], "rb"))
    bad = 0
    for key, r in out.items():
        q = ref[key]
        same = (np.array_equal(r[0], q[0]) and r[1] == q[1] and r[2] == q[2]
                and np.array_equal(r[3], q[3]) and r[4] == q[4])
        if not same:
            bad += 1
            if bad < 5:
                print("DIFF", key, r[1], q[1], r[2], q[2], r[4], q[4])
    print("compared", len(out), "different", bad)
