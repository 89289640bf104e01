"""How ``aclog acls`` shows its results: the JSON rows (the shapes every ``--json`` output uses,
with ``"id": null`` for ACLs read from a cluster, which exposes no ids) and the text lines; and
the failures on stderr, with Kafka's cap of 10,000 records per request named once instead of
one empty UNKNOWN_SERVER_ERROR per ACL.

Pure formatting plus printing; thread-safe apart from the shared consoles. Cost: O(rows).
"""

from __future__ import annotations

from typing import Any

import typer

from aclog.acl import AclFilter, ApiError
from aclog.controller import (
    MAX_RECORDS_PER_USER_OP,
    AclCreateResult,
    AclDeleteResult,
    cap_exceeded,
    creation_error,
    is_over_cap,
)
from aclog.records import (
    AccessControlEntryRecord,
    AclBinding,
    acl_text,
    json_value,
    record_to_dict,
)
from aclog.remote import REMOTE_ACL_ID
from aclog.tools.console import EXIT_FAILURE, print_line
from aclog.tools.writing import report_failures


def error_fields(error: ApiError) -> dict[str, Any]:
    """The ``error_code``/``error_message`` fields of a result row."""
    return {"error_code": error.code, "error_message": error.message}


def create_row(binding: AclBinding, result: AclCreateResult) -> dict[str, Any]:
    """One ``acls add --json`` result: the ACL, its id (``None`` if not created) and error."""
    row: dict[str, Any] = {"id": json_value(result.acl_id) if result.acl_id else None}
    row.update(record_to_dict(binding))
    row.update(error_fields(result.error))
    return row


def acl_dict(acl: AccessControlEntryRecord) -> dict[str, Any]:
    """An ACL as ``--json`` shows it."""
    row = record_to_dict(acl)
    if acl.id == REMOTE_ACL_ID:
        row["id"] = None  # read from a cluster: Kafka does not expose ACL ids
    return row


def delete_row(acl_filter: AclFilter, result: AclDeleteResult) -> dict[str, Any]:
    """One ``acls remove --json`` result: the filter, the ACLs it matched and its error."""
    row = record_to_dict(acl_filter)
    row["acls"] = [acl_dict(acl) for acl in result.acls]
    row.update(error_fields(result.error))
    return row


def describe_filter(acl_filter: AclFilter) -> str:
    """``filter TOPIC:LITERAL:orders`` (``*any*`` for a filter without a name)."""
    name = "*any*" if acl_filter.resource_name is None else acl_filter.resource_name
    return f"filter {acl_filter.resource_type.name}:{acl_filter.pattern_type.name}:{name}"


def print_created(
    binding: AclBinding, result: AclCreateResult, before: set[AclBinding], dry_run: bool
) -> None:
    """``added``, ``would add`` or ``exists``, and the ACL, for a creation that succeeded."""
    if not result.error.is_success:
        return
    fresh = "would add" if dry_run else "added"
    state = "exists" if binding in before else fresh
    print_line(f"{state:<9} {acl_text(binding)}")


def print_impacts(impacts: list[dict[str, Any]] | None) -> None:
    """The inventory resources whose decisions the new ACLs change, and how."""
    if impacts is None:
        return
    print_line(f"the new ACLs apply to {len(impacts)} inventory resources")
    for impact in impacts:
        print_line(f"  {impact['resource_type']}:{impact['resource_name']}")
        for c in impact["changes"]:
            print_line(
                f"    {c['principal']} {impact_host(c['host'])} {c['operation']}: "
                f"{c['before']} -> {c['after']}"
            )


def impact_host(host: str) -> str:
    """Where an impact row's client stands, for a person: the address the impact examined for
    "a client no host-specific ACL names" (``0.0.0.0``, which read as a real address) is
    "from any other host", as ``who-can`` words it; ``--json`` keeps the address."""
    from aclog.questions import ANY_OTHER_HOST  # noqa: PLC0415 (the questions load the authorizer)

    return "from any other host" if host == ANY_OTHER_HOST else f"from {host}"


def report_create_failures(bindings: list[AclBinding], results: list[AclCreateResult]) -> None:
    """Each failed creation on stderr, exit 1 if any; a request over Kafka's cap of 10,000
    records is said once, with what to do, instead of once per ACL with an empty message."""
    failed = [
        (b, r.error) for b, r in zip(bindings, results, strict=True) if not r.error.is_success
    ]
    valid = sum(1 for b in bindings if creation_error(b) is None)
    if valid > MAX_RECORDS_PER_USER_OP and any(is_over_cap(error) for _, error in failed):
        print_line(
            f"aclog: nothing was created: {cap_exceeded(valid, 'this request names')}; split it "
            f"into commands of at most {MAX_RECORDS_PER_USER_OP:,} new ACLs each",
            stderr=True,
        )
        report_failures([(acl_text(b), e) for b, e in failed if not is_over_cap(e)])
        raise typer.Exit(EXIT_FAILURE)
    report_failures([(acl_text(b), e) for b, e in failed])
