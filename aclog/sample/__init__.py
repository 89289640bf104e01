"""Sample data: realistic, overlapping histories committed through the real controller, for trying
the questions (``aclog demo --tenancy``), the tests and the benchmarks."""

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
    "write_tenancy",
]
