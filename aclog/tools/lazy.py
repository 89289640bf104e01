"""Command groups that import a command's module only when that command runs, so ``aclog
--help``, ``aclog --version`` and shell completion start without the library (numpy, pyarrow,
kafka-python) that the commands themselves need.

A :class:`LazyGroup` holds a static table, command name → :class:`Lazy` (the module that
registers the command on the group's typer app, and the one-line help that ``--help`` lists).
Listing the group (its ``--help``, completing a command name) shows the table without importing
anything; running or completing inside a command imports its module, which registers the
command with ``@app.command`` as before, and typer's own conversion then builds the click
command from that registration. ``tests/tools/test_startup_imports.py`` checks that each entry's
help is the command's own first paragraph.

Not thread-safe (a group builds each command once, on first use, and flips a listing flag while
it renders help); the CLI runs one command per process. Cost: one import of the command's module
on first use; nothing for the commands not run.
"""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import typer
import typer.main
from typer.core import TyperCommand
from typer.models import DefaultPlaceholder

from aclog.tools.help import HelpGroup


@dataclass(frozen=True)
class Lazy:
    """A command not yet imported: the module that registers it, and the help ``--help`` lists
    for it (the first paragraph of the command's own help)."""

    module: str
    help: str


class _Unbuilt(TyperCommand):
    """A command of the table before its module is imported: only its name and help, for
    listings and for typer's "did you mean" suggestions."""


class LazyGroup(HelpGroup):
    """A command group whose commands of :attr:`table` are built from their module on first
    use; a subclass names the table and the typer app its modules register on
    (:func:`lazy_typer` makes both)."""

    table: ClassVar[Mapping[str, Lazy]] = {}
    typer_app: ClassVar[typer.Typer | None] = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._listing = False
        built: dict[str, Any] = dict(self.commands)  # modules imported before the group was made
        listed = {
            n: built.pop(n, None) or _Unbuilt(name=n, help=e.help) for n, e in self.table.items()
        }
        self.commands = {**listed, **built}

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        command = self.commands.get(cmd_name)
        if isinstance(command, _Unbuilt) and not self._listing:
            importlib.import_module(self.table[cmd_name].module)
            self.commands[cmd_name] = self._built(cmd_name)
        return super().get_command(ctx, cmd_name)

    def format_help(self, ctx: Any, formatter: Any) -> None:
        with self.listing():
            super().format_help(ctx, formatter)

    def shell_complete(self, ctx: Any, incomplete: str) -> Any:
        with self.listing():  # command names and their help; no command is imported
            return super().shell_complete(ctx, incomplete)

    @contextlib.contextmanager
    def listing(self) -> Iterator[None]:
        """While inside, an unbuilt command stays a stand-in with only its name and help."""
        self._listing = True
        try:
            yield
        finally:
            self._listing = False

    def _built(self, name: str) -> Any:
        """The click command that the module just imported registered as ``name``."""
        app = self.typer_app
        assert app is not None, f"{type(self).__name__} has no typer app"
        settings: dict[str, Any] = {
            "pretty_exceptions_short": app.pretty_exceptions_short,
            "rich_markup_mode": app.rich_markup_mode,
        }
        for info in app.registered_commands:
            if _command_name(info) == name:
                return typer.main.get_command_from_info(info, **settings)
        for group in app.registered_groups:
            if _group_name(group) == name:
                return typer.main.get_group_from_info(group, suggest_commands=True, **settings)
        raise LookupError(f"{self.table[name].module} registers no command {name!r}")


def _command_name(info: Any) -> str | None:
    """The name a command was registered under (``@app.command(name)``, else its function's)."""
    if info.name is not None:
        return str(info.name)
    return None if info.callback is None else typer.main.get_command_name(info.callback.__name__)


def _group_name(info: Any) -> str | None:
    """The name a sub-app was added under (``add_typer(..., name=)``, else its own)."""
    for name in (
        info.name,
        getattr(info.typer_instance, "info", None) and info.typer_instance.info.name,
    ):
        if name is not None and not isinstance(name, DefaultPlaceholder):
            return str(name)
    return None


def lazy_typer(
    table: Mapping[str, Lazy], *, cls: type[LazyGroup] = LazyGroup, **settings: Any
) -> typer.Typer:
    """A typer app whose click group is a :class:`LazyGroup` over ``table`` (``cls``, a
    subclass of it, adds behaviour); ``settings`` are typer's."""
    group: type[LazyGroup] = type(cls.__name__, (cls,), {"table": table})
    app = typer.Typer(cls=group, **settings)
    group.typer_app = app
    return app
