"""Headless widget tests with Orange's WidgetTest helpers."""
import Orange.widgets.tests.base as owtest  # module import: see add-on guide 5.2
from Orange.data import Table
from Orange.widgets.evaluate.owrocanalysis import OWROCAnalysis
from Orange.widgets.evaluate.owtestandscore import OWTestAndScore
from Orange.widgets.visualize.owruleviewer import OWRuleViewer

from orangecontrib.rules.ruleset import STRATEGIES
from orangecontrib.rules.scoring import RuleScoringLearner
from orangecontrib.rules.widgets.owrulescoring import OWRuleScoring


class TestOWRuleScoring(owtest.WidgetTest, owtest.WidgetLearnerTestMixin):
    def setUp(self):
        self.widget = self.create_widget(OWRuleScoring,
                                         stored_settings={"auto_apply": False})
        self.init()
        self.parameters = [
            owtest.ParameterMapping("strategy", self.widget.strategy_combo,
                                    list(STRATEGIES)),
            owtest.ParameterMapping("m", self.widget.m_spin),
            owtest.ParameterMapping("beam_width", self.widget.beam_width_spin),
            owtest.ParameterMapping("max_rule_length", self.widget.max_length_spin),
            owtest.ParameterMapping("min_covered_examples",
                                    self.widget.min_covered_spin),
        ]

    def test_all_cores_reaches_the_default_bases_threads(self):
        import os
        w = self.widget
        self.assertTrue(w.cores_check.isChecked())
        learner = self.get_output(w.Outputs.learner)
        self.assertEqual(learner.n_jobs, os.cpu_count() or 1)
        self.assertEqual(learner.default_base().n_jobs, os.cpu_count() or 1)
        w.cores_check.setChecked(False)
        self.click_apply()
        self.assertEqual(self.get_output(w.Outputs.learner).default_base().n_jobs, 1)

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
            owtest.ParameterMapping(
                "max_doublings", self.widget.more_check, [2, 0],
                getter=lambda: 2 if self.widget.more_check.isChecked() else 0,
                setter=lambda v: self.widget.more_check.setChecked(v == 2)),
            owtest.ParameterMapping("random_state", self.widget.seed_spin, [0, 7]),
        ]

    def test_fixed_rounds(self):
        self.widget.controls.fixed_rounds.click()  # as a user does: the bound's controls off
        self.assertTrue(self.widget.fixed_rounds)
        self.widget.T = 7
        self.send_signal(self.widget.Inputs.data, Table("heart_disease"))
        self.click_apply()
        model = self.get_output(self.widget.Outputs.model, wait=20000)
        self.assertEqual(model.rounds, {1: 7})
        self.assertFalse(self.widget.more_check.isEnabled())
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


class TestOWSLSEnsembles(owtest.WidgetTest, owtest.WidgetLearnerTestMixin):
    def setUp(self):
        from orangecontrib.rules.widgets.owslsensembles import OWSLSEnsembles
        self.widget = self.create_widget(
            OWSLSEnsembles, stored_settings={"auto_apply": False, "n_rule_sets": 3})
        self.init()
        self.parameters = [
            owtest.ParameterMapping("k_max", self.widget.k_max_spin, [1, 3]),
            owtest.ParameterMapping("n_rule_sets", self.widget.n_rule_sets_spin, [2, 5]),
            owtest.ParameterMapping("max_steps", self.widget.max_steps_spin, [100, 1000]),
            owtest.ParameterMapping("n_intervals", self.widget.n_intervals_spin, [3, 10]),
            owtest.ParameterMapping("random_state", self.widget.seed_spin, [0, 7]),
        ]

    def test_settings_reach_the_model(self):
        w = self.widget
        w.theta, w.rho, w.k_max = 0.5, 0.8, 3
        self.send_signal(w.Inputs.data, Table("heart_disease"))
        self.click_apply()
        model = self.get_output(w.Outputs.model, wait=60000)
        self.assertEqual((model.theta, model.k_max), (0.5, 3))
        self.assertEqual(self.get_output(w.Outputs.learner).rho, 0.8)
        self.assertIsNotNone(model.voting_bound)

    def test_cancel_and_restart_on_a_change(self):
        w = self.widget
        w.n_rule_sets, w.max_steps = 30, 20000
        self.send_signal(w.Inputs.data, Table("heart_disease"))
        self.click_apply()
        first = w.task
        self.assertIsNotNone(first)
        w.k_max_spin.setValue(2)  # a change while fitting: cancel, start again
        self.click_apply()
        self.assertTrue(first.is_interruption_requested())
        self.assertIsNot(w.task, first)
        model = self.get_output(w.Outputs.model, wait=120000)
        self.assertEqual(model.k_max, 2)


