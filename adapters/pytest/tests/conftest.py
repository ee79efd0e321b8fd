"""Shared set-up of the plugin's tests."""

# Hypothesis's own pytest plugin imports hypothesis at the end of every run. pytester's
# in-process runs drop the modules a run imported, so without this import each of
# them would import hypothesis afresh (most of a second apiece).
import hypothesis  # noqa: F401
