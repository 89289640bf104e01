"""Sample data committed through the real controller: the short example history of ``aclog demo``,
and realistic, overlapping histories for trying the questions (``aclog demo --tenancy``), the
tests and the benchmarks."""

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

__all__ = [
    "Request",
    "Team",
    "Tenancy",
    "change_requests",
    "setup_requests",
    "tenancy",
    "write_example_history",
    "write_tenancy",
]
