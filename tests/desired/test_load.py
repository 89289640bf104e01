"""Desired-state files: what a valid file declares (roles expanded as kafka-acls expands them)
and every mistake reported with its file and line, all at once."""

from __future__ import annotations

from pathlib import Path

import pytest

from aclog.controller import DEFAULT_ITERATIONS
from aclog.desired import DesiredStateError, load_desired, read_passwords
from aclog.desired.nodes import INDENT_HINT
from aclog.desired.roles import Roles, role_grants
from aclog.records import AclBinding, AclOperation, AclPermissionType, PatternType, ResourceType
from tests.tools.harness import run_main

VALID = """\
version: 1
owns:
  principals: [User:orders-app, User:analytics]
  resource_prefixes: [orders.]
acls:
  - resource_type: topic
    resource_name: orders.
    pattern_type: prefixed
    principal: User:analytics
    operations: [Read, describe]
  - resource_type: group
    resource_name: "analytics-*"
    pattern_type: glob
    principal: User:analytics
    host: 10.0.0.1
    operations: read
    permission: deny
roles:
  - principal: User:orders-app
    producer: true
    consumer: true
    idempotent: true
    topics: [orders.events]
    groups: [orders-readers]
users:
  - name: orders-app
    mechanism: SCRAM-SHA-512
    iterations: 8192
    password_env: ORDERS_APP_PASSWORD
  - name: analytics
    mechanism: scram-sha-256
    password_file: secrets/analytics
"""


