"""Entry point of the ``aclog`` console script: whatever happens, a run ends with an exit code
(0 ok, 1 domain failure, 2 usage, 3 I/O or internal) and at most a line on stderr, never a
traceback. A closed stdout pipe is handled around every command
(:mod:`aclog.tools.closed_pipe`)."""

from __future__ import annotations

import sys

from aclog.tools import (  # noqa: F401  (registers)
    acls_add,
    acls_list,
    acls_remove,
    apply_command,
    demo,
    dump,
    explain,
    export_command,
    follow_command,
    history,
    kraft_import,
    lint_command,
    pipeline,
    plan_command,
    questions,
    quickstart,
    serve,
    timeline,
    ui_command,
    users,
)
from aclog.tools.console import EXIT_IO, app, os_error_code, print_line


def main() -> None:
    """Run the CLI; errors no command handled become one line and their exit code."""
    try:
        app()
    except KeyboardInterrupt:
        sys.exit(130)
    except OSError as error:  # a path no command checked: the same rule as everywhere
        path = "" if error.filename is None else f" {error.filename}"
        print_line(f"aclog: cannot access{path}: {error.strerror or error}", stderr=True)
        sys.exit(os_error_code(error))
    except Exception as error:  # the last line of defence: no traceback for users
        print_line(f"aclog: internal error: {type(error).__name__}: {error}", stderr=True)
        sys.exit(EXIT_IO)


if __name__ == "__main__":
    main()