class TestOWROCCER(owtest.WidgetTest, owtest.WidgetLearnerTestMixin):
    def setUp(self):
        from orangecontrib.rules.widgets.owroccer import OWROCCER
        self.widget = self.create_widget(OWROCCER, stored_settings={"auto_apply": False})
        self.init()
        self.parameters = [
            owtest.ParameterMapping("max_length", self.widget.max_length_spin, [1, 3]),
            owtest.ParameterMapping("min_cuts", self.widget.cuts_spin, [2, 6]),
        ]

    def test_support_and_confidence_in_percent(self):
        w = self.widget
        self.assertFalse(w.support_spin.isEnabled())
        self.assertIsNone(self.get_output(w.Outputs.learner).min_support)
        w.auto_support_check.setChecked(False)
        self.assertTrue(w.support_spin.isEnabled())
        w.support_spin.setValue(10.0)
        # the confidence is relative to each class's prior until unchecked
        self.assertIsNone(self.get_output(w.Outputs.learner).min_confidence)
        self.assertFalse(w.confidence_spin.isEnabled())
        w.auto_confidence_check.setChecked(False)
        w.confidence_spin.setValue(60.0)
        self.click_apply()
        learner = self.get_output(w.Outputs.learner)
        self.assertAlmostEqual(learner.min_support, 0.10)
        self.assertAlmostEqual(learner.min_confidence, 0.60)
        self.send_signal(w.Inputs.data, Table("heart_disease"))
        self.click_apply()
        model = self.get_output(w.Outputs.model, wait=60000)
        self.assertEqual(len(model.class_lists), 2)
        self.assertIs(model.instances, w.data)

    def test_all_cores_runs_the_classes_in_threads_with_the_same_model(self):
        import os
        w = self.widget
        self.assertTrue(w.cores_check.isChecked())
        self.assertEqual(self.get_output(w.Outputs.learner).n_jobs, os.cpu_count() or 1)
        self.send_signal(w.Inputs.data, Table("iris"))
        threads = self.get_output(w.Outputs.model, wait=60000)
        w.cores_check.setChecked(False)
        self.click_apply()
        self.assertEqual(self.get_output(w.Outputs.learner).n_jobs, 1)
        one = self.get_output(w.Outputs.model, wait=60000)
        self.assertIsNot(one, threads)
        self.assertEqual(str(one), str(threads))

    def test_warns_about_classes_without_rules(self):
        from orangecontrib.rules.roccer import ROCCERModel
        w = self.widget
        self.send_signal(w.Inputs.data, Table("iris"))
        model = self.get_output(w.Outputs.model, wait=60000)
        self.assertFalse(w.Warning.classes_without_rules.is_shown())
        model.class_lists[2].rules = []  # as if class 2 had no candidate
        from orangecontrib.rules.widgets.base import FitResult
        w.on_done(FitResult(model))
        self.assertTrue(w.Warning.classes_without_rules.is_shown())
        self.assertIn("virginica", str(w.Warning.classes_without_rules))
        self.assertIsInstance(model, ROCCERModel)

    def test_warns_when_no_rule_is_found(self):
        w = self.widget
        self.assertFalse(w.Warning.no_rules.is_shown())
        w.confidence_spin.setValue(100.0)  # no candidate on iris is that sure...
        w.max_length_spin.setValue(1)
        w.auto_support_check.setChecked(False)
        w.support_spin.setValue(50.0)      # ... with half of the examples
        self.send_signal(w.Inputs.data, Table("iris"))
        self.click_apply()
        model = self.get_output(w.Outputs.model, wait=60000)
        self.assertEqual(model.rule_list, [])
        self.assertTrue(w.Warning.no_rules.is_shown())
        w.confidence_spin.setValue(50.0)
        w.support_spin.setValue(5.0)
        self.click_apply()
        model = self.get_output(w.Outputs.model, wait=60000)
        self.assertTrue(model.rule_list)
        self.assertFalse(w.Warning.no_rules.is_shown())
        self.send_signal(w.Inputs.data, None)
        self.assertFalse(w.Warning.no_rules.is_shown())


