"""EVC Rules widget: rules with extreme-value-corrected quality (Možina et al. 2019)."""
from AnyQt.QtCore import Qt

from Orange.widgets import gui
from Orange.widgets.settings import Setting

from orangecontrib.rules.evc import EVCRuleLearner
from orangecontrib.rules.ruleset import STRATEGIES
from orangecontrib.rules.widgets.base import OWRulesLearnerBase
from orangecontrib.rules.widgets.common import (STRATEGY_LABELS, STRATEGY_TOOLTIP,
                                                EVCSearchSettings, whole_choices)


class OWEVCRules(EVCSearchSettings, OWRulesLearnerBase):
    name = "EVC Rules"
    description = "Unordered rules whose quality is corrected for the " \
                  "optimism of the search by extreme value theory " \
                  "(Možina et al. 2019)."
    icon = "icons/EVCRules.svg"
    priority = 30
    keywords = "evc, extreme value correction, cn2, rules, abcn2"

    LEARNER = EVCRuleLearner

    strategy_index = Setting(STRATEGIES.index("wvote"))

    def add_main_layout(self):
        self.add_search_box()
        box = gui.vBox(self.controlArea, "Prediction")
        self.strategy_combo = whole_choices(gui.comboBox(
            box, self, "strategy_index", items=STRATEGY_LABELS,
            label="Resolution strategy:", orientation=Qt.Horizontal,
            tooltip=STRATEGY_TOOLTIP, callback=self.settings_changed))

    def create_learner(self):
        return self.LEARNER(strategy=STRATEGIES[self.strategy_index],
                            preprocessors=self.preprocessors,
                            **self.rule_learner_args(), **self.size_args())

    def get_learner_parameters(self):
        return self.search_parameters() + (
            ("Resolution strategy", STRATEGY_LABELS[self.strategy_index]),)


if __name__ == "__main__":  # pragma: no cover
    from Orange.data import Table
    from Orange.widgets.utils.widgetpreview import WidgetPreview
    WidgetPreview(OWEVCRules).run(Table("heart_disease"))
