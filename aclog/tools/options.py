"""Option values that every command checks the same way, so one value means one thing
everywhere: text a Kafka name can hold, principals and hosts (by the controller's own rules, so
a query cannot ask about what a change could never create), and operation names.

A command line may carry bytes that are not UTF-8 (Python keeps them as lone surrogates, so a
path still names its file); a name cannot, since every record and request encodes it as UTF-8.

Pure functions; thread-safe. Cost: O(length of the value).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import Annotated

import typer

from aclog.records import AclOperation
from aclog.tools.completion import ACL_OPERATIONS, OPERATION_HELP, complete_operation


class OptionError(ValueError):
    """Options that do not make a valid request; the message says what to change."""


OperationName = Annotated[
    str, typer.Option("--operation", help=OPERATION_HELP, autocompletion=complete_operation)
]
"""The one operation a question (explain, who-can, timeline) asks about."""

# The resource a question names, declared once for explain, who-can and timeline.
TopicName = Annotated[str | None, typer.Option(help="A topic name.")]
GroupName = Annotated[str | None, typer.Option(help="A consumer group.")]
ClusterFlag = Annotated[bool, typer.Option("--cluster", help="The cluster resource.")]
TransactionalIdName = Annotated[str | None, typer.Option(help="A transactional id.")]
UserResourceName = Annotated[str | None, typer.Option(help="A user resource.")]
DelegationTokenName = Annotated[str | None, typer.Option(help="A delegation token.")]


def check_text(value: str, option: str) -> str:
    """``value``, if it is text a name can hold (no bytes that are not UTF-8)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as error:
        raise OptionError(
            f"{option} {value!r} holds bytes that are not UTF-8 (at character {error.start + 1}); "
            "Kafka names are UTF-8 text"
        ) from None
    return value


def check_resource_name(name: str, option: str) -> str:
    """``name``, if a question about it can have an answer: UTF-8 text, not empty (Kafka
    refuses empty names, so no ACL names one and any answer would be about nothing)."""
    if not check_text(name, option):
        raise OptionError(f"{option}: the resource name is empty; Kafka refuses empty names")
    return name


def check_texts(values: Iterable[str], option: str) -> None:
    """:func:`check_text` for each of ``values``."""
    for value in values:
        check_text(value, option)


def check_principal(principal: str, option: str) -> str:
    """``principal``, if an ACL could hold it: ``Type:name`` with both parts non-empty (the rule
    ``acls add`` applies, :func:`aclog.controller.validation.principal_error`)."""
    from aclog.controller import principal_error  # noqa: PLC0415 - not for a command's --help

    error = principal_error(check_text(principal, option))
    if error is not None:
        raise OptionError(f"{option}: {error.message}")
    return principal


def check_caller_principal(principal: str, option: str) -> str:
    """``principal``, if a client could have it: the requests ``explain``, ``timeline`` and
    ``reach`` ask about are a session's, and Kafka's session principal is ``Type:name`` with
    either part possibly empty (``User:``), so it needs only the colon. Such a principal is
    answered as Kafka's authorizer answers it (a ``User:*`` ACL applies to it); what is refused
    at ACL creation (:func:`check_principal`) is an ACL that names one."""
    if ":" not in check_text(principal, option):
        raise OptionError(
            f"{option}: Invalid principal {principal!r}: a caller's principal is Type:name, "
            "for example User:alice (the name may be empty, as in User:)"
        )
    return principal


def check_host(host: str, option: str, *, glob: bool = False) -> str:
    """``host``, if an ACL could hold it: ``*`` or an IP address (or, with ``glob``, a pattern of
    IP-address characters), the rule ``acls add`` applies
    (:func:`aclog.controller.validation.host_error`)."""
    from aclog.controller import host_error  # noqa: PLC0415 - not for a command's --help

    error = host_error(check_text(host, option), glob=glob)
    if error is not None:
        raise OptionError(f"{option}: {error.message}")
    return host


def parse_operation(name: str, option: str = "--operation") -> AclOperation:
    """An operation named in any case or style (``Read``, ``DESCRIBE_CONFIGS``,
    ``DescribeConfigs``); the error lists exactly the names accepted."""
    check_text(name, option)
    try:
        operation = AclOperation.parse(name)
    except ValueError:
        operation = AclOperation.UNKNOWN
    if operation not in ACL_OPERATIONS:
        names = ", ".join(op.name for op in ACL_OPERATIONS)
        raise OptionError(
            f"{option} {name!r} is not an operation{_closest_operation(name)}; use one of: {names}"
        )
    return operation


def _closest_operation(name: str) -> str:
    """`` (did you mean 'READ'?)`` for a near miss such as ``Raed`` or ``describe-config``."""
    folded = {op.name.replace("_", "").lower(): op.name for op in ACL_OPERATIONS}
    key = name.replace("_", "").replace("-", "").lower()
    close = difflib.get_close_matches(key, list(folded), n=1, cutoff=0.75)
    return f" (did you mean {folded[close[0]]!r}?)" if close else ""