class TestTooltips(owtest.WidgetTest):
    def test_every_parameter_explains_itself(self):
        from AnyQt.QtWidgets import QAbstractSpinBox, QCheckBox, QComboBox
        from orangecontrib.rules.widgets.owevcrules import OWEVCRules
        from orangecontrib.rules.widgets.owroccer import OWROCCER
        from orangecontrib.rules.widgets.owrulelogreg import OWRuleLogisticRegression
        from orangecontrib.rules.widgets.owslipper import OWSlipper
        from orangecontrib.rules.widgets.owslsensembles import OWSLSEnsembles
        for cls in (OWRuleScoring, OWSlipper, OWEVCRules, OWRuleLogisticRegression,
                    OWSLSEnsembles, OWROCCER):
            w = self.create_widget(cls)
            controls = [c for t in (QAbstractSpinBox, QCheckBox, QComboBox)
                        for c in w.controlArea.findChildren(t)]
            self.assertGreater(len(controls), 2, cls.name)
            for c in controls:
                tip = c.toolTip() or c.parentWidget().toolTip()
                self.assertGreater(len(tip), 10, f"{cls.name}: {c.objectName()} "
                                                 f"{getattr(c, 'text', lambda: '')()}")
            self.assertTrue(cls.keywords and cls.icon.endswith(".svg"))


class TestProgressBars(owtest.WidgetTest):
    def test_fits_report_progress_to_the_widget(self):
        from unittest.mock import patch
        from orangecontrib.rules.widgets.owroccer import OWROCCER
        from orangecontrib.rules.widgets.owslipper import OWSlipper
        from orangecontrib.rules.widgets.owslsensembles import OWSLSEnsembles
        data = Table("heart_disease")
        for cls, settings in ((OWSLSEnsembles, {"n_rule_sets": 3}),
                              (OWSlipper, {"T_max": 10}), (OWROCCER, {})):
            w = self.create_widget(cls, stored_settings=dict(auto_apply=False, **settings))
            seen = []
            with patch.object(w, "progressBarSet",
                              lambda value, *a, **k: seen.append(value)):
                self.send_signal(w.Inputs.data, data, widget=w)
                w.unconditional_apply()
                self.assertIsNotNone(self.get_output(w.Outputs.model, widget=w, wait=60000))
            self.assertGreater(len(seen), 2, cls.name)
            self.assertTrue(all(0 <= v <= 100 for v in seen), cls.name)
            self.assertGreater(max(seen), 50, cls.name)


class TestBadDataMessages(owtest.WidgetTest):
    """Every learner widget says what is wrong with the data, never a bare
    "Fitting failed." or a misleading Orange message."""

    def learner_widgets(self):
        from orangecontrib.rules.widgets.owevcrules import OWEVCRules
        from orangecontrib.rules.widgets.owroccer import OWROCCER
        from orangecontrib.rules.widgets.owrulelogreg import OWRuleLogisticRegression
        from orangecontrib.rules.widgets.owslipper import OWSlipper
        from orangecontrib.rules.widgets.owslsensembles import OWSLSEnsembles
        for cls in (OWRuleScoring, OWSlipper, OWEVCRules, OWRuleLogisticRegression,
                    OWSLSEnsembles, OWROCCER):
            yield self.create_widget(cls, stored_settings={"auto_apply": True})

    def test_messages_name_the_problem(self):
        import numpy as np
        from Orange.data import ContinuousVariable, DiscreteVariable, Domain
        dom = Domain([ContinuousVariable("x"), DiscreteVariable("d", ("u", "v"))],
                     DiscreteVariable("y", ("a", "b")))
        rng = np.random.default_rng(0)
        X = np.column_stack([rng.normal(size=30), rng.integers(0, 2, 30)])
        y = (rng.random(30) < 0.5).astype(float)
        cases = {
            "missing in every row": Table.from_numpy(dom, X.copy(), np.full(30, np.nan)),
            "class 'y' has codes 2": Table.from_numpy(dom, X.copy(), y + 1),
            "attribute 'd' has codes 7": Table.from_numpy(
                dom, np.column_stack([X[:, 0], np.where(y > 0, 7, 0)]), y),
            "attribute 'x' has values of magnitude": Table.from_numpy(
                dom, np.column_stack([np.where(y > 0, 1.7e308, 0), X[:, 1]]), y),
        }
        for widget in self.learner_widgets():
            for text, data in cases.items():
                self.send_signal(widget.Inputs.data, data, widget=widget)
                self.assertIn(text, str(widget.Error.data_error.formatted),
                              type(widget).__name__)
                self.assertIsNone(self.get_output(widget.Outputs.model, widget=widget))
            self.send_signal(widget.Inputs.data, None, widget=widget)


