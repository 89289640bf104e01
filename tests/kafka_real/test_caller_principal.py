"""A caller whose principal has an empty type or name (``User:``, ``:x``) is answered as Kafka's
own ``StandardAuthorizer`` answers it: the class from ``$KAFKA_HOME/libs``, driven by a small
Java program compiled here (``AskAuthorizer.java``), decides the same requests as aclog's
authorizer and ``aclog explain``. (The broker's SASL listener authenticates real users only, so
no session with such a principal can reach it; the authorizer class is what decides for one.)
Kafka's rules: reference/kafka-acl-spec.md §2 (a principal's type and name may be empty; ``User:*``
matches every session principal) and §7 (the candidate principals are the session's and
``User:*``)."""

from __future__ import annotations

import itertools
import shutil
import subprocess
import uuid
from pathlib import Path

import pytest

from aclog.authorizer import Authorizer
from aclog.records import AclOperation, AclPermissionType, PatternType, ResourceType
from aclog.records.types import AccessControlEntryRecord
from tests.gates import unavailable
from tests.real_kafka import kafka_home_or_fail, tool_env

ACLS = (
    ("orders", "LITERAL", "User:*", "*", "READ", "ALLOW"),
    ("private", "LITERAL", "User:alice", "*", "READ", "ALLOW"),
    ("pay", "PREFIXED", "User:*", "*", "READ", "ALLOW"),
    ("pay.cards", "LITERAL", "User:*", "*", "READ", "DENY"),
    ("*", "LITERAL", "User:*", "*", "DESCRIBE", "ALLOW"),
    ("audit", "LITERAL", "User:*", "10.0.0.9", "WRITE", "ALLOW"),
)
CALLERS = (("User", ""), ("", "x"), ("", ""), ("User", "alice"), ("Group", ""))
TOPICS = ("orders", "private", "pay.x", "pay.cards", "audit", "none")
OPERATIONS = ("READ", "DESCRIBE", "WRITE")
SUPER_USERS = ("User:admin", "User:")


@pytest.fixture(scope="module")
def kafka_authorizer(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """``java`` with the class path that runs ``AskAuthorizer`` against Kafka's own classes."""
    home = kafka_home_or_fail()
    if shutil.which("javac") is None:
        unavailable("no javac: install a JDK to compare with Kafka's StandardAuthorizer")
    out = tmp_path_factory.mktemp("ask-authorizer")
    classpath = f"{out}:{home / 'libs'}/*"
    source = Path(__file__).with_name("AskAuthorizer.java")
    built = subprocess.run(
        ["javac", "-cp", classpath, "-d", str(out), str(source)],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr[-2000:]
    return ["java", "-Xmx256m", "-cp", classpath, "AskAuthorizer"]


def _requests() -> list[tuple[str, str, str, str]]:
    """(super users, principal, operation, topic) for every combination asked."""
    return [
        (supers, f"{kind}:{name}", op, topic)
        for supers, (kind, name), op, topic in itertools.product(
            SUPER_USERS, CALLERS, OPERATIONS, TOPICS
        )
    ]


def _kafka_decisions(command: list[str], tmp_path: Path) -> list[str]:
    lines = []
    for supers, group in itertools.groupby(_requests(), key=lambda r: r[0]):
        lines.append(f"super\t{supers}")
        lines += ["acl\t" + "\t".join(acl) for acl in ACLS]
        for _, principal, op, topic in group:
            kind, _, name = principal.partition(":")
            lines.append(f"ask\t{kind}\t{name}\t10.0.0.1\t{op}\t{topic}")
    done = subprocess.run(
        command, input="\n".join(lines) + "\n", capture_output=True, text=True,
        timeout=300, env=tool_env(tmp_path), check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.split()


def _aclog_decisions() -> list[str]:
    records = [
        AccessControlEntryRecord(
            uuid.UUID(int=i + 1),
            ResourceType.TOPIC,
            name,
            PatternType[pattern],
            principal,
            host,
            AclOperation[op],
            AclPermissionType[permission],
        )
        for i, (name, pattern, principal, host, op, permission) in enumerate(ACLS)
    ]
    decisions = []
    for supers, principal, op, topic in _requests():
        authorizer = Authorizer(frozenset({supers}))
        authorizer.load(records)
        decision = authorizer.authorize(
            principal, "10.0.0.1", AclOperation[op], ResourceType.TOPIC, topic
        )
        decisions.append(decision.value)
    return decisions


def test_callers_with_an_empty_principal_name_or_type_get_kafkas_decisions(
    kafka_authorizer: list[str], tmp_path: Path
) -> None:
    kafka = _kafka_decisions(kafka_authorizer, tmp_path)
    assert len(kafka) == len(_requests())
    ours = _aclog_decisions()
    differing = [(r, k, o) for r, k, o in zip(_requests(), kafka, ours, strict=True) if k != o]
    assert differing == []
    # The cases the issue is about, as Kafka decides them.
    asked = dict(zip(_requests(), kafka, strict=True))
    assert asked[("User:admin", "User:", "READ", "orders")] == "ALLOWED"  # User:* applies
    assert asked[("User:admin", "User:", "READ", "private")] == "DENIED"
    assert asked[("User:admin", "User:", "READ", "none")] == "DENIED"
    assert asked[("User:", "User:", "READ", "private")] == "ALLOWED"  # a super user
