"""SLS rule-set ensembles (Rückert & Kramer 2006): kernel moves against a
numpy reference, Algorithm 2's weights, the PAC-Bayes bound, abstention and
the learner on real data."""
import importlib.util
import os
import pickle
import platform
import subprocess
import sys
from math import comb, log, sqrt

import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st

from Orange.data import ContinuousVariable, DiscreteVariable, Domain, Table

from orangecontrib.rules import SLSEnsembleLearner, SLSEnsembleModel, core
from orangecontrib.rules.base import PriorRuleModel, in_name_order
from orangecontrib.rules.features import equal_frequency_cuts
from orangecontrib.rules.sls import (log_n_rule_sets, pac_bayes_epsilon, rule_set_fires,
                                     white_noise_weights)


# ----------------------------------------------------------- numpy reference

def random_problem(seed, m=60, n_attrs=4, n_values=3, weighted=False, ordinal=None,
                   missing=0.0):
    """Coded data: ``n_attrs`` attributes of ``n_values`` values or bins,
    the ordinal ones chosen at random unless given, some values missing."""
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, n_values, (m, n_attrs)).astype(np.int32)
    if missing:
        codes[rng.random((m, n_attrs)) < missing] = -1
    if ordinal is None:
        ordinal = rng.random(n_attrs) < 0.5
    ordinal = np.asarray(ordinal, dtype=np.int8) * np.ones(n_attrs, np.int8)
    nb = np.full(n_attrs, n_values, np.int32)
    y = rng.random(m) < 0.4
    w = rng.random(m) + 0.1 if weighted else np.ones(m)
    return rng, core.SLSData(codes, nb, ordinal, w), codes, y, w


def bits(mask):
    return core.pack_bits(np.asarray(mask, np.uint8))


def score_of(rules, data, y, w):
    """The score of a rule set, and which examples it covers (numpy)."""
    covered = core.rule_set_cover(data, rules)
    return float(w[covered != y].sum()), covered


def random_rules(rng, data, k, p=0.5):
    """``k`` random valid rules (nominal: a value; ordinal: an interval)."""
    rules = core.empty_rules(data, k)
    for t in range(k):
        for a in range(data.n_attrs):
            if rng.random() >= p:
                continue
            n = data.n_bins_arr[a]
            if data.ordinal_arr[a]:
                lo, hi = sorted(rng.integers(0, n, 2))
                rules[t, a] = lo, hi
            else:
                v = rng.integers(0, n)
                rules[t, a] = v, v
    return rules


def specialisations(rules, t, x, data, codes):
    """Every rule set the paper's specialisation of rule ``t`` for example
    ``x`` may produce: one literal ``x`` violates added to ``t``."""
    out = []
    nb, rule = data.n_bins_arr, rules[t]
    for a in range(data.n_attrs):
        v = codes[x, a]
        if not data.ordinal_arr[a]:
            if rule[a, 0] >= 0:
                continue
            for u in range(nb[a]):
                if u != v:
                    new = rules.copy()
                    new[t, a] = u, u
                    out.append(new)
            continue
        lo, hi = rule[a]
        lows = range(1, nb[a]) if v < 0 else range(v + 1, hi + 1)
        highs = range(0, nb[a] - 1) if v < 0 else range(lo, v)
        for b in lows:
            new = rules.copy()
            new[t, a, 0] = b
            out.append(new)
        for b in highs:
            new = rules.copy()
            new[t, a, 1] = b
            out.append(new)
    return out


def violated(rules, t, x, data, codes):
    """The literals of rule ``t`` that ``x`` violates, each as the rule set
    without it."""
    out = []
    nb, rule = data.n_bins_arr, rules[t]
    for a in range(data.n_attrs):
        v = codes[x, a]
        lo, hi = rule[a]
        if not data.ordinal_arr[a]:
            if lo >= 0 and v != lo:
                new = rules.copy()
                new[t, a] = -1, -1
                out.append(new)
            continue
        if lo > 0 and (v < 0 or v < lo):
            new = rules.copy()
            new[t, a, 0] = 0
            out.append(new)
        if hi < nb[a] - 1 and (v < 0 or v > hi):
            new = rules.copy()
            new[t, a, 1] = nb[a] - 1
            out.append(new)
    return out


def move(data, y, rules, x, p_noise=0.0, seed=0):
    return core.sls_move(data, bits(y), rules, x, p_noise, seed)


# ----------------------------------------------------------- kernel

@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 5), st.booleans())
def test_literal_bitsets(seed, n_values, missing):
    _, data, codes, _, _ = random_problem(seed, m=100, n_values=n_values,
                                          missing=0.2 if missing else 0.0)
    for a in range(data.n_attrs):
        got = np.array([core.unpack_bits(b, data.m).astype(bool)
                        for b in data.literal_bits(a)]).reshape(-1, data.m)
        c = codes[:, a]
        if data.ordinal_arr[a]:
            want = [c >= j for j in range(1, n_values)] + [
                (c >= 0) & (c <= j) for j in range(n_values - 1)]
        else:
            want = [c == v for v in range(n_values)]
        np.testing.assert_array_equal(got, np.array(want).reshape(-1, data.m))


def reference_masks(codes, nb, ordinal):
    """Each example's slots in prefix form (``SLSData._vector_layout``), by
    numpy: an ordinal attribute of ``n`` bins holds slots for bins
    ``0..n-2`` and, if any of its values is missing, one for the missing
    ones; an example of bin ``v`` is in the slots of bins ``v..n-2``, a
    missing one in the missing slot and, for the lower bounds
    (``lower_masks``), in every bin's slot instead. A nominal attribute: a slot
    per value, none for a missing one. Attributes of more than 64 slots
    have no bits. Returns (masks, lower masks) as booleans per slot."""
    m, A = codes.shape
    has_missing = (codes < 0).any(axis=0)
    width = np.where(ordinal != 0, nb - 1 + has_missing, nb)
    narrow = width <= 64
    n_slots = 64 * ((int(width[narrow].sum()) + 63) // 64)
    masks = np.zeros((m, n_slots), dtype=bool)
    lower = np.zeros((m, n_slots), dtype=bool)
    first = 0
    for a in np.flatnonzero(narrow):
        c, n = codes[:, a], nb[a]
        for x in range(m):
            if ordinal[a] == 0:
                if c[x] >= 0:
                    masks[x, first + c[x]] = lower[x, first + c[x]] = True
            elif c[x] >= 0:
                masks[x, first + c[x]:first + n - 1] = True
                lower[x, first + c[x]:first + n - 1] = True
            else:
                masks[x, first + n - 1] = True
                lower[x, first:first + n - 1] = True
        first += width[a]
    return masks, lower


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([1, 63, 64, 65, 200]),
       st.lists(st.sampled_from([1, 2, 10, 31, 64, 65, 70]), min_size=1, max_size=8),
       st.floats(0.0, 0.3))
