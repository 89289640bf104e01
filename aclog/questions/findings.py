"""Hygiene findings: what ``aclog lint`` reports about ACLs and SCRAM credentials.

A finding has a kind (a stable identifier such as ``redundant_acl``), a severity, the ACLs or
the credential concerned and a one-line explanation. A report is the findings of one state,
with how much was checked.

Immutable values; thread-safe.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from aclog.records import AccessControlEntryRecord, record_to_dict


class Severity(Enum):
    """How much a finding matters, from least to most: info, warning, error."""

    INFO = "info"
    WARNING = "warning"
    ERROR = "error"

    @property
    def rank(self) -> int:
        return _RANKS[self]

    @classmethod
    def parse(cls, text: str) -> Severity:
        """``info``, ``warning`` or ``error``, any case; ``ValueError`` otherwise."""
        try:
            return cls(text.strip().lower())
        except ValueError:
            raise ValueError(f"unknown severity {text!r}; use info, warning or error") from None


_RANKS = {Severity.INFO: 0, Severity.WARNING: 1, Severity.ERROR: 2}


@dataclass(frozen=True)
class Finding:
    """One hygiene problem: about ``acls`` (the first is the one concerned, the others the
    reason), or about the SCRAM credential of ``user`` with ``mechanism``."""

    kind: str
    severity: Severity
    message: str
    acls: tuple[AccessControlEntryRecord, ...] = ()
    user: str | None = None
    mechanism: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "severity": self.severity.value,
            "message": self.message,
            "acls": [record_to_dict(acl) for acl in self.acls],
            "user": self.user,
            "mechanism": self.mechanism,
        }


@dataclass(frozen=True)
class LintReport:
    """The findings about one state, most severe first, and how much was checked;
    ``last_offset``: the offset the state is as of, when it came from a log (not in
    :meth:`to_dict`: it tells a caller where the point asked for landed)."""

    findings: list[Finding] = field(default_factory=list)
    acls_checked: int = 0
    credentials_checked: int = 0
    last_offset: int | None = None

    @classmethod
    def of(
        cls,
        findings: Iterable[Finding],
        acls: int,
        credentials: int,
        last_offset: int | None = None,
    ) -> LintReport:
        """A report with ``findings`` sorted most severe first (stable within a severity)."""
        ordered = sorted(findings, key=lambda f: -f.severity.rank)
        return cls(ordered, acls, credentials, last_offset)

    def at_least(self, severity: Severity) -> list[Finding]:
        """The findings of ``severity`` or worse."""
        return [f for f in self.findings if f.severity.rank >= severity.rank]

    def counts(self) -> dict[str, int]:
        return {s.value: sum(f.severity == s for f in self.findings) for s in Severity}

    def to_dict(self) -> dict[str, Any]:
        return {
            "acls_checked": self.acls_checked,
            "credentials_checked": self.credentials_checked,
            "counts": self.counts(),
            "findings": [f.to_dict() for f in self.findings],
        }
