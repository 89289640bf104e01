"""Making a data directory or a cluster hold a desired-state file: read its state, plan inside
what the file owns, check the plan, apply it. The whole of ``aclog apply``, one call per kind
of target.

A data directory's :class:`~aclog.controller.controller.Controller` is read from its image and
gets the plan as ONE batch (:func:`aclog.desired.atomic.apply_atomically`); any other writer
(the ``--bootstrap-server`` admin client) is read through DescribeAcls and
DescribeUserScramCredentials and gets the changes item by item
(:func:`aclog.desired.apply.apply_remote`).

Not thread-safe beyond what the writer is. Cost: a read of the state, the plan, the apply.
"""

from __future__ import annotations

from dataclasses import dataclass

from aclog.controller.caller import Caller
from aclog.controller.controller import Controller
from aclog.controller.writer import MetadataWriter
from aclog.desired.apply import ApplyRefused, ApplyResult, apply_remote, check_plan
from aclog.desired.atomic import apply_atomically
from aclog.desired.current import CurrentState
from aclog.desired.limits import directory_cap_problem
from aclog.desired.passwords import Passwords
from aclog.desired.planning import Plan, PlanError, plan
from aclog.desired.state import DesiredState
from aclog.desired.writer import read_current


@dataclass(frozen=True)
class ApplyOptions:
    """``allow_delete``: removals may be applied; ``set_passwords``: declared passwords that
    cannot be checked are set anyway; ``saved``: the plan a user reviewed (``--plan-file``)."""

    allow_delete: bool = False
    set_passwords: bool = False
    saved: Plan | None = None


def apply_to_directory(
    desired: DesiredState,
    passwords: Passwords,
    controller: Controller,
    caller: Caller,
    options: ApplyOptions | None = None,
) -> ApplyResult:
    """Apply ``desired`` to a data directory's ``controller`` as ONE batch; :class:`ApplyRefused`
    (nothing written) when the plan cannot be made, deletes without ``allow_delete``, is not
    the ``saved`` one, or is over Kafka's cap of 10,000 records per request."""
    current = CurrentState.from_image(controller.image)
    computed = _checked_plan(desired, current, passwords, options or ApplyOptions())
    problem = directory_cap_problem(computed.add, computed.remove, current)
    if problem is not None:
        raise ApplyRefused(f"nothing was applied: {problem}")
    return apply_atomically(computed, controller, passwords, caller)


def apply_to_cluster(
    desired: DesiredState,
    passwords: Passwords,
    writer: MetadataWriter,
    caller: Caller,
    options: ApplyOptions | None = None,
) -> ApplyResult:
    """Apply ``desired`` through ``writer``'s admin operations, item by item; refused as
    :func:`apply_to_directory` is, and :class:`~aclog.desired.writer.ReadError` when the cluster
    refuses to describe itself."""
    current = read_current(writer, caller)
    computed = _checked_plan(desired, current, passwords, options or ApplyOptions())
    return apply_remote(computed, writer, passwords, caller)


def _checked_plan(
    desired: DesiredState, current: CurrentState, passwords: Passwords, options: ApplyOptions
) -> Plan:
    try:
        computed = plan(desired, current, passwords=passwords, set_unverified=options.set_passwords)
    except PlanError as error:
        raise ApplyRefused(str(error)) from None
    check_plan(computed, allow_delete=options.allow_delete, saved=options.saved)
    return computed
