"""SLS Ensembles widget: weighted ensembles of k-term DNF rule sets found by
stochastic local search (Rückert & Kramer 2006)."""
from Orange.widgets import gui
from Orange.widgets.settings import Setting

from orangecontrib.rules.sls import SLSEnsembleLearner
from orangecontrib.rules.widgets.base import OWRulesLearnerBase
from orangecontrib.rules.widgets.common import LABELS, AllCoresSetting, details_box

SLS = SLSEnsembleLearner.parameters


class OWSLSEnsembles(AllCoresSetting, OWRulesLearnerBase):
    name = "SLS Ensembles"
    description = "Weighted ensembles of small rule sets found by stochastic " \
                  "local search, with abstention and a PAC-Bayes error bound " \
                  "(Rückert & Kramer 2006)."
    icon = "icons/SLSEnsembles.svg"
    priority = 50
    keywords = "sls, stochastic local search, ensemble, rule sets, dnf, " \
               "pac-bayes, abstention"

    LEARNER = SLSEnsembleLearner

    k_max = Setting(8)
    n_rule_sets = Setting(20)
    rho = Setting(0.9)
    max_steps = Setting(5000)
    p_noise = Setting(0.2)
    p_restart = Setting(0.01)
    n_intervals = Setting(10)
    theta = Setting(0.0)
    delta = Setting(0.05)
    # all cores, as the other widgets of the add-on (the model is the same)
    random_state = Setting(0)
    details_shown = Setting(False)
    every_rule_set = Setting(False)  # the readable default: SLS's max_rules="auto"

    def add_main_layout(self):
        box = gui.vBox(self.controlArea, "Ensemble")
        self.k_max_spin = gui.spin(
            box, self, "k_max", *SLS.spin("k_max"), label="Largest rule set (rules):",
            tooltip="Rule sets of 1, 2, ... up to this many rules are searched "
                    "(the paper's k_max). Larger sets fit more complex classes "
                    "but take longer.",
            callback=self.settings_changed)
        self.n_rule_sets_spin = gui.spin(
            box, self, "n_rule_sets", *SLS.spin("n_rule_sets"), label="Rule sets per size:",
            tooltip="How many rule sets are searched for each size (the "
                    "paper's o). More give smoother probabilities; the time "
                    "grows proportionally.",
            callback=self.settings_changed)
        self.rho_spin = gui.doubleSpin(
            box, self, "rho", *SLS.spin("rho"), 0.01, label="Weight kept per error:",
            tooltip="The paper's ρ: a rule set with e training errors gets "
                    "weight ∝ ρ^e (on more than 1,000 rows, e counts the errors "
                    "as a share of 1,000). Smaller values trust the most "
                    "accurate rule sets more; 1 weighs all rule sets equally.",
            callback=self.settings_changed)
        self.every_check = gui.checkBox(
            box, self, "every_rule_set", "Every rule set (the whole ensemble)",
            tooltip="Keep every rule set the searches found, as in the paper: "
                    "hundreds of rules on a few hundred rows, thousands on many "
                    "classes. Unchecked, the model keeps the rule sets nearest "
                    "the whole ensemble within 50 rules on two classes and 25 "
                    "per class on more (a model a person can read; on 12 "
                    "two-class sets AUC 0.860 against 0.863).",
            callback=self.settings_changed)
        self.n_intervals_spin = gui.spin(
            box, self, "n_intervals", *SLS.spin("n_intervals"),
            label="Intervals per numeric column:",
            tooltip="Numeric attributes are cut into this many equal-frequency "
                    "intervals; rules test the cuts (missing values become a "
                    "value of their own).",
            callback=self.settings_changed)
        box = gui.vBox(self.controlArea, "Abstention and bound")
        self.theta_spin = gui.doubleSpin(
            box, self, "theta", *SLS.spin("theta"), 0.05, label="Abstain below margin:",
            tooltip="The paper's θ: the model abstains when the two highest "
                    "class scores differ by less than this (0 to 2) and "
                    "predicts the training class distribution there. 0 never "
                    "abstains.",
            callback=self.settings_changed)
        self.delta_spin = gui.doubleSpin(
            box, self, "delta", *SLS.spin("delta"), 0.01, decimals=3,
            label="Bound may fail with probability:",
            tooltip="The paper's δ: the PAC-Bayes error bound holds with "
                    "probability 1 - δ.",
            callback=self.settings_changed)
        box = details_box(self)
        self.max_steps_spin = gui.spin(
            box, self, "max_steps", *SLS.spin("max_steps"), step=500,
            label="Steps per search:",
            tooltip="Moves of one stochastic local search; the best rule set "
                    "seen is kept.",
            callback=self.settings_changed)
        self.p_noise_spin = gui.doubleSpin(
            box, self, "p_noise", *SLS.spin("p_noise"), 0.05, label="Random move probability:",
            tooltip="Probability of changing a random literal instead of the "
                    "best one; helps the search leave local optima.",
            callback=self.settings_changed)
        self.p_restart_spin = gui.doubleSpin(
            box, self, "p_restart", *SLS.spin("p_restart"), 0.005, decimals=3,
            label="Restart probability:",
            tooltip="Probability per step of starting again from a random "
                    "rule set.",
            callback=self.settings_changed)
        self.seed_spin = gui.spin(
            box, self, "random_state", *SLS.spin("random_state"), label=LABELS["random_state"],
            tooltip="The same seed gives the same ensemble.",
            callback=self.settings_changed)
        self.add_cores_check(
            box, tooltip="Run the searches in parallel threads; the ensemble is the "
                         "same either way.")

    def unlimited_args(self):
        return dict(max_rules=None if self.every_rule_set else "auto")

    def create_learner(self):
        return self.LEARNER(
            k_max=self.k_max, n_rule_sets=self.n_rule_sets, rho=self.rho,
            max_steps=self.max_steps, p_noise=self.p_noise, p_restart=self.p_restart,
            n_intervals=self.n_intervals, theta=self.theta, delta=self.delta,
            random_state=self.random_state, **self.size_args(), **self.cores_args(),
            preprocessors=self.preprocessors)

    def get_learner_parameters(self):
        return (("Rule set sizes", f"1 to {self.k_max}"),
                ("Rule sets per size", self.n_rule_sets),
                ("Weight kept per error (ρ)", f"{self.rho:g}"),
                ("Local search", f"{self.max_steps} steps, random moves "
                                 f"{self.p_noise:g}, restarts {self.p_restart:g}"),
                ("Intervals for numeric attributes", self.n_intervals),
                ("Abstention threshold (θ)",
                 f"{self.theta:g}" if self.theta > 0 else "never abstain"),
                ("Bound may fail with probability (δ)", f"{self.delta:g}"),
                ("Random seed", self.random_state))


if __name__ == "__main__":  # pragma: no cover
    from Orange.data import Table
    from Orange.widgets.utils.widgetpreview import WidgetPreview
    WidgetPreview(OWSLSEnsembles).run(Table("heart_disease"))