class TestSizeDial(owtest.WidgetTest):
    """The "Model size" box every learner widget has: a rule budget that
    reaches the learner and the model, the size-accuracy curve whose rows set
    the budget, and the warning with a suggested budget for large models."""

    def learner_widgets(self):
        from orangecontrib.rules.widgets.owevcrules import OWEVCRules
        from orangecontrib.rules.widgets.owroccer import OWROCCER
        from orangecontrib.rules.widgets.owrulelogreg import OWRuleLogisticRegression
        from orangecontrib.rules.widgets.owslipper import OWSlipper
        from orangecontrib.rules.widgets.owslsensembles import OWSLSEnsembles
        return ((OWRuleScoring, {}), (OWSlipper, {"T_max": 10}),
                (OWEVCRules, {"n_permutations": 10}),
                (OWRuleLogisticRegression, {"n_permutations": 10}),
                (OWSLSEnsembles, {"n_rule_sets": 3, "max_steps": 300}), (OWROCCER, {}))

    def fit(self, w, data):
        self.send_signal(w.Inputs.data, data, widget=w)
        w.unconditional_apply()
        return self.get_output(w.Outputs.model, widget=w, wait=60000)

    def test_the_budget_reaches_every_learner_and_model(self):
        data = Table("heart_disease")
        for cls, settings in self.learner_widgets():
            w = self.create_widget(cls, stored_settings=dict(
                auto_apply=False, limit_rules=True, max_rules=3, **settings))
            self.assertTrue(w.max_rules_spin.isEnabled())
            model = self.fit(w, data)
            self.assertEqual(w.learner.max_rules, 3, cls.name)
            self.assertLessEqual(model.size[0], 3, cls.name)
            w.limit_check.click()  # off: the learner's own size
            self.assertFalse(w.max_rules_spin.isEnabled())
            w.unconditional_apply()
            # the learner's own size: SLS's readable default, no limit for the others
            self.assertEqual(w.learner.max_rules,
                             "auto" if cls.name == "SLS Ensembles" else None, cls.name)
            self.assertIn(("Rule limit", "none"), self.reported(w))

    def test_least_new_coverage_reaches_the_covering_learners(self):
        """EVC Rules, LR with Rules and Rule Scoring let the user trade
        rules for accuracy through the covering's stop, in percent."""
        from orangecontrib.rules.widgets.owevcrules import OWEVCRules
        from orangecontrib.rules.widgets.owrulelogreg import OWRuleLogisticRegression
        data = Table("heart_disease")
        sizes = {}
        for cls in (OWEVCRules, OWRuleLogisticRegression, OWRuleScoring):
            w = self.create_widget(cls, stored_settings=dict(auto_apply=False,
                                                             n_permutations=10))
            self.assertEqual(w.min_new_coverage, 2.0)  # the learners' default
            for percent in (0.0, 10.0):
                w.new_coverage_spin.setValue(percent)
                model = self.fit(w, data)
                rules = w.learner.rule_learner if hasattr(w.learner, "rule_learner") \
                    else w.learner
                self.assertEqual(rules.min_new_coverage, percent / 100, cls.name)
                self.assertIn(("Least new coverage", f"{percent:g}%"), self.reported(w))
                sizes[cls.name, percent] = len(model.rule_list)
            self.assertGreater(sizes[cls.name, 0.0], sizes[cls.name, 10.0], cls.name)

    def reported(self, w):
        from unittest.mock import patch
        seen = []
        with patch.object(w, "report_items", lambda *a: seen.extend(a[-1])):
            w.send_report()
        return seen

    def test_the_curve_is_shown_and_its_rows_set_the_budget(self):
        from orangecontrib.rules.widgets.owevcrules import OWEVCRules
        w = self.create_widget(OWEVCRules, stored_settings=dict(
            auto_apply=False, measure_curve=True, n_permutations=10))
        model = self.fit(w, Table("heart_disease"))
        self.assertIsNotNone(model)
        view = w.curve_view
        self.assertFalse(view.isHidden())
        limits = [view.topLevelItem(i).text(0) for i in range(view.topLevelItemCount())]
        self.assertEqual(limits, ["5", "10", "25", "50", "100", "no limit"])
        self.assertTrue(view.topLevelItem(5).font(0).bold())  # today's: no limit
        rules = [float(view.topLevelItem(i).text(1)) for i in range(6)]
        self.assertTrue(all(r <= b for r, b in zip(rules, (5, 10, 25, 50, 100))))
        w._curve_clicked(view.topLevelItem(1))
        self.assertTrue(w.limit_rules)
        self.assertEqual(w.max_rules, 10)
        w.unconditional_apply()
        self.assertEqual(w.learner.max_rules, 10)
        w.measure_curve = False
        self.fit(w, Table("heart_disease"))
        self.assertTrue(view.isHidden())

    def test_the_curve_names_lr_with_rules_attribute_weights(self):
        """Compare sizes reads "rules + attribute weights" where the models
        have attribute weights, and the rules alone where they have none."""
        from orangecontrib.rules.widgets.owrulelogreg import OWRuleLogisticRegression
        w = self.create_widget(OWRuleLogisticRegression, stored_settings=dict(auto_apply=False))
        curve = [dict(budget=5, rules=4.0, conditions=9.0, attribute_terms=20.0,
                      accuracy=0.8, auc=0.9, logloss=0.4),
                 dict(budget=None, rules=7.0, conditions=15.0, attribute_terms=0.0,
                      accuracy=0.8, auc=0.9, logloss=0.4)]
        w.show_curve(curve)
        view = w.curve_view
        self.assertEqual(view.topLevelItem(0).text(1), "4 + 20 attr.")
        self.assertIn("20.0 attribute weights", view.topLevelItem(0).toolTip(1))
        self.assertEqual(view.topLevelItem(1).text(1), "7")

    def test_a_large_model_is_warned_about_with_a_suggestion(self):
        from unittest.mock import patch

        from orangecontrib.rules.widgets import base
        from orangecontrib.rules.widgets.owrulescoring import OWRuleScoring
        w = self.create_widget(OWRuleScoring, stored_settings=dict(auto_apply=False))
        data = Table("heart_disease")
        model = self.fit(w, data)
        self.assertFalse(w.Warning.large_model.is_shown())
        with patch.object(base, "LARGE_MODEL", model.size[0] - 1):
            w.unconditional_apply()
            self.get_output(w.Outputs.model, widget=w, wait=60000)
            self.assertTrue(w.Warning.large_model.is_shown())
            self.assertIn(f"{model.size[0]} rules", str(w.Warning.large_model))
            self.assertIn("Compare sizes", str(w.Warning.large_model))
            w.measure_curve = True
            w.unconditional_apply()
            self.get_output(w.Outputs.model, widget=w, wait=60000)
            self.wait_until_finished(widget=w, timeout=60000)
            text = str(w.Warning.large_model)
            budget = base.suggested_budget(w.curve_shown)
            if budget is None:
                self.assertIn("No smaller budget", text)
            else:
                self.assertIn(f"'At most {budget} rules'", text)
        w.limit_rules, w.max_rules = True, 5
        w.unconditional_apply()
        self.get_output(w.Outputs.model, widget=w, wait=60000)
        self.assertFalse(w.Warning.large_model.is_shown())

    def test_suggested_budget(self):
        from orangecontrib.rules.widgets.base import suggested_budget
        curve = [dict(budget=5, auc=0.80), dict(budget=25, auc=0.895),
                 dict(budget=100, auc=0.91), dict(budget=None, auc=0.90)]
        self.assertEqual(suggested_budget(curve), 25)
        self.assertIsNone(suggested_budget(curve[:3]))
        self.assertIsNone(suggested_budget([dict(budget=5, auc=0.5),
                                            dict(budget=None, auc=0.9)]))


