"""Shell completion of option values: what ``aclog acls add --operation <TAB>`` offers, and the
choices it offers for operations and pattern types (the commands' help names them too, so they
live here, beside typer alone and the record enums, not beside the parsers).

Typer answers a shell's completion request (``_ACLOG_COMPLETE=complete_bash`` and the words
typed so far, set by the script ``aclog --install-completion`` installs) by resolving the command
and calling the ``autocompletion`` of the option being completed; the functions here are those.
They offer the spelling a kafka-acls user types (``DescribeConfigs``, ``SCRAM-SHA-256``), or,
when the user began another spelling the parsers read (``describe-c``), that one.

Pure functions; thread-safe. Cost: one pass over a dozen names.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

import typer  # the completion functions' annotations: typer reads them when it calls one

from aclog.records import NAMEABLE_OPERATIONS


def _spellings(name: str) -> list[str]:
    """``name`` as it is, then each way a parser also reads it: its words joined by ``-``,
    ``_`` or nothing, in lower, upper or capitalised case (``describe-configs``,
    ``DESCRIBE_CONFIGS``, ``describeconfigs``...)."""
    words = _WORD.findall(name)
    cases = (str.lower, str.upper, str.capitalize)
    return [name, *(sep.join(map(case, words)) for sep in ("-", "_", "") for case in cases)]


_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
"""A word of a name: ``Describe`` and ``Configs`` of ``DescribeConfigs``, ``SHA`` of
``SCRAM-SHA-256``."""


def starting_with(incomplete: str, names: Iterable[str]) -> list[str]:
    """Each of ``names`` that what was typed (``incomplete``) begins, in the first spelling
    that starts with exactly that (typer drops a completion that does not), in their order."""
    offered = []
    for name in names:
        spelling = next((s for s in _spellings(name) if s.startswith(incomplete)), None)
        if spelling is not None:
            offered.append(spelling)
    return offered


def completer(names: Iterable[str]) -> Callable[[str], list[str]]:
    """An ``autocompletion`` for an option whose value is one of ``names``."""
    fixed = tuple(names)

    def complete(incomplete: str) -> list[str]:
        return starting_with(incomplete, fixed)

    return complete


def camel_case(enum_name: str) -> str:
    """``DescribeConfigs`` for ``DESCRIBE_CONFIGS``: how kafka-acls writes an operation."""
    return "".join(part.capitalize() for part in enum_name.split("_"))


ACL_OPERATIONS = NAMEABLE_OPERATIONS

complete_operation = completer(camel_case(op.name) for op in ACL_OPERATIONS)
"""Completes ``--operation`` with kafka-acls' spelling of :data:`ACL_OPERATIONS`."""

OPERATION_HELP = "Read, Write, DescribeConfigs, ..."


def pattern_type_names(*, filter_ok: bool) -> list[str]:
    """What ``--resource-pattern-type`` takes: ``literal|prefixed|glob``, plus ``any|match``
    where it selects ACLs (``list``, ``remove``) rather than makes one (``add``)."""
    return ["literal", "prefixed", "glob"] + (["any", "match"] if filter_ok else [])


def complete_pattern_type(ctx: typer.Context, incomplete: str) -> list[str]:
    """Completes ``--resource-pattern-type`` with what the command being typed takes."""
    return starting_with(incomplete, pattern_type_names(filter_ok=ctx.info_name != "add"))
