"""Orange widgets of the Rules add-on (category "Rules").

Only widget modules live in this package: the canvas imports every module
here when it starts.
"""
import os

NAME = "Rules"
DESCRIPTION = "Rule learners: Fawcett's rule scoring for ROC, SLIPPER, EVC " \
              "rules, SLS rule-set ensembles and ROCCER."
ICON = "icons/category.svg"
BACKGROUND = "#f7c58a"
PRIORITY = 7000
KEYWORDS = ["rules", "rule learning", "classification"]

_HELP_DIR = os.path.join(os.path.dirname(__file__), "help")
WIDGET_HELP_PATH = (
    (os.path.join(_HELP_DIR, "index.html"), None),
)
