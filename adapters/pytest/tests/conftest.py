"""Shared set-up of the plugin's tests."""

# Hypothesis's own pytest plugin imports hypothesis at the end of every run. pytester's
# in-process runs drop the modules a run imported, so without this import each of
# them would import hypothesis afresh (most of a second apiece).
import hypothesis  # noqa: F401

# Hypothesis's per-example deadline (200 ms by default) measures the machine's load, not the code: a busy
# machine failed a test with DeadlineExceeded (adapters/pytest/tests/test_assertions.py's accuracy property,
# whose batch now runs in worker threads). A hang is pytest-timeout's to catch.
from hypothesis import settings as _settings

_settings.register_profile("scorebridge", deadline=None)
_settings.load_profile("scorebridge")
