"""ROCCER widget: rules selected from association-rule candidates by ROC
convex-hull analysis (Prati & Flach 2005)."""
from Orange.widgets import gui
from Orange.widgets.settings import Setting

from orangecontrib.rules.roccer import ROCCERLearner
from orangecontrib.rules.widgets.base import OWRulesLearnerBase
from orangecontrib.rules.widgets.common import LABELS, AllCoresSetting, percent

ROCCER = ROCCERLearner.parameters


class OWROCCER(AllCoresSetting, OWRulesLearnerBase):
    name = "ROCCER"
    description = "Selects a small rule list per class from class association " \
                  "rules so that it lies on the ROC convex hull " \
                  "(Prati & Flach 2005)."
    icon = "icons/ROCCER.svg"
    priority = 60
    keywords = "roccer, roc, convex hull, association rules, rule selection"

    LEARNER = ROCCERLearner

    auto_support = Setting(True)
    min_support = Setting(5.0)  # percent of the examples
    auto_confidence = Setting(True)
    min_confidence = Setting(50.0)  # percent
    min_lift = Setting(2.0)
    max_length = Setting(4)
    min_cuts = Setting(4)

    def add_main_layout(self):
        box = gui.vBox(self.controlArea, "Candidate rules")
        self.auto_support_check = gui.checkBox(
            box, self, "auto_support",
            "Least support: a third of the smallest class",
            tooltip="The paper's setting: a candidate must cover at least a "
                    "third of the smallest class's share of the examples.",
            callback=self._support_changed)
        self.support_spin = gui.doubleSpin(
            box, self, "min_support", *percent(ROCCER.spin("min_support")), 0.5, decimals=1,
            label="Least support (%):",
            tooltip="Candidates must cover at least this share of the "
                    "examples. Lower values give more candidates and slower, "
                    "finer selection.",
            callback=self.settings_changed)
        self.auto_confidence_check = gui.checkBox(
            box, self, "auto_confidence",
            "Least confidence relative to each class's share",
            tooltip="A class's candidates must be more confident than "
                    "min(50%, lift x the class's share): the paper's 50% for "
                    "two classes of similar size, and a rare class still gets "
                    "candidates.",
            callback=self._confidence_changed)
        self.lift_spin = gui.doubleSpin(
            box, self, "min_lift", *ROCCER.spin("min_lift"), 0.5, decimals=1,
            label="Lift over the prior:",
            tooltip="How many times more often than in the data a candidate's "
                    "class must occur among the examples it covers.",
            callback=self.settings_changed)
        self.confidence_spin = gui.doubleSpin(
            box, self, "min_confidence", *percent(ROCCER.spin("min_confidence")), 5.0,
            decimals=1,
            label="Least confidence (%):",
            tooltip="Candidates must predict their class for at least this "
                    "share of the examples they cover (the paper: 50%).",
            callback=self.settings_changed)
        self.max_length_spin = gui.spin(
            box, self, "max_length", *ROCCER.spin("max_length"),
            label=LABELS["max_rule_length"],
            tooltip="Longer rules are more specific; mining time grows quickly "
                    "with this number. When a class has too many candidates, "
                    "shorter rules are used (the report says so).",
            callback=self.settings_changed)
        box = gui.vBox(self.controlArea, "Numeric attributes")
        self.cuts_spin = gui.spin(
            box, self, "min_cuts", *ROCCER.spin("min_cuts"),
            label="Least cut points per attribute:",
            tooltip="Rules test numeric attributes as 'A >= t' and 'A <= t' at "
                    "the entropy-MDL cut points; when MDL finds fewer than "
                    "this many, equal-frequency cuts are added so that rules "
                    "can follow a curved class boundary.",
            callback=self.settings_changed)
        self.add_cores_check(
            gui.vBox(self.controlArea, "Speed"),
            tooltip="Mine and select the rules of the classes in parallel "
                    "threads; the rules are the same either way.")
        self._support_changed(notify=False)
        self._confidence_changed(notify=False)

    def _confidence_changed(self, notify=True):
        self.lift_spin.setEnabled(self.auto_confidence)
        self.confidence_spin.setEnabled(not self.auto_confidence)
        if notify:
            self.settings_changed()

    def _support_changed(self, notify=True):
        self.support_spin.setEnabled(not self.auto_support)
        if notify:
            self.settings_changed()

    def create_learner(self):
        return self.LEARNER(
            min_support=None if self.auto_support else self.min_support / 100,
            min_confidence=None if self.auto_confidence else self.min_confidence / 100,
            min_lift=self.min_lift, max_length=self.max_length,
            min_cuts=self.min_cuts, **self.size_args(), **self.cores_args(),
            preprocessors=self.preprocessors)

    def get_learner_parameters(self):
        support = ("a third of the smallest class's share" if self.auto_support
                   else f"{self.min_support:g}%")
        confidence = (f"min(50%, {self.min_lift:g} x the class's share)"
                      if self.auto_confidence else f"{self.min_confidence:g}%")
        return (("Minimal support", support),
                ("Minimal confidence", confidence),
                ("Most conditions per rule", self.max_length),
                ("Numeric attributes", "A >= t / A <= t at entropy-MDL cuts, at least "
                                       f"{self.min_cuts} per attribute"))


if __name__ == "__main__":  # pragma: no cover
    from Orange.data import Table
    from Orange.widgets.utils.widgetpreview import WidgetPreview
    WidgetPreview(OWROCCER).run(Table("heart_disease"))
