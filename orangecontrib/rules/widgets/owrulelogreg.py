"""Logistic Regression with Rules widget (Možina et al. 2019, LRRP-EVC)."""
from Orange.widgets import gui
from Orange.widgets.settings import Setting

from orangecontrib.rules.evc import EVCRuleLearner
from orangecontrib.rules.logreg import RuleLogisticRegressionLearner
from orangecontrib.rules.widgets.base import OWRulesLearnerBase
from orangecontrib.rules.widgets.common import EVCSearchSettings


class OWRuleLogisticRegression(EVCSearchSettings, OWRulesLearnerBase):
    name = "Logistic Regression with Rules"
    short_name = "LR with Rules"  # the toolbox has two short lines per name
    description = "Logistic regression over the attributes and EVC rules, " \
                  "with an extra penalty on rule weights (Možina et al. 2019)."
    icon = "icons/RuleLogReg.svg"
    priority = 40
    keywords = "logistic regression, rules, evc, lrrp"

    LEARNER = RuleLogisticRegressionLearner

    rule_penalty = Setting(True)
    attributes = Setting(True)
    auto_lambda = Setting(True)
    lambda_ = Setting(1.0)

    def add_main_layout(self):
        box = gui.vBox(self.controlArea, "Logistic regression")
        self.penalty_check = gui.checkBox(
            box, self, "rule_penalty", "Extra penalty on rule weights",
            tooltip="Penalise each rule's weight by how much the extreme value "
                    "correction says its quality is overestimated (the paper's "
                    "γ), so the model does not rely on rules that look better "
                    "than they are.",
            callback=self.settings_changed)
        self.attributes_check = gui.checkBox(
            box, self, "attributes", "The attributes too",
            tooltip="Besides the rules, use the attributes themselves as "
                    "features of the logistic regression.",
            callback=self.settings_changed)
        row = gui.hBox(box)
        self.auto_lambda_check = gui.checkBox(
            row, self, "auto_lambda", "L2 strength by cross-validation",
            tooltip="Choose the L2 regularisation strength (the paper's λ) "
                    "by internal cross-validation.",
            callback=self._lambda_changed)
        self.lambda_spin = gui.doubleSpin(
            row, self, "lambda_", *self.LEARNER.parameters.spin("lambda_"), 0.1,
            label="or:",
            tooltip="The L2 regularisation strength (λ): larger values shrink "
                    "all weights more (a simpler model).",
            callback=self.settings_changed)
        self.add_search_box()
        self._lambda_changed(notify=False)

    def _lambda_changed(self, notify=True):
        self.lambda_spin.setEnabled(not self.auto_lambda)
        if notify:
            self.settings_changed()

    def create_learner(self):
        rules = EVCRuleLearner(**self.rule_learner_args())
        return self.LEARNER(rule_learner=rules, rule_penalty=self.rule_penalty,
                            attributes=self.attributes,
                            lambda_=None if self.auto_lambda else self.lambda_,
                            random_state=self.random_state, **self.size_args(),
                            preprocessors=self.preprocessors)

    def get_learner_parameters(self):
        lam = "cross-validated" if self.auto_lambda else f"{self.lambda_:g}"
        return (("Extra rule penalty", "yes" if self.rule_penalty else "no"),
                ("Original attributes", "yes" if self.attributes else "no"),
                ("L2 strength", lam)) + self.search_parameters()


if __name__ == "__main__":  # pragma: no cover
    from Orange.data import Table
    from Orange.widgets.utils.widgetpreview import WidgetPreview
    WidgetPreview(OWRuleLogisticRegression).run(Table("heart_disease"))
