"""The Changes view's effect on access, over real data directories written by the CLI: each
batch lists whose decisions it flipped on the resources its ACLs name (as ``aclog plan
--inventory`` reports them), a removal whose addition is on an earlier page is still
assessed, the page shows the flips as text, and a batch too large to assess says so."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from aclog.ui import create_app
from tests.ui.logs import build_log, cli

LOCAL = "http://127.0.0.1"


@pytest.fixture(scope="module")
def log_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_log(tmp_path_factory.mktemp("effects") / "data")


def _effects(log_dir: Path, **params: str) -> dict[int, Any]:
    client = TestClient(create_app(log_dir), base_url=LOCAL)
    response = client.get("/api/changes", params=params)
    assert response.status_code == 200, response.text
    return {b["base_offset"]: b["effect"] for b in response.json()["batches"]}


def _flips(effect: list[dict[str, Any]]) -> set[tuple[str, str, str, str, str]]:
    return {
        (i["resource_name"], c["principal"], c["operation"], c["before"], c["after"])
        for i in effect
        for c in i["changes"]
    }


def test_each_batch_lists_the_decisions_it_flipped(log_dir: Path) -> None:
    effects = _effects(log_dir)
    assert _flips(effects[1]) == {
        ("payments", "User:alice", "READ", "DENIED", "ALLOWED"),
        ("payments", "User:alice", "DESCRIBE", "DENIED", "ALLOWED"),
    }
    # bob's grant on a topic that already has ACLs: denied before, allowed after
    assert ("payments", "User:bob", "WRITE", "DENIED", "ALLOWED") in _flips(effects[3])
    # the DENY for alice on orders.secret: she was not allowed there anyway
    assert effects[7] == [
        {"resource_type": "TOPIC", "resource_name": "orders.secret", "changes": []}
    ]
    assert effects[11] == []  # a SCRAM user changes no ACL


def test_a_removal_is_assessed_when_its_addition_is_on_an_earlier_page(log_dir: Path) -> None:
    for params in ({}, {"start": "9"}):
        assert _flips(_effects(log_dir, **params)[9]) == {
            ("payments", "User:bob", "WRITE", "ALLOWED", "DENIED"),
            ("payments", "User:bob", "DESCRIBE", "ALLOWED", "DENIED"),
        }


def test_the_page_shows_the_flips_and_a_large_batch_is_not_assessed(tmp_path: Path) -> None:
    principals = [f"--allow-principal=User:p{i}" for i in range(6)]
    operations = [f"--operation={op}" for op in ("Read", "Write", "Create", "Delete", "Alter",
                                                  "Describe", "DescribeConfigs", "AlterConfigs",
                                                  "All")]  # fmt: skip
    cli("acls", "add", "--data-dir", str(tmp_path), *principals, *operations, "--topic", "big")
    cli("acls", "add", "--data-dir", str(tmp_path), "--allow-principal", "User:q",
        "--operation", "Read", "--topic", "small")  # fmt: skip
    effects = list(_effects(tmp_path).values())
    assert effects[-2] is None and effects[-1]
    page = TestClient(create_app(tmp_path), base_url=LOCAL).get("/changes").text
    assert "not assessed here (54 ACLs changed" in page
    assert "DENIED → <b>ALLOWED</b>" in page and "<code>User:q</code>" in page
