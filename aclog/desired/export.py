"""Writing a state as a desired-state file (the schema of :mod:`aclog.desired.load`), so a team
can start from what a cluster holds: ``aclog export --format yaml``.

ACLs that differ only in their operation become one entry with an operations list; the file
owns everything (``owns: all``); users carry their mechanism and iteration count but no
password source (no password can be read back), which the loader accepts for a credential that
exists. Loading the text back and planning against the same state gives no changes.

Pure; thread-safe. Cost: O(ACLs + users).
"""

from __future__ import annotations

from typing import Any

import yaml

from aclog.desired.current import CurrentState
from aclog.desired.load import FORMAT_VERSION
from aclog.records import AclBinding

HEADER = (
    "# aclog desired state (docs/as-code.md).\n"
    "# Passwords are never exported: give a user password_env or password_file to set one.\n"
)


def export_dict(current: CurrentState) -> dict[str, Any]:
    """The desired-state document of ``current``, ACLs grouped by everything but operation."""
    grouped: dict[tuple[Any, ...], list[str]] = {}
    for acl in current.acls:
        grouped.setdefault(_group(acl), []).append(acl.operation.name.lower())
    acls = [
        {
            "resource_type": resource_type.name.lower(),
            "resource_name": name,
            "pattern_type": pattern.name.lower(),
            "principal": principal,
            "host": host,
            "operations": operations,
            "permission": permission.name.lower(),
        }
        for (resource_type, name, pattern, principal, host, permission), operations in (
            grouped.items()
        )
    ]
    users = [
        {"name": name, "mechanism": mechanism.mechanism_name, "iterations": iterations}
        for (name, mechanism), iterations in sorted(current.users.items())
    ]
    return {"version": FORMAT_VERSION, "owns": "all", "acls": acls, "users": users}


_DUMPER: type[yaml.SafeDumper] = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
"""libyaml's emitter where PyYAML was built with it (its wheels are): the pure-Python one writes
U+0085 (NEL) unescaped, which a YAML reader takes for a line break, so a principal
``User:\x85`` came back as ``User: `` (a plan from the file would then swap the ACL for another);
and it took about 55 s of a 200k-ACL export whose replay took 10."""


def export_yaml(current: CurrentState, comment: str = "") -> str:
    """:func:`export_dict` as YAML text, after :data:`HEADER` and ``comment`` lines."""
    lines = "".join(f"# {line}\n" for line in comment.splitlines())
    body = yaml.dump(
        export_dict(current),
        Dumper=_DUMPER,
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=False,
    )
    return HEADER + lines + body


def _group(acl: AclBinding) -> tuple[Any, ...]:
    return (
        acl.resource_type,
        acl.resource_name,
        acl.pattern_type,
        acl.principal,
        acl.host,
        acl.permission_type,
    )
