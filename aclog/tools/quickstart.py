"""``aclog quickstart``: what ``make run`` runs — a real walk-through against a real listener.

It starts ``aclog serve`` as its own process on the data directory, then, as a stock Kafka admin
client would (kafka-python's ``KafkaAdminClient``), creates ACLs (one of them a KIP-1042 GLOB)
and a SCRAM user, prints the committed log, explains two decisions from the log, and leaves the
server running for you to connect to until Ctrl-C (``--exit`` stops it instead).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import IO, Annotated, Any

import typer
from kafka.admin import (
    ACL,
    ACLOperation,
    ACLPermissionType,
    ACLResourcePatternType,
    KafkaAdminClient,
    ResourcePattern,
    ScramMechanism,
    UserScramCredentialUpsertion,
)
from kafka.admin import ResourceType as KafkaResourceType

from aclog.authorizer import Authorizer
from aclog.records import AclOperation, ResourceType
from aclog.replay.rebuild import rebuild_image
from aclog.tools.common import DataDir
from aclog.tools.console import EXIT_IO, app, fail, out
from aclog.tools.dump import dump
from aclog.tools.explain import explanation_to_dict

STARTUP_SECONDS = 60.0


@app.command()
def quickstart(
    data_dir: DataDir = Path("aclog-data"),
    listen: Annotated[str, typer.Option(help="HOST:PORT for the listener.")] = "127.0.0.1:9092",
    exit_after: Annotated[
        bool, typer.Option("--exit", help="Stop the server after the walk-through.")
    ] = False,
) -> None:
    """Start a listener, drive it with kafka-python, show the log and explain decisions."""
    server = _start_server(data_dir, listen)
    try:
        bootstrap = _wait_ready(server)
        out.print(
            f"1. aclog serve is listening on {bootstrap} (data in {data_dir})\n", markup=False
        )
        _admin_walkthrough(bootstrap)
        out.print("\n3. the committed log (aclog dump):", markup=False)
        dump([data_dir], 0, None, None, False, False)
        _explain(data_dir)
        if exit_after:
            return
        out.print(
            f"\nThe server keeps running: bootstrap_servers='{bootstrap}', principal "
            "User:ANONYMOUS (a super user in this walk-through). Ctrl-C stops it.",
            markup=False,
        )
        server.wait()
    except KeyboardInterrupt:
        pass
    finally:
        _stop(server)


def _start_server(data_dir: Path, listen: str) -> subprocess.Popen[str]:
    command = [
        sys.executable,
        "-m",
        "aclog.tools.main",
        "serve",
        "--data-dir",
        str(data_dir),
        "--listen",
        listen,
        "--super-users",
        "User:ANONYMOUS",
        "--json",
    ]
    return subprocess.Popen(command, stdout=subprocess.PIPE, text=True)


def _wait_ready(server: subprocess.Popen[str]) -> str:
    stream: IO[str] | None = server.stdout
    deadline = time.monotonic() + STARTUP_SECONDS
    while stream is not None and time.monotonic() < deadline:
        line = stream.readline()
        if not line:
            break
        try:
            info: dict[str, Any] = json.loads(line)
        except json.JSONDecodeError:
            continue
        if "bootstrap_servers" in info:
            return str(info["bootstrap_servers"])
    server.wait(timeout=5)
    fail("aclog serve did not start (see its message above; is the port already in use?)", EXIT_IO)


def _admin_walkthrough(bootstrap: str) -> None:
    admin = KafkaAdminClient(bootstrap_servers=bootstrap, client_id="aclog-quickstart")
    try:
        acls = [
            ACL(
                "User:ledger",
                "*",
                ACLOperation.READ,
                ACLPermissionType.ALLOW,
                ResourcePattern(
                    KafkaResourceType.TOPIC, "payments.", ACLResourcePatternType.PREFIXED
                ),
            ),
            ACL(
                "User:ledger",
                "*",
                ACLOperation.READ,
                ACLPermissionType.DENY,
                ResourcePattern(
                    KafkaResourceType.TOPIC, "payments.cards", ACLResourcePatternType.LITERAL
                ),
            ),
        ]
        created = admin.create_acls(acls)
        out.print(
            f"2. kafka-python created {len(created['succeeded'])} ACLs "
            f"({len(created['failed'])} failed)",
            markup=False,
        )
        upsert = UserScramCredentialUpsertion(
            "ledger", ScramMechanism.SCRAM_SHA_256, "change-me", iterations=8192
        )
        admin.alter_user_scram_credentials([upsert])
        out.print("   and the SCRAM-SHA-256 user 'ledger'", markup=False)
    finally:
        admin.close()


def _explain(data_dir: Path) -> None:
    authorizer = Authorizer()
    authorizer.load(rebuild_image(data_dir).image.acls)
    out.print("\n4. why (aclog explain):", markup=False)
    for topic in ("payments.eu", "payments.cards"):
        result = explanation_to_dict(
            authorizer.explain(
                "User:ledger", "10.0.0.7", AclOperation.READ, ResourceType.TOPIC, topic
            )
        )
        out.print(
            f"   User:ledger READ {topic}: {result['decision']} — {result['reason']}", markup=False
        )


def _stop(server: subprocess.Popen[str]) -> None:
    if server.poll() is None:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
