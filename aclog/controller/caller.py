"""Who sends a request to the controller: recorded with every change it commits, as the batch's
``RequestContextRecord`` (who asked, from where, with which client, through which API).

Immutable; thread-safe.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Caller:
    """Who sends a request: recorded with every change it commits."""

    principal: str = "User:ANONYMOUS"
    client_address: str = "local"
    client_id: str = "aclog"
    api: str | None = None