def test_example_masks_hold_their_slots(seed, m, widths, missing):
    """``SLSData``'s masks (set a word at a time: an ordinal attribute's
    slots are a run of bits) against :func:`reference_masks`, with runs
    across words, attributes too wide for a group, and missing values."""
    rng = np.random.default_rng(seed)
    nb = np.array(widths, dtype=np.int32)
    codes = (rng.random((m, len(nb))) * nb).astype(np.int32)
    codes[rng.random(codes.shape) < missing] = -1
    ordinal = (rng.random(len(nb)) < 0.7).astype(np.int8)
    data = core.SLSData(codes, nb, ordinal, np.ones(m), simd="scalar")
    want, want_lower = reference_masks(codes, nb, ordinal)
    if not data.by_bits:  # an attribute too wide for a group: no masks
        assert data.masks_arr.shape[1] == 0
        return

    def unpack(arr):
        return np.unpackbits(arr.view(np.uint8), axis=1, bitorder="little").astype(bool)

    np.testing.assert_array_equal(unpack(data.masks_arr), want)
    if ((codes < 0).any(axis=0) & (ordinal != 0)).any():
        np.testing.assert_array_equal(unpack(data.lower_masks_arr), want_lower)
    else:  # the masks serve for the lower bounds too
        assert data.lower_masks_arr is data.masks_arr


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 3), st.booleans(), st.booleans())
def test_specialisation_is_the_best_literal_and_uncovers_x(seed, k, weighted, missing):
    rng, data, codes, y, w = random_problem(seed, weighted=weighted, n_values=4,
                                            missing=0.15 if missing else 0.0)
    rules = random_rules(rng, data, k, p=0.2)
    _, covered = score_of(rules, data, y, w)
    candidates = np.flatnonzero(covered & ~y)
    assume(len(candidates))
    x = int(rng.choice(candidates))
    new, t = move(data, y, rules, x)
    assert t >= 0
    options = specialisations(rules, t, x, data, codes)
    changed = np.flatnonzero((new != rules).any(axis=(1, 2)))
    if not options:  # nothing x violates can be added: no change
        assert not len(changed)
        return
    assert list(changed) == [t]  # one rule, one literal added
    assert any(np.array_equal(new, o) for o in options)
    # the changed rule no longer covers x
    assert not core.rule_set_cover(data, new[t:t + 1])[x]
    # greedy: no admissible literal gives a lower score (numpy reference)
    best = score_of(new, data, y, w)[0]
    assert all(score_of(o, data, y, w)[0] >= best - 1e-9 for o in options)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 3), st.booleans(), st.booleans())
def test_generalisation_drops_the_best_violated_literal(seed, k, weighted, missing):
    rng, data, codes, y, w = random_problem(seed, weighted=weighted, n_values=4,
                                            missing=0.15 if missing else 0.0)
    rules = random_rules(rng, data, k, p=0.6)
    _, covered = score_of(rules, data, y, w)
    candidates = np.flatnonzero(~covered & y)
    assume(len(candidates))
    x = int(rng.choice(candidates))
    n_viol = [len(violated(rules, r, x, data, codes)) for r in range(k)]
    new, t = move(data, y, rules, x)
    assert n_viol[t] == min(n_viol)  # the closest rule
    options = violated(rules, t, x, data, codes)
    assert any(np.array_equal(new, o) for o in options)
    best = score_of(new, data, y, w)[0]
    assert all(score_of(o, data, y, w)[0] >= best - 1e-9 for o in options)
    if n_viol[t] == 1:  # one literal away: the step covers x
        assert score_of(new, data, y, w)[1][x]


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 4), st.booleans(), st.booleans())
def test_search_state_and_score_match_the_reference(seed, k, weighted, missing):
    _, data, codes, y, w = random_problem(seed, m=150, n_attrs=5, n_values=5,
                                          weighted=weighted,
                                          missing=0.1 if missing else 0.0)
    # check=True re-derives every rule's coverage after every step
    rules, score, steps, regions, best_step = core.sls_search(
        data, bits(y), k, 300, 0.2, 0.05, seed, check=True)
    ref, fires = score_of(rules, data, y, w)
    assert score == pytest.approx(ref)
    assert 0 <= best_step <= steps <= 300
    np.testing.assert_allclose(regions, [w[fires & y].sum(), w[fires & ~y].sum(),
                                         w[~fires & y].sum(), w[~fires & ~y].sum()])


@pytest.mark.parametrize("k", [1, 3, 8])
@pytest.mark.parametrize("seed", [0, 1])
def test_kept_class_counts_match_fresh_ones(seed, k):
    """Equal weights: a specialisation reads the positives minus the
    negatives per slot from the rule's kept differences, brought up to date
    by the examples that entered or left the rule's only-covered set, or
    counted afresh (by the set's examples, by the examples outside it, or by
    popcounts). ``check=True`` compares them with a fresh count at every
    specialisation (and the coverage at every step); on data large enough
    for all four ways to occur (breaking any one of them fails this)."""
    _, data, _, y, _ = random_problem(seed, m=900, n_attrs=12, n_values=10,
                                      missing=0.05)
    rules, score, steps, _, _ = core.sls_search(data, bits(y), k, 1500, 0.2, 0.01,
                                                seed, check=True)
    assert steps == 1500
    assert score == pytest.approx(score_of(rules, data, y, np.ones(900))[0])


@pytest.fixture(scope="module", params=["avx2", "avx512bw", "avx512"])
def vector_path(request):
    """Each vector path of the SLS kernel this CPU can run; a path it cannot
    is skipped, the reason printed in the test output (``-rs``)."""
    if request.param not in core._sls.simd_paths():
        pytest.skip(f"this CPU or build cannot run the SLS kernel's {request.param} "
                    f"path (it runs: {', '.join(core._sls.simd_paths())})")
    return request.param


def test_simd_level_follows_the_environment(monkeypatch):
    paths = core._sls.simd_paths()
    monkeypatch.setenv("ORANGE_RULES_SIMD", "scalar")
    assert core._sls.simd_level() == "scalar"
    assert not core.SLSData(np.zeros((3, 1), np.int32), [2], [0], np.ones(3)).simd
    monkeypatch.setenv("ORANGE_RULES_SIMD", "avx512")
    assert core._sls.simd_level() == paths[-1]
    monkeypatch.delenv("ORANGE_RULES_SIMD")
    assert core._sls.simd_level() == paths[-1]
    assert core._sls.simd_level(False) == "scalar"
    monkeypatch.setenv("ORANGE_RULES_SIMD", "avx2")
    assert core._sls.simd_level() == ("avx2" if "avx2" in paths else "scalar")
    monkeypatch.setenv("ORANGE_RULES_SIMD", "sse9")
    with pytest.raises(ValueError, match="ORANGE_RULES_SIMD"):
        core._sls.simd_level()


def test_the_msvc_builds_cpu_check_agrees_with_the_compilers():
    """A Windows (MSVC) build chooses the AVX2 path by CPUID and XCR0
    (``rules_sls_avx2_by_cpuid``); GCC and Clang builds by
    ``__builtin_cpu_supports``. The two agree on this machine."""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        pytest.skip(f"no AVX2 code is built on {platform.machine()}")
    assert core._sls.avx2_by_cpuid() == ("avx2" in core._sls.simd_paths())


@pytest.mark.slow  # a cross-compiler in a subprocess
def test_the_msvc_way_to_the_avx2_code_compiles():
    """``scripts/windows_compile_check.py``: the SLS kernel's vector code as
    MSVC builds it (no GCC builtin, attribute or inline assembly) compiles
    for x86_64-windows-msvc, with the AVX2 code and the CPU check in it."""
    if importlib.util.find_spec("ziglang") is None:
        pytest.skip("the Windows build's compile check needs a cross-compiler "
                    "(pip install ziglang)")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    script = os.path.join(root, "scripts", "windows_compile_check.py")
    done = subprocess.run([sys.executable, script], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "compiles; instructions: vpshufb" in done.stdout


def random_coded_data(seed, m, n_attrs, widths, missing, weighted):
    """Random coded data for kernel comparisons: ``n_attrs`` attributes of
    ``widths[0]`` to ``widths[1] - 1`` values or bins (60% ordinal), 10%
    missing cells if ``missing``, 30% positives, random weights if
    ``weighted``: ``(codes, n_bins, ordinal, y, w)``."""
    rng = np.random.default_rng(seed)
    nb = rng.integers(widths[0], widths[1], n_attrs).astype(np.int32)
    codes = (rng.random((m, n_attrs)) * nb).astype(np.int32)
    if missing:
        codes[rng.random((m, n_attrs)) < 0.1] = -1
    ordinal = (rng.random(n_attrs) < 0.6).astype(np.int8)
    y = rng.random(m) < 0.3
    w = rng.random(m) + 0.1 if weighted else np.ones(m)
    return codes, nb, ordinal, y, w


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 8), st.integers(1, 30),
       st.sampled_from([(2, 3), (5, 11), (10, 11), (2, 17), (15, 17), (30, 70)]),
       st.booleans(), st.booleans())
