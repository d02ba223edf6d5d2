"""Example workflows of the Rules add-on (``.ows`` files), listed in Orange's
*Help > Example Workflows* through the ``orange.widgets.tutorials`` entry
point. ``scripts/make_workflows.py`` writes them."""