class TestReadingTheModel(owtest.WidgetTest):
    """What a learner widget says of the model it outputs: its size (not the
    cross-validated one), the model's own warnings, a budget that leaves a
    class without rules; and every widget takes empty, one-row and class-less
    data without an error dialog."""

    def learner_widgets(self):
        return TestSizeDial.learner_widgets(self)

    def fit(self, w, data):
        return TestSizeDial.fit(self, w, data)

    def test_the_size_shown_is_the_output_models(self):
        data = Table("heart_disease")
        for cls, settings in self.learner_widgets():
            w = self.create_widget(cls, stored_settings=dict(auto_apply=False, **settings))
            model = self.fit(w, data)
            rules, conditions = model.size
            self.assertTrue(w.size_label.isVisibleTo(w), cls.name)
            self.assertIn(f"The model on the output: {rules} rules", w.size_label.text())
            self.assertIn(f"{conditions} conditions", w.size_label.text())
            # LR with rules: its attribute weights beside the rules
            terms = model.attribute_terms
            self.assertEqual(f"and {terms} attribute weights" in w.size_label.text(),
                             terms > 0, cls.name)

    def test_lr_with_rules_says_when_no_rule_is_used(self):
        from orangecontrib.rules.widgets.owrulelogreg import OWRuleLogisticRegression
        w = self.create_widget(OWRuleLogisticRegression, stored_settings={"auto_apply": False})
        model = self.fit(w, Table("iris"))
        self.assertEqual(model.size[0], 0)  # iris: plain logistic regression wins
        self.assertTrue(w.Warning.model_warning.is_shown())
        self.assertIn("No rule has a non-zero weight", str(w.Warning.model_warning))
        self.assertIn("No rule has a non-zero weight", str(model))
        model = self.fit(w, Table("titanic"))
        self.assertGreater(model.size[0], 0)
        self.assertFalse(w.Warning.model_warning.is_shown())

    def test_a_budget_that_leaves_a_class_without_rules_is_named(self):
        from orangecontrib.rules.widgets.owroccer import OWROCCER
        w = self.create_widget(OWROCCER, stored_settings=dict(
            auto_apply=False, limit_rules=True, max_rules=1))
        model = self.fit(w, Table("iris"))
        self.assertTrue(model.classes_without_rules())
        self.assertTrue(w.Warning.budget_leaves_classes.is_shown())
        self.assertIn("at most 1 rules", str(w.Warning.budget_leaves_classes))
        self.assertFalse(w.Warning.classes_without_rules.is_shown())

    def test_sls_is_readable_by_default_and_the_whole_ensemble_one_click_away(self):
        from orangecontrib.rules.widgets.owslsensembles import OWSLSEnsembles
        w = self.create_widget(OWSLSEnsembles, stored_settings=dict(
            auto_apply=False, n_rule_sets=5, max_steps=500))
        model = self.fit(w, Table("heart_disease"))
        self.assertEqual(w.learner.max_rules, "auto")
        self.assertLessEqual(model.size[0], 50)
        w.every_check.click()
        model = self.fit(w, Table("heart_disease"))
        self.assertIsNone(w.learner.max_rules)
        self.assertGreater(model.size[0], 50)

    def test_empty_one_row_and_classless_data(self):
        import numpy as np
        from Orange.data import Domain
        from orangecontrib.rules.widgets.owrulesviewer import OWRulesViewer
        heart = Table("heart_disease")
        no_class = heart.transform(Domain(heart.domain.attributes))
        cases = {"empty": heart[:0], "one row": heart[:1], "no class": no_class}
        for cls, settings in self.learner_widgets():
            w = self.create_widget(cls, stored_settings=dict(auto_apply=True, **settings))
            for name, data in cases.items():
                with self.subTest(widget=cls.name, data=name):
                    self.send_signal(w.Inputs.data, data, widget=w)
                    w.unconditional_apply()
                    model = self.get_output(w.Outputs.model, widget=w, wait=60000)
                    self.assertIsNone(model)  # a message says why
                    self.assertTrue(w.Error.active, name)
        model = self.fit(self.create_widget(
            TestSizeDial.learner_widgets(self)[2][0],
            stored_settings={"auto_apply": False, "n_permutations": 10}), heart)
        viewer = self.create_widget(OWRulesViewer)
        self.send_signal(viewer.Inputs.model, model, widget=viewer)
        for name, data in cases.items():
            with self.subTest(widget="Rule Viewer", data=name):
                self.send_signal(viewer.Inputs.data, data, widget=viewer)
                self.assertEqual(viewer.rule_model.rowCount(), len(model.rule_list))
                annotated = self.get_output(viewer.Outputs.annotated_data, widget=viewer)
                self.assertEqual(len(annotated), len(data))
                rules = self.get_output(viewer.Outputs.rules, widget=viewer)
                self.assertEqual(len(rules), len(model.rule_list))
                viewer.select_rules([0])
                selected = self.get_output(viewer.Outputs.selected_data, widget=viewer)
                covered = model.covering(data)[:, 0] if len(data) else np.zeros(0, bool)
                self.assertEqual(0 if selected is None else len(selected), int(covered.sum()))
        self.send_signal(viewer.Inputs.data, cases["empty"], widget=viewer)
        self.assertTrue(viewer.Information.empty_data.is_shown())


