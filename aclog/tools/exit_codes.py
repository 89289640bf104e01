"""One rule from an error a command catches to its exit code: 2 when what the user gave cannot
work, 3 when the machine or the cluster failed, 1 when the data or the request cannot be
processed as asked.

Every command maps the errors it catches through :func:`exit_code_for` (and exits through
:func:`fail_for`), so the same error exits the same way from every command. Messages stay each
command's: they name what it was doing.

Stateless; thread-safe. Cost: a few ``isinstance`` checks.
"""

from __future__ import annotations

import sys
from typing import NoReturn

from aclog.kraft import ImportTargetError
from aclog.log import CorruptLogError, LogError, TornTailError
from aclog.node import ConfigError, TopicsFileError
from aclog.remote import RemoteError
from aclog.tools.console import EXIT_FAILURE, EXIT_IO, EXIT_USAGE, fail, os_error_code
from aclog.tools.options import OptionError

USAGE_ERRORS: tuple[type[BaseException], ...] = (
    ConfigError,
    TopicsFileError,
    ImportTargetError,
    OptionError,
)
"""What the user gave cannot work: a setting, a topics file, an import target, an option."""

IO_ERRORS: tuple[type[BaseException], ...] = (LogError, RemoteError)
"""The log could not be locked, read or written (except corruption, a domain failure), or the
cluster did not answer."""


def exit_code_for(error: BaseException) -> int:
    """The exit code of ``error``: an operating-system error by
    :func:`~aclog.tools.console.os_error_code` (a missing path or one of the wrong kind is 2,
    anything else 3); :data:`USAGE_ERRORS` 2; a corrupt or torn log 1; :data:`IO_ERRORS` 3;
    any other error a command catches (a record that does not decode or replay, a bad
    snapshot or KRaft file, an API the cluster lacks) 1."""
    if isinstance(error, OSError):
        return os_error_code(error)
    if isinstance(error, USAGE_ERRORS):
        return EXIT_USAGE
    if isinstance(error, (CorruptLogError, TornTailError)) or _is_incompatible_broker(error):
        return EXIT_FAILURE
    if isinstance(error, IO_ERRORS):
        return EXIT_IO
    return EXIT_FAILURE


def reason(error: BaseException) -> str:
    """What went wrong, in words: an operating-system error as ``path: strerror`` (the path
    it names, which may lie below the one given), anything else as its message."""
    if isinstance(error, OSError):
        where = "" if error.filename is None else f"{error.filename}: "
        return f"{where}{error.strerror or error}"
    return str(error)


def fail_for(error: BaseException, doing: str) -> NoReturn:
    """``aclog: cannot <doing>: <reason>`` on stderr, exiting with :func:`exit_code_for`."""
    fail(f"cannot {doing}: {reason(error)}", exit_code_for(error))


def _is_incompatible_broker(error: BaseException) -> bool:
    """Whether ``error`` is kafka-python's IncompatibleBrokerVersion: only a command that
    loaded kafka-python can meet one, so a command that did not is spared its import (its
    package init loads the admin client)."""
    errors = sys.modules.get("kafka.errors")
    return errors is not None and isinstance(error, errors.IncompatibleBrokerVersion)