def _write(tmp_path: Path, text: str, name: str = "acls.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _errors(tmp_path: Path, text: str) -> list[str]:
    path = _write(tmp_path, text)
    with pytest.raises(DesiredStateError) as caught:
        load_desired(path)
    return [m.removeprefix(f"{path}:") for m in caught.value.messages]


def test_a_valid_file_declares_its_acls_roles_and_users(tmp_path: Path) -> None:
    desired = load_desired(_write(tmp_path, VALID))
    topic = (ResourceType.TOPIC, "orders.", PatternType.PREFIXED)
    allow = AclPermissionType.ALLOW
    assert desired.acls[:2] == (
        AclBinding(*topic, "User:analytics", "*", AclOperation.READ, allow),
        AclBinding(*topic, "User:analytics", "*", AclOperation.DESCRIBE, allow),
    )
    glob = desired.acls[2]
    assert (glob.pattern_type, glob.host, glob.permission_type) == (
        PatternType.GLOB, "10.0.0.1", AclPermissionType.DENY,
    )  # fmt: skip
    # The role expands exactly as `aclog acls add --producer --consumer --idempotent` does,
    # with the DESCRIBE both roles grant on the topic once.
    roles = Roles(True, True, True, ["orders.events"], [], ["orders-readers"])
    expected = list(
        dict.fromkeys(
            AclBinding(*pattern, "User:orders-app", "*", operation, allow)
            for pattern, operations in role_grants(roles, PatternType.LITERAL)
            for operation in operations
        )
    )
    assert list(desired.acls[3:]) == expected
    assert len(expected) == 6
    assert desired.acl_lines[desired.acls[3]] == 19
    assert [(u.name, u.mechanism.mechanism_name, u.iterations) for u in desired.users] == [
        ("orders-app", "SCRAM-SHA-512", 8192),
        ("analytics", "SCRAM-SHA-256", DEFAULT_ITERATIONS),
    ]
    assert desired.users[1].password is not None
    assert desired.users[1].password.file == tmp_path / "secrets" / "analytics"


def test_passwords_come_from_the_environment_or_a_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    desired = load_desired(_write(tmp_path, VALID))
    with pytest.raises(DesiredStateError) as caught:
        read_passwords(desired)
    assert caught.value.messages == [
        f"{tmp_path / 'acls.yaml'}:26: user 'orders-app': the environment variable "
        "ORDERS_APP_PASSWORD is not set or is empty",
        f"{tmp_path / 'acls.yaml'}:30: user 'analytics': cannot read password_file "
        f"{tmp_path / 'secrets' / 'analytics'}: No such file or directory",
    ]
    monkeypatch.setenv("ORDERS_APP_PASSWORD", "env-secret")
    (tmp_path / "secrets").mkdir()
    (tmp_path / "secrets" / "analytics").write_text("file-secret\nignored\n")
    passwords = read_passwords(desired)
    assert sorted(passwords.values()) == ["env-secret", "file-secret"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "owns: all\nacls:\n  - resource_type: topic\n    resource_name: t\n"
            "    principal: User:a\n    operaton: [read]\n",
            ["6: unknown key 'operaton' in an ACL (did you mean 'operations'?)"],
        ),
        (
            "owns: all\nacls: [\n",
            ["3: not valid YAML, column 1: expected the node content, but found '<stream end>'"],
        ),
        (
            "owns: all\nacls:\n  - principal: User:a\n    resource_name: t\n   operations: [r]\n",
            [
                "5: not valid YAML, column 4: expected <block end>, but found "
                f"'<block mapping start>'{INDENT_HINT}"
            ],
        ),
        ("acls: []\n", ["1: the file needs 'owns'"]),
        (
            "owns: all\nacls:\n  - {resource_type: topic, resource_name: t, principal: User:a,"
            " host: *}\n",
            [
                "3: not valid YAML, column 72: expected alphabetic or numeric character, but "
                "found '}' "
                '(a bare * starts a YAML alias: quote it, as in host: "*")'
            ],
        ),
        ("", ["1: the file is empty; see docs/as-code.md"]),
        ("owns: all\nversion: 2\n", ["2: unknown version; this aclog reads 1"]),
        (
            "owns: all\nacls:\n  - {resource_type: topic, resource_name: t, principal: User:a,"
            " operations: []}\n",
            ["3: operations must name at least one operation"],
        ),
        ("owns: all\nownz: 1\n", ["2: unknown key 'ownz' in the file (did you mean 'owns'?)"]),
        (
            "owns: all\nusers:\n  - name: a\n    mechanism: SCRAM-SHA-256\n    password: x\n",
            [
                "5: a password never goes in the file; name where to read it with password_env "
                "(an environment variable) or password_file (a file)"
            ],
        ),
        (
            "owns: all\nusers:\n  - {name: a, mechanism: SCRAM-SHA-256}\n"
            "  - {name: a, mechanism: SCRAM-SHA-256, iterations: 8192}\n",
            ["4: user 'a' with SCRAM-SHA-256 is already declared at line 3"],
        ),
        (
            "owns: all\nusers:\n  - {name: a, mechanism: SCRAM-SHA-1}\n"
            "  - {name: b, mechanism: SCRAM-SHA-256, iterations: 100}\n",
            [
                "3: unknown mechanism 'SCRAM-SHA-1'; use SCRAM-SHA-256 or SCRAM-SHA-512",
                "4: user 'b': Too few iterations",
            ],
        ),
        (
            "owns: all\nacls:\n  - {resource_type: topic, resource_name: t, principal: User:a}\n"
            "roles:\n  - {principal: User:a, producer: true, topics: [t], "
            "operations: [all]}\n",
            [
                "5: unknown key 'operations' in a role; expected one of: principal, host, "
                "pattern_type, producer, consumer, idempotent, topics, transactional_ids, groups"
            ],
        ),
        (
            "owns: all\nroles:\n  - {principal: User:a, producer: true, topics: [t]}\n"
            "acls:\n  - {resource_type: topic, resource_name: t, principal: User:a, "
            "operations: [write]}\n",
            ["5: the ACL WRITE ALLOW for User:a on TOPIC 't' is already declared at line 3"],
        ),
        (
            "owns: all\nroles:\n  - {principal: User:a, consumer: true, topics: [t]}\n"
            "  - {principal: User:a, idempotent: true, consumer: true, topics: [t], groups: [g]}\n",
            [
                "3: consumer: true needs at least one group",
                "4: idempotent is only available with producer: true",
            ],
        ),
    ],
)
def test_mistakes_are_reported_with_their_line(
    tmp_path: Path, text: str, expected: list[str]
) -> None:
    assert _errors(tmp_path, text) == expected


