"""The options many commands share, as typer declarations: where the data comes from (a data
directory, its format, a point in it, or a cluster) and ``--json``. Only typer: a command's
``--help`` and the completion of its options read these without importing the library (issue
37); what the options mean is in :mod:`aclog.tools.common` and :mod:`aclog.tools.remote`.

Immutable values; thread-safe. Cost: nothing at run time.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

DATA_DIR_ENV = "ACLOG_DATA_DIR"
"""The data directory of every command that takes ``--data-dir``, when the flag is not given."""

DataDir = Annotated[
    Path,
    typer.Option(
        "--data-dir", help="The aclog data directory.", envvar=DATA_DIR_ENV, readable=False
    ),
]
ReadDataDir = Annotated[
    Path,
    typer.Option(
        "--data-dir",
        help="The aclog data directory (read only).",
        envvar=DATA_DIR_ENV,
        readable=False,
    ),
]
OptionalDataDir = Annotated[
    Path | None,
    typer.Option(
        "--data-dir",
        help="The aclog data directory (default $ACLOG_DATA_DIR; a command that adds creates "
        "it if missing, others refuse). Excludes --bootstrap-server.",
        readable=False,
    ),
]
JsonFlag = Annotated[bool, typer.Option("--json", help="Print the result as JSON.")]
SourceFormat = Annotated[
    str,
    typer.Option(
        "--format",
        help="aclog (a data directory), kraft (Kafka's __cluster_metadata-0 directory or a "
        ".checkpoint), or auto: kraft when the path looks like one.",
    ),
]
AtOffset = Annotated[
    int | None,
    typer.Option(
        "--at-offset",
        min=0,
        help="The state as of this offset (whole batches); not with --at-time.",
    ),
]
AtTime = Annotated[
    str | None,
    typer.Option(
        "--at-time",
        help="The state as of this time: epoch milliseconds (1795609903621) or ISO-8601 "
        "(2026-11-21T10:00:00Z, any UTC offset; none means UTC).",
    ),
]

Host = Annotated[
    str | None,
    typer.Option(help="The client's IP address (default: every host the ACLs name, and others)."),
]
SuperUsers = Annotated[
    str | None, typer.Option(help="Kafka's super.users, e.g. 'User:admin;User:ops'.")
]
AllowEveryone = Annotated[
    bool, typer.Option("--allow-everyone-if-no-acl-found", help="Kafka's setting.")
]

BOOTSTRAP_SERVER_ENV = "ACLOG_BOOTSTRAP_SERVER"
COMMAND_CONFIG_ENV = "ACLOG_COMMAND_CONFIG"

BootstrapServer = Annotated[
    str | None,
    typer.Option(
        "--bootstrap-server",
        metavar="HOST:PORT",
        help="Manage a running Kafka cluster (or `aclog serve`) through its admin API instead "
        "of a data directory (default $ACLOG_BOOTSTRAP_SERVER); excludes --data-dir. Kafka "
        'does not expose ACL ids: in JSON output "id" is null.',
    ),
]
CommandConfig = Annotated[
    Path | None,
    typer.Option(
        "--command-config",
        metavar="FILE",
        help="With --bootstrap-server (default $ACLOG_COMMAND_CONFIG): Kafka client "
        "properties (security.protocol, "
        "sasl.mechanism, sasl.jaas.config or sasl.username/sasl.password, ssl.cafile, "
        "ssl.endpoint.identification.algorithm, request.timeout.ms, ...).",
        readable=False,
    ),
]

# plan and apply
DesiredFile = Annotated[
    Path,
    typer.Argument(help="The desired-state YAML file (schema: docs/as-code.md).", readable=False),
]

SetPasswords = Annotated[
    bool,
    typer.Option(
        "--set-passwords",
        help="Through the admin API, set every declared password (a cluster never shows "
        "enough to check one; without this a changed password is only noted).",
    ),
]
