"""Scoring instances with rule sets for ROC (Fawcett 2001, "Using rule sets
to maximize ROC performance"): the resolution strategies and the rule-set
model that applies one to any list of rules (EVC rules' and Rule
Scoring's models).

Resolution strategies (Section 3.2 of the paper; ``doc/scoring.md``),
given the rules that fire on an instance:

* ``first`` -- the first firing rule (rules sorted by decreasing confidence
  unless the model's order is meaningful, as in a decision list);
* ``rand``  -- a random firing rule (seeded, so predictions are repeatable);
* ``vote``  -- one vote per firing rule; score = share of the winner's votes;
* ``wvote`` -- votes weighted by confidence; score = mean confidence of the
  winner's rules;
* ``lfpr``  -- the firing rule with the lowest false positive rate.

Confidences are Laplace corrected, ``(TP + 1) / (TP + FP + C)``. When no rule
fires, the majority class wins with its prevalence as the score. The winning
class gets the score; the rest is spread over the other classes in
proportion to their training prevalence, so every strategy returns a full
``(n, n_classes)`` probability array.
"""
from __future__ import annotations

import copy

import numpy as np

from .base import Explanation, RuleModel, ViewerColumn, argmax_with_ties
from .rules import covering, row_blocks, spread

STRATEGIES = ("first", "rand", "vote", "wvote", "lfpr")



def check_strategy(strategy: str) -> str:
    s = str(strategy).lower()
    if s not in STRATEGIES:
        raise ValueError(f"unknown scoring strategy {strategy!r}; "
                         f"choose one of {', '.join(STRATEGIES)}")
    return s



def _first_in_order(cover: np.ndarray, order: np.ndarray) -> np.ndarray:
    """Index (into the rules) of the first firing rule in ``order``, per row."""
    return order[np.argmax(cover[:, order], axis=1)]



#: the prime modulus of RAND's hash, ``2**31 - 1``: every residue is below
#: ``2**31``, so a product of two and a sum of up to ``2**32`` of them fit
#: in a signed 64-bit integer, in numpy and in SQL alike
HASH_PRIME = 2 ** 31 - 1


def rand_constants(n_rules: int, random_state=0) -> np.ndarray:
    """``(3, n_rules)`` int64: RAND's constants ``a``, ``b``, ``c`` of each
    rule, in ``[1, HASH_PRIME - 1]``, drawn from ``random_state``."""
    state = np.random.SeedSequence(random_state).generate_state(3 * n_rules, np.uint32)
    return (state.astype(np.int64) % (HASH_PRIME - 1) + 1).reshape(3, n_rules)


def random_firing_rule(cover: np.ndarray, random_state=0) -> np.ndarray:
    """RAND's choice: per row, one of the rules that fire on it (``cover``,
    boolean ``(n, R)``, every row with one), at random but repeatably: the
    choice is a hash of ``random_state`` and the set of firing rules, so a
    row gets the same rule whatever other rows are predicted with it and
    in whatever order, and rows on which the same rules fire get the same
    one; over the sets and the seeds, each firing rule is as likely as
    any other.

    The hash is integer arithmetic modulo the prime ``p = HASH_PRIME``, so
    that a database computes it as well (:mod:`orangecontrib.rules.export`:
    neither SQLite nor PostgreSQL wraps a 64-bit product around, which a
    64-bit mixer such as SplitMix64 needs). With the rule constants
    ``a, b, c`` (:func:`rand_constants`):

    * the set's key ``h = (sum of a_k over the firing rules k) mod p``;
    * rule ``k``'s draw ``x = h + b_k``, then twice ``x = (x * x + c_k)
      mod p`` and ``x = (x * x + b_k) mod p`` (squares mod ``p`` scatter
      nearby keys over the residues);
    * the firing rule of the largest draw wins, ties to the first listed:
      the largest ``x * R + (R - 1 - k)``, an integer below ``2**62``.
    """
    cover = np.asarray(cover, dtype=bool)
    R = cover.shape[1]
    a, b, c = rand_constants(R, random_state)
    p = np.int64(HASH_PRIME)
    h = (cover.astype(np.int64) @ a) % p
    x = (h[:, None] + b[None, :]) % p
    x = (x * x + c[None, :]) % p
    x = (x * x + b[None, :]) % p
    key = np.where(cover, x * R + (R - 1 - np.arange(R)), -1)
    return R - 1 - key.max(axis=1) % R



