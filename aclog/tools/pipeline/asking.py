"""What a pipeline question names, parsed: the principals, resources and operations of
``access``, ``who-can``, ``reach``, ``timeline`` and ``orphans``, from files and repeated
options, and the authorizer's settings; each bad value a usage error (exit 2) naming it.

Thread-safe (no shared state). Cost: reading the named files.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any

import typer

from aclog.records import AclOperation, ResourceType
from aclog.tools.console import EXIT_USAGE, fail
from aclog.tools.pipeline.shared import pipeline_modules

ResourcesOption = Annotated[
    Path | None,
    typer.Option("--resources", help="TYPE:name lines, e.g. TOPIC:orders.", readable=False),
]
TopicsOption = Annotated[list[str] | None, typer.Option("--topic", help="A topic (repeatable).")]
GroupsOption = Annotated[list[str] | None, typer.Option("--group", help="A group (repeatable).")]
PrincipalsOption = Annotated[
    Path | None, typer.Option("--principals", help="One User:name per line.", readable=False)
]
PrincipalOption = Annotated[
    list[str] | None, typer.Option("--principal", help="A principal (repeatable).")
]
OperationsOption = Annotated[
    list[str], typer.Option("--operation", help="Read, Write, ... (repeatable).")
]


def read_principals(path: Path) -> list[str]:
    """The ``Type:name`` lines of ``path`` (blank lines and ``#`` comments skipped); a usage
    error names the first bad line."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as error:
        fail(f"cannot read the principals file {path}: {error.strerror}", EXIT_USAGE)
    found = []
    for number, line in enumerate(lines, start=1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        kind, sep, name = text.partition(":")
        if not (kind and sep and name):
            fail(f"{path}:{number}: expected a principal like User:alice, got {text!r}", EXIT_USAGE)
        found.append(text)
    return found


def read_resources(path: Path) -> list[tuple[ResourceType, str]]:
    """The ``TYPE:name`` inventory of ``path``, or a usage error."""
    from aclog.tools.acl_options import OptionError, read_inventory  # noqa: PLC0415 - on a run

    try:
        return read_inventory(path)
    except OptionError as error:
        fail(str(error), EXIT_USAGE)


def parse_operations(names: Sequence[str]) -> tuple[AclOperation, ...]:
    """``--operation(s)`` names as operations a request can ask for, or a usage error."""
    try:
        found = tuple(AclOperation.parse(n) for n in names)
    except ValueError as error:
        fail(str(error), EXIT_USAGE)
    bad = [op.name for op in found if op in (AclOperation.ANY, AclOperation.UNKNOWN)]
    if bad:
        fail(f"--operations {bad[0]} is not an operation a request can ask for", EXIT_USAGE)
    return found


def named_resources(
    path: Path | None, topics: list[str] | None, groups: list[str] | None
) -> list[tuple[ResourceType, str]]:
    """The resources of ``--resources``, ``--topic`` and ``--group``, once each, in order; a
    usage error when none is named."""
    named = [(ResourceType.TOPIC, t) for t in topics or []]
    named += [(ResourceType.GROUP, g) for g in groups or []]
    found = (read_resources(path) if path is not None else []) + named
    if not found:
        fail("name the resources: --resources FILE, --topic or --group", EXIT_USAGE)
    return list(dict.fromkeys(found))


def named_principals(path: Path | None, principals: list[str] | None) -> list[str]:
    """The principals of ``--principals`` and ``--principal``, once each, in order; a usage
    error when none is named."""
    found = (read_principals(path) if path is not None else []) + list(principals or [])
    if not found:
        fail("name the principals: --principals FILE or --principal", EXIT_USAGE)
    return list(dict.fromkeys(found))


def super_user_set(super_users: str | None) -> frozenset[str]:
    """``--super-users`` (Kafka's ``super.users``) as principals, or a usage error."""
    from aclog.authorizer import parse_super_users  # noqa: PLC0415 - the library on a run

    try:
        return frozenset(parse_super_users(super_users))
    except ValueError as error:
        fail(str(error), EXIT_USAGE)


def question_settings(super_users: str | None, allow_everyone: bool) -> Any:
    """The authorizer's settings the question jobs answer with
    (:class:`aclog.pipeline.questions.Settings`)."""
    settings: Any = pipeline_modules().questions.Settings(
        super_user_set(super_users), allow_everyone
    )
    return settings