def test_vector_and_scalar_kernels_make_the_same_searches(vector_path, seed, k, n_attrs,
                                                          widths, missing, weighted):
    """The AVX2 counting, the AVX-512 counting and scoring (``_sls_count.h``)
    give the exact integers of the scalar loops, so a search makes the same choices either
    way: attributes of 2 to 69 values or bins, mixed (one vector of 16
    lanes, wider, wider than a group of 64 slots), missing values, many
    attributes, example weights (always the scalar path)."""
    codes, nb, ordinal, y, w = random_coded_data(seed, 700, n_attrs, widths, missing, weighted)
    vector = core.SLSData(codes, nb, ordinal, w, simd=vector_path)
    scalar = core.SLSData(codes, nb, ordinal, w, simd=False)
    assert vector.level == vector_path
    # attributes of more than 64 slots are counted by the scalar loop either way
    assert vector.simd == bool(np.any(nb + 1 <= 64)) and not scalar.simd
    got = core.sls_search(vector, bits(y), k, 400, 0.2, 0.01, seed, check=True)
    want = core.sls_search(scalar, bits(y), k, 400, 0.2, 0.01, seed, check=True)
    np.testing.assert_array_equal(got[0], want[0])
    assert got[1:3] == want[1:3] and got[4] == want[4]
    np.testing.assert_array_equal(got[3], want[3])


@pytest.mark.parametrize("n_attrs", [40, 45, 50, 80, 91])
def test_vector_counting_of_every_pass_size_makes_the_same_searches(vector_path, n_attrs):
    """40 to 91 attributes of ten bins: 6, 7, 8, 12 and 13 groups of 64
    slots, so the AVX2 counting's passes of up to seven groups run as one
    pass of 6 and of 7, two of 4, of 6 and of 7 + 6 (AVX-512's of up to 24:
    one); the same searches as the scalar loops, every step's counts
    checked."""
    codes, nb, ordinal, y, w = random_coded_data(7, 500, n_attrs, (10, 11), False, False)
    ordinal[:] = 1
    vector = core.SLSData(codes, nb, ordinal, w, simd=vector_path)
    scalar = core.SLSData(codes, nb, ordinal, w, simd=False)
    assert vector.n_groups == {40: 6, 45: 7, 50: 8, 80: 12, 91: 13}[n_attrs]
    # every path scores by the slots' bits here (no missing slot, no wide
    # attribute), checked against the loops over the attributes' ranges at
    # every step; by_bits=False: the vector paths' own scoring (AVX-512's
    # in vector registers)
    assert vector.by_bits and scalar.by_bits
    own = core.SLSData(codes, nb, ordinal, w, simd=vector_path, by_bits=False)
    for k in (1, 3):
        want = core.sls_search(scalar, bits(y), k, 300, 0.2, 0.01, k, check=True)
        for data in (vector, own):
            got = core.sls_search(data, bits(y), k, 300, 0.2, 0.01, k, check=True)
            np.testing.assert_array_equal(got[0], want[0])
            assert got[1:3] == want[1:3]
            np.testing.assert_array_equal(got[3], want[3])


@pytest.fixture(scope="module", params=["scalar", "avx2", "avx512bw", "avx512"])
def bits_path(request):
    """Every path scores by the slots' bits where it can: the scalar loops
    (every machine) and the vector paths where the CPU runs them (else
    skipped, the reason in the test output; their scoring loops are the
    AVX2 build of ``rules_sls_group_extremes`` / ``_ties``)."""
    if request.param not in core._sls.simd_paths():
        pytest.skip(f"this CPU or build cannot run the SLS kernel's {request.param} "
                    f"path (it runs: {', '.join(core._sls.simd_paths())})")
    return request.param


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 8), st.integers(1, 40),
       st.sampled_from([(2, 3), (3, 12), (10, 11), (20, 40)]), st.booleans())
def test_scoring_by_the_slots_bits_lists_the_loops_ties_in_their_order(bits_path, seed, k,
                                                                      n_attrs, widths,
                                                                      missing):
    """Scoring by the slots' bits (``SLSData.by_bits``) against the loops
    over every attribute's ranges, at every specialisation (``check=True``),
    and the same searches as the loops alone (``by_bits=False``): nominal
    and ordinal attributes of 2 to 39 values, attributes that straddle two
    groups of 64 slots, missing values (a nominal attribute's in no slot,
    an ordinal one's in a slot after its bins, which every lower bound
    uncovers too, and whose examples violate every bound), so the ties'
    literal order matters across groups."""
    codes, nb, ordinal, y, w = random_coded_data(seed, 300, n_attrs, widths, False, False)
    if missing:
        rng = np.random.default_rng(seed)
        codes[rng.random(codes.shape) < 0.1] = -1
    by_bits = core.SLSData(codes, nb, ordinal, w, simd=bits_path)
    loops = core.SLSData(codes, nb, ordinal, w, simd=bits_path, by_bits=False)
    assert by_bits.by_bits and not loops.by_bits
    got = core.sls_search(by_bits, bits(y), k, 300, 0.2, 0.01, seed, check=True)
    want = core.sls_search(loops, bits(y), k, 300, 0.2, 0.01, seed, check=True)
    np.testing.assert_array_equal(got[0], want[0])
    assert got[1:3] == want[1:3] and got[4] == want[4]
    np.testing.assert_array_equal(got[3], want[3])
    # an attribute wider than a group: the loops score
    assert not core.SLSData(codes[:, :1], [70], [0], w, simd=bits_path).by_bits


def reference_differences(data, plus, minus):
    """Per slot, the examples of ``plus`` (a boolean mask) minus those of
    ``minus`` (numpy): from their histogram slots on the scalar path, from
    their 64-bit masks per group of slots on the vector paths (bit ``i`` of
    group ``g``: slot ``64 g + i``)."""
    if data.simd:
        slot_bits = np.unpackbits(data.masks_arr.view(np.uint8), axis=1, bitorder="little")
        return (slot_bits[plus].sum(axis=0, dtype=np.int64)
                - slot_bits[minus].sum(axis=0, dtype=np.int64))[:data.n_vslots]
    want = np.zeros(data.n_slots, dtype=np.int64)
    np.add.at(want, data.slots_arr[plus].ravel(), 1)
    np.add.at(want, data.slots_arr[minus].ravel(), -1)
    return want


@pytest.fixture(scope="module", params=["scalar", "avx2", "avx512bw", "avx512"])
def count_path(request):
    """Every path of the SLS kernel's counting this CPU runs (the others
    skipped, the reason in the test output)."""
    if request.param not in core._sls.simd_paths():
        pytest.skip(f"this CPU or build cannot run the SLS kernel's {request.param} "
                    f"path (it runs: {', '.join(core._sls.simd_paths())})")
    return request.param


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([1, 30, 95, 96, 97, 700, 2031, 2033, 4500]),
       st.integers(1, 40), st.sampled_from([(2, 3), (10, 11), (3, 30)]), st.booleans(),
       st.floats(0.0, 1.0), st.floats(0.0, 1.0))
def test_counting_gives_each_slots_examples(count_path, seed, m, n_attrs, widths, missing,
                                            p_plus, p_minus):
    """``d[slot] +=`` the examples of one bitset minus those of another, on
    each path, against numpy on the examples' slots (histogram slots on the
    scalar path, their 64-bit masks on the vector paths): few examples and
    many (the AVX2 path adds 96 or more by bit-sliced counters: blocks of
    sixteen, byte counters emptied every 127 blocks), one to six groups of
    64 slots (a pass of up to four groups with AVX2), overlapping bitsets."""
    codes, nb, ordinal, _, _ = random_coded_data(seed, m, n_attrs, widths, missing, False)
    data = core.SLSData(codes, nb, ordinal, np.ones(m), simd=count_path)
    assert data.level == count_path
    rng = np.random.default_rng(seed + 1)
    plus, minus = rng.random(m) < p_plus, rng.random(m) < p_minus
    got = core._sls.count_differences(data, bits(plus), bits(minus))
    np.testing.assert_array_equal(got, reference_differences(data, plus, minus))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 2**64 - 1), min_size=31, max_size=31),
       st.integers(0, 31), st.sampled_from([0, 1, 3, 5, 17, 64]))
