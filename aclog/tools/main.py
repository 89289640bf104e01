"""Entry point of the ``aclog`` console script."""

from __future__ import annotations

import sys

from aclog.tools import (  # noqa: F401  (registers)
    acls,
    demo,
    dump,
    explain,
    history,
    kraft_import,
    pipeline,
    questions,
    quickstart,
    serve,
    users,
)
from aclog.tools.console import EXIT_IO, app, print_line


def main() -> None:
    """Run the CLI; unexpected errors become exit 3 with a one-line message."""
    try:
        app()
    except KeyboardInterrupt:
        sys.exit(130)
    except Exception as error:  # the last line of defence: no traceback for users
        print_line(f"aclog: internal error: {type(error).__name__}: {error}", stderr=True)
        sys.exit(EXIT_IO)


if __name__ == "__main__":
    main()
