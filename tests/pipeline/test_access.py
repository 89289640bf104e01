"""The ``access`` job equals ``Authorizer.authorize`` and ``explain`` for every request."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import SparkSession
from typer.testing import CliRunner

import aclog.tools.pipeline  # noqa: F401  (registers the commands)
from aclog.authorizer import Authorizer, skipped_characters
from aclog.pipeline.access import (
    AccessQuestion,
    access,
    principals_frame,
    requested_operations,
    resources_frame,
)
from aclog.pipeline.load import records_as_of
from aclog.pipeline.state import state
from aclog.records import (
    AccessControlEntryRecord,
    AclOperation,
    PatternType,
    ResourceType,
    kafka_uuid_text,
)
from aclog.replay.rebuild import rebuild_image
from aclog.tools.console import app
from tests.pipeline.conftest import Logs
from tests.pipeline.logs import REQUEST_HOSTS, REQUEST_NAMES, REQUEST_PRINCIPALS

runner = CliRunner()
TYPES = (ResourceType.TOPIC, ResourceType.GROUP, ResourceType.TRANSACTIONAL_ID)
RESOURCES = [(t, n) for t in TYPES for n in dict.fromkeys(REQUEST_NAMES)]


def _expected(authorizer: Authorizer, row: dict[str, Any]) -> tuple[str, str | None]:
    request = (
        row["principal"],
        row["host"],
        AclOperation[row["operation"]],
        ResourceType[row["resource_type"]],
        row["resource_name"],
    )
    explanation = authorizer.explain(*request)
    assert authorizer.authorize(*request) == explanation.decision
    deciding = explanation.deciding_acl
    return explanation.decision.value, None if deciding is None else kafka_uuid_text(deciding.id)


QUESTION = AccessQuestion(
    hosts=tuple(REQUEST_HOSTS),
    super_users=frozenset({"User:carol"}),
    allow_everyone_if_no_acl_found=True,
)
"""Every path at once: three hosts, each type's own operations, a super user, and the
allow-everyone default for resources without ACLs."""


@pytest.fixture(scope="module")
def decisions(spark: SparkSession, logs: Logs) -> list[dict[str, Any]]:
    """The library's answer to :data:`QUESTION` over the full log."""
    result = state(records_as_of(spark, logs.full).frame)
    try:
        frame = access(
            result.acls,
            resources_frame(spark, RESOURCES),
            principals_frame(spark, REQUEST_PRINCIPALS),
            QUESTION,
        )
        return [row.asDict() for row in frame.collect()]
    finally:
        result.unpersist()


def test_every_decision_and_deciding_acl_equal_explain(
    decisions: list[dict[str, Any]], logs: Logs
) -> None:
    per_type = Counter(t for t, _ in requested_operations(()))
    expected_count = sum(per_type[t] for t, _ in RESOURCES) * 6 * len(REQUEST_HOSTS)
    assert len(decisions) == expected_count
    image = rebuild_image(logs.full).image
    authorizer = Authorizer({"User:carol"}, allow_everyone_if_no_acl_found=True)
    authorizer.load(image.acls)
    wrong = [r for r in decisions if (r["decision"], r["acl_id"]) != _expected(authorizer, r)]
    assert not wrong, wrong[:5]
    reasons = Counter(r["reason"] for r in decisions)
    # The log exercises every path: DENY over ALLOW, ALLOW, ACLs that do not match, no ACL on
    # the resource (allowed by the default), and a super user.
    assert set(reasons) == {
        "deny_acl",
        "allow_acl",
        "no_matching_acl",
        "no_acl_on_resource",
        "super_user",
    }
    assert {r["decision"] for r in decisions if r["principal"] == "User:carol"} == {"ALLOWED"}
    assert {r["decision"] for r in decisions if r["reason"] == "no_acl_on_resource"} == {"ALLOWED"}
    acls = {kafka_uuid_text(a.id): a for a in image.acls}
    decided = [(acls[r["acl_id"]], r) for r in decisions if r["acl_id"]]
    assert {a.pattern_type.name for a, _ in decided} == {"LITERAL", "PREFIXED", "GLOB"}
    assert any(a.principal == "User:*" for a, _ in decided)
    assert any(a.host != "*" for a, _ in decided)
    assert any(a.pattern_type == PatternType.GLOB and "*" in a.principal[5:] for a, _ in decided)
    # Implied operations decide too (an ALLOW READ answering DESCRIBE, an ALL answering READ).
    assert any(a.operation != AclOperation[r["operation"]] for a, r in decided)
    # And some decisions are ties in specificity that only the ACL id breaks.
    assert any(_tied(authorizer, r) for _, r in decided)


def _tied(authorizer: Authorizer, row: dict[str, Any]) -> bool:
    """True when another matching ACL of the deciding ACL's permission is just as specific."""
    name = row["resource_name"]
    explanation = authorizer.explain(
        row["principal"],
        row["host"],
        AclOperation[row["operation"]],
        ResourceType[row["resource_type"]],
        name,
    )
    deciding = explanation.deciding_acl
    assert deciding is not None

    def rank(acl: AccessControlEntryRecord) -> tuple[int, int, int]:
        return skipped_characters(acl, name), acl.pattern_type, acl.permission_type

    return any(
        acl.id != deciding.id and rank(acl) == rank(deciding) for acl in explanation.matching_acls
    )


def test_cli_json_equals_the_library(
    decisions: list[dict[str, Any]], logs: Logs, tmp_path: Path
) -> None:
    resources = tmp_path / "resources.txt"
    resources.write_text("# inventory\n" + "".join(f"{t.name}:{n}\n" for t, n in RESOURCES))
    principals = tmp_path / "principals.txt"
    principals.write_text("\n".join(REQUEST_PRINCIPALS) + "\n")
    out = tmp_path / "decisions"
    args = ["pipeline", "access", "--data-dir", str(logs.full)]
    args += ["--resources", str(resources), "--principals", str(principals)]
    args += [arg for host in REQUEST_HOSTS for arg in ("--hosts", host)]
    args += ["--super-users", "User:carol", "--allow-everyone-if-no-acl-found"]
    result = runner.invoke(app, [*args, "--out", str(out), "--json"])
    assert result.exit_code == 0, result.output
    shown = json.loads(result.stdout)["decisions"]
    key = ("principal", "host", "resource_type", "resource_name", "operation")
    assert shown == sorted(decisions, key=lambda r: [r[k] for k in key])
    bad = runner.invoke(app, [*args, "--operations", "Fly"])
    assert bad.exit_code == 2
    assert "Fly" in bad.output
