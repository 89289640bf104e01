"""Data directories for the UI tests, written through the real CLI (``acls add``, ``users
set``), with names a page must escape."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.tools.harness import run_main

HOSTILE = "<script>alert(1)</script>\"quote'\x00nul\nline"
"""A name holding markup, both quotes, NUL and a newline: Kafka accepts it as a name."""

PASSWORD = "correct horse battery staple"


def cli(*argv: str) -> str:
    """Run ``aclog ARGV``; its stdout (the command must succeed)."""
    done = run_main(*argv)
    assert done.code == 0, (argv, done.stderr)
    return done.stdout


def cli_json(*argv: str) -> Any:
    """``aclog ARGV --json`` parsed."""
    return json.loads(cli(*argv, "--json"))


def grant(data_dir: Path, principal: str, operation: str, topic: str, *more: str) -> None:
    """``acls add`` of one ALLOW (``more``: extra options, e.g. a pattern type)."""
    cli(
        "acls", "add", "--data-dir", str(data_dir), "--allow-principal", principal,
        "--operation", operation, "--topic", topic, *more,
    )  # fmt: skip


def build_log(data_dir: Path) -> Path:
    """A small history: grants, a DENY, a prefixed grant, a removal, a SCRAM user, and an ACL
    whose principal and topic are :data:`HOSTILE`."""
    grant(data_dir, "User:alice", "Read", "payments")
    grant(data_dir, "User:bob", "Write", "payments")
    grant(data_dir, "User:carol", "Read", "orders.", "--resource-pattern-type", "prefixed")
    cli(
        "acls", "add", "--data-dir", str(data_dir), "--deny-principal", "User:alice",
        "--operation", "Read", "--topic", "orders.secret",
    )  # fmt: skip
    cli(
        "acls", "remove", "--data-dir", str(data_dir), "--allow-principal", "User:bob",
        "--operation", "Write", "--topic", "payments", "--force",
    )  # fmt: skip
    cli(
        "users", "set", "alice", "--data-dir", str(data_dir), "--mechanism", "SCRAM-SHA-256",
        "--password", PASSWORD,
    )  # fmt: skip
    grant(data_dir, f"User:{HOSTILE}", "Read", HOSTILE)
    return data_dir
