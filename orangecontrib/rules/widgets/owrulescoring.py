"""Rule Scoring widget: unordered rules resolved with Fawcett's strategies."""
from AnyQt.QtCore import Qt

from Orange.widgets import gui
from Orange.widgets.settings import Setting

from orangecontrib.rules.ruleset import STRATEGIES
from orangecontrib.rules.scoring import RuleScoringLearner
from orangecontrib.rules.widgets.base import OWRulesLearnerBase
from orangecontrib.rules.widgets.common import (LABELS, STRATEGY_LABELS, STRATEGY_TOOLTIP,
                                                AllCoresSetting, NewCoverageSetting,
                                                whole_choices)


class OWRuleScoring(NewCoverageSetting, AllCoresSetting, OWRulesLearnerBase):
    name = "Rule Scoring"
    description = "Overlapping unordered rules (a CN2-style beam search) scored " \
                  "for ROC with Fawcett's resolution strategies (FIRST, RAND, " \
                  "VOTE, WVOTE, LFPR)."
    icon = "icons/RuleScoring.svg"
    priority = 10
    keywords = "rule scoring, cn2, fawcett, roc, vote, wvote, lfpr"

    LEARNER = RuleScoringLearner

    strategy_index = Setting(STRATEGIES.index("wvote"))
    min_confidence = Setting(0.0)
    m = Setting(10.0)
    beam_width = Setting(10)
    min_covered_examples = Setting(1)
    max_rule_length = Setting(5)

    def add_main_layout(self):
        box = gui.vBox(self.controlArea, "Scoring")
        self.strategy_combo = whole_choices(gui.comboBox(
            box, self, "strategy_index", items=STRATEGY_LABELS,
            label="Resolution strategy:", orientation=Qt.Horizontal,
            tooltip=STRATEGY_TOOLTIP, callback=self.settings_changed))
        self.min_confidence_spin = gui.doubleSpin(
            box, self, "min_confidence", *self.LEARNER.parameters.spin("min_confidence"),
            0.05,
            label="Least rule confidence:",
            tooltip="Rules whose Laplace confidence is below this are dropped "
                    "(Fawcett used 0.60); rules no better than their class's "
                    "prior are always dropped.",
            callback=self.settings_changed)
        box = gui.vBox(self.controlArea, "Rule search")
        self.m_spin = gui.doubleSpin(
            box, self, "m", *self.LEARNER.parameters.spin("m"), 1.0,
            label="Prior weight of the m-estimate:",
            tooltip="The m in the m-estimate of a rule's quality, (s + m·prior) / (n + m): "
                    "a larger m pulls small rules towards the class's prior, so "
                    "the search prefers rules that cover more (10 by default).",
            callback=self.settings_changed)
        self.beam_width_spin = gui.spin(
            box, self, "beam_width", *self.LEARNER.parameters.spin("beam_width"),
            label=LABELS["beam_width"],
            tooltip="How many candidate rules the beam search refines at "
                    "each step; wider beams find better rules, slower.",
            callback=self.settings_changed)
        self.min_covered_spin = gui.spin(
            box, self, "min_covered_examples",
            *self.LEARNER.parameters.spin("min_covered_examples"),
            label=LABELS["min_covered_examples"],
            tooltip="A rule must cover at least this many examples; larger "
                    "values give fewer, more general rules.",
            callback=self.settings_changed)
        self.max_length_spin = gui.spin(
            box, self, "max_rule_length", *self.LEARNER.parameters.spin("max_rule_length"),
            label=LABELS["max_rule_length"],
            tooltip="At most this many conditions per rule.",
            callback=self.settings_changed)
        self.add_new_coverage_spin(box)
        self.add_cores_check(
            box, tooltip="Search the rules of the classes in parallel threads; the "
                         "rules are the same either way.")

    def create_learner(self):
        return self.LEARNER(
            strategy=STRATEGIES[self.strategy_index],
            min_confidence=self.min_confidence,
            m=self.m,
            beam_width=self.beam_width,
            min_covered_examples=self.min_covered_examples,
            max_rule_length=self.max_rule_length, **self.new_coverage_args(),
            **self.size_args(), **self.cores_args(),
            preprocessors=self.preprocessors)

    def get_learner_parameters(self):
        return (("Resolution strategy", STRATEGY_LABELS[self.strategy_index]),
                ("Least rule confidence", f"{self.min_confidence:.2f}"),
                ("Prior weight of the m-estimate", f"{self.m:g}"),
                ("Beam width", self.beam_width),
                ("Least rows a rule covers", self.min_covered_examples),
                ("Most conditions per rule", self.max_rule_length),
                self.new_coverage_parameter())


if __name__ == "__main__":  # pragma: no cover
    from Orange.data import Table
    from Orange.widgets.utils.widgetpreview import WidgetPreview
    WidgetPreview(OWRuleScoring).run(Table("titanic"))
