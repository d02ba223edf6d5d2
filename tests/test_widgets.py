"""Headless widget tests with Orange's WidgetTest helpers."""
import Orange.widgets.tests.base as owtest  # module import: see add-on guide 5.2
from Orange.data import Table
from Orange.widgets.evaluate.owrocanalysis import OWROCAnalysis
from Orange.widgets.evaluate.owtestandscore import OWTestAndScore
from Orange.widgets.visualize.owruleviewer import OWRuleViewer

from orangecontrib.rules.scoring import STRATEGIES, RuleScoringLearner
from orangecontrib.rules.widgets.owrulescoring import OWRuleScoring


class TestOWRuleScoring(owtest.WidgetTest, owtest.WidgetLearnerTestMixin):
    def setUp(self):
        self.widget = self.create_widget(OWRuleScoring,
                                         stored_settings={"auto_apply": False})
        self.init()
        self.parameters = [
            owtest.ParameterMapping("strategy", self.widget.strategy_combo,
                                    list(STRATEGIES)),
            owtest.ParameterMapping("beam_width", self.widget.beam_width_spin),
            owtest.ParameterMapping("max_rule_length", self.widget.max_length_spin),
            owtest.ParameterMapping("min_covered_examples",
                                    self.widget.min_covered_spin),
        ]

    def test_model_goes_to_rule_viewer(self):
        data = Table("titanic")
        self.send_signal(self.widget.Inputs.data, data)
        self.click_apply()
        model = self.get_output(self.widget.Outputs.model, wait=20000)
        self.assertIsNotNone(model)
        self.assertIs(model.instances, data)
        viewer = self.create_widget(OWRuleViewer)
        self.send_signal(viewer.Inputs.classifier, model, widget=viewer)
        self.assertEqual(viewer.proxy_model.rowCount(), len(model.rule_list))

    def test_strategy_reaches_the_model(self):
        self.send_signal(self.widget.Inputs.data, Table("iris"))
        self.widget.strategy_index = STRATEGIES.index("lfpr")
        self.click_apply()
        model = self.get_output(self.widget.Outputs.model, wait=20000)
        self.assertEqual(model.strategy, "lfpr")


class TestEvaluationChain(owtest.WidgetTest):
    def test_test_and_score_into_roc(self):
        data = Table("titanic")
        ts = self.create_widget(OWTestAndScore)
        self.send_signal(ts.Inputs.train_data, data, widget=ts)
        for i, s in enumerate(("wvote", "lfpr")):
            learner = RuleScoringLearner(strategy=s)
            learner.name = s
            self.send_signal(ts.Inputs.learner, learner, i, widget=ts)
        res = self.get_output(ts.Outputs.evaluations_results, widget=ts, wait=60000)
        self.assertEqual(res.probabilities.shape, (2, len(data), 2))
        roc = self.create_widget(OWROCAnalysis)
        self.send_signal(roc.Inputs.evaluation_results, res, widget=roc)
        self.assertFalse(roc.Error.invalid_results.is_shown())
        self.assertEqual(roc.classifier_names, ["wvote", "lfpr"])


class TestOWSlipper(owtest.WidgetTest, owtest.WidgetLearnerTestMixin):
    def setUp(self):
        from orangecontrib.rules.widgets.owslipper import OWSlipper
        self.widget = self.create_widget(OWSlipper,
                                         stored_settings={"auto_apply": False})
        self.init()
        self.parameters = [
            owtest.ParameterMapping("T_max", self.widget.T_max_spin, [1, 30]),
            owtest.ParameterMapping("random_state", self.widget.seed_spin, [0, 7]),
        ]

    def test_fixed_rounds(self):
        self.widget.fixed_rounds = True
        self.widget.T = 7
        self.send_signal(self.widget.Inputs.data, Table("heart_disease"))
        self.click_apply()
        model = self.get_output(self.widget.Outputs.model, wait=20000)
        self.assertEqual(model.rounds, {1: 7})
        viewer = self.create_widget(OWRuleViewer)
        self.send_signal(viewer.Inputs.classifier, model, widget=viewer)
        self.assertEqual(viewer.proxy_model.rowCount(), len(model.rule_list))


class TestOWEVCRules(owtest.WidgetTest, owtest.WidgetLearnerTestMixin):
    def setUp(self):
        from orangecontrib.rules.widgets.owevcrules import OWEVCRules
        self.widget = self.create_widget(
            OWEVCRules, stored_settings={"auto_apply": False, "n_permutations": 10})
        self.init()
        self.parameters = [
            owtest.ParameterMapping("beam_width", self.widget.beam_width_spin, [3, 10]),
            owtest.ParameterMapping("max_rule_length", self.widget.max_length_spin,
                                    [2, 5]),
            owtest.ParameterMapping("random_state", self.widget.seed_spin, [0, 7]),
        ]

    def test_settings_reach_the_model_and_viewer(self):
        w = self.widget
        w.quality_index = 1  # m-estimate
        w.m = 5.0
        w.strategy_index = STRATEGIES.index("lfpr")
        self.send_signal(w.Inputs.data, Table("heart_disease"))
        self.click_apply()
        model = self.get_output(w.Outputs.model, wait=60000)
        self.assertEqual(model.quality_measure, "m")
        self.assertEqual(model.strategy, "lfpr")
        self.assertIsNone(model.gumbel)
        viewer = self.create_widget(OWRuleViewer)
        self.send_signal(viewer.Inputs.classifier, model, widget=viewer)
        self.assertEqual(viewer.proxy_model.rowCount(), len(model.rule_list))

    def test_evc_model_keeps_gumbel(self):
        self.send_signal(self.widget.Inputs.data, Table("titanic"))
        self.click_apply()
        model = self.get_output(self.widget.Outputs.model, wait=60000)
        self.assertEqual(model.gumbel.n_permutations, 10)


class TestOWRuleLogisticRegression(owtest.WidgetTest, owtest.WidgetLearnerTestMixin):
    def setUp(self):
        from orangecontrib.rules.widgets.owrulelogreg import OWRuleLogisticRegression
        self.widget = self.create_widget(
            OWRuleLogisticRegression,
            stored_settings={"auto_apply": False, "n_permutations": 10})
        self.init()
        self.parameters = [  # the rule-search settings go to the rule learner
            owtest.ParameterMapping("random_state", self.widget.seed_spin, [0, 7]),
        ]

    def test_variant_settings(self):
        w = self.widget
        w.rule_penalty = False
        w.auto_lambda = False
        w.lambda_ = 2.0
        self.send_signal(w.Inputs.data, Table("heart_disease"))
        self.click_apply()
        model = self.get_output(w.Outputs.model, wait=60000)
        self.assertEqual(model.lam, 2.0)
        learner = self.get_output(w.Outputs.learner)
        self.assertFalse(learner.rule_penalty)
        self.assertEqual(learner.rule_learner.n_permutations, 10)
        w.max_rule_length = 2
        self.click_apply()
        self.assertEqual(self.get_output(w.Outputs.learner).rule_learner.max_rule_length, 2)
        self.assertIn("IF ", str(model))
