"""ROCCER widget: rules selected from association-rule candidates by ROC
convex-hull analysis (Prati & Flach 2005)."""
from Orange.widgets import gui
from Orange.widgets.settings import Setting

from orangecontrib.rules.roccer import ROCCERLearner
from orangecontrib.rules.widgets.base import OWRulesLearnerBase


class OWROCCER(OWRulesLearnerBase):
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
    min_confidence = Setting(50.0)  # percent
    max_length = Setting(4)
    n_fallback = Setting(4)

    def add_main_layout(self):
        box = gui.vBox(self.controlArea, "Candidate rules")
        self.auto_support_check = gui.checkBox(
            box, self, "auto_support",
            "Minimal support: a third of the smallest class",
            tooltip="The paper's setting: a candidate must cover at least a "
                    "third of the smallest class's share of the examples.",
            callback=self._support_changed)
        self.support_spin = gui.doubleSpin(
            box, self, "min_support", 0.1, 100.0, 0.5, decimals=1,
            label="Minimal support (%):",
            tooltip="Candidates must cover at least this share of the "
                    "examples. Lower values give more candidates and slower, "
                    "finer selection.",
            callback=self.settings_changed)
        self.confidence_spin = gui.doubleSpin(
            box, self, "min_confidence", 0.0, 100.0, 5.0, decimals=1,
            label="Minimal confidence (%):",
            tooltip="Candidates must predict their class for at least this "
                    "share of the examples they cover (the paper: 50%).",
            callback=self.settings_changed)
        self.max_length_spin = gui.spin(
            box, self, "max_length", 1, 10, label="Most conditions per rule:",
            tooltip="Longer rules are more specific; mining time grows quickly "
                    "with this number.",
            callback=self.settings_changed)
        box = gui.vBox(self.controlArea, "Numeric attributes")
        self.fallback_spin = gui.spin(
            box, self, "n_fallback", 2, 20,
            label="Intervals when MDL finds no cut:",
            tooltip="Numeric attributes are discretised by entropy-MDL; an "
                    "attribute MDL leaves whole is cut into this many "
                    "equal-frequency intervals instead.",
            callback=self.settings_changed)
        self._support_changed(notify=False)

    def _support_changed(self, notify=True):
        self.support_spin.setEnabled(not self.auto_support)
        if notify:
            self.settings_changed()

    def create_learner(self):
        return self.LEARNER(
            min_support=None if self.auto_support else self.min_support / 100,
            min_confidence=self.min_confidence / 100, max_length=self.max_length,
            n_fallback=self.n_fallback, preprocessors=self.preprocessors)

    def get_learner_parameters(self):
        support = ("a third of the smallest class's share" if self.auto_support
                   else f"{self.min_support:g}%")
        return (("Minimal support", support),
                ("Minimal confidence", f"{self.min_confidence:g}%"),
                ("Most conditions per rule", self.max_length),
                ("Numeric attributes", "entropy-MDL, else "
                                       f"{self.n_fallback} equal-frequency intervals"))


if __name__ == "__main__":  # pragma: no cover
    from Orange.data import Table
    from Orange.widgets.utils.widgetpreview import WidgetPreview
    WidgetPreview(OWROCCER).run(Table("heart_disease"))