def score_rules(cover, heads, confidence, fpr, prior, strategy="wvote",
                ordered=False, random_state=0, tie_order=None) -> np.ndarray:
    """Resolve overlapping rules into class probabilities.

    ``cover``: bool ``(n, R)``; ``heads``: class per rule; ``confidence``:
    Laplace confidence per rule; ``fpr``: false positive rate per rule;
    ``prior``: training class prevalence; ``tie_order``: which class wins
    a tie of votes (higher wins; default ``prior``, the model passes its
    :attr:`~orangecontrib.rules.base.RuleModel.class_preference`). Returns
    ``(n, len(prior))``.
    """
    strategy = check_strategy(strategy)
    cover = np.asarray(cover, dtype=bool)
    heads = np.asarray(heads, dtype=int)
    confidence = np.asarray(confidence, dtype=float)
    fpr = np.asarray(fpr, dtype=float)
    prior = np.asarray(prior, dtype=float)
    tie_order = prior if tie_order is None else np.asarray(tie_order, dtype=float)
    n, R = cover.shape
    C = len(prior)

    probs = np.tile(prior, (n, 1))  # nothing fires: the default rule
    fires = cover.any(axis=1)
    if R == 0 or not fires.any():
        return probs
    cov = cover[fires]
    rows = np.arange(len(cov))

    if strategy in ("first", "lfpr", "rand"):
        # ties of confidence (or FPR) go to the preferred class, then to
        # the rule listed first
        if strategy == "first":
            order = (np.arange(R) if ordered
                     else np.lexsort((np.arange(R), -tie_order[heads], -confidence)))
            rule = _first_in_order(cov, order)
        elif strategy == "lfpr":  # lowest FPR; ties: higher confidence, class, order
            order = np.lexsort((np.arange(R), -tie_order[heads], -confidence, fpr))
            rule = _first_in_order(cov, order)
        else:
            rule = random_firing_rule(cov, random_state)
        winner, score = heads[rule], confidence[rule]
    else:
        onehot = np.zeros((R, C))
        onehot[np.arange(R), heads] = 1
        votes = cov.astype(float) @ onehot
        # only a class with a firing rule can win (with confidences of
        # about 0 its weighted vote ties with the classes that have none)
        voted = votes > 0
        if strategy == "vote":
            winner = argmax_with_ties(votes, tie_order, voted)
            score = votes[rows, winner] / votes.sum(axis=1)
            mass = votes
        else:
            summed = cov.astype(float) @ (onehot * confidence[:, None])
            winner = argmax_with_ties(summed, tie_order, voted)
            score = summed[rows, winner] / votes[rows, winner]
            mass = summed
        # the other classes share 1 - score by their own votes (VOTE: their
        # rules, WVOTE: their summed confidences) and their prior, a
        # pseudo-vote of weight one: a class with firing rules ranks above
        # one without (two classes: the other takes it all, as the paper)
        probs[fires] = spread(winner, score, prior, mass + prior)
        return probs
    probs[fires] = spread(winner, score, prior)
    return probs



