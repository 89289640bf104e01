"""The ``--mechanism`` option the ``aclog users`` commands share. Only typer and the record
enums: a command's ``--help`` reads it without importing the library (issue 37).

Immutable values; thread-safe. Cost: nothing at run time.
"""

from __future__ import annotations

from typing import Annotated

import typer

from aclog.records import ScramMechanism
from aclog.tools.completion import completer

MECHANISMS = tuple(m.name.replace("_", "-") for m in ScramMechanism if m != ScramMechanism.UNKNOWN)
"""``SCRAM-SHA-256``, ``SCRAM-SHA-512``: the mechanisms as Kafka names them."""

Mechanism = Annotated[
    str,
    typer.Option(
        "--mechanism", help=" or ".join(MECHANISMS) + ".", autocompletion=completer(MECHANISMS)
    ),
]