def test_bit_planes_become_counts(planes, top, sparse):
    """The scalar loops' bit-sliced counting ends by turning each group's
    bit planes into the 64 counts (``rules_sls_planes_to_counts``: a byte
    of a plane spread to eight bytes at a time, the counts' bytes read
    out): against numpy, with planes up to bit 30 (a count below 2^31),
    empty planes above ``top`` and sparse planes."""
    rng = np.random.default_rng(top + sparse)
    p = np.zeros(32, np.uint64)
    p[:31] = planes
    p[top:] = 0
    if sparse:  # few bits a plane
        keep = np.zeros(32, np.uint64)
        for q in range(32):
            for b in rng.choice(64, sparse, replace=False):
                keep[q] |= np.uint64(1) << np.uint64(b)
        p &= keep
    want = np.zeros(64, np.int64)
    for q in range(31):
        want += ((p[q] >> np.arange(64, dtype=np.uint64)) & np.uint64(1)).astype(np.int64) << q
    np.testing.assert_array_equal(core._sls.planes_to_counts_check(p), want)
    with pytest.raises(ValueError, match="32 bit planes"):
        core._sls.planes_to_counts_check(p[:31].copy())


def test_counting_many_examples_in_one_slot(count_path):
    """Thousands of examples in the same slots (a nominal attribute of one
    value, an ordinal one of two bins) and a nominal attribute with missing
    values: the AVX2 path's byte counters of the sixteens are emptied
    before they overflow, and the scalar loops' bit-sliced counts (in
    prefix form) become histogram slots, the missing ones' too."""
    m = 9000
    codes = np.zeros((m, 3), np.int32)
    codes[::3, 1] = 1
    codes[:, 2] = np.arange(m) % 4 - 1  # values 0, 1, 2 and missing
    data = core.SLSData(codes, [1, 2, 3], [0, 1, 0], np.ones(m), simd=count_path)
    assert data.by_bits  # every path: no ordinal attribute with a missing slot
    plus = np.ones(m, bool)
    minus = np.zeros(m, bool)
    minus[::100] = True  # few: counted one by one, the others bit-sliced
    got = core._sls.count_differences(data, bits(plus), bits(minus))
    np.testing.assert_array_equal(got, reference_differences(data, plus, minus))
    assert got[0] == m - minus.sum() == 8910  # the nominal value's slot comes first


@pytest.mark.parametrize("path", ["scalar", "avx2"])
@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(-2**31, 2**31 - 1), min_size=64, max_size=64),
       st.integers(0, 2**64 - 1), st.integers(0, 2**64 - 1),
       st.sampled_from([0, 1, 2, 4, 64]))
def test_group_extremes_take_the_masks_slots(path, values, lw, uw, sparse):
    """The lowest value over one mask's slots and the highest over the
    other's, read without a branch per slot (the loop the compiler turns
    into vector code; with AVX2 where the CPU has it), against numpy: any
    bits, empty masks, one bit, the int32 extremes."""
    if path not in core._sls.simd_paths():
        pytest.skip(f"this CPU or build cannot run the SLS kernel's {path} path")
    d = np.array(values, np.int32)
    if sparse:  # few bits: the low ones of each mask (none with sparse 64 and lw 0)
        lw &= (1 << sparse) - 1 if sparse < 64 else 0
        uw &= (1 << sparse) - 1
    on = lambda w: np.array([(w >> b) & 1 for b in range(64)], bool)  # noqa: E731
    lmin = int(d[on(lw)].min()) if lw else 2**31 - 1
    umax = int(d[on(uw)].max()) if uw else -2**31
    assert core._sls.group_passes_check(d, lw, uw, 0, 0, path == "avx2")[:2] == (lmin, umax)


@pytest.mark.parametrize("path", ["scalar", "avx2"])
@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(-3, 3), min_size=64, max_size=64), st.integers(-4, 4),
       st.integers(-4, 4), st.sampled_from([0, 2**31, -2**31 - 1, 2**32]))
def test_group_ties_mark_the_slots_of_a_value(path, values, a, b, shift):
    """The masks of the slots holding one value and another (ties of the
    best change), without a branch per slot, against numpy: few distinct
    values so that many slots tie; a value outside int32 marks no slot
    (shift: the same low 32 bits, another int64)."""
    if path not in core._sls.simd_paths():
        pytest.skip(f"this CPU or build cannot run the SLS kernel's {path} path")
    d = np.array(values, np.int32)
    mask = lambda hit: sum(1 << int(b) for b in np.flatnonzero(hit))  # noqa: E731
    a, b = a + shift, b - shift
    want = (mask(d == a) if -2**31 <= a < 2**31 else 0,
            mask(d == b) if -2**31 <= b < 2**31 else 0)
    assert core._sls.group_passes_check(d, 0, 0, a, b, path == "avx2")[2:] == want


def test_moves_on_a_hand_made_case():
    # nominal A, B with values 0/1; positives: A=0; rule set {A=1 AND B=0}
    codes = np.array([[0, 0], [0, 1], [1, 0], [1, 1]], np.int32)
    data = core.SLSData(codes, [2, 2], [0, 0], np.ones(4))
    y = codes[:, 0] == 0
    rules = np.array([[[1, 1], [0, 0]]], np.int32)
    new, t = move(data, y, rules, 0)  # positive (0,0) violates only A=1
    assert t == 0 and new.tolist() == [[[-1, -1], [0, 0]]]
    # covered negative (1,0) under {B=0}: add A=0 -> exactly the target
    new2, _ = move(data, y, new, 2)
    assert new2.tolist() == [[[0, 0], [0, 0]]]
    assert not score_of(new2, data, y, np.ones(4))[1][2]
    # correctly classified example: no move
    same, t = move(data, y, new2, 0)
    assert t == -1 and same.tolist() == new2.tolist()


def test_moves_on_an_ordinal_attribute():
    # one numeric attribute of five bins; positives in bins 1..3
    codes = np.array([[0], [1], [2], [3], [4], [2]], np.int32)
    data = core.SLSData(codes, [5], [1], np.ones(6))
    y = np.array([0, 1, 1, 1, 0, 1], bool)
    rules = core.empty_rules(data, 1)  # covers everything
    # covered negative in bin 0: the best literal is the lower bound 1
    new, _ = move(data, y, rules, 0)
    assert new.tolist() == [[[1, 4]]]
    # covered negative in bin 4: upper bound 3, the interval 1..3
    new, _ = move(data, y, new, 4)
    assert new.tolist() == [[[1, 3]]]
    assert score_of(new, data, y, np.ones(6))[0] == 0
    # an uncovered positive in bin 4 drops the upper bound only
    y2 = y.copy()
    y2[4] = True
    back, _ = move(data, y2, new, 4)
    assert back.tolist() == [[[1, 4]]]


def test_sls_search_is_deterministic():
    _, data, codes, y, w = random_problem(3, m=200, n_attrs=6, weighted=True)
    out = core.sls_search(data, bits(y), 3, 500, 0.2, 0.01, 11)
    again = core.sls_search(data, bits(y), 3, 500, 0.2, 0.01, 11)
    assert np.array_equal(again[0], out[0]) and again[1] == out[1]
    other = core.sls_search(data, bits(y), 3, 500, 0.2, 0.01, 12)
    assert not np.array_equal(other[0], out[0]) or other[2] != out[2]


