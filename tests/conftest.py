"""Settings for every test.

Hypothesis: no per-example deadline and no "too slow" health check. Both time the machine, not
the code: CI runs on shared machines whose load can stretch an example past 200 ms, which
failed unchanged code now and then. Speed is measured by ``make bench``, never by tests.
"""

from __future__ import annotations

from hypothesis import HealthCheck, settings

settings.register_profile("aclog", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("aclog")
