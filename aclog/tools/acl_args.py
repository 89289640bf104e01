"""The parsed options of one ``aclog acls`` command, as kafka-acls names them: what
:mod:`aclog.tools.acl_options` turns into bindings and filters and :mod:`aclog.tools.acl_roles`
expands into role grants.

Mutable while parsing; not shared between threads.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class AclOptions:
    """The parsed options of one ``aclog acls`` command."""

    allow_principals: list[str] = field(default_factory=list)
    deny_principals: list[str] = field(default_factory=list)
    allow_hosts: list[str] = field(default_factory=list)
    deny_hosts: list[str] = field(default_factory=list)
    operations: list[str] = field(default_factory=list)
    topics: list[str] = field(default_factory=list)
    groups: list[str] = field(default_factory=list)
    cluster: bool = False
    transactional_ids: list[str] = field(default_factory=list)
    users: list[str] = field(default_factory=list)
    delegation_tokens: list[str] = field(default_factory=list)
    pattern_type: str | None = None
    producer: bool = False
    consumer: bool = False
    idempotent: bool = False
    principals: list[str] = field(default_factory=list)