@pytest.mark.parametrize("seed", range(5))
def test_sls_finds_a_consistent_dnf(seed):
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, 3, (400, 8)).astype(np.int32)
    y = ((codes[:, 0] == 0) & (codes[:, 1] == 1)) | ((codes[:, 2] == 2) & (codes[:, 5] == 0))
    data = core.SLSData(codes, np.full(8, 3), np.zeros(8), np.ones(400))
    rules, score, _, _, _ = core.sls_search(data, bits(y), 2, 5000, 0.2, 0.01, seed)
    assert score == 0 and score_of(rules, data, y, np.ones(400))[0] == 0
    # the same target on ordinal codes: an interval per rule
    bins = rng.integers(0, 10, (400, 3)).astype(np.int32)
    y = ((bins[:, 0] >= 3) & (bins[:, 0] <= 6) & (bins[:, 1] < 5)) | (bins[:, 2] == 9)
    data = core.SLSData(bins, np.full(3, 10), np.ones(3), np.ones(400))
    rules, score, _, _, _ = core.sls_search(data, bits(y), 2, 5000, 0.2, 0.01, seed)
    assert score == 0 and score_of(rules, data, y, np.ones(400))[0] == 0


def test_kernel_rejects_bad_input():
    _, data, codes, y, w = random_problem(0)
    with pytest.raises(ValueError):
        core.sls_search(data, bits(y), 0)
    with pytest.raises(ValueError):
        core.sls_search(data, bits(y[:-1]) if len(y) % 64 == 1 else bits(y)[:0], 2)
    with pytest.raises(ValueError):
        core.SLSData(codes, data.n_bins_arr, data.ordinal_arr, w[:-1])
    bad = codes.copy()
    bad[0, 0] = 7
    with pytest.raises(ValueError):
        core.SLSData(bad, data.n_bins_arr, data.ordinal_arr, w)
    with pytest.raises(ValueError):
        core.SLSData(codes, data.n_bins_arr, data.ordinal_arr, -w)
    with pytest.raises(ValueError):
        core.sls_move(data, bits(y), np.zeros((1, 2, 2), np.int32), 0)  # wrong width
    with pytest.raises(IndexError):
        core.sls_move(data, bits(y), core.empty_rules(data, 1), len(w))
    rules = core.empty_rules(data, 1)
    a = int(np.flatnonzero(data.ordinal_arr)[0]) if data.ordinal_arr.any() else 0
    rules[0, a] = (2, 1) if data.ordinal_arr[a] else (5, 5)  # empty interval / no value
    with pytest.raises(ValueError):
        core.sls_move(data, bits(y), rules, 0)
    # pickles (for process and Dask workers) to an equal copy
    again = pickle.loads(pickle.dumps(data))
    np.testing.assert_array_equal(again.literal_bits(0), data.literal_bits(0))


# ----------------------------------------------------------- formulas

def test_white_noise_weights():
    q = white_noise_weights([0, 1, 2], 0.9)
    np.testing.assert_allclose(q, np.array([1, 0.9, 0.81]) / 2.71)
    # huge error counts do not underflow
    q = white_noise_weights([5000, 5001], 0.9)
    np.testing.assert_allclose(q, np.array([1, 0.9]) / 1.9)


def test_pac_bayes_bound_by_hand():
    assert pac_bayes_epsilon(2.0, 100, 0.05) == pytest.approx(
        sqrt((2 + log(20) + log(100) + 2) / 199))
    # two binary attributes: 3 * 3 = 9 rules; rule sets of 1..2 rules
    assert log_n_rule_sets([3, 3], 2) == pytest.approx(log(comb(9, 1) + comb(9, 2)))
    assert log_n_rule_sets([2], 5) == pytest.approx(log(comb(2, 1) + comb(2, 2)))
    # a numeric attribute of 4 bins: 10 intervals (the whole range: not tested)
    data = core.SLSData(np.zeros((3, 1), np.int32), [4], [1], np.ones(3))
    assert data.rule_choices().tolist() == [10]
    # huge N: ln C(N, k) -> k ln N - ln k!, summed over k
    big = log_n_rule_sets([10] * 30, 3)  # N = 10^30
    terms = [k * 30 * log(10) - sum(log(i) for i in range(1, k + 1)) for k in (1, 2, 3)]
    assert big == pytest.approx(max(terms) + log(sum(np.exp(np.array(terms) - max(terms)))))
    # N beyond float range (exp(ln N) overflows): finite, no warning
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        assert log_n_rule_sets([11] * 500, 8) == pytest.approx(
            8 * 500 * log(11) - sum(log(i) for i in range(1, 9)))


# ----------------------------------------------------------- the learner

@pytest.fixture(scope="module")
def heart():
    return Table("heart_disease")


@pytest.fixture(scope="module")
def heart_model(heart):
    return SLSEnsembleLearner(k_max=3, n_rule_sets=5, max_steps=1000,
                              random_state=1)(heart)


def test_weights_and_bound_of_the_model(heart, heart_model):
    model = heart_model
    assert isinstance(model, SLSEnsembleModel)
    assert len(model.ensembles) == 1  # two classes: one ensemble
    ens = model.ensembles[0]
    train = model.data_to_model_domain(heart)
    Xd = train.X
    positive = heart.Y == ens.cls
    for rs, e in zip(ens.rule_sets, ens.errors):
        assert e == pytest.approx(np.sum(rule_set_fires(rs, Xd) != positive))
    np.testing.assert_allclose(ens.weights, white_noise_weights(ens.errors, 0.9))
    bound = model.bounds[ens.cls]
    m = len(heart)
    assert bound.gibbs_error == pytest.approx(np.dot(ens.weights, ens.errors) / m)
    # a rule tests a discrete attribute of n values in n + 1 ways (one not
    # at all), a numeric one cut into n bins by one of n (n + 1) / 2 intervals
    choices = []
    for var in model.domain.attributes:
        if var.is_discrete:
            choices.append(len(var.values) + 1)
        else:
            n = len(equal_frequency_cuts(train, var, 10)) + 1
            choices.append(n * (n + 1) / 2)
    entropy = -np.sum(ens.weights * np.log(ens.weights))
    kl = log_n_rule_sets(choices, 3) - entropy
    assert bound.kl == pytest.approx(kl)
    assert bound.bound == pytest.approx(bound.gibbs_error + sqrt(
        (kl + log(1 / 0.05) + log(m) + 2) / (2 * m - 1)))
    assert model.voting_bound == pytest.approx(min(1, 2 * bound.bound))
    assert model.abstaining_bound(0) == pytest.approx(model.voting_bound)
    assert model.abstaining_bound(1) < model.abstaining_bound(0)


def test_class_score_and_probabilities(heart, heart_model):
    model = heart_model
    ens = model.ensembles[0]
    Xd = model.data_to_model_domain(heart).X
    c = sum(q * np.where(rule_set_fires(rs, Xd), 1, -1)
            for q, rs in zip(ens.weights, ens.rule_sets))
    scores = model.class_scores(heart)
    np.testing.assert_allclose(scores[:, ens.cls], c)
    np.testing.assert_allclose(scores[:, 1 - ens.cls], -c)
    # the probability: Q-weighted Laplace estimates of each rule set's three
    # regions (its nearest rule misses 0, 1, or more literals), counted
    # here from the training data by hand, one literal at a time
    train = model.data_to_model_domain(heart)
    y = train.Y.astype(int) == ens.cls

    def nearest_miss(rs, X):
        misses = [sum(~rule_set_fires(((lit,),), X) for lit in rule) for rule in rs]
        return np.minimum(np.min(misses, axis=0), 2)

    expected = np.zeros(len(heart))
    for q, rs in zip(ens.weights, ens.rule_sets):
        g_train, g = nearest_miss(rs, train.X), nearest_miss(rs, Xd)
        est = [((g_train == r) & y).sum() + 1 for r in range(3)]
        est = [e / ((g_train == r).sum() + 2) for r, e in enumerate(est)]
        assert np.array_equal(g == 0, rule_set_fires(rs, Xd))
        expected += q * np.take(est, g)
    p = model(heart, model.Probs)
    np.testing.assert_allclose(p[:, ens.cls], expected)
    np.testing.assert_allclose(p.sum(axis=1), 1)
    assert 0 < p.min() and p.max() < 1  # never certain
    assert (p.argmax(1) == heart.Y).mean() > 0.75


