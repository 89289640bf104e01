"""What a controller operation returns: the records to commit plus the per-item response.

Immutable; thread-safe.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Generic, TypeVar

from aclog.acl import ApiError
from aclog.records.types import AccessControlEntryRecord, Record

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class ControllerResult(Generic[T]):
    """The records an operation wants committed (as ONE atomic batch) and its response.

    The response describes the outcome once the records are committed; if the commit fails, the
    caller answers every item with that failure instead.
    """

    records: tuple[Record, ...]
    response: T


@dataclass(frozen=True, slots=True)
class AclCreateResult:
    """The result of one ACL creation, in request order.

    ``acl_id`` is the id the ACL has after the commit: a new id, or the id of the identical ACL
    that was already stored (a duplicate succeeds without a record). ``None`` on failure.
    """

    error: ApiError = ApiError.NONE
    acl_id: uuid.UUID | None = None


@dataclass(frozen=True, slots=True)
class AclDeleteResult:
    """The result of one DeleteAcls filter: the ACLs it removes (commit order), or an error."""

    error: ApiError = ApiError.NONE
    acls: tuple[AccessControlEntryRecord, ...] = ()


@dataclass(frozen=True, slots=True)
class ScramAlterResult:
    """The AlterUserScramCredentials result for one user (Kafka keys results by user)."""

    user: str
    error: ApiError = ApiError.NONE
