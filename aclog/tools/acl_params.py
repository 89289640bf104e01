"""The options the ``aclog acls`` commands share, as kafka-acls names them, and how a command
gathers them into :class:`~aclog.tools.acl_args.AclOptions`. Only typer and the completion
choices: a command's ``--help`` reads these without importing the library (issue 37).

Declarations and pure functions; thread-safe. Cost: nothing at run time.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from aclog.tools.acl_args import AclOptions
from aclog.tools.completion import OPERATION_HELP, complete_operation, complete_pattern_type

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
