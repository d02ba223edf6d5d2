"""Orange3-Rules: rule learning for Orange.

Learners (scripting API) and the shared pieces they are built from. The
compiled Cython core is required: importing this package without it fails
with an explanation (see :mod:`orangecontrib.rules.core`).
"""
from . import core  # noqa: F401  (fails loudly if the extensions are missing)
from .base import Explanation, Interrupted, PriorRuleModel, RuleLearner, RuleModel
from .cn2 import cn2_base
from .evaluation import size_curve
from .evc import EVCRuleLearner, EVCRuleModel, GumbelParameters
from .export import load_json, save_model
from .features import EncodedData, encode_table
from .logreg import RuleLogisticRegressionLearner, RuleLogisticRegressionModel
from .roccer import ROCCERLearner, ROCCERModel
from .rules import Condition, Rule, covering, format_rules
from .ruleset import STRATEGIES, RuleSetModel, score_rules
from .scoring import RuleScoringLearner
from .slipper import SlipperLearner, SlipperModel
from .sls import SLSEnsembleLearner, SLSEnsembleModel

__version__ = "0.1.0"

__all__ = [
    "Condition", "EVCRuleLearner", "EVCRuleModel", "EncodedData", "Explanation",
    "GumbelParameters", "Interrupted", "PriorRuleModel", "Rule",
    "RuleLearner", "RuleLogisticRegressionLearner", "RuleLogisticRegressionModel",
    "ROCCERLearner", "ROCCERModel", "RuleModel", "RuleScoringLearner", "RuleSetModel",
    "SLSEnsembleLearner", "SLSEnsembleModel",
    "STRATEGIES", "SlipperLearner", "SlipperModel", "cn2_base", "covering", "encode_table",
    "format_rules", "load_json", "save_model",
    "score_rules", "size_curve",
]
