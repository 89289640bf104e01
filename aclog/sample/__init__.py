"""Sample data committed through the real controller: the short example history of ``aclog demo``,
and realistic, overlapping histories for trying the questions (``aclog demo --tenancy``), the
tests and the benchmarks; and what ``aclog quickstart`` asks of a running listener."""

from aclog.sample.example import write_example_history
from aclog.sample.tenants import (
    Request,
    Team,
    Tenancy,
    change_requests,
    setup_requests,
    tenancy,
    write_tenancy,
)
from aclog.sample.walkthrough import WALKTHROUGH_USER, admin_walkthrough, explain_walkthrough

__all__ = [
    "WALKTHROUGH_USER",
    "Request",
    "Team",
    "Tenancy",
    "admin_walkthrough",
    "change_requests",
    "explain_walkthrough",
    "setup_requests",
    "tenancy",
    "write_example_history",
    "write_tenancy",
]