def test_abstention(heart):
    learner = SLSEnsembleLearner(k_max=2, n_rule_sets=5, max_steps=500, random_state=0)
    model = learner(heart)
    assert not model.abstains(heart).any()  # theta = 0: never
    margins = model.margins(heart)
    assert np.all((margins >= 0) & (margins <= 2 + 1e-12))
    theta = float(np.median(margins))
    abst = model.abstains(heart, theta)
    np.testing.assert_array_equal(abst, margins < theta)
    model.theta = theta
    p = model(heart, model.Probs)
    np.testing.assert_allclose(p[abst], np.tile(model.prior, (abst.sum(), 1)))
    curve = model.abstention_curve(heart, [0, theta, 2.5])
    assert curve[0]["abstention"] == 0 and curve[-1]["abstention"] == 1
    assert curve[1]["abstention"] == pytest.approx(abst.mean())
    kept = ~abst
    correct = model.class_scores(heart).argmax(1) == heart.Y
    assert curve[1]["accuracy"] == pytest.approx(correct[kept].mean())
    # a learner's theta reaches the model
    assert SLSEnsembleLearner(k_max=1, n_rule_sets=2, max_steps=100,
                              theta=0.5)(heart).theta == 0.5


def test_multiclass_iris():
    iris = Table("iris")
    model = SLSEnsembleLearner(k_max=3, n_rule_sets=10, max_steps=2000,
                               random_state=0)(iris)
    assert [e.cls for e in model.ensembles] == [0, 1, 2]
    p = model(iris, model.Probs)
    assert p.shape == (150, 3)
    np.testing.assert_allclose(p.sum(axis=1), 1)
    assert (p.argmax(1) == iris.Y).mean() > 0.85
    assert model.voting_bound is None and len(model.bounds) == 3
    text = str(model)
    assert "class iris = Iris-setosa" in text and "conditions by ensemble weight" in text
    assert "rule set 1: weight Q" in text


def test_determinism_and_n_jobs(heart):
    kw = dict(k_max=2, n_rule_sets=4, max_steps=300)
    a = SLSEnsembleLearner(random_state=5, **kw)(heart)
    b = SLSEnsembleLearner(random_state=5, **kw)(heart)
    c = SLSEnsembleLearner(random_state=5, n_jobs=2, **kw)(heart)
    d = SLSEnsembleLearner(random_state=6, **kw)(heart)
    pa = a(heart, a.Probs)
    np.testing.assert_array_equal(pa, b(heart, b.Probs))
    np.testing.assert_array_equal(pa, c(heart, c.Probs))
    assert a.ensembles[0].rule_sets == c.ensembles[0].rule_sets
    assert a.ensembles[0].rule_sets != d.ensembles[0].rule_sets


def test_pickle(heart, heart_model):
    model = pickle.loads(pickle.dumps(heart_model))
    np.testing.assert_array_equal(model(heart, model.Probs),
                                  heart_model(heart, heart_model.Probs))
    assert str(model) == str(heart_model)


def test_rules_for_viewers(heart_model):
    rules = heart_model.rule_list
    assert rules and all(r.head == heart_model.ensembles[0].cls for r in rules)
    # a rule's weight is the weight of the rule sets it is in
    ens = heart_model.ensembles[0]
    first = tuple((c.column, c.op, c.value) for c in rules[0].conditions)
    assert rules[0].quality == pytest.approx(
        sum(q for q, rs in zip(ens.weights, ens.rule_sets) if first in rs))


def small_table(n=120, seed=0, names=("x", "d", "y")):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    d = rng.integers(0, 3, n)
    y = ((x > 0.3) | (d == 2)).astype(float)
    domain = Domain([ContinuousVariable(names[0]),
                     DiscreteVariable(names[1], values=("a", "b", "c"))],
                    DiscreteVariable(names[2], values=("no", "yes")))
    return Table.from_numpy(domain, np.column_stack([x, d]), y)


FAST = dict(k_max=2, n_rule_sets=3, max_steps=300, random_state=0)


def test_missing_values_become_a_value_and_unknowns_at_prediction():
    data = small_table()
    with data.unlocked(data.X):
        data.X[::7, 1] = np.nan
        data.X[::5, 0] = np.nan
    # the paper's encoding: x as ten intervals, an unknown value for both
    model = SLSEnsembleLearner(**FAST, numeric="intervals")(data)
    d_var = model.domain["d"]
    assert d_var.values[-1] == "unknown"
    x_var = model.domain["x"]
    assert x_var.is_discrete and x_var.values[-1] == "unknown" and len(x_var.values) == 11
    # thresholds (default): x stays numeric with an indicator of its unknowns
    thresholds = SLSEnsembleLearner(**FAST)(data)
    names = [v.name for v in thresholds.domain.attributes]
    assert names == ["x", "x is unknown", "d"]
    assert thresholds.domain["x"].is_continuous
    assert thresholds.domain["d"].values[-1] == "unknown"
    assert thresholds.domain["x is unknown"].values == ("no", "yes")
    from orangecontrib.rules.rules import Condition
    assert Condition(1, "==", 1).to_str(thresholds.domain) == "x is unknown"
    assert Condition(1, "==", 0).to_str(thresholds.domain) == "x is known"
    # a rule on x reads as a bound of x
    assert any(c.column == 0 and c.op in (">=", "<")
               for r in thresholds.rule_list for c in r.conditions)
    test = small_table(seed=1)
    with test.unlocked(test.X):
        test.X[:5] = np.nan  # unknown in both, also where training had none
    for m in (model, thresholds):
        p = m(test, m.Probs)
        assert np.all(np.isfinite(p)) and np.allclose(p.sum(1), 1)
        again = pickle.loads(pickle.dumps(m))
        np.testing.assert_array_equal(again(test, again.Probs), p)


def test_bad_input():
    data = small_table()
    with pytest.raises(ValueError):
        SLSEnsembleLearner(k_max=0)
    with pytest.raises(ValueError):
        SLSEnsembleLearner(rho=0)
    with pytest.raises(ValueError):
        SLSEnsembleLearner(delta=1)
    # regression target
    housing = Table("housing")
    with pytest.raises(ValueError, match="categorical class"):
        SLSEnsembleLearner(**FAST)(housing)
    # empty data
    with pytest.raises(ValueError, match="empty"):
        SLSEnsembleLearner(**FAST)(data[:0])
    # one class: the prior
    one = data[data.Y == 1]
    model = SLSEnsembleLearner(**FAST)(one)
    assert isinstance(model, PriorRuleModel)
    # constant and all-missing columns
    domain = Domain(list(data.domain.attributes) + [
        ContinuousVariable("const"), ContinuousVariable("missing")], data.domain.class_var)
    X = np.column_stack([data.X, np.ones(len(data)), np.full(len(data), np.nan)])
    odd = Table.from_numpy(domain, X, data.Y)
    model = SLSEnsembleLearner(**FAST)(odd)
    p = model(odd, model.Probs)
    assert np.all(np.isfinite(p)) and (p.argmax(1) == odd.Y).mean() > 0.7


def test_many_classes_and_unicode_names():
    rng = np.random.default_rng(0)
    n = 300
    d = rng.integers(0, 6, n)
    domain = Domain([DiscreteVariable("größe", values=tuple("αβγδεζ")),
                     ContinuousVariable("温度")],
                    DiscreteVariable("类别", values=tuple(f"k{i}" for i in range(6))))
    X = np.column_stack([d, rng.normal(size=n)])
    data = Table.from_numpy(domain, X, d.astype(float))
    model = SLSEnsembleLearner(**FAST)(data)
    assert len(model.ensembles) == 6
    assert (model(data) == data.Y).mean() > 0.95
    assert "größe = α" in str(model)


