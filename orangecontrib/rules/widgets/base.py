"""Shared base of the add-on's learner widgets: fits off the GUI thread with
a progress bar and a Cancel, following Orange's ``ConcurrentWidgetMixin``,
and the size dial every learner widget has (a rule budget, the
size-accuracy curve measured by internal cross-validation, a warning with a
suggested budget when a model is too large to read)."""
from dataclasses import dataclass
from typing import Optional

from AnyQt.QtCore import Qt
from AnyQt.QtWidgets import QTreeWidget, QTreeWidgetItem

from Orange.widgets import gui
from Orange.widgets.settings import Setting
from Orange.widgets.utils.concurrent import ConcurrentWidgetMixin, TaskState
from Orange.widgets.utils.owlearnerwidget import OWBaseLearner
from Orange.widgets.widget import Msg

import numpy as np

from orangecontrib.rules.base import Interrupted
from orangecontrib.rules.tables import check_table
from orangecontrib.rules.evaluation import size_curve

#: a model with more rules than this gets a warning with a suggested budget
LARGE_MODEL = 500
#: the suggested budget is the smallest whose internal-CV AUC is at most this
#: much below the unlimited model's
SUGGESTION_AUC_LOSS = 0.01


@dataclass
class FitResult:
    """What a fit in the worker thread gives the widget: the model and, when
    asked for, its learner's size-accuracy curve (:func:`size_curve`)."""
    model: object
    curve: Optional[list] = None


def run_fit(learner, data, measure_curve: bool, state: TaskState):
    """Runs in a worker thread (``state`` last, as ``ConcurrentWidgetMixin.start``
    passes it); progress in percent, Cancel raises Interrupted.
    With ``measure_curve`` the fit takes the first sixth of the bar and the
    size-accuracy curve (18 more fits) the rest."""
    def callback(progress, status=""):
        state.set_progress_value(100 * progress)
        if status:
            state.set_status(status)
        if state.is_interruption_requested():
            raise Interrupted()

    if not measure_curve:
        return FitResult(learner(data, progress_callback=callback))
    model = learner(data, progress_callback=lambda p, s="": callback(p / 6, s))
    state.set_status("Measuring accuracy at other sizes")
    curve = size_curve(learner, data, progress=lambda p: callback(1 / 6 + 5 * p / 6))
    return FitResult(model, curve)


def suggested_budget(curve) -> Optional[int]:
    """The smallest budget of a size-accuracy curve whose AUC is within
    :data:`SUGGESTION_AUC_LOSS` of the unlimited model's (``None`` without
    an unlimited point or a budget that qualifies)."""
    unlimited = [p for p in curve if p["budget"] is None]
    if not unlimited or not np.isfinite(unlimited[0]["auc"]):
        return None
    good = [p["budget"] for p in curve if p["budget"] is not None
            and p["auc"] >= unlimited[0]["auc"] - SUGGESTION_AUC_LOSS]
    return min(good) if good else None