class TestPanels(owtest.WidgetTest):
    """Every learner panel fits a laptop screen at its default settings
    (at most 700 px tall, with Qt's default font), can be made smaller (its
    settings scroll), and names the settings the widgets share alike."""

    def test_panels_fit_and_resize(self):
        from AnyQt.QtWidgets import QCheckBox, QLabel
        from orangecontrib.rules.widgets.common import LABELS
        shared = {"max_rule_length": "max_length_spin",
                  "min_covered_examples": "min_covered_spin",
                  "min_new_coverage": "new_coverage_spin", "random_state": "seed_spin"}
        for cls, _ in TestSizeDial.learner_widgets(self):
            w = self.create_widget(cls)
            with self.subTest(cls.name):
                hint = w.sizeHint()
                self.assertLessEqual(hint.height(), 700)
                self.assertLessEqual(hint.width(), 700)
                self.assertTrue(w.resizing_enabled)
                self.assertLess(w.minimumSizeHint().height(), 400)
                texts = {label.text() for label in w.findChildren(QLabel)}
                texts |= {box.text() for box in w.findChildren(QCheckBox)}
                for name, attr in shared.items():
                    if hasattr(w, attr):
                        self.assertIn(LABELS[name], texts, name)
                self.assertFalse(texts & {"Maximal rule length:", "Minimal rule coverage:",
                                          "new (%):", "all cores"})
                if hasattr(w, "cores_check"):
                    self.assertEqual(w.cores_check.text(), LABELS["all_cores"])
                # at its default size every choice of every drop-down reads
                # whole ("EVC-corrected relative frequenc", "WVOTE:
                # confidence-weighted vo" were cut)
                from AnyQt.QtGui import QFontMetrics
                from AnyQt.QtWidgets import QComboBox, QStyle, QStyleOptionComboBox
                w.resize(hint)
                w.show()
                self.process_events()
                for combo in w.findChildren(QComboBox):
                    if not combo.isVisibleTo(w):
                        continue
                    metrics = QFontMetrics(combo.font())
                    widest = max((metrics.horizontalAdvance(combo.itemText(i))
                                  for i in range(combo.count())), default=0)
                    option = QStyleOptionComboBox()  # the text's room, by the style
                    combo.initStyleOption(option)
                    room = combo.style().subControlRect(
                        QStyle.CC_ComboBox, option, QStyle.SC_ComboBoxEditField, combo).width()
                    self.assertGreaterEqual(room, widest, [combo.itemText(i)
                                                           for i in range(combo.count())])
                w.hide()
