"""kafka-python's protocol classes without its clients: the listener's share of its start-up.

The listener decodes and encodes requests with kafka-python's message classes
(``kafka.protocol.*``), but importing any of them first runs the package's ``__init__``, which
imports its admin client, consumer and producer and their network stack: a share of an empty
``aclog serve``'s start (the ``smallbatch`` suite's ``aclog serve start CPU`` row, empty data
directory), for clients the server never uses.
:func:`defer_client_imports` registers the ``kafka`` package without running its ``__init__``
(its submodules import as usual, from the same directory), and runs that ``__init__`` into it
the first time a name the package itself defines is asked for (``from kafka import
KafkaAdminClient``, ``kafka.__version__``), so everything else sees the package it expects.

Thread-safe (a lock runs the deferred ``__init__`` once). Cost: one spec lookup at start.
"""

from __future__ import annotations

import importlib.util
import sys
import threading
from typing import Any

_lock = threading.Lock()


def defer_client_imports() -> None:
    """Register ``kafka`` with its ``__init__`` deferred, unless it is imported already (or
    not installed: the import that needs it then fails as it would have)."""
    if "kafka" in sys.modules:
        return
    spec = importlib.util.find_spec("kafka")
    if spec is None or spec.loader is None or spec.submodule_search_locations is None:
        return
    package = importlib.util.module_from_spec(spec)
    loader = spec.loader

    def complete(name: str) -> Any:
        """The package's ``__init__`` run into it, then ``name`` of it."""
        with _lock:
            if package.__dict__.pop("__getattr__", None) is not None:
                loader.exec_module(package)
        if name in package.__dict__:
            return package.__dict__[name]
        raise AttributeError(f"module 'kafka' has no attribute {name!r}")

    package.__getattr__ = complete  # type: ignore[method-assign]
    sys.modules["kafka"] = package
