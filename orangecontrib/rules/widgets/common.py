"""Parts the learner widgets share: the Fawcett strategy labels (Rule
Scoring, EVC Rules), the covering's stop (EVC Rules, Logistic Regression
with Rules, Rule Scoring), the "Use all cores" setting (every learner
widget but SLS's, which sets its searches' threads by number) and the EVC
rule-search settings (EVC Rules, Logistic Regression with Rules). Not a
widget module."""
import os

from AnyQt.QtCore import Qt

from Orange.widgets import gui
from Orange.widgets.settings import Setting

from orangecontrib.rules.evc import (DEFAULT_MAX_THRESHOLDS, DEFAULT_MIN_NEW_COVERAGE,
                                     EVCRuleLearner)

#: the EVC rule search's parameters, whose spin boxes EVC Rules, LR with
#: Rules and Rule Scoring share
EVC = EVCRuleLearner.parameters


def percent(bounds) -> tuple:
    """Spin-box bounds of a share, in percent."""
    return tuple(100 * b for b in bounds)

STRATEGY_LABELS = (
    "FIRST: most confident firing rule",
    "RAND: random firing rule",
    "VOTE: share of votes",
    "WVOTE: confidence-weighted votes",
    "LFPR: lowest false positive rate",
)
STRATEGY_TOOLTIP = (
    "How the rules that fire on an instance give its score (Fawcett 2001): "
    "FIRST uses the most confident rule, RAND a random one, VOTE the share of "
    "rules per class, WVOTE confidence-weighted votes, LFPR the rule with the "
    "lowest false positive rate. WVOTE and VOTE usually give the best ROC "
    "curves.")

NEW_COVERAGE_TOOLTIP = (
    "Covering: a new rule must cover at least this share of its class that "
    "no earlier rule covers. Smaller values give more rules and, on large "
    "data, better probabilities (on 100,000 rows of a 20-column benchmark: 2% "
    "gave 94 rules, 0.1% 1,311 rules and a held-out AUC higher by about "
    "0.035); 0 is the paper's covering, where one new example is enough.")


class NewCoverageSetting:
    """The covering's stop of the EVC-based learners and Rule Scoring
    (their ``min_new_coverage``), shown in percent."""

    min_new_coverage = Setting(100 * DEFAULT_MIN_NEW_COVERAGE)

    def add_new_coverage_spin(self, box, label="Least new coverage (%):"):
        self.new_coverage_spin = gui.doubleSpin(
            box, self, "min_new_coverage", *percent(EVC.spin("min_new_coverage")), 0.1,
            decimals=1,
            label=label, tooltip=NEW_COVERAGE_TOOLTIP, callback=self.settings_changed)

    def new_coverage_args(self) -> dict:
        return dict(min_new_coverage=self.min_new_coverage / 100)

    def new_coverage_parameter(self) -> tuple:
        return ("Least new coverage", f"{self.min_new_coverage:g}%")


class AllCoresSetting:
    """The learner's threads: all the processor's cores (the default) or
    one; the model is the same either way."""

    all_cores = Setting(True)

    def add_cores_check(self, box, tooltip, label="Use all cores"):
        self.cores_check = gui.checkBox(box, self, "all_cores", label, tooltip=tooltip,
                                        callback=self.settings_changed)

    def cores_args(self) -> dict:
        return dict(n_jobs=(os.cpu_count() or 1) if self.all_cores else 1)


QUALITIES = ("evc", "m")
QUALITY_LABELS = ("EVC-corrected relative frequency", "m-estimate")