def test_acls_are_checked_by_the_controller_rules(tmp_path: Path) -> None:
    text = (
        "owns: all\nacls:\n"
        "  - {resource_type: topic, resource_name: t, principal: User:a, host: example.com}\n"
        "  - {resource_type: cluster, resource_name: kafka-cluster, pattern_type: glob,"
        " principal: User:a}\n"
        "  - {resource_type: topic, resource_name: t, principal: alice}\n"
        "  - {resource_type: cluster, resource_name: other, principal: User:a}\n"
        "  - {resource_type: topic, resource_name: t, principal: User:a, operations: [fly]}\n"
    )
    errors = _errors(tmp_path, text)
    assert [e.split(":", 1)[0] for e in errors] == ["3", "4", "5", "6", "7"]
    assert "invalid ACL: Invalid host 'example.com'" in errors[0]
    assert "GLOB is allowed for every resource type except CLUSTER" in errors[1]
    assert "Invalid principal 'alice'" in errors[2]
    assert "The only valid name for the CLUSTER resource is kafka-cluster" in errors[3]
    assert errors[4] == "7: unknown operation 'fly'"


def test_a_cluster_acl_is_literal_as_acls_add_requires(tmp_path: Path) -> None:
    text = (
        "owns: all\nacls:\n"
        "  - {resource_type: cluster, resource_name: kafka-cluster, pattern_type: prefixed,"
        " principal: User:a, operations: [alter]}\n"
    )
    [error] = _errors(tmp_path, text)
    assert error.startswith("3: invalid ACL: pattern_type prefixed on the cluster: ")
    assert "write pattern_type: literal" in error
    # The CLI refuses the same thing with the same reason (one rule, two callers).
    refused = run_main("acls", "add", "--data-dir", str(tmp_path / "d"), "--allow-principal",
                       "User:a", "--operation", "alter", "--cluster",
                       "--resource-pattern-type", "prefixed")  # fmt: skip
    assert refused.code == 2
    assert "kafka-acls refuses PREFIXED there too" in error
    assert "kafka-acls refuses PREFIXED there too" in refused.stderr


def test_nothing_is_declared_outside_what_the_file_owns(tmp_path: Path) -> None:
    text = (
        "owns:\n  principals: [User:a]\n  resource_prefixes: [orders.]\n"
        "acls:\n"
        "  - {resource_type: topic, resource_name: orders.x, principal: User:b}\n"
        "  - {resource_type: topic, resource_name: payments, principal: User:b,"
        " operations: [read, write]}\n"
        "users:\n  - {name: a, mechanism: SCRAM-SHA-256}\n"
        "  - {name: b, mechanism: SCRAM-SHA-256}\n"
    )
    assert _errors(tmp_path, text) == [
        "6: the ACL for User:b on 'payments' is outside what the file owns (line 2); add its "
        "principal or a prefix of its resource name to owns",
        "9: user 'b' is outside what the file owns (line 2); add User:b to owns.principals",
    ]


def test_a_file_that_is_not_utf8_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "acls.yaml"
    path.write_bytes(b"owns: all\n# caf\xe9\n")
    with pytest.raises(DesiredStateError, match=r"acls.yaml:2: not UTF-8 text"):
        load_desired(path)


def test_every_problem_of_an_entry_is_named_in_line_order(tmp_path: Path) -> None:
    """A missing field and an unknown key do not hide a bad value beside them, and the messages
    come in the order of the file, so one run names everything to fix."""
    text = (
        "owns: all\nacls:\n"
        "  - resource_type: topc\n"
        "    resource_name: x\n"
        "    operaton: [read]\n"
        "  - {resource_type: topic, resource_name: '', principal: User:a}\n"
    )
    errors = _errors(tmp_path, text)
    assert [e.split(":", 1)[0] for e in errors] == ["3", "3", "5", "6"]
    assert errors[0].startswith("3: unknown resource_type 'topc'") or errors[1].startswith(
        "3: unknown resource_type 'topc'"
    )
    assert any(e.startswith("3: an ACL needs 'principal'") for e in errors)
    assert errors[2].startswith("5: unknown key 'operaton' in an ACL (did you mean 'operations'")
    assert errors[3] == "6: resource_name must not be empty"
