"""Every learner widget's Learner output through Test & Score into ROC
Analysis, headless. heart_disease (two classes) runs through the example
workflow in test_workflows.py; here a multi-class set."""
import numpy as np
import pytest
import Orange.widgets.tests.base as owtest  # module import: see add-on guide 5.2
from Orange.data import Table
from Orange.evaluation import AUC
from Orange.widgets.evaluate.owrocanalysis import OWROCAnalysis
from Orange.widgets.evaluate.owtestandscore import OWTestAndScore

from orangecontrib.rules.widgets.owevcrules import OWEVCRules
from orangecontrib.rules.widgets.owroccer import OWROCCER
from orangecontrib.rules.widgets.owrulelogreg import OWRuleLogisticRegression
from orangecontrib.rules.widgets.owslipper import OWSlipper
from orangecontrib.rules.widgets.owslsensembles import OWSLSEnsembles

WIDGETS = [OWSlipper, OWEVCRules, OWRuleLogisticRegression, OWSLSEnsembles, OWROCCER]


class TestLearnerWidgetsInTestAndScore(owtest.WidgetTest):
    @pytest.mark.slow
    def test_multiclass_iris(self):
        data = Table("iris")
        ts = self.create_widget(OWTestAndScore)
        self.send_signal(ts.Inputs.train_data, data, widget=ts)
        names = []
        for i, cls in enumerate(WIDGETS):
            w = self.create_widget(cls)  # the widget's defaults (papers' settings)
            learner = self.get_output(w.Outputs.learner, widget=w)
            names.append(learner.name)
            self.send_signal(ts.Inputs.learner, learner, i, widget=ts)
        res = self.get_output(ts.Outputs.evaluations_results, widget=ts, wait=600000)
        self.assertEqual(list(res.learner_names), names)  # none failed
        self.assertEqual(res.probabilities.shape, (5, len(data), 3))
        self.assertFalse(np.isnan(res.probabilities).any())
        np.testing.assert_allclose(res.probabilities.sum(axis=2), 1, atol=1e-9)
        auc = AUC(res)
        self.assertTrue(np.all(auc > 0.6), dict(zip(names, auc)))
        roc = self.create_widget(OWROCAnalysis)
        self.send_signal(roc.Inputs.evaluation_results, res, widget=roc)
        self.assertFalse(roc.Error.invalid_results.is_shown())
        self.assertEqual(roc.classifier_names, names)
        self.assertEqual(len(roc.plot.listDataItems()) > 0, True)