class EVCSearchSettings(NewCoverageSetting, AllCoresSetting):
    """Rule-search settings shared by the EVC Rules and the Logistic
    Regression with Rules widgets."""

    quality_index = Setting(0)
    m = Setting(2.0)
    beam_width = Setting(10)
    max_rule_length = Setting(5)
    min_covered_examples = Setting(1)
    alpha = Setting(0.05)
    n_permutations = Setting(100)
    random_state = Setting(0)
    max_thresholds = Setting(DEFAULT_MAX_THRESHOLDS)
    exact_thresholds = Setting(False)

    def add_search_box(self):
        box = gui.vBox(self.controlArea, "Rule quality")
        row = gui.hBox(box)  # the m-estimate's m beside the choice it belongs to
        self.quality_combo = gui.comboBox(
            row, self, "quality_index", items=QUALITY_LABELS,
            label="Quality:", orientation=Qt.Horizontal,
            tooltip="EVC corrects each rule's apparent accuracy for the "
                    "optimism of searching many rules (extreme value "
                    "distribution fitted on permuted classes); the m-estimate "
                    "only shrinks it towards the prior.",
            callback=self._quality_changed)
        self.m_spin = gui.doubleSpin(row, self, "m", *EVC.spin("m"), 1.0,
                                     label="m:",
                                     tooltip="Weight of the prior in the "
                                             "m-estimate; larger values shrink "
                                             "rule accuracies more.",
                                     callback=self.settings_changed)
        self.permutations_spin = gui.spin(
            box, self, "n_permutations", *EVC.spin("n_permutations"),
            label="Permutations for the Gumbel fit:",
            tooltip="Class permutations used to fit the extreme value "
                    "distribution; more are more precise and slower.",
            callback=self.settings_changed)
        self.alpha_spin = gui.doubleSpin(
            box, self, "alpha", *EVC.spin("alpha"), 0.01, decimals=3,
            label="Significance (alpha):",
            tooltip="Rules must be significant at this level (likelihood ratio "
                    "statistic against the Gumbel distribution); smaller "
                    "values keep fewer rules.",
            callback=self.settings_changed)
        box = gui.vBox(self.controlArea, "Rule search")
        self.beam_width_spin = gui.spin(box, self, "beam_width", *EVC.spin("beam_width"),
                                        label="Beam width:",
                                        tooltip="Candidate rules refined in "
                                                "parallel; wider is slower and "
                                                "finds better rules.",
                                        callback=self.settings_changed)
        self.max_length_spin = gui.spin(box, self, "max_rule_length",
                                        *EVC.spin("max_rule_length"),
                                        label="Maximal rule length:",
                                        tooltip="At most this many conditions "
                                                "per rule.",
                                        callback=self.settings_changed)
        row = gui.hBox(box)  # the two least coverages of a rule, side by side
        self.min_covered_spin = gui.spin(row, self, "min_covered_examples",
                                         *EVC.spin("min_covered_examples"),
                                         label="Minimal rule coverage:",
                                         tooltip="A rule must cover at least "
                                                 "this many examples.",
                                         callback=self.settings_changed)
        self.add_new_coverage_spin(row, label="new (%):")
        row = gui.hBox(box)
        self.thresholds_spin = gui.spin(
            row, self, "max_thresholds", *EVC.spin("max_thresholds"),
            label="Thresholds per numeric column:",
            tooltip="Numeric columns are cut into about equally full bins; "
                    "rules test these cuts only. More cuts follow the data "
                    "more closely and are slower; on the benchmarks 16 cuts "
                    "were as accurate as every threshold.",
            callback=self.settings_changed)
        self.exact_check = gui.checkBox(
            row, self, "exact_thresholds", "all",
            tooltip="Test a threshold between every two values whose examples "
                    "are not all of one class (boundary points): exact, and "
                    "slow on large data.",
            callback=self._exact_changed)
        row = gui.hBox(box)
        self.seed_spin = gui.spin(row, self, "random_state", *EVC.spin("random_state"),
                                  label="Random seed:",
                                  tooltip="Seeds the class permutations; the "
                                          "same seed gives the same rules.",
                                  callback=self.settings_changed)
        self.add_cores_check(
            row, label="all cores",
            tooltip="Use all processor cores: the permutation searches and the "
                    "classes run in parallel threads; the rules are the same "
                    "either way.")
        self._quality_changed(notify=False)
        self._exact_changed(notify=False)

    def _exact_changed(self, notify=True):
        self.thresholds_spin.setEnabled(not self.exact_thresholds)
        if notify:
            self.settings_changed()

    def _quality_changed(self, notify=True):
        evc = QUALITIES[self.quality_index] == "evc"
        self.m_spin.setEnabled(not evc)
        self.permutations_spin.setEnabled(evc)
        if notify:
            self.settings_changed()

    def rule_learner_args(self):
        return dict(quality=QUALITIES[self.quality_index], m=self.m,
                    beam_width=self.beam_width, max_rule_length=self.max_rule_length,
                    min_covered_examples=self.min_covered_examples,
                    alpha=self.alpha, n_permutations=self.n_permutations,
                    max_thresholds=None if self.exact_thresholds else self.max_thresholds,
                    random_state=self.random_state, **self.new_coverage_args(),
                    **self.cores_args())

    def search_parameters(self):
        quality = QUALITY_LABELS[self.quality_index]
        if QUALITIES[self.quality_index] == "m":
            quality += f" (m = {self.m:g})"
        else:
            quality += f" ({self.n_permutations} permutations)"
        return (("Rule quality", quality), ("Significance", f"{self.alpha:g}"),
                ("Beam width", self.beam_width),
                ("Maximal rule length", self.max_rule_length),
                ("Minimal rule coverage", self.min_covered_examples),
                self.new_coverage_parameter(),
                ("Thresholds per numeric column",
                 "all" if self.exact_thresholds else self.max_thresholds),
                ("Random seed", self.random_state))
