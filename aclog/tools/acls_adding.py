"""What ``aclog acls add`` does once :mod:`aclog.tools.acls_add` has its options: create ACLs
in a data directory or on a cluster.

A dry run, and a request every ACL of which fails validation, are decided on the state read
without the lock, so they write nothing and create no directory; any other add on a missing
data directory creates it, and removes it again if nothing is committed.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aclog.acl import AclFilter
from aclog.controller import AclCreateResult, creation_error
from aclog.records import AccessControlEntryRecord, AclBinding, ResourceType
from aclog.tools.acl_args import AclOptions
from aclog.tools.acl_options import bindings_for_add, parse_or_exit
from aclog.tools.acl_rows import create_row, print_created, print_impacts, report_create_failures
from aclog.tools.common import load_state
from aclog.tools.console import EXIT_USAGE, fail, print_json
from aclog.tools.data_dirs import holds_log
from aclog.tools.inventory import read_inventory
from aclog.tools.remote import RemoteTarget, Target, choose_target, data_dir_only, open_admin
from aclog.tools.writing import local_caller

if TYPE_CHECKING:
    from aclog.controller import MetadataWriter
    from aclog.image import MetadataImage


def add_acls(
    options: AclOptions,
    data_dir: Path | None,
    bootstrap_server: str | None,
    command_config: Path | None,
    *,
    dry_run: bool,
    inventory: Path | None,
    json_output: bool,
) -> None:
    """Run ``aclog acls add`` with ``options`` (see the module docstring)."""
    bindings = parse_or_exit(lambda: bindings_for_add(options))
    target = _add_target(data_dir, bootstrap_server, command_config, dry_run, inventory)
    resources = parse_or_exit(lambda: read_inventory(inventory)) if inventory else None
    current, before, results = _create(target, bindings, dry_run, want_before=not json_output)
    impacts = None
    if resources is not None and current is not None:
        impacts = _impacts(current, bindings, results, before, resources)
    rows = [create_row(b, r) for b, r in zip(bindings, results, strict=True)]
    if json_output:
        print_json({"results": rows} if impacts is None else {"results": rows, "impact": impacts})
    else:
        for binding, result in zip(bindings, results, strict=True):
            print_created(binding, result, before, dry_run)
        print_impacts(impacts)
    report_create_failures(bindings, results)


def _create(
    target: Target, bindings: list[AclBinding], dry_run: bool, *, want_before: bool
) -> tuple[Iterable[AccessControlEntryRecord] | None, set[AclBinding], list[AclCreateResult]]:
    """(the ACLs before, which of ``bindings`` existed, one result per binding).

    A dry run, and a request every ACL of which fails validation, are decided on the state read
    without the lock: nothing is written, no directory is created."""
    if not isinstance(target, RemoteTarget) and (
        dry_run or all(creation_error(b) is not None for b in bindings)
    ):
        from aclog.controller import AclControlManager  # noqa: PLC0415 (see _state_for_add)

        image = _state_for_add(target, read=dry_run)
        results = AclControlManager().create_acls(image.acls, bindings).response
        return image.acls, _existing(image.acls, bindings), results
    with open_admin(target, create=True) as writer:
        before = _existing_in(writer, bindings) if want_before else set()
        return None, before, writer.create_acls(bindings, local_caller("aclog acls add"))


def _state_for_add(data_dir: Path, *, read: bool) -> MetadataImage:
    """The committed state ``acls add`` would add to (``read``), or the empty state: also
    while the directory holds no log (missing, or a directory the add would start one in)."""
    # imported here, as the control manager above: the image loads numpy and pyarrow, which
    # completing an option of this command (--operation <TAB>) has no use for
    from aclog.image import MetadataImage  # noqa: PLC0415

    if read and data_dir.is_dir() and holds_log(data_dir):
        return load_state(data_dir, None, None).image
    return MetadataImage.EMPTY


def _add_target(
    data_dir: Path | None,
    bootstrap_server: str | None,
    command_config: Path | None,
    dry_run: bool,
    inventory: Path | None,
) -> Target:
    """Where ``acls add`` writes, after checking the flags that only a data directory takes."""
    if inventory is not None and not dry_run:
        fail("--inventory shows the effect of a change; use it with --dry-run", EXIT_USAGE)
    target = choose_target(data_dir, bootstrap_server, command_config)
    if dry_run:
        data_dir_only(target, "--dry-run", "Kafka's CreateAcls cannot preview a change")
    if inventory is not None:
        data_dir_only(target, "--inventory", "it needs the whole ACL state to compare against")
    return target


def _impacts(
    current: Iterable[AccessControlEntryRecord],
    bindings: list[AclBinding],
    results: list[AclCreateResult],
    before: set[AclBinding],
    resources: list[tuple[ResourceType, str]],
) -> list[dict[str, Any]]:
    """The inventory resources whose decisions the ACLs that ``results`` would add change."""
    new = [
        b.with_id(r.acl_id)
        for b, r in zip(bindings, results, strict=True)
        if r.acl_id is not None and b not in before
    ]
    from aclog.questions import impact_of_adding  # noqa: PLC0415 (only --inventory asks)

    return [i.to_dict() for i in impact_of_adding(current, new, resources)]


def _existing(
    current: Iterable[AccessControlEntryRecord], bindings: list[AclBinding]
) -> set[AclBinding]:
    """Which of ``bindings`` are among the ``current`` ACLs (for "exists" versus "added")."""
    wanted = set(bindings)
    return {acl.binding for acl in current if acl.binding in wanted}


def _existing_in(writer: MetadataWriter, bindings: list[AclBinding]) -> set[AclBinding]:
    """Which of ``bindings`` the writer already holds, asked per resource pattern."""
    patterns = dict.fromkeys((b.resource_type, b.resource_name, b.pattern_type) for b in bindings)
    found: set[AclBinding] = set()
    for resource_type, name, pattern_type in patterns:
        error, acls = writer.describe_acls(AclFilter(resource_type, name, pattern_type))
        if error.is_success:  # without DESCRIBE on the cluster every ACL shows as added
            found.update(acl.binding for acl in acls)
    return found & set(bindings)
