"""The options the ``aclog acls`` commands share, as kafka-acls names them, and how a command
turns them into :class:`~aclog.tools.acl_args.AclOptions` (an option error exits 2).

Declarations and pure functions; thread-safe. Cost: nothing at run time.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, TypeVar

import typer

from aclog.tools.acl_options import AclOptions, OptionError, complete_pattern_type
from aclog.tools.console import EXIT_USAGE, fail, fail_os
from aclog.tools.options import OPERATION_HELP, complete_operation

T = TypeVar("T")

Many = list[str] | None
AllowPrincipal = Annotated[Many, typer.Option("--allow-principal", help="Type:name to allow.")]
DenyPrincipal = Annotated[Many, typer.Option("--deny-principal", help="Type:name to deny.")]
AllowHost = Annotated[Many, typer.Option("--allow-host", help="Host to allow (default *).")]
DenyHost = Annotated[Many, typer.Option("--deny-host", help="Host to deny (default *).")]
Operation = Annotated[
    Many,
    typer.Option(
        "--operation",
        help=f"{OPERATION_HELP} (repeatable).",
        autocompletion=complete_operation,
    ),
]
Topic = Annotated[Many, typer.Option("--topic", help="Topic name or pattern.")]
Group = Annotated[Many, typer.Option("--group", help="Consumer group name or pattern.")]
Cluster = Annotated[bool, typer.Option("--cluster", help="The cluster resource.")]
TxnId = Annotated[Many, typer.Option("--transactional-id", help="Transactional id.")]
User = Annotated[Many, typer.Option("--user", help="User resource (delegation tokens).")]
Token = Annotated[Many, typer.Option("--delegation-token", help="Delegation token id.")]
PatternOpt = Annotated[
    str | None,
    typer.Option(
        "--resource-pattern-type",
        help="literal, prefixed or glob (list/remove also take any and match).",
        autocompletion=complete_pattern_type,
    ),
]
DryRun = Annotated[bool, typer.Option("--dry-run", help="Show what would change; write nothing.")]


def acl_options(**values: Any) -> AclOptions:
    """The options of a command, with each repeatable option given as a list (``None``: [])."""
    return AclOptions(**{k: (v if v is not None else []) for k, v in values.items()})


def parse_or_exit(build: Callable[[], T]) -> T:
    """What ``build`` returns; an option error exits 2, a file that cannot be read by the
    rule for every path (:func:`aclog.tools.console.os_error_code`)."""
    try:
        return build()
    except OptionError as error:
        fail(str(error), EXIT_USAGE)
    except OSError as error:
        fail_os("read", error)