def test_example_weights():
    data = small_table(200)
    learner = SLSEnsembleLearner(**FAST)
    base = learner(data)
    # scaling every weight changes nothing
    scaled = data.copy()
    with scaled.unlocked(scaled.W):
        scaled.W = np.full(len(data), 3.0)
    other = learner(scaled)
    np.testing.assert_allclose(base(data, base.Probs), other(data, other.Probs))
    # heavy weights on the negatives make the ensemble predict fewer positives
    heavy = data.copy()
    with heavy.unlocked(heavy.W):
        heavy.W = np.where(data.Y == 0, 20.0, 1.0)
    skewed = learner(heavy)
    assert (skewed(data) == 1).sum() <= (base(data) == 1).sum()
    np.testing.assert_allclose(skewed.class_distribution,
                               [20 * (data.Y == 0).sum(), (data.Y == 1).sum()])


def test_progress_callback(heart):
    seen = []
    SLSEnsembleLearner(k_max=2, n_rule_sets=2, max_steps=100)(
        heart, progress_callback=lambda p, *a: seen.append(p))
    assert seen and seen == sorted(seen) and seen[-1] > 0.9


def test_probabilities_are_calibrated_where_the_vote_is_unanimous():
    """One attribute decides the class 70% of the time: every rule set votes
    the same, so the paper's ``(c + 1) / 2`` would say 1.0; the probability
    must say about 0.7."""
    rng = np.random.default_rng(0)
    a = rng.integers(0, 2, 2000)
    y = np.where(rng.random(2000) < 0.7, a, 1 - a)
    domain = Domain([DiscreteVariable("a", values=("0", "1")),
                     DiscreteVariable("noise", values=("p", "q", "r"))],
                    DiscreteVariable("y", values=("0", "1")))
    data = Table.from_numpy(domain, np.column_stack([a, rng.integers(0, 3, 2000)]), y)
    model = SLSEnsembleLearner(k_max=2, n_rule_sets=5, max_steps=500)(data)
    scores = model.class_scores(data)
    assert np.all(np.abs(scores[:, 1]) > 0.95)  # the vote is (nearly) unanimous
    p = model(data, model.Probs)[:, 1]
    assert abs(p[a == 1].mean() - 0.7) < 0.03 and abs(p[a == 0].mean() - 0.3) < 0.03
    assert p.max() < 0.8 and p.min() > 0.2


def test_rho_counts_errors_as_a_share_beyond_rho_rows():
    """Up to ``rho_rows`` examples ``Q(r) ∝ rho^e(r)`` is the paper's; on
    ``m`` more, an error counts ``rho_rows / m``, so rule sets with the
    same error rates get the same weights on any number of rows; the rule
    sets themselves do not change."""
    from orangecontrib.rules.sls import error_share, white_noise_weights
    assert error_share(500, 1000) == error_share(1000, 1000) == error_share(10 ** 6, None) == 1
    assert error_share(4000, 1000) == 0.25
    errors = np.array([10.0, 12.0, 30.0])
    np.testing.assert_allclose(white_noise_weights(errors * 10, 0.9, error_share(10000, 1000)),
                               white_noise_weights(errors, 0.9))
    data = Table("titanic")  # 2,201 rows: beyond the default 1,000
    paper = SLSEnsembleLearner(n_rule_sets=3, max_steps=500, rho_rows=None)(data)
    default = SLSEnsembleLearner(n_rule_sets=3, max_steps=500)(data)
    for a, b in zip(paper.ensembles, default.ensembles):
        assert a.rule_sets == b.rule_sets
        np.testing.assert_array_equal(a.errors, b.errors)
        np.testing.assert_allclose(b.weights, white_noise_weights(
            a.errors, 0.9, 1000 / len(data)))
        assert b.weights.max() < a.weights.max()  # less concentrated than the paper's
    small = data[:800]
    same = [SLSEnsembleLearner(n_rule_sets=3, max_steps=500, rho_rows=r)(small)
            for r in (None, 1000)]
    assert str(same[0]) == str(same[1])


def test_searches_on_a_sample_beyond_search_rows():
    """On more than ``search_rows`` rows the local searches run on a
    stratified sample (every class in it, repeatable, apart from the
    searches' own seeds), the leaf estimates on every row; up to it,
    nothing changes."""
    data = Table("titanic")
    kw = dict(n_rule_sets=2, max_steps=300)
    assert str(SLSEnsembleLearner(**kw)(data)) == str(
        SLSEnsembleLearner(search_rows=None, **kw)(data))  # 2,201 rows: no sample
    learner = SLSEnsembleLearner(search_rows=500, **kw)
    rows = learner.search_sample(data.Y.astype(int), data.domain.class_var.values)
    assert 495 <= len(rows) <= 505 and np.all(np.diff(rows) > 0)
    shares = np.bincount(data.Y[rows].astype(int)) / len(rows)
    np.testing.assert_allclose(shares, np.bincount(data.Y.astype(int)) / len(data), atol=0.01)
    sampled = learner(data)
    assert sampled.search_rows == len(rows)
    assert "sample of" in "\n".join(sampled.summary_lines())
    assert str(sampled) == str(SLSEnsembleLearner(search_rows=500, **kw)(data))
    # the searches saw the sample only: the same rule sets as on those rows
    on_rows = SLSEnsembleLearner(**kw)(data[rows])
    assert [e.rule_sets for e in sampled.ensembles] == [e.rule_sets for e in on_rows.ensembles]
    p = sampled(data, sampled.Probs)
    assert np.all(np.isfinite(p)) and np.allclose(p.sum(axis=1), 1)


def test_each_class_searches_on_its_rows_and_a_sample_of_the_rest():
    """More than two classes: each task's searches run on the class's rows
    and a stratified sample of ``rest_ratio`` times as many of the others,
    at least ``rest_min`` (every other class in it), drawn anew for each
    task and repeatable; every row where the rest is no larger than that,
    on two classes and with ``rest_ratio=None``."""
    data = Table("zoo")  # 7 classes, 4 to 41 rows
    y, values = data.Y.astype(int), data.domain.class_var.values
    tasks = [(c, k, [0]) for c in range(7) for k in (1, 2)]
    learner = SLSEnsembleLearner(rest_ratio=2.0, rest_min=1, random_state=3)
    rows = learner.rest_samples(y, tasks, values)
    assert all((a is None and b is None) or np.array_equal(a, b)
               for a, b in zip(rows, learner.rest_samples(y, tasks, values)))
    other = SLSEnsembleLearner(rest_min=1, random_state=4).rest_samples(y, tasks, values)
    for i, (c, k, _) in enumerate(tasks):
        n_c, n_rest = np.sum(y == c), np.sum(y != c)
        if 2 * n_c >= n_rest:  # class 5 (41 of 101 rows): every row
            assert rows[i] is None
            continue
        r = rows[i]
        assert np.all(np.diff(r) > 0)
        np.testing.assert_array_equal(r[y[r] == c], np.flatnonzero(y == c))
        drawn = r[y[r] != c]
        assert abs(len(drawn) - 2 * n_c) <= 6  # each class's share rounded
        assert set(y[drawn]) == set(range(7)) - {c}  # every other class
        if k == 2:  # a new sample for every task
            assert not np.array_equal(r, rows[i - 1])
        assert not np.array_equal(r, other[i])
    floor = SLSEnsembleLearner(rest_min=50).rest_samples(y, tasks, values)
    for i, (c, k, _) in enumerate(tasks):  # at least 50 of the rest, or all of it
        n_c, n_rest = np.sum(y == c), np.sum(y != c)
        if max(2 * n_c, 50) >= n_rest:
            assert floor[i] is None
        else:
            assert abs(np.sum(y[floor[i]] != c) - max(2 * n_c, 50)) <= 6
    assert any(r is not None for r in floor)
    for ratio, least in ((None, 1), (2.0, 500)):  # the default floor: all of zoo
        assert SLSEnsembleLearner(rest_ratio=ratio, rest_min=least).rest_samples(
            y, tasks, values) == [None] * len(tasks)
    two = [(0, 1, [0])]
    assert SLSEnsembleLearner().rest_samples(y, two, values) == [None]
    with pytest.raises(ValueError, match="rest_ratio"):
        SLSEnsembleLearner(rest_ratio=0)
    with pytest.raises(ValueError, match="rest_min"):
        SLSEnsembleLearner(rest_min=0)