class RuleSetModel(RuleModel):
    """Applies a Fawcett resolution strategy to any list of rules.

    ``ordered`` says whether the rule order is meaningful (a decision list):
    then ``first`` takes the first firing rule in that order, otherwise the
    one with the highest confidence.
    """

    def __init__(self, domain, rule_list, class_distribution,
                 strategy="wvote", ordered=False, random_state=0):
        super().__init__(domain, rule_list, class_distribution)
        self.strategy = check_strategy(strategy)
        self.ordered = bool(ordered)
        self.random_state = random_state

    def resolution_text(self) -> str:
        """How the firing rules give the prediction, in words: the strategy
        (and a decision list's order)."""
        return f"Resolution: {self.strategy}" + (", the rules in order" if self.ordered else "")

    def printout_head(self):
        # the strategy beside the size: five models of the same rules print
        # alike otherwise
        return f"{super().printout_head()}; {self.resolution_text().lower()}"

    def summary_lines(self):
        lines = super().summary_lines() + [self.resolution_text()]
        sample = getattr(self, "search_rows", None)  # set by the learner; older pickles lack it
        if sample is not None:
            lines.append(f"Rules searched on a sample of {sample:,} rows; their counts "
                         "and confidences from every row")
        return lines

    def viewer_columns(self):
        return [ViewerColumn("Confidence", self.rule_confidences(),
                             "The rule's Laplace confidence, (TP + 1) / (TP + FP + C) on "
                             "the training rows (Fawcett 2001): what the resolution "
                             "strategy reads.")]

    def rule_confidences(self) -> np.ndarray:
        """The confidence the strategies use: Laplace (Fawcett 2001)."""
        return np.array([r.laplace_confidence() for r in self.rule_list])

    def rule_statistics(self):
        """Heads, confidences and false positive rates of the rules, made
        once per rule list (a Python loop over the rules, which every
        prediction and explanation would otherwise pay again)."""
        cached = self.__dict__.get("_statistics")
        if cached is not None and cached[0] is self.rule_list \
                and cached[1] == len(self.rule_list):
            return cached[2]
        heads = np.array([r.head for r in self.rule_list], dtype=int)
        conf = self.rule_confidences()
        fpr = np.array([r.false_positive_rate(self.class_distribution)
                        for r in self.rule_list])
        self._statistics = (self.rule_list, len(self.rule_list), (heads, conf, fpr))
        return heads, conf, fpr

    def predict(self, X):
        X = self._model_X(X)
        stats = self.rule_statistics()
        out = np.empty((X.shape[0], self.n_classes))
        for rows in row_blocks(X.shape[0], len(self.rule_list)):  # bounded memory
            out[rows] = score_rules(covering(self.rule_list, X[rows]), *stats, self.prior,
                                    self.strategy, self.ordered, self.random_state,
                                    self.class_preference)
        return out

    def explain(self, data) -> list[Explanation]:
        """The strategy's rules per row (:class:`base.Explanation`):
        ``first``, ``lfpr``, ``rand`` (``combine="winner"``): the one rule
        chosen, its confidence; ``wvote`` and ``vote`` (``combine`` the
        strategy): every firing rule, its confidence or 1 on its class (the
        winner's score is the mean confidence of its rules or its share of
        the votes; the other classes share the rest by their votes)."""
        X = self.model_X(data)
        heads, conf, fpr = self.rule_statistics()
        cover = covering(self.rule_list, X)
        R, C = len(self.rule_list), self.n_classes
        tie = self.class_preference
        out = []
        for i in range(X.shape[0]):
            fire = np.flatnonzero(cover[i])
            if not len(fire):
                out.append(Explanation(np.zeros(0, int), np.zeros((0, C)), np.zeros(C),
                                       "winner", self.prior.copy()))
                continue
            if self.strategy in ("first", "lfpr", "rand"):
                if self.strategy == "rand":
                    rule = int(random_firing_rule(cover[i:i + 1], self.random_state)[0])
                else:
                    keys = (-conf,) if self.strategy == "first" else (-conf, fpr)
                    order = (np.arange(R) if self.strategy == "first" and self.ordered
                             else np.lexsort((np.arange(R), -tie[heads]) + keys))
                    rule = int(_first_in_order(cover[i:i + 1], order)[0])
                rules, winner = np.array([rule]), int(heads[rule])
                values = conf[rules]
            else:  # every firing rule votes for its class; the strategy's winner
                values = conf[fire] if self.strategy == "wvote" else np.ones(len(fire))
                counts = np.bincount(heads[fire], minlength=C)
                mass = np.bincount(heads[fire], weights=values, minlength=C)
                winner = int(argmax_with_ties(mass[None, :], tie, counts[None, :] > 0)[0])
                contributions = np.zeros((len(fire), C))
                contributions[np.arange(len(fire)), heads[fire]] = values
                out.append(Explanation(fire, contributions, np.zeros(C), self.strategy,
                                       self.prior.copy(), winner, counts))
                continue
            contributions = np.zeros((len(rules), C))
            contributions[:, winner] = values
            out.append(Explanation(rules, contributions, np.zeros(C), "winner",
                                   self.prior.copy(), winner))
        return out

    def with_strategy(self, strategy) -> "RuleSetModel":
        """The same rules, resolved with another strategy."""
        other = copy.copy(self)
        other.strategy = check_strategy(strategy)
        return other

