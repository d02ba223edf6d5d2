"""Parts the learner widgets share: the Fawcett strategy labels (Rule
Scoring, EVC Rules), the covering's stop (EVC Rules, Logistic Regression
with Rules, Rule Scoring), the "Use all cores" setting (every learner
widget but SLS's, which sets its searches' threads by number) and the EVC
rule-search settings (EVC Rules, Logistic Regression with Rules). Not a
widget module."""
import os

from AnyQt.QtCore import QRect, Qt
from AnyQt.QtGui import QFontMetrics
from AnyQt.QtWidgets import QComboBox, QStyle, QStyleOptionComboBox

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


#: the labels every learner widget uses for the settings they share
LABELS = dict(
    max_rule_length="Most conditions per rule:",
    min_covered_examples="Least rows a rule covers:",
    min_new_coverage="Least new coverage (%):",
    beam_width="Beam width:",
    random_state="Random seed:",
    all_cores="Use all cores",
)


def details_box(widget, title="More settings"):
    """A box of settings most users leave as they are, shut until its
    title is clicked (``widget.details_shown``, saved with the widget's
    settings), so the panel stays short; returns the box to fill."""
    from AnyQt.QtWidgets import QToolButton
    outer = gui.vBox(widget.controlArea, None)
    button = QToolButton(outer, text=title, checkable=True,
                         toolButtonStyle=Qt.ToolButtonTextBesideIcon,
                         toolTip="Show or hide the settings most users leave as they are.")
    button.setStyleSheet("QToolButton { border: none; font-weight: bold; }")
    outer.layout().addWidget(button)
    inner = gui.vBox(outer, None)

    def toggle(shown):
        button.setArrowType(Qt.DownArrow if shown else Qt.RightArrow)
        inner.setVisible(shown)
        widget.details_shown = bool(shown)
    button.toggled.connect(toggle)
    button.setChecked(bool(getattr(widget, "details_shown", False)))
    toggle(button.isChecked())
    widget.details_button = button
    return inner


class NewCoverageSetting:
    """The covering's stop of the EVC-based learners and Rule Scoring
    (their ``min_new_coverage``), shown in percent."""

    min_new_coverage = Setting(100 * DEFAULT_MIN_NEW_COVERAGE)

    def add_new_coverage_spin(self, box, label=LABELS["min_new_coverage"]):
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

    def add_cores_check(self, box, tooltip, label=LABELS["all_cores"]):
        self.cores_check = gui.checkBox(box, self, "all_cores", label, tooltip=tooltip,
                                        callback=self.settings_changed)

    def cores_args(self) -> dict:
        return dict(n_jobs=(os.cpu_count() or 1) if self.all_cores else 1)


QUALITIES = ("evc", "m")
QUALITY_LABELS = ("EVC-corrected relative frequency", "m-estimate")


def whole_choices(combo: QComboBox) -> QComboBox:
    """``combo`` at least as wide as its longest choice needs, by the
    style's own measure of the text's room (Orange's combo boxes keep a
    fixed width and cut a long choice, "WVOTE: confidence-weighted vo";
    Qt's "adjust to contents" still cut its last letter)."""
    option = QStyleOptionComboBox()
    combo.initStyleOption(option)
    option.rect = QRect(0, 0, 1000, combo.sizeHint().height())
    room = combo.style().subControlRect(QStyle.CC_ComboBox, option,
                                        QStyle.SC_ComboBoxEditField, combo).width()
    metrics = QFontMetrics(combo.font())
    widest = max((metrics.horizontalAdvance(combo.itemText(i)) for i in range(combo.count())),
                 default=0)
    combo.setMinimumWidth(widest + 1000 - room + 4)
    return combo


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

    details_shown = Setting(False)

    def add_search_box(self):
        """The rule search: the quality, the search's width and the rules'
        size; the rest (the correction's permutations and significance,
        the cut points, the seed and the cores) in "More settings"."""
        box = gui.vBox(self.controlArea, "Rules")
        self.quality_combo = whole_choices(gui.comboBox(
            box, self, "quality_index", items=QUALITY_LABELS,
            label="Quality:", orientation=Qt.Horizontal,
            tooltip="EVC corrects each rule's apparent accuracy for the "
                    "optimism of searching many rules (extreme value "
                    "distribution fitted on permuted classes); the m-estimate "
                    "only shrinks it towards the prior.",
            callback=self._quality_changed))
        self.m_spin = gui.doubleSpin(box, self, "m", *EVC.spin("m"), 1.0,
                                     label="Prior weight of the m-estimate:",
                                     tooltip="The m-estimate's m: the weight of "
                                             "the prior; larger values shrink "
                                             "rule accuracies more.",
                                     callback=self.settings_changed)
        self.beam_width_spin = gui.spin(box, self, "beam_width", *EVC.spin("beam_width"),
                                        label=LABELS["beam_width"],
                                        tooltip="Candidate rules refined in "
                                                "parallel; wider is slower and "
                                                "finds better rules.",
                                        callback=self.settings_changed)
        self.max_length_spin = gui.spin(box, self, "max_rule_length",
                                        *EVC.spin("max_rule_length"),
                                        label=LABELS["max_rule_length"],
                                        tooltip="At most this many conditions "
                                                "per rule (the rule's length).",
                                        callback=self.settings_changed)
        self.min_covered_spin = gui.spin(box, self, "min_covered_examples",
                                         *EVC.spin("min_covered_examples"),
                                         label=LABELS["min_covered_examples"],
                                         tooltip="A rule must cover at least "
                                                 "this many examples (its "
                                                 "coverage).",
                                         callback=self.settings_changed)
        self.add_new_coverage_spin(box)
        box = details_box(self)
        self.permutations_spin = gui.spin(
            box, self, "n_permutations", *EVC.spin("n_permutations"),
            label="Permutations for the correction:",
            tooltip="Class permutations on which the extreme value (Gumbel) "
                    "distribution of the best rules' statistics is fitted; "
                    "more are more precise and slower.",
            callback=self.settings_changed)
        self.alpha_spin = gui.doubleSpin(
            box, self, "alpha", *EVC.spin("alpha"), 0.01, decimals=3,
            label="Significance level:",
            tooltip="The paper's α: rules must be significant at this level "
                    "(likelihood ratio statistic against the extreme value "
                    "distribution); smaller values keep fewer rules.",
            callback=self.settings_changed)
        row = gui.hBox(box)
        self.thresholds_spin = gui.spin(
            row, self, "max_thresholds", *EVC.spin("max_thresholds"),
            label="Cut points per numeric column:",
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
        self.seed_spin = gui.spin(box, self, "random_state", *EVC.spin("random_state"),
                                  label=LABELS["random_state"],
                                  tooltip="Seeds the class permutations; the "
                                          "same seed gives the same rules.",
                                  callback=self.settings_changed)
        self.add_cores_check(
            box, tooltip="Use all processor cores: the permutation searches and the "
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
        return (("Rule quality", quality), ("Significance level", f"{self.alpha:g}"),
                ("Beam width", self.beam_width),
                ("Most conditions per rule", self.max_rule_length),
                ("Least rows a rule covers", self.min_covered_examples),
                self.new_coverage_parameter(),
                ("Cut points per numeric column",
                 "all" if self.exact_thresholds else self.max_thresholds),
                ("Random seed", self.random_state))