def test_sampled_rest_models():
    """The searches of a class see its sample only: each rule set's errors
    are counted on it and the class's bound is for its size; a ratio that
    takes every row gives the model of ``rest_ratio=None``; the model does
    not depend on ``n_jobs``."""
    data = Table("brown-selected")  # 35, 30 and 121 rows
    y = data.Y.astype(int)
    kw = dict(k_max=2, n_rule_sets=5, max_steps=300, random_state=1, rest_min=1)
    model = SLSEnsembleLearner(**kw)(data)
    for ens in model.ensembles:
        n_c = np.sum(y == ens.cls)
        size = len(data) if 2 * n_c >= len(data) - n_c else n_c + 2 * n_c
        assert abs(model.bounds[ens.cls].m - size) <= 2
        assert np.all(ens.errors <= model.bounds[ens.cls].m)
    # one task per class (k_max=1, five searches): its rule sets' errors
    # are those on its sample
    one = SLSEnsembleLearner(k_max=1, n_rule_sets=5, max_steps=300, random_state=1,
                             rest_min=1)
    m1 = one(data)
    X = m1.data_to_model_domain(data).X
    order = in_name_order(range(3), data.domain.class_var.values)
    rows = one.rest_samples(y, [(c, 1, None) for c in order], data.domain.class_var.values)
    for ens in m1.ensembles:
        r = rows[order.index(ens.cls)]
        r = np.arange(len(data)) if r is None else r
        pos = y[r] == ens.cls
        for rs, errors in zip(ens.rule_sets, ens.errors):
            fires = rule_set_fires(rs, X[r])
            assert errors == np.sum(fires & ~pos) + np.sum(~fires & pos)
    everything = SLSEnsembleLearner(rest_ratio=None, **kw)(data)
    assert str(SLSEnsembleLearner(rest_ratio=1e9, **kw)(data)) == str(everything)
    assert str(model) != str(everything)
    two_jobs = SLSEnsembleLearner(n_jobs=2, **kw)(data)
    np.testing.assert_array_equal(model(data, model.Probs), two_jobs(data, two_jobs.Probs))


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 6), st.integers(1, 25),
       st.sampled_from([(2, 3), (5, 11), (2, 40), (200, 300)]), st.booleans(),
       st.booleans())
def test_scalar_counting_with_a_fixed_stride_makes_the_same_searches(seed, k, n_attrs, widths,
                                                                      missing, weighted):
    """The scalar loops count a byte per cell with the same number of slots
    per attribute where that is cheap (``stride``); the searches (with every
    step's kept counts checked against fresh ones) are those of the
    attribute-by-attribute slots."""
    codes, nb, ordinal, y, w = random_coded_data(seed, 500, n_attrs, widths, missing, weighted)
    fixed = core.SLSData(codes, nb, ordinal, w, simd=False)
    plain = core.SLSData(codes, nb, ordinal, w, simd=False, fixed_stride=False)
    width = nb + 1
    expected = width.max() if width.max() <= 255 and width.max() * n_attrs <= 2 * width.sum() \
        else 0
    assert fixed.stride == expected and plain.stride == 0
    if fixed.stride:
        np.testing.assert_array_equal(fixed.cells_arr,
                                      np.where(codes < 0, nb, codes).astype(np.uint8))
    got = core.sls_search(fixed, bits(y), k, 400, 0.2, 0.01, seed, check=True)
    want = core.sls_search(plain, bits(y), k, 400, 0.2, 0.01, seed, check=True)
    np.testing.assert_array_equal(got[0], want[0])
    assert got[1:3] == want[1:3] and got[4] == want[4]
    np.testing.assert_array_equal(got[3], want[3])
    assert pickle.loads(pickle.dumps(fixed)).stride == fixed.stride


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 40), st.integers(1, 12), st.data())
def test_rule_set_regions_are_each_rule_sets_nearest_misses(n_rows, n_rules, data):
    """All rule sets' regions at once (the leaf estimates and predictions
    read them) are those of :func:`nearest_misses` one rule set at a time:
    rule sets of mixed sizes, shared rules, the empty rule set."""
    from orangecontrib.rules.sls import nearest_misses, rule_set_regions
    V = np.array(data.draw(st.lists(st.lists(st.integers(0, 5), min_size=n_rules,
                                             max_size=n_rules),
                                    min_size=n_rows, max_size=n_rows)), dtype=np.uint8)
    cols = data.draw(st.lists(st.lists(st.integers(0, n_rules - 1), max_size=6, unique=True)
                              .map(lambda c: np.array(c, dtype=np.intp)), max_size=10))
    regions = rule_set_regions(V, cols)
    assert regions.shape == (len(cols), n_rows)
    for r, idx in enumerate(cols):
        np.testing.assert_array_equal(regions[r], nearest_misses(V, idx))


def _canonical_rule_set_reference(rules, ordinal, n_bins, cuts):
    """Each rule's literals read attribute by attribute, the distinct rules sorted."""
    out = set()
    for rule in np.asarray(rules).tolist():
        conditions = []
        for a, (lo, hi) in enumerate(rule):
            if not ordinal[a]:
                if lo >= 0:
                    conditions.append((a, "==", float(lo)))
            else:
                if lo > 0:
                    conditions.append((a, ">=", float(cuts[a][lo - 1])))
                if hi < n_bins[a] - 1:
                    conditions.append((a, "<", float(cuts[a][hi])))
        out.add(tuple(conditions))
    return tuple(sorted(out))


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_canonical_rule_set_reads_every_literal_of_the_search(data):
    """:func:`features.canonical_rule_set` against a literal-by-literal
    reading of the search's ``(lo, hi)`` array: nominal values, lower and
    upper bounds at the cut points, untested attributes left out, repeated
    rules once (the next test: rules the kernel's searches return)."""
    from orangecontrib.rules.features import canonical_rule_set
    n_attrs = data.draw(st.integers(1, 6))
    ordinal = data.draw(st.lists(st.booleans(), min_size=n_attrs, max_size=n_attrs))
    n_bins = data.draw(st.lists(st.integers(1, 5), min_size=n_attrs, max_size=n_attrs))
    cuts = [np.sort(np.random.default_rng(a).normal(size=max(nb - 1, 0))) if o else None
            for a, (o, nb) in enumerate(zip(ordinal, n_bins))]
    k = data.draw(st.integers(1, 4))
    rules = np.zeros((k, n_attrs, 2), dtype=np.int32)
    for t in range(k):
        for a in range(n_attrs):
            if ordinal[a]:
                lo = data.draw(st.integers(0, n_bins[a] - 1))
                rules[t, a] = lo, data.draw(st.integers(lo, n_bins[a] - 1))
            else:
                v = data.draw(st.integers(-1, n_bins[a] - 1))
                rules[t, a] = v, v
    if data.draw(st.booleans()):  # a repeated rule
        rules = np.concatenate([rules, rules[:1]])
    assert (canonical_rule_set(rules, ordinal, n_bins, cuts)
            == _canonical_rule_set_reference(rules, ordinal, n_bins, cuts))


def test_canonical_rule_set_of_searched_rule_sets():
    from orangecontrib.rules.features import canonical_rule_set
    rng = np.random.default_rng(3)
    codes = rng.integers(0, 4, size=(120, 5)).astype(np.int32)
    codes[rng.random(codes.shape) < 0.1] = -1
    n_bins, ordinal = np.full(5, 4, dtype=np.int32), np.array([1, 1, 0, 1, 0], dtype=np.int8)
    cuts = [np.array([-1.0, 0.0, 1.5]) if o else None for o in ordinal]
    sd = core.SLSData(codes, n_bins, ordinal, np.ones(120))
    pos = core.pack_bits((codes[:, 0] >= 2).astype(np.uint8))
    for k in (1, 3, 6):
        rules = core.sls_search(sd, pos, k, 300, 0.2, 0.01, k)[0]
        assert (canonical_rule_set(rules, ordinal.astype(bool), n_bins, cuts)
                == _canonical_rule_set_reference(rules, ordinal.astype(bool), n_bins, cuts))
