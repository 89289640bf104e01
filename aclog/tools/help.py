"""How ``aclog --help`` reads: value labels as Unix tools write them, prose without hard line
breaks, and every command's exit codes.

Typer labels values with Python types (``<bool>`` on flags, ``<list[str]>``, ``<int range>
[x>=0]``) and keeps the line breaks of a docstring's first paragraph. :class:`HelpGroup`, the
root command's class, tidies each command on its way to being run or shown (so also the commands
of sub-groups): a flag gets no label, a value ``N``, ``PATH``, ``TEXT`` (or its ``metavar``), a
range reads ``0 or more``; single line breaks inside a help paragraph become spaces; a command
without an epilog gets :func:`exit_codes`. Typer's classes have no hook for the labels, so the
two label methods are replaced on each parameter object of this CLI (not on Typer's classes).
Typer's help tables cut long option names with an ellipsis;
:mod:`aclog.tools.help_tables` keeps them whole.

Typer's context and command types live in its private ``typer._click``, so they are typed
``Any`` here.

Not thread-safe (mutates the command objects once, idempotently); the CLI builds them on one
thread. Cost: a walk over a command's parameters the first time it is looked up.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from typer.core import TyperArgument, TyperGroup, TyperOption

from aclog.tools.help_tables import patch_help_tables
from aclog.tools.plain_values import plain

EXIT_FAILURE_MEANS = "a domain failure (a rejected item, a corrupt log, a failed check)"


def exit_codes(failure: str = EXIT_FAILURE_MEANS) -> str:
    """The exit-code line of a command's help; ``failure`` says what exit 1 means for it."""
    return f"Exit codes: 0 ok, 1 {failure}, 2 a usage error, 3 an I/O or internal error."


_LABELS = {"int": "N", "float": "NUMBER", "str": "TEXT", "path": "PATH", "uuid": "UUID"}
_TIDY = "_aclog_help_tidy"


class HelpGroup(TyperGroup):
    """The root command: tidies every command it hands out, and its own options."""

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        command = super().get_command(ctx, cmd_name)
        if command is not None:
            tidy(command, ctx)
        return command

    def format_help(self, ctx: Any, formatter: Any) -> None:
        patch_help_tables()
        super().format_help(ctx, formatter)

    def get_params(self, ctx: Any) -> Any:
        params = super().get_params(ctx)
        for param in params:
            _relabel(param)
            plain(param)
            if isinstance(param, TyperOption) and param.is_flag and param.default is None:
                # typer's own flags (--help, --install-completion, --show-completion) are None
                # when not given, and typer converts a None value through pydantic: reading a
                # group's options on the way to a subcommand then imported it, for nothing
                param.default = False
        return params


def tidy(command: Any, ctx: Any) -> None:
    """Tidy ``command`` and, for a group, every command under it (see the module docstring)."""
    if getattr(command, _TIDY, False):
        return
    setattr(command, _TIDY, True)
    command.help = reflow(command.help)
    format_help = command.format_help

    def patched_format_help(ctx: Any, formatter: Any) -> None:
        patch_help_tables()
        format_help(ctx, formatter)

    setattr(command, "format_help", patched_format_help)  # noqa: B010 - an instance's own method
    if command.epilog is None:
        command.epilog = exit_codes()
    for param in command.get_params(ctx):
        _relabel(param)
        plain(param)
    for sub in getattr(command, "commands", {}).values():
        tidy(sub, ctx)


def reflow(text: str | None) -> str | None:
    """``text`` with each paragraph on one line (paragraphs stay apart)."""
    if text is None:
        return None
    paragraphs = re.split(r"\n\s*\n", text.strip())
    return "\n\n".join(" ".join(p.split()) for p in paragraphs)


def _relabel(param: Any) -> None:
    if getattr(param, _TIDY, False) or not isinstance(param, TyperArgument | TyperOption):
        return
    setattr(param, _TIDY, True)
    typer_label: Callable[[Any], str | None] = param.display_type_rich
    typer_range: Callable[[], str | None] = param._get_number_range_help_str

    def label(ctx: Any) -> str | None:
        if isinstance(param, TyperArgument) or param.is_flag or param.count:
            return None  # an argument's name says it; a flag takes no value
        if param.metavar is not None:
            return str(param.metavar)
        return value_label(typer_label(ctx))

    setattr(param, "display_type_rich", label)  # noqa: B010 - an instance's own method
    setattr(param, "_get_number_range_help_str", lambda: readable_range(typer_range()))  # noqa: B010


def value_label(typer_label: str | None) -> str | None:
    """``N`` for Typer's ``<int range>``, ``TEXT`` for ``<list[str]>``, ``PATH`` for
    ``<path>``...: the kind of one value, as Unix help writes it."""
    if typer_label is None:
        return None
    many = typer_label.endswith("...")
    inner = typer_label.removesuffix("...").strip("<>")
    inner = inner.removeprefix("list[").removesuffix("]").removesuffix(" range")
    label = _LABELS.get(inner.lower(), inner.upper())
    return label + ("..." if many else "")


def readable_range(typer_range: str | None) -> str | None:
    """``0 or more`` for Typer's ``x>=0``, ``1 to 5`` for ``1<=x<=5``, ``at most 9`` for
    ``x<=9``."""
    if typer_range is None:
        return None
    if match := re.fullmatch(r"x>=(.+)", typer_range):
        return f"{match.group(1)} or more"
    if match := re.fullmatch(r"x<=(.+)", typer_range):
        return f"at most {match.group(1)}"
    if match := re.fullmatch(r"(.+)<=x<=(.+)", typer_range):
        return f"{match.group(1)} to {match.group(2)}"
    return typer_range
