"""Entry point of the ``aclog`` console script: whatever happens, a run ends with an exit code
(0 ok, 1 domain failure, 2 usage, 3 I/O or internal) and at most a line on stderr, never a
traceback. A closed stdout pipe is handled around every command
(:mod:`aclog.tools.closed_pipe`). Each command's module is imported only when the command runs
(:mod:`aclog.tools.commands` lists them), so ``--help`` and ``--version`` start fast."""

from __future__ import annotations

import sys

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
