"""A warning callback: what a library call that reads a log hands a message it would otherwise
drop (a skipped snapshot, a torn last batch), so its caller decides where warnings go.

- :data:`OnWarning`: the type of such a callback, given one message line.
- :func:`ignore_warning`: the callback that drops every message, the default of every call
  whose caller did not ask to hear.

Thread-safe; costs nothing.
"""

from __future__ import annotations

from collections.abc import Callable

OnWarning = Callable[[str], None]


def ignore_warning(message: str) -> None:
    """Drop ``message``: the ``on_warning`` of a caller that does not want to hear."""
    del message
