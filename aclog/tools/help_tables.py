"""Typer's help tables with every option name whole: Typer cuts a long name
(``--allow-everyone-if-no-acl-found``) and a long word in its help with an ellipsis at 80
columns, so neither could be copied. Patched into typer when help is first rendered, so rich is
imported only then.

Not thread-safe (replaces two of typer's module-level names, idempotently); the CLI renders
help on one thread. Cost: nothing until help is shown.
"""

from __future__ import annotations

from typing import Any


def patch_help_tables() -> None:
    """Make typer's help renderer use :func:`_help_table` tables and :func:`_stacked` cells.
    Called when help is rendered, not at import, so a command that shows no help does not
    import rich."""
    import typer.rich_utils  # noqa: PLC0415 - rich only when help is shown

    # Typer has no hook for either: its module-level names are what its help renderer calls.
    setattr(typer.rich_utils, "Table", _help_table())  # noqa: B010
    setattr(typer.rich_utils, "Columns", _stacked)  # noqa: B010


def _help_table() -> type[Any]:
    """Typer's help table whose columns but the last never wrap or cut: an option name such as
    ``--allow-everyone-if-no-acl-found`` stays whole (and copyable) on an 80-column screen,
    and the help text beside it wraps instead, a word too long for its column folding onto the
    next line rather than losing its end."""
    from rich.table import Table  # noqa: PLC0415 - rich only when help is shown

    class WholeNamesTable(Table):
        def add_row(self, *renderables: Any, **options: Any) -> None:
            super().add_row(*renderables, **options)
            for column in self.columns[:-1]:
                column.no_wrap = True
            self.columns[-1].overflow = "fold"  # a long word (a Kafka setting) breaks, never cut

    return WholeNamesTable


def _stacked(items: list[Any]) -> Any:
    """An option's help, default and env var one under another: Typer's ``Columns`` puts them
    side by side and cuts a long word (``'User:admin;User:ops'``) with an ellipsis."""
    from rich.console import Group  # noqa: PLC0415 - rich only when help is shown

    return Group(*items)
