"""JSON-ready views of images: the one place that decides how an ACL or a user looks as data.

Used by ``to_dict()`` on the images and by the CLI's ``--json`` output. SCRAM salts and keys never
appear here; only mechanism names and iteration counts do.

Pure functions; thread-safe.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from aclog.records.enums import ScramMechanism
from aclog.records.render import record_to_dict
from aclog.records.types import AccessControlEntryRecord


class HasIterations(Protocol):
    """Anything with an iteration count (a stored SCRAM credential)."""

    @property
    def iterations(self) -> int: ...


def acl_to_dict(acl: AccessControlEntryRecord) -> dict[str, str]:
    """An ACL as ``{"id", "resource_type", ..., "permission_type"}``; enums by upper-case name
    and the id in Kafka's base64 text form (the record's own JSON form)."""
    return record_to_dict(acl)


def user_to_dict(
    name: str, credentials: Mapping[ScramMechanism, HasIterations]
) -> dict[str, object]:
    """A SCRAM user as ``{"name", "credentials": [{"mechanism", "iterations"}]}``, mechanisms in
    code order. Salts and keys are never included."""
    return {
        "name": name,
        "credentials": [
            {"mechanism": mechanism.mechanism_name, "iterations": credentials[mechanism].iterations}
            for mechanism in sorted(credentials)
        ],
    }
