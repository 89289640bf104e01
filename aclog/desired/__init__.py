"""ACLs as code: a desired-state file (``docs/as-code.md``), the plan that takes a cluster or a
data directory there inside what the file owns, and applying it.

:func:`load_desired` reads and validates a file; :func:`plan` compares it with a
:class:`CurrentState` (from an image, or read through a ``MetadataWriter``);
:func:`apply_atomically` commits a plan to a data directory as one batch and :func:`apply_remote`
applies it through the admin API (:func:`apply_to_directory` and :func:`apply_to_cluster` do all of
``aclog apply``: read, plan, check, apply); :func:`export_yaml` writes a state in the file's schema;
:mod:`aclog.desired.follow` records a live cluster's observed state the same way (one batch per
observed difference). Imports the controller (validation, control managers), the authorizer (impact)
and the layers below; never the wire, the pipeline or the CLI.
"""

from typing import TYPE_CHECKING

from aclog.faces import lazy_face

if TYPE_CHECKING:
    from aclog.desired.apply import (
        ApplyRefused,
        ApplyResult,
        ItemResult,
        apply_remote,
        check_plan,
    )
    from aclog.desired.atomic import apply_atomically
    from aclog.desired.converge import ApplyOptions, apply_to_cluster, apply_to_directory
    from aclog.desired.current import CurrentState
    from aclog.desired.export import export_dict, export_yaml
    from aclog.desired.follow import FollowLoop, FollowReport
    from aclog.desired.load import load_desired
    from aclog.desired.nodes import DesiredStateError
    from aclog.desired.passwords import Passwords, read_passwords
    from aclog.desired.planning import Plan, PlanError, UserChange, plan, plan_from_dict
    from aclog.desired.roles import Grant, Roles, role_grants
    from aclog.desired.state import (
        DesiredState,
        DesiredUser,
        Ownership,
        PasswordSource,
        describe_binding,
    )
    from aclog.desired.writer import ReadError, read_current

__all__ = [
    "ApplyOptions",
    "ApplyRefused",
    "ApplyResult",
    "CurrentState",
    "DesiredState",
    "DesiredStateError",
    "DesiredUser",
    "FollowLoop",
    "FollowReport",
    "Grant",
    "ItemResult",
    "Ownership",
    "PasswordSource",
    "Passwords",
    "Plan",
    "PlanError",
    "ReadError",
    "Roles",
    "UserChange",
    "apply_atomically",
    "apply_remote",
    "apply_to_cluster",
    "apply_to_directory",
    "check_plan",
    "describe_binding",
    "export_dict",
    "export_yaml",
    "load_desired",
    "plan",
    "plan_from_dict",
    "read_current",
    "read_passwords",
    "role_grants",
]

__getattr__ = lazy_face(__name__)
