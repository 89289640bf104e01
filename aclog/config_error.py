"""The one error for a setting that cannot work: :class:`ConfigError`.

A module of its own at the root of the package, below every layer, because settings are read
on both sides of the layers that may not import each other: a node's endpoints and the
listener's limits (:mod:`aclog.node`, :mod:`aclog.wire`) and a ``--command-config`` file for a
remote cluster (:mod:`aclog.remote`). Each of those faces offers it; the CLI maps it to exit 2.

Immutable; thread-safe.
"""

from __future__ import annotations


class ConfigError(ValueError):
    """A setting that cannot work, wherever it was given (an endpoint, the listener's settings,
    a ``--command-config`` file); the message says which and how to fix it. The one such error:
    every command maps it to exit 2."""