class OWRulesLearnerBase(OWBaseLearner, ConcurrentWidgetMixin, openclass=True):
    """A learner widget whose fit runs in a thread (no ``name``: not listed),
    with the size dial below its own settings."""

    limit_rules = Setting(False)
    max_rules = Setting(50)
    measure_curve = Setting(False)
    curve_shown = None  # the size-accuracy curve listed under "Model size"

    class Warning(OWBaseLearner.Warning):
        no_rules = Msg("No rules were found: the model predicts the training "
                       "class distribution for every instance. Settings that "
                       "admit more rules (e.g. lower thresholds) may help.")
        classes_without_rules = Msg(
            "No rule predicts {}: the model gives {} only its share of the "
            "default rule. Settings that admit more candidates (lower support "
            "or confidence) may help.")
        budget_leaves_classes = Msg(
            "The budget of at most {} rules (Model size) leaves no rule for {}: "
            "the model gives {} only its share of the default rule. A larger "
            "budget gives {} rules.")
        model_warning = Msg("{}")
        large_model = Msg("{}")

    #: the panel can be made smaller than its contents (they scroll): on a
    #: laptop's short screen Apply stays in reach
    resizing_enabled = True

    def __init__(self, *args, **kwargs):
        ConcurrentWidgetMixin.__init__(self)
        OWBaseLearner.__init__(self, *args, **kwargs)

    def sizeHint(self):
        """The settings' own size and the scroll area's frame, so that at
        its default size the panel shows every setting without a scroll
        bar."""
        from AnyQt.QtCore import QSize
        sh = super().sizeHint()
        return QSize(sh.width() + 4, sh.height() + 6)

    def _insert_control_area(self):
        """The settings in a vertical scroll area, as a widget with a main
        area has them (Orange gives a widget without one a fixed panel)."""
        from AnyQt.QtWidgets import QSizePolicy
        from orangewidget.gui import VerticalScrollArea
        super()._insert_control_area()
        panel = self.controlArea
        scroll = VerticalScrollArea(self.left_side)
        scroll.setSizePolicy(QSizePolicy.MinimumExpanding, QSizePolicy.Preferred)
        self.left_side.layout().removeWidget(panel)
        scroll.setWidget(panel)
        self.left_side.layout().insertWidget(0, scroll)

    def add_bottom_buttons(self):
        """Orange's Apply button. ``OWBaseLearner.apply`` is an old-style
        (undecorated) commit whose conditional/unconditional split the base
        class relies on (``apply_as``), so it cannot take ``@gui.deferred``
        without changing Orange's behaviour; the resulting "decorate ...
        with @gui.deferred" warning (which Orange's own learner widgets emit
        too) says nothing a user can act on and is silenced here only."""
        import warnings
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=r"decorate \w+\.apply with @gui\.deferred")
            self.add_size_box()
            super().add_bottom_buttons()

    # --- the size dial -------------------------------------------------------
    def add_size_box(self):
        """The "Model size" box: a rule budget (the learners' ``max_rules``)
        and, on demand, the size-accuracy curve, whose rows set the budget
        when clicked."""
        box = gui.vBox(self.controlArea, "Model size")
        row = gui.hBox(box)
        self.limit_check = gui.checkBox(
            row, self, "limit_rules", "At most",
            tooltip="Limit the model to this many rules. The learner then "
                    "finds the best model it can of that size (it does not "
                    "cut a longer list). Fewer rules are easier to read.",
            callback=self._limit_changed)
        self.max_rules_spin = gui.spin(
            row, self, "max_rules", *self.LEARNER.parameters.spin("max_rules"), label=None,
            tooltip="The rule budget: the most rules the model may have.",
            callback=self.settings_changed)
        gui.widgetLabel(row, "rules")
        row.layout().addStretch(1)
        self.curve_check = gui.checkBox(
            row, self, "measure_curve", "Compare sizes",
            tooltip="After the fit, cross-validate (3 folds) the learner with "
                    "at most 5, 10, 25, 50 and 100 rules and without a limit, "
                    "and list rules, AUC and log loss of each: 18 more fits. "
                    "Click a row to use its budget.",
            callback=self.settings_changed)
        self.size_label = gui.widgetLabel(box, "")
        self.size_label.setWordWrap(True)
        self.size_label.setVisible(False)
        self.curve_caption = gui.widgetLabel(
            box, "Cross-validated, 3 folds: each fold's model learns from two "
                 "thirds of the data, so its rules are not the output's.")
        self.curve_caption.setWordWrap(True)
        self.curve_caption.setVisible(False)
        self.curve_view = QTreeWidget(
            rootIsDecorated=False, uniformRowHeights=True, alternatingRowColors=True,
            toolTip="Internal 3-fold cross-validation of this learner at each "
                    "budget (each fold's model on two thirds of the data: mean "
                    "rules, AUC and log loss of the folds); click a row to use "
                    "its budget.")
        self.curve_view.setHeaderLabels(["At most", "Rules (CV)", "AUC (CV)",
                                         "Log loss (CV)"])
        self.curve_view.itemClicked.connect(self._curve_clicked)
        self.curve_view.header().setStretchLastSection(False)
        self.curve_view.setVisible(False)
        box.layout().addWidget(self.curve_view)
        self._limit_changed(notify=False)

    def _limit_changed(self, notify=True):
        self.max_rules_spin.setEnabled(self.limit_rules)
        if notify:
            self.settings_changed()

    def size_args(self) -> dict:
        """The size dial's arguments for the learner's constructor: the
        budget, or nothing (the learner's own size, :meth:`unlimited_args`)."""
        if self.limit_rules:
            return dict(max_rules=int(self.max_rules))
        return self.unlimited_args()

    def unlimited_args(self) -> dict:
        """The learner's arguments without a budget (SLS: its readable
        default, or every rule set)."""
        return dict(max_rules=None)

    def budget(self):
        """The rule budget set in the size box, or ``None``."""
        return int(self.max_rules) if self.limit_rules else None

    def show_curve(self, curve):
        """Lists a size-accuracy curve (the present budget's row bold)."""
        self.curve_shown = curve
        self.curve_view.clear()
        self.curve_view.setVisible(bool(curve))
        self.curve_caption.setVisible(bool(curve))
        if not curve:
            return
        now = self.budget()
        for point in curve:
            terms = point.get("attribute_terms", 0)
            item = QTreeWidgetItem([
                "no limit" if point["budget"] is None else str(point["budget"]),
                f"{point['rules']:.0f}" + (f" + {terms:.0f} attr." if terms else ""),
                f"{point['auc']:.3f}", f"{point['logloss']:.3f}"])
            if terms:
                item.setToolTip(1, f"{point['rules']:.1f} rules and {terms:.1f} "
                                   "attribute weights, mean of the folds' models")
            item.setData(0, Qt.UserRole, point["budget"])
            for col in range(1, 4):
                item.setTextAlignment(col, Qt.AlignRight)
            if point["budget"] == now:
                font = item.font(0)
                font.setBold(True)
                for col in range(4):
                    item.setFont(col, font)
            self.curve_view.addTopLevelItem(item)
        for col in range(4):
            self.curve_view.resizeColumnToContents(col)
        view = self.curve_view  # every row shown, no scroll bar
        view.setFixedHeight(view.header().sizeHint().height() + 2 * view.frameWidth()
                            + sum(view.sizeHintForRow(r) for r in range(len(curve))) + 2)

    def _curve_clicked(self, item, _column=0):
        budget = item.data(0, Qt.UserRole)
        self.limit_rules = budget is not None
        if budget is not None:
            self.max_rules = int(budget)
        self._limit_changed()

    def warn_if_large(self, model, curve):
        """A warning with a suggested budget when ``model`` has more than
        :data:`LARGE_MODEL` rules."""
        rules = model.size[0] if hasattr(model, "size") else len(model.rule_list)
        if rules <= LARGE_MODEL:
            self.Warning.large_model.clear()
            return
        budget = suggested_budget(curve) if curve else None
        if budget is not None:
            point = next(p for p in curve if p["budget"] == budget)
            unlimited = next(p for p in curve if p["budget"] is None)
            advice = (f"'At most {budget} rules' keeps AUC at {point['auc']:.3f} "
                      f"(against {unlimited['auc']:.3f}) in 3-fold cross-validation.")
        elif curve:
            advice = "No smaller budget measured kept the AUC within " \
                     f"{SUGGESTION_AUC_LOSS}; a budget still makes the model readable."
        else:
            advice = "Set 'At most' under Model size (e.g. 100 rules), or tick " \
                     "'Compare sizes' to see what each size costs."
        self.Warning.large_model(f"The model has {rules} rules, too many to read. {advice}")

    def send_report(self):
        super().send_report()
        self.report_items("Model size", (
            ("Rule limit", f"at most {self.max_rules} rules" if self.limit_rules
             else "none"),))

    def check_data(self):
        """Orange's checks, with a message that says what is wrong when the
        class is missing everywhere (Orange would say "a single target
        value"), and the add-on's own checks of codes and magnitudes
        (:func:`orangecontrib.rules.tables.check_table`)."""
        valid = super().check_data()
        data = self.data
        if data is None or self.learner is None:
            return valid
        cv = data.domain.class_var
        if not valid and len(data) and cv is not None and cv.is_discrete \
                and np.all(np.isnan(np.asarray(data.Y, dtype=float))):
            self.Error.data_error(
                f"The class '{cv.name}' is missing in every row: rules need rows "
                "with a known class. Select another target or fill it in.")
        if valid:
            try:
                check_table(data)
            except ValueError as exc:
                self.Error.data_error(f"{exc}.")
                self.valid_data = valid = False
        return valid

    def show_size(self, model):
        """The output model's size, under the budget (``None``: nothing)."""
        if model is None or not hasattr(model, "size_text"):
            self.size_label.setVisible(False)
            return
        self.size_label.setText(f"The model on the output: {model.size_text()}.")
        self.size_label.setVisible(True)

    def update_model(self):
        self.cancel()
        self.show_fitting_failed(None)
        self.Warning.no_rules.clear()
        self.Warning.classes_without_rules.clear()
        self.Warning.budget_leaves_classes.clear()
        self.Warning.model_warning.clear()
        self.Warning.large_model.clear()
        self.show_size(None)
        self.model = None
        if self.check_data():
            self.start(run_fit, self.learner, self.data, bool(self.measure_curve))
        else:
            self.show_curve(None)
            self.Outputs.model.send(None)

    def on_partial_result(self, _):
        pass

    def on_done(self, result: FitResult):
        model = result.model
        self.show_curve(result.curve)
        self.warn_if_large(model, result.curve)
        model.name = self.effective_learner_name()
        model.instances = self.data
        self.model = model
        self.show_size(model)
        self.Warning.no_rules(shown=not model.rule_list)
        missing = getattr(model, "classes_without_rules", lambda: [])()
        if model.rule_list and missing:
            names = ", ".join(f"'{model.domain.class_var.values[c]}'" for c in missing)
            which = f"class {names}" if len(missing) == 1 else f"classes {names}"
            them = "it" if len(missing) == 1 else "them"
            budget = self.budget()
            if budget is not None and self._budget_binds(model, budget):
                self.Warning.budget_leaves_classes(budget, which, them, them)
            else:
                self.Warning.classes_without_rules(which, them)
        warnings = getattr(model, "warnings", lambda: [])()
        if warnings:
            self.Warning.model_warning(" ".join(warnings))
        self.Outputs.model.send(model)

    @staticmethod
    def _budget_binds(model, budget) -> bool:
        """Whether the rule budget is what left classes without rules: the
        model has as many rules as the budget allows."""
        rules = model.size[0] if hasattr(model, "size") else len(model.rule_list)
        return rules >= budget

    def on_exception(self, ex):
        self.show_fitting_failed(ex)
        self.Outputs.model.send(None)

    def onDeleteWidget(self):
        self.shutdown()
        super().onDeleteWidget()
