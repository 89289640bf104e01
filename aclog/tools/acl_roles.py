"""kafka-acls' role shortcuts as options: which ``--producer``, ``--consumer`` and
``--idempotent`` combinations are refused; what they grant is defined once, in
:mod:`aclog.desired.roles`. By the rules of Kafka's ``AclCommand`` (Kafka 4.0):

- ``--producer``: WRITE, DESCRIBE and CREATE on each ``--topic``; WRITE and DESCRIBE on each
  ``--transactional-id``; with ``--idempotent``, IDEMPOTENT_WRITE on the cluster. A
  transactional id alone adds nothing on the cluster (a transactional producer is authorized
  through its transactional id).
- ``--consumer``: READ and DESCRIBE on each ``--topic``; READ on each ``--group``.
- Topics, groups and transactional ids take ``--resource-pattern-type``; the cluster ACL is
  always the LITERAL ``kafka-cluster``, whatever the pattern type.
- Refused, as kafka-acls refuses them: ``--producer`` without ``--topic``; ``--idempotent``
  without ``--producer``; ``--consumer`` without both ``--topic`` and ``--group``, or with
  ``--cluster`` or ``--transactional-id`` unless ``--producer`` is given too; a role with
  ``--operation``, ``--deny-principal`` or ``--deny-host``.
- One deliberate difference: a resource that no given role grants anything on (``--group``
  without ``--consumer``, ``--cluster`` without ``--idempotent``, ``--user``,
  ``--delegation-token``) is refused, where kafka-acls drops it without a word.

Pure functions; thread-safe.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aclog.desired import Grant, Roles
from aclog.desired import role_grants as grants_of
from aclog.records import PatternType
from aclog.tools.options import OptionError

if TYPE_CHECKING:
    from aclog.tools.acl_args import AclOptions

__all__ = ["Grant", "check_role_options", "has_role", "role_grants"]


def has_role(options: AclOptions) -> bool:
    """Whether the options ask for a role (``--producer`` or ``--consumer``)."""
    return options.producer or options.consumer


def role_grants(options: AclOptions, pattern: PatternType) -> list[Grant]:
    """The resource patterns the roles grant on, each with its operations, in option order."""
    check_role_options(options)
    roles = Roles(
        producer=options.producer,
        consumer=options.consumer,
        idempotent=options.idempotent,
        topics=options.topics,
        transactional_ids=options.transactional_ids,
        groups=options.groups,
    )
    return grants_of(roles, pattern)


def check_role_options(options: AclOptions) -> None:
    """Refuse the combinations kafka-acls refuses, and resources no given role grants on."""
    if options.idempotent and not options.producer:
        raise OptionError("--idempotent is only available with --producer")
    if not has_role(options):
        return
    for values, option in (
        (options.operations, "--operation"),
        (options.deny_principals, "--deny-principal"),
        (options.deny_hosts, "--deny-host"),
    ):
        if values:
            raise OptionError(
                f"{option} cannot be combined with --producer or --consumer: a role names its "
                "own operations and grants them with --allow-principal"
            )
    if options.producer and not options.topics:
        raise OptionError("--producer needs at least one --topic")
    if options.consumer and not (options.topics and options.groups):
        raise OptionError("--consumer needs at least one --topic and one --group")
    if options.consumer and not options.producer and (options.cluster or options.transactional_ids):
        raise OptionError(
            "--consumer takes no --cluster or --transactional-id (those are for --producer)"
        )
    _refuse_unused(options)


def _refuse_unused(options: AclOptions) -> None:
    unused = [
        ("--group", bool(options.groups) and not options.consumer, "it needs --consumer"),
        ("--cluster", options.cluster and not options.idempotent, "it needs --idempotent"),
        ("--user", bool(options.users), "no role grants on users"),
        ("--delegation-token", bool(options.delegation_tokens), "no role grants on tokens"),
    ]
    for option, given, reason in unused:
        if given:
            raise OptionError(
                f"{option} would add no ACL with these roles ({reason}); drop it, or add its "
                "ACLs with --operation in a separate command"
            )
