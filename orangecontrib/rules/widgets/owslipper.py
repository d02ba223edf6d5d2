"""SLIPPER widget: boosted confidence-rated rules (Cohen & Singer 1999)."""
from Orange.widgets import gui
from Orange.widgets.settings import Setting

from orangecontrib.rules.slipper import SlipperLearner
from orangecontrib.rules.widgets.base import OWRulesLearnerBase
from orangecontrib.rules.widgets.common import AllCoresSetting


class OWSlipper(AllCoresSetting, OWRulesLearnerBase):
    name = "SLIPPER"
    description = "Boosted confidence-rated rules (Cohen & Singer 1999); the " \
                  "number of rounds is chosen by internal cross-validation."
    icon = "icons/Slipper.svg"
    priority = 20
    keywords = "slipper, boosting, rules, ripper"

    LEARNER = SlipperLearner

    fixed_rounds = Setting(False)
    T = Setting(50)
    T_max = Setting(100)
    more_rounds = Setting(True)
    random_state = Setting(0)

    def add_main_layout(self):
        box = gui.vBox(self.controlArea, "Boosting rounds")
        self.T_max_spin = gui.spin(
            box, self, "T_max", *self.LEARNER.parameters.spin("T_max"),
            label="Most rounds (cross-validated):",
            tooltip="The number of boosting rounds (rules) is chosen by internal "
                    "5-fold cross-validation between 1 and this number.",
            callback=self.settings_changed)
        self.more_check = gui.checkBox(
            box, self, "more_rounds", "Up to four times as many when they clearly help",
            tooltip="Double the most rounds, at most twice, while the rounds past "
                    "the first half still lower the cross-validated error clearly "
                    "and do not make the probabilities worse (on large data with "
                    "a strong signal; small data keep the bound above).",
            callback=self.settings_changed)
        self.fixed_check = gui.checkBox(
            box, self, "fixed_rounds", "Fixed number of rounds instead",
            tooltip="Skip the cross-validation and boost for exactly the given "
                    "number of rounds (faster; more rounds fit the training "
                    "data more closely).",
            callback=self._fixed_changed)
        self.T_spin = gui.spin(
            box, self, "T", *self.LEARNER.parameters.spin("T"), label="Rounds:",
            tooltip="Boosting rounds; each adds at most one rule.",
            callback=self.settings_changed)
        box = gui.vBox(self.controlArea, "Randomness")
        self.seed_spin = gui.spin(box, self, "random_state",
                                  *self.LEARNER.parameters.spin("random_state"),
                                  label="Random seed:",
                                  tooltip="Seeds the grow/prune splits and the "
                                          "cross-validation folds; the same seed "
                                          "gives the same rules.",
                                  callback=self.settings_changed)
        self.add_cores_check(
            box, tooltip="Run the boosters of the classes (or the cross-validation "
                         "folds) in parallel threads; the rules are the same either way.")
        self._fixed_changed(notify=False)

    def _fixed_changed(self, notify=True):
        self.T_spin.setEnabled(self.fixed_rounds)
        self.T_max_spin.setEnabled(not self.fixed_rounds)
        self.more_check.setEnabled(not self.fixed_rounds)
        if notify:
            self.settings_changed()

    def create_learner(self):
        return self.LEARNER(T=self.T if self.fixed_rounds else None,
                            T_max=self.T_max, max_doublings=2 if self.more_rounds else 0,
                            random_state=self.random_state, **self.size_args(),
                            **self.cores_args(), preprocessors=self.preprocessors)

    def get_learner_parameters(self):
        more = f" (up to {4 * self.T_max} when they clearly help)" if self.more_rounds else ""
        rounds = (str(self.T) if self.fixed_rounds
                  else f"chosen by 5-fold CV, at most {self.T_max}{more}")
        return (("Boosting rounds", rounds), ("Random seed", self.random_state))


if __name__ == "__main__":  # pragma: no cover
    from Orange.data import Table
    from Orange.widgets.utils.widgetpreview import WidgetPreview
    WidgetPreview(OWSlipper).run(Table("heart_disease"))
