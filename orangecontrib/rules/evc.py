"""Rule learning with extreme-value-corrected quality (Možina, Demšar,
Bratko & Žabkar 2019, "Extreme value correction: a method for correcting
optimistic estimations in rule learning"; doc/evc.md).

A candidate rule for class ``c`` covers ``n`` (weighted) examples, ``s`` of
class ``c``; the data has ``N`` and ``S``.

1. ``LRS`` by eq. 14 (0 if the rule is no better than the prior);
2. ``P_a = 1 - G(LRS; mu(L), beta(L))`` with the Gumbel CDF ``G`` of the
   best LRS that a search of depth ``L`` finds on data whose class was
   permuted (the paper's Fig. 8, :func:`fit_gumbel`);
3. ``P_a^s = min(1, 2 P_a)``;
4. ``LRS_bar = chi2.isf(P_a^s, 1)``;
5. ``s_bar`` with ``LRS(s_bar, n) = LRS_bar`` (Brent), quality ``q = s_bar / n``.

Rules are found by a CN2-style beam search per class with covering; the
search is one compiled kernel (``core/_evc.pyx``, :func:`core.beam_search`)
that generates the candidates, counts their classes, scores them and keeps
the beam without the GIL. The same search, with plain LRS as the quality and
without covering, fits the Gumbel parameters on permuted classes
(:func:`core.permutation_maxima`, run in threads). Python keeps the covering
loop and the model. An m-estimate quality (eq. 13) is the alternative the
paper compares with.

Continuous attributes are searched over ordinal bins
(:func:`encoding.ordinal_bins`): with ``max_thresholds=None`` every value is
a bin (exact); by default at most ``DEFAULT_MAX_THRESHOLDS`` equal-frequency
cuts per column. Either way only *boundary points* are candidate thresholds:
a cut between two bins whose covered examples are all of the target class,
or all of other classes, is skipped, since a threshold inside such a run is
beaten by one at its end (for the LRS this is Fayyad & Irani's result for
information gain, of which the LRS is a multiple).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .base import RuleLearner, ViewerColumn
from .core import (OP_EQ, OP_GE, OP_LE, Quality, SearchCache, SearchData, beam_search,
                   class_weights, lrs, permutation_maxima, reach_table)
from .core import chi2_isf as _chi2_isf
from .core import chi2_sf as _chi2_sf
from .core import evc_quality as _evc_quality
from .features import ShortThresholds, search_data
from .parallel import parallel_map
from . import params
from .rules import Condition, Rule, budget_coverage, budget_prefixes, rule_class_weights
from .tables import stratified_rows
from .ruleset import STRATEGIES, RuleSetModel

EULER_GAMMA = 0.5772156649015329
OP_NAMES = {OP_EQ: "==", OP_LE: "<=", OP_GE: ">="}
#: a Gumbel scale below this means the permuted searches found no optimism
TINY_BETA = 1e-6
#: equal-frequency threshold candidates per continuous column (``None``: all)
DEFAULT_MAX_THRESHOLDS = 16
#: the least share of its class's weight a rule must cover that no earlier
#: rule of the class covers (covering; 0: one example, the paper's covering)
DEFAULT_MIN_NEW_COVERAGE = 0.02
#: rows of the stratified sample the Gumbel parameters are fitted on
#: (``None``: every row)
DEFAULT_GUMBEL_SAMPLE = 20_000
#: on more rows the covering searches a stratified sample of this many, and
#: the rules it finds are counted on every row (``None``: every row)
DEFAULT_SEARCH_ROWS = 100_000


def _vector(x) -> np.ndarray:
    return np.ascontiguousarray(np.atleast_1d(np.asarray(x, dtype=np.float64)).ravel())


# ------------------------------------------------------------ the correction
def chi2_sf(x) -> np.ndarray:
    """Survival function of chi-square with 1 degree of freedom,
    ``P(X > x) = erfc(sqrt(x / 2))`` (the kernel's, so the search and
    Python agree to the bit)."""
    x = np.asarray(x, dtype=float)
    return _chi2_sf(_vector(x)).reshape(x.shape)


def chi2_isf(p) -> np.ndarray:
    """Inverse of :func:`chi2_sf`: ``x`` with ``P(X > x) = p``, via the normal
    quantile, ``x = ndtri(p / 2)^2``; ``p = 1`` gives 0."""
    p = np.asarray(p, dtype=float)
    return _chi2_isf(_vector(p)).reshape(p.shape)


def likelihood_ratio(s, n, S, N) -> np.ndarray:
    """LRS of eq. 14 (Dunning's 2x2 likelihood ratio), vectorised."""
    return lrs(_vector(s), _vector(n), float(S), float(N))


def gumbel_sf(x, mu, beta) -> np.ndarray:
    """``1 - G(x)``, ``G(x) = exp(-exp(-(x - mu) / beta))`` (step 2)."""
    return -np.expm1(-np.exp(-(np.asarray(x, dtype=float) - mu) / beta))


def evc_quality(s, n, S, N, mu, beta):
    """Steps 1-5: ``(q, P_a, LRS)`` for rules with counts ``s`` of ``n``.

    With ``beta <= TINY_BETA`` (no optimism measured) ``P_a`` is the plain
    chi-square tail of ``LRS`` and the quality is the relative frequency.
    """
    return _evc_quality(_vector(s), _vector(n), float(S), float(N),
                        float(mu), float(beta))


def m_estimate(s, n, prior, m) -> np.ndarray:
    """Eq. 13: ``(s + m p_a) / (n + m)``."""
    s = np.asarray(s, dtype=float)
    n = np.asarray(n, dtype=float)
    return (s + m * prior) / np.maximum(n + m, 1e-300)


@dataclass
class GumbelParameters:
    """``mu[c, L-1]``, ``beta[c, L-1]`` for target class ``c`` and rule length
    ``L``; ``samples[c]`` the best LRS of each permutation (``(n_perm, L)``)."""

    mu: np.ndarray
    beta: np.ndarray
    n_permutations: int = 0
    samples: list = field(default_factory=list, repr=False)

    def of(self, cls: int, length: int):
        """Parameters for a rule of ``length`` conditions (the longest fitted
        length is used beyond the fitted range)."""
        L = min(max(int(length), 1), self.mu.shape[1]) - 1
        return float(self.mu[cls, L]), float(self.beta[cls, L])

    @property
    def max_rule_length(self) -> int:
        return int(self.mu.shape[1])


def fit_gumbel(best: np.ndarray):
    """Method-of-moments Gumbel fit to the best LRS per permutation.

    ``best[p, L-1]``: best LRS of permutation ``p`` among rules of length
    ``L``; the best among rules of length ``<= L`` is its running maximum.
    ``beta = sqrt(6) sd / pi``, ``mu = mean - 0.5772 beta``, ``mu``
    made non-decreasing in ``L`` (doc/evc.md, "The Gumbel fit").
    """
    upto = np.maximum.accumulate(np.asarray(best, dtype=float), axis=1)
    sd = upto.std(axis=0, ddof=1) if len(upto) > 1 else np.zeros(upto.shape[1])
    beta = math.sqrt(6.0) * sd / math.pi
    mu = np.maximum.accumulate(upto.mean(axis=0) - EULER_GAMMA * beta)
    return mu, beta


# ------------------------------------------------------------ the search
@dataclass
class Found:
    """A rule the search found: conditions ``(attr, op, value)`` with the
    domain attribute index, its coverage, counts and quality."""

    conditions: tuple
    mask: np.ndarray | None  # the covered rows, dropped once ``dist`` is set
    s: float
    n: float
    q: float
    p: float
    lrs: float
    dist: np.ndarray | None = None  # weighted class counts of the covered rows
    new: float = 0.0  # the share of its class's weight it covered first (covering)


def find_rule(sd: SearchData, attrs, code, quality, S, N, mu, beta, *, m=2.0,
              alpha=1.0, beam_width=10, max_rule_length=5,
              min_covered_examples=1.0, parent_alpha=1.0, covering=True,
              boundary_only=True, pure=None, cache=None, reach=None, min_new=0.0):
    """The best rule by the compiled beam search (``core.beam_search``,
    doc/evc.md, "The rule search") for the target class coded in
    ``code`` (0 other class, 1 covered target, 2 target not covered yet);
    a :class:`Found` or ``None``. ``mu``, ``beta``: Gumbel parameters per
    rule length (EVC quality); ``min_new``: with ``covering``, the least
    weight of positives not covered yet the rule must cover; ``pure``:
    :func:`pure_cache` of this class,
    ``cache``: a :class:`core.SearchCache` of this class, ``reach``:
    :func:`core.reach_table` of this class (all three only save time)."""
    conds, stats, _, mask = beam_search(
        sd, np.ascontiguousarray(code, dtype=np.int8), quality, float(S), float(N),
        np.ascontiguousarray(mu, dtype=float), np.ascontiguousarray(beta, dtype=float),
        float(m), float(alpha), int(beam_width), int(max_rule_length),
        float(min_covered_examples), float(parent_alpha), bool(covering), True,
        bool(boundary_only), pure, cache, reach, float(min_new))
    if conds is None:
        return None
    conditions = tuple((int(attrs[f]), op, value) for f, op, value in conds)
    return Found(conditions, mask, *map(float, stats))


def pure_cache(N, max_rule_length):
    """Room for the quality of the purest rule of every integer coverage
    ``0..N`` (the search's bound), when the total weight ``N`` is an
    integer; ``None`` otherwise."""
    if N != math.floor(N) or N > 10**7:
        return None
    return np.full((max_rule_length, int(N) + 1), np.nan)


def permutation_seeds(random_state, n_permutations):
    """One seed per class permutation, spawned from ``random_state``."""
    return np.random.SeedSequence(random_state).spawn(n_permutations)


def _permutation_maxima(sd, y, w, n_classes, seed, beam_width, max_rule_length,
                        min_covered_examples, boundary_only):
    """One permutation of the class column: for each class, the best LRS
    per rule length that the search finds (the paper's Fig. 8)."""
    rng = np.random.default_rng(seed)
    yp = np.ascontiguousarray(y[rng.permutation(len(y))], dtype=np.int32)
    S = np.array([float(w[yp == c].sum()) for c in range(n_classes)])
    return permutation_maxima(sd, yp, np.arange(n_classes, dtype=np.int32), S,
                              float(w.sum()), int(beam_width), int(max_rule_length),
                              float(min_covered_examples), bool(boundary_only))


#: permutations per parallel task: few enough tasks that a process pool or
#: a cluster spends its time searching, not sending (one search on a few
#: thousand rows is quick); 100 permutations make 4 tasks. Chosen by
#: measurement among 10 and 25 per task (``40dcf8f:benchmarks/results/dask.md``)
PERMUTATIONS_PER_TASK = 25


def _permutation_chunk(sd, y, w, n_classes, seeds, *args, report=None, task=0):
    """:func:`_permutation_maxima` of several permutations (one task);
    ``report`` (:meth:`RuleLearner.task_progress`'s function) is told after
    each permutation, as task ``task``."""
    out = []
    for s in seeds:
        out.append(_permutation_maxima(sd, y, w, n_classes, s, *args))
        if report is not None:  # may raise Interrupted: the fit was cancelled
            report(task, len(out) / len(seeds), len(out))
    return out


def fit_gumbel_parameters(sd: SearchData, y, n_classes, n_permutations=100,
                          beam_width=10, max_rule_length=5,
                          min_covered_examples=1.0, random_state=0, n_jobs=None,
                          progress=None, boundary_only=True,
                          make_report=None) -> GumbelParameters:
    """Gumbel ``mu``, ``beta`` per class and rule length from
    ``n_permutations`` searches on permuted classes. The permutations are
    independent: they run in ``n_jobs`` threads (the searches release the
    GIL), each with its own seed spawned from ``random_state``, so the
    result does not depend on ``n_jobs``. A class absent from the data
    costs nothing (its parameters are 0). ``progress(fraction)`` hears of
    each task done; ``make_report(n_tasks)``, if given, makes the function
    the tasks tell of each permutation (:meth:`RuleLearner.task_progress`)."""
    from joblib import delayed

    n_permutations = int(n_permutations)
    if n_permutations < 2:
        raise ValueError("n_permutations must be at least 2")
    y = np.asarray(y, dtype=np.int32)
    w = np.asarray(sd.w_arr)
    seeds = permutation_seeds(random_state, n_permutations)
    chunks = [seeds[i:i + PERMUTATIONS_PER_TASK]
              for i in range(0, n_permutations, PERMUTATIONS_PER_TASK)]
    report = make_report(len(chunks)) if make_report is not None else None
    jobs = (delayed(_permutation_chunk)(sd, y, w, n_classes, chunk, beam_width,
                                        max_rule_length, min_covered_examples,
                                        boundary_only, report=report, task=i)
            for i, chunk in enumerate(chunks))
    results = []
    for r in parallel_map(jobs, n_jobs):
        results.extend(r)
        if progress is not None and report is None:
            progress(len(results) / n_permutations)
    best = np.stack(results, axis=1)  # (classes, permutations, lengths)
    mu = np.zeros((n_classes, max_rule_length))
    beta = np.zeros_like(mu)
    present = np.bincount(y, weights=w, minlength=n_classes) > 0
    for c in np.flatnonzero(present):
        mu[c], beta[c] = fit_gumbel(best[c])
    return GumbelParameters(mu, beta, n_permutations, [b for b in best])


def gumbel_rows(y, w, size, random_state=0):
    """The rows of a stratified sample of ``size`` rows for the Gumbel fit
    (each class in its share, rounded, at least one row of each class
    present; seeded by ``random_state``), sorted; ``None`` when ``size`` is
    ``None`` or there are no more rows than that. The permutation searches
    measure how large the best LRS of a search gets by chance; with the
    bins of the whole data (the candidate conditions are the same) that
    does not grow with the rows, so a sample of some ten thousand rows
    gives the parameters of all of them (doc/evc.md, "The Gumbel fit")."""
    n = len(y)
    if size is None or n <= size:
        return None
    rng = np.random.default_rng(np.random.SeedSequence(random_state).spawn(2)[1])
    return stratified_rows(y, size, rng)


def sd_rows(sd: SearchData, rows) -> SearchData:
    """``sd`` restricted to ``rows``, with the bins (and so the candidate
    conditions) of all rows."""
    return SearchData(np.asarray(sd.codes_arr)[rows], sd.n_bins_arr, sd.ordinal_arr,
                      sd.lo_arr, sd.hi_arr, np.asarray(sd.w_arr)[rows])


# ------------------------------------------------------------ Orange layer
class EVCRuleModel(RuleSetModel):
    """Unordered rules resolved by a Fawcett strategy (default WVOTE) with the
    rules' qualities (EVC-corrected probabilities or m-estimates) as their
    confidences. ``gumbel`` holds the parameters the learner used."""

    def __init__(self, domain, rule_list, class_distribution, strategy="wvote",
                 gumbel=None, quality="evc"):
        super().__init__(domain, rule_list, class_distribution, strategy)
        self.gumbel = gumbel
        self.quality_measure = quality

    def rule_confidences(self) -> np.ndarray:
        """The rules' qualities (corrected probabilities or m-estimates),
        each at most the Laplace estimate ``(n + 1) / (n + 2)`` of a pure rule
        of its coverage ``n``: the correction of a large pure rule can be
        1 exactly, and a vote of certainty would give the other classes
        probability 0."""
        q = np.array([r.quality for r in self.rule_list], dtype=float)
        n = np.array([r.class_distribution.sum() for r in self.rule_list], dtype=float)
        return np.minimum(q, (n + 1) / (n + 2)) if len(q) else q

    @property
    def plot_kind(self):
        return "evc" if any("raw_frequency" in r.extra for r in self.rule_list) else None

    def quality_column(self):
        quality = np.array([r.quality for r in self.rule_list])
        if self.quality_measure == "evc":
            return ViewerColumn("EVC quality", quality, "The rule's quality: its class "
                                "probability corrected for the optimism of the search.")
        return ViewerColumn("m-estimate", quality, "The rule's quality: the m-estimate of "
                            "its class probability, (s + m p) / (n + m).")

    def viewer_columns(self):
        raw = np.array([r.extra.get("raw_frequency", np.nan) for r in self.rule_list])
        return [self.quality_column(),
                ViewerColumn("Raw frequency", raw, "The share of covered training "
                                                   "examples of the rule's class."),
                ViewerColumn("Vote", self.rule_confidences(), "The confidence the rule "
                             "votes with (what its explanations show): its quality, at "
                             "most the Laplace estimate (n + 1) / (n + 2) of a pure rule "
                             "of its n covered rows.")]

    def rule_number_texts(self):
        """The quality, and the vote where the Laplace cap lowered it
        ("EVC quality 1.000, votes 0.933": the explanation's 0.933)."""
        texts = super().rule_number_texts()
        quality = np.array([r.quality for r in self.rule_list], dtype=float)
        votes = self.rule_confidences()
        return [t + (f", votes {v:.3f}" if t and round(v, 3) < round(q, 3) else "")
                for t, q, v in zip(texts, quality, votes)]


class EVCRuleLearner(RuleLearner):
    """Unordered rules with extreme-value-corrected quality (Možina et al. 2019).

    Per class, a beam search finds the best rule covering a positive not
    covered yet, until none is found. A rule's quality is its relative
    frequency corrected for the optimism of the search (or the
    m-estimate), and a rule must be significant: its EVC ``P_a <= alpha``
    (for the m-estimate: the chi-square p-value of its LRS). The Gumbel
    parameters of the correction are fitted on searches on permuted classes
    unless given; the model keeps them, and resolves the rules by a Fawcett
    strategy (doc/evc.md).

    Parameters
    ----------
    quality : {"evc", "m"}, default "evc"
        Rule quality: EVC-corrected relative frequency or the m-estimate.
    m : float >= 0, default 2.0
        The m of the m-estimate.
    beam_width : int in [1, 10000], default 10
        Candidate rules the beam search keeps per step.
    max_rule_length : int in [1, 1000], default 5
        At most this many conditions per rule.
    min_covered_examples : float >= 0, default 1.0
        A rule covers at least this weight of rows.
    alpha : float in (0, 1], default 0.05
        Significance a rule must reach (EVC ``P_a``, or the LRS's chi-square
        p-value with the m-estimate).
    parent_alpha : float in (0, 1], default 1.0
        Below 1, each condition must be significant at this level against
        the rule without it.
    n_permutations : int in [2, 1000000], default 100
        Class permutations for the Gumbel fit.
    gumbel : GumbelParameters or None, default None
        Fitted parameters (a model's ``gumbel``) to use instead of the
        permutations.
    strategy : {"first", "rand", "vote", "wvote", "lfpr"}, default "wvote"
        The model's Fawcett resolution strategy.
    max_rules_per_class : int >= 1 or None, default None
        At most this many rules per class.
    max_thresholds : int >= 1 or None, default DEFAULT_MAX_THRESHOLDS
        Equal-frequency threshold candidates per numeric column (16;
        ``None``: every boundary point, exact).
    min_new_coverage : float in [0, 1], default DEFAULT_MIN_NEW_COVERAGE
        A rule must cover at least this share (0.02) of its class's weight
        that no earlier rule covers (0: the paper's covering).
    max_rules : int >= 1 or None, default None
        At most this many rules over all classes (each class's covering
        stops at its share of the budget).
    gumbel_sample : int >= 100 or None, default DEFAULT_GUMBEL_SAMPLE
        Fit the Gumbel parameters on a stratified sample of this many rows
        (20,000) when there are more (``None``: all rows).
    search_rows : int >= 1 or None, default DEFAULT_SEARCH_ROWS
        On more rows (100,000), the covering's searches run on a stratified
        sample of this many (with the bins of all rows), and each rule found
        is counted, and its quality computed, on every row (``None``: the
        searches read every row).
    n_jobs : int or None, default None
        Parallel jobs for the permutations and the classes, through joblib
        (threads: the searches release the GIL; ``None``: one job, unless a
        ``joblib.parallel_config`` says otherwise, e.g. a Dask cluster); the
        model does not depend on it.
    random_state : int in [0, 4294967295] or None, default 0
        Seed of the permutations and the samples.
    preprocessors : list, optional
        Orange preprocessors (rows with an unknown class are dropped first).
    """

    name = "EVC rules"
    __returns__ = EVCRuleModel
    search_key = 0x455643  # the search sample's seed

    parameters = params.ParameterTable(
        params.choice("quality", "rule quality: EVC-corrected frequency or m-estimate",
                      ("evc", "m")),
        params.number("m", "the m of the m-estimate", 0, spin=(0.0, 1000.0)),
        params.integer("beam_width", "candidate rules the beam keeps per step", 1, 10_000,
                       spin=(1, 100)),
        params.integer("max_rule_length", "at most this many conditions per rule", 1, 1000,
                       spin=(1, 20)),
        params.number("min_covered_examples", "the least weight a rule covers", 0,
                      spin=(1, 10_000)),
        params.number("alpha", "the significance a rule must reach", 0, 1, low_open=True,
                      spin=(0.001, 1.0)),
        params.number("parent_alpha", "each condition's significance against the rule "
                                      "without it", 0, 1, low_open=True),
        params.integer("n_permutations", "class permutations for the Gumbel fit", 2, 10 ** 6,
                       spin=(2, 10_000)),
        params.instance("gumbel", "fitted Gumbel parameters instead of the permutations",
                        GumbelParameters, "GumbelParameters (a model's .gumbel)", none=True),
        params.choice("strategy", "the model's Fawcett resolution strategy", STRATEGIES),
        params.integer("max_rules_per_class", "at most this many rules per class", 1,
                       none=True),
        params.integer("max_thresholds", "threshold candidates per numeric column", 1,
                       none=True, spin=(1, 4096)),
        params.number("min_new_coverage", "the least share of its class a rule newly covers",
                      0, 1, spin=(0.0, 0.5)),
        params.max_rules("at most this many rules over all classes"),
        params.integer("gumbel_sample", "rows of the Gumbel fit's sample", 100, none=True),
        params.search_rows("rows of the covering searches' sample"),
        params.n_jobs(),
        params.random_state("seed of the permutations and the samples"),
    )

    def __init__(self, quality="evc", m=2.0, beam_width=10, max_rule_length=5,
                 min_covered_examples=1.0, alpha=0.05, parent_alpha=1.0,
                 n_permutations=100, gumbel=None, strategy="wvote",
                 max_rules_per_class=None, max_thresholds=DEFAULT_MAX_THRESHOLDS,
                 min_new_coverage=DEFAULT_MIN_NEW_COVERAGE, max_rules=None,
                 gumbel_sample=DEFAULT_GUMBEL_SAMPLE, search_rows=DEFAULT_SEARCH_ROWS,
                 n_jobs=None, random_state=0, preprocessors=None):
        super().__init__(preprocessors=preprocessors)
        self.parameters.set(self, locals())

    def search_data(self, enc) -> tuple[SearchData, np.ndarray]:
        """The data as the search reads it, and each feature's attribute."""
        return search_data(enc, self.max_thresholds)

    def fit_gumbel(self, enc, progress=None, sd=None) -> GumbelParameters:
        """The Gumbel parameters of ``enc`` (permutation searches), on a
        stratified sample of ``gumbel_sample`` rows when there are more
        (:func:`gumbel_rows`)."""
        sd = self.search_data(enc)[0] if sd is None else sd
        y = enc.y
        rows = gumbel_rows(y, enc.w, self.gumbel_sample, self.random_state)
        if rows is not None:
            sd, y = sd_rows(sd, rows), y[rows]
        return fit_gumbel_parameters(
            sd, y, enc.n_classes, self.n_permutations, self.beam_width,
            self.max_rule_length, self.min_covered_examples, self.random_state,
            self.n_jobs, progress, make_report=lambda n: self.task_progress(
                0.0, 0.8, n, "fitting Gumbel parameters: {} permutations done"))

    def _scorer(self, cls, gumbel):
        """``(quality, mu, beta)`` for the kernel: per rule length."""
        lengths = range(1, self.max_rule_length + 1)
        if self.quality == "m":
            zeros = np.zeros(self.max_rule_length)
            return Quality.QUALITY_M, zeros, zeros
        mb = np.array([gumbel.of(cls, L) for L in lengths])
        return Quality.QUALITY_EVC, mb[:, 0], mb[:, 1]

    def learn_class(self, sd, attrs, enc, cls, gumbel, report=None, task=0,
                    min_new_coverage=None):
        """Covering for class ``cls`` (doc/evc.md): ``Found`` rules.
        ``report``: :meth:`RuleLearner.task_progress`'s function, told the
        class's covered share and rules after each rule (as task ``task``).
        ``min_new_coverage``: the covering's stop (default: the learner's;
        under a budget, :func:`rules.budget_coverage`)."""
        pos = enc.y == cls
        uncovered = pos & (enc.w > 0)
        limit = (int(uncovered.sum()) if self.max_rules_per_class is None
                 else int(self.max_rules_per_class))
        S, N = float(enc.w[pos].sum()), float(enc.w.sum())
        quality, mu, beta = self._scorer(cls, gumbel)
        pure = pure_cache(N, self.max_rule_length)  # shared by this class's searches
        cache = SearchCache(sd)
        reach = (reach_table(S, N, np.ascontiguousarray(mu), np.ascontiguousarray(beta))
                 if quality == Quality.QUALITY_EVC
                 and pure is not None and S == math.floor(S) else None)
        code = pos.astype(np.int8)
        # a rule must cover a share of the class not covered yet: the number
        # of rules then follows the class's structure, not its row count
        if min_new_coverage is None:
            min_new_coverage = self.min_new_coverage
        min_new = min_new_coverage * S
        found = []
        while uncovered.any() and len(found) < limit:
            code[pos & uncovered] = 2
            rule = find_rule(sd, attrs, code, quality, S, N, mu, beta, m=self.m,
                             alpha=self.alpha, beam_width=self.beam_width,
                             max_rule_length=self.max_rule_length,
                             min_covered_examples=self.min_covered_examples,
                             parent_alpha=self.parent_alpha, covering=True,
                             pure=pure, cache=cache, reach=reach, min_new=min_new)
            if rule is None:
                break
            rule.new = float(enc.w[uncovered & rule.mask].sum() / S)
            found.append(rule)
            uncovered &= ~rule.mask
            code[pos & ~uncovered] = 1
            # keep the class counts, not a mask of every row per rule
            # (20,000 rules on 10^5 rows would hold 2 GB of masks)
            rule.dist = class_weights(enc.y, enc.w, rule.mask.view(np.uint8), enc.n_classes)
            rule.mask = None
            if report is not None:  # may raise Interrupted: the fit was cancelled
                report(task, 1.0 - float(enc.w[uncovered].sum()) / S if S > 0 else 1.0,
                       len(found))
        return found

    def fit_rules(self, data, enc):
        from joblib import delayed

        sd, attrs = self.search_data(enc)
        gumbel = self.gumbel
        with_permutations = self.quality == "evc" and gumbel is None
        if with_permutations:
            self.progress(0.0, "fitting Gumbel parameters on permuted classes")
            gumbel = self.fit_gumbel(enc, lambda p: self.progress(0.8 * p), sd)
        if gumbel is not None and gumbel.mu.shape[0] != enc.n_classes:
            raise ValueError(f"the Gumbel parameters are for {gumbel.mu.shape[0]} "
                             f"classes; the data has {enc.n_classes}")
        present = [c for c in range(enc.n_classes) if enc.w[enc.y == c].sum() > 0]
        start = 0.8 if with_permutations else 0.0
        self.progress(start, "learning rules")
        report = self.task_progress(start, 1.0, len(present), "learning rules: {} so far")
        # under a budget each rule covers at least the class's share of it
        min_new = budget_coverage(self.min_new_coverage, len(present), self.max_rules)
        sample = self.search_sample(enc.y, data.domain.class_var.values)
        # the covering on a sample of the rows (doc/evc.md, "Many rows"):
        # the bins, and so the candidate conditions, are those of every row
        senc, ssd = (enc, sd) if sample is None else (enc.subset(sample), sd_rows(sd, sample))
        jobs = (delayed(self.learn_class)(ssd, attrs, senc, c, gumbel, report, i, min_new)
                for i, c in enumerate(present))
        found = []
        for found_c in parallel_map(jobs, self.n_jobs):
            found.append(found_c)
            if report is not None:  # the class is done, however much it covered
                report(len(found) - 1, 1.0, len(found_c))
            else:
                self.progress(start + (1 - start) * len(found) / len(present),
                              "learning rules")
        if self.max_rules is not None:  # the coverings stopped at the budget
            taken = budget_prefixes([[f.new for f in fc] for fc in found], self.max_rules)
            found = [fc[:t] for fc, t in zip(found, taken)]
        del ssd, senc
        short = ShortThresholds(lambda a: enc.column(enc.attr_col[a]))
        rules = [self.to_rule(f, cls, enc, data.domain, short)
                 for cls, found_c in zip(present, found) for f in found_c]
        if sample is not None:
            self.count_on_every_row(rules, data, enc, gumbel)
        model = EVCRuleModel(data.domain, rules, enc.class_distribution(),
                             self.strategy, gumbel, self.quality)
        model.search_rows = None if sample is None else len(sample)
        return model

    def count_on_every_row(self, rules, data, enc, gumbel):
        """Set each rule's class counts, quality (EVC-corrected with the
        Gumbel parameters of its length, or the m-estimate), raw frequency,
        LRS and p-value (``P_a``; the m-estimate: the LRS's chi-square tail)
        from the rows of ``data`` it covers, as the search computes them."""
        if not rules:
            return
        dists = rule_class_weights(rules, data.X, enc.y, enc.w, enc.n_classes)
        totals = np.bincount(enc.y, weights=enc.w, minlength=enc.n_classes)
        N = float(enc.w.sum())
        for rule, dist in zip(rules, dists):
            S, s, n = float(totals[rule.head]), float(dist[rule.head]), float(dist.sum())
            if self.quality == "m":
                lrs_ = likelihood_ratio(s, n, S, N)
                q, p = m_estimate(s, n, S / N, self.m), chi2_sf(lrs_)
            else:
                mu, beta = gumbel.of(rule.head, len(rule.conditions))
                q, p, lrs_ = evc_quality(s, n, S, N, mu, beta)
            rule.class_distribution = dist
            rule.quality = float(np.ravel(q)[0])
            rule.extra.update(raw_frequency=s / n if n else float("nan"),
                              lrs=float(np.ravel(lrs_)[0]), p_value=float(np.ravel(p)[0]))

    @staticmethod
    def to_rule(found: Found, cls, enc, domain, short=None) -> Rule:
        conditions = []
        short = ShortThresholds(lambda a: enc.column(enc.attr_col[a])) if short is None else short
        for a, op, v in found.conditions:
            if op != OP_EQ:  # the shortest threshold with the same split
                v = short(a, OP_NAMES[op], v)
            conditions.append(Condition(a, OP_NAMES[op], v))
        dist = (found.dist if found.dist is not None else
                class_weights(enc.y, enc.w, found.mask.view(np.uint8), enc.n_classes))
        return Rule(conditions, cls, dist, quality=found.q, domain=domain,
                    raw_frequency=found.s / found.n if found.n else float("nan"),
                    lrs=found.lrs, p_value=found.p)
