"""Shared base of the add-on's learner widgets: fits off the GUI thread with
a progress bar and a Cancel, following Orange's ``ConcurrentWidgetMixin``."""
from Orange.widgets.utils.concurrent import ConcurrentWidgetMixin, TaskState
from Orange.widgets.utils.owlearnerwidget import OWBaseLearner
from Orange.widgets.widget import Msg

import numpy as np

from orangecontrib.rules.base import Interrupted, check_table


def run_fit(learner, data, state: TaskState):
    """Runs in a worker thread; progress in percent, Cancel raises Interrupted."""
    def callback(progress, status=""):
        state.set_progress_value(100 * progress)
        if status:
            state.set_status(status)
        if state.is_interruption_requested():
            raise Interrupted()
    return learner(data, progress_callback=callback)


class OWRulesLearnerBase(OWBaseLearner, ConcurrentWidgetMixin, openclass=True):
    """A learner widget whose fit runs in a thread (no ``name``: not listed)."""

    class Warning(OWBaseLearner.Warning):
        no_rules = Msg("No rules were found: the model predicts the training "
                       "class distribution for every instance. Settings that "
                       "admit more rules (e.g. lower thresholds) may help.")
        classes_without_rules = Msg(
            "No rule predicts {}: the model gives {} only its share of the "
            "default rule. Settings that admit more candidates (lower support "
            "or confidence) may help.")

    def __init__(self, *args, **kwargs):
        ConcurrentWidgetMixin.__init__(self)
        OWBaseLearner.__init__(self, *args, **kwargs)

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
            super().add_bottom_buttons()

    def check_data(self):
        """Orange's checks, with a message that says what is wrong when the
        class is missing everywhere (Orange would say "a single target
        value"), and the add-on's own checks of codes and magnitudes
        (:func:`orangecontrib.rules.base.check_table`)."""
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

    def update_model(self):
        self.cancel()
        self.show_fitting_failed(None)
        self.Warning.no_rules.clear()
        self.Warning.classes_without_rules.clear()
        self.model = None
        if self.check_data():
            self.start(run_fit, self.learner, self.data)
        else:
            self.Outputs.model.send(None)

    def on_partial_result(self, _):
        pass

    def on_done(self, model):
        model.name = self.effective_learner_name()
        model.instances = self.data
        self.model = model
        self.Warning.no_rules(shown=not model.rule_list)
        missing = getattr(model, "classes_without_rules", lambda: [])()
        if model.rule_list and missing:
            names = ", ".join(f"'{model.domain.class_var.values[c]}'" for c in missing)
            self.Warning.classes_without_rules(
                f"class {names}" if len(missing) == 1 else f"classes {names}",
                "it" if len(missing) == 1 else "them")
        self.Outputs.model.send(model)

    def on_exception(self, ex):
        self.show_fitting_failed(ex)
        self.Outputs.model.send(None)

    def onDeleteWidget(self):
        self.shutdown()
        super().onDeleteWidget()
