"""Pages over a data directory holding a large batch (a bulk grant of 630 ACLs, written by
``acls add``) among small ones. Changes: a page holds at most 500 records, says how many of a
large batch it left off, its records are ``dump --json``'s for those offsets, and following
"older" from the end visits every batch exactly once. Diff and Lint: a page shows 500 rows
and says how many more its JSON holds; a kept answer is never served after a commit."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from aclog.ui import create_app
from tests.tools.harness import run_main
from tests.ui.logs import cli, grant

LOCAL = "http://127.0.0.1"
OPERATIONS = ["Read", "Write", "Create", "Delete", "Alter", "Describe", "DescribeConfigs",
              "AlterConfigs", "All"]  # fmt: skip


@pytest.fixture(scope="module")
def log_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    data = tmp_path_factory.mktemp("pages") / "data"
    for n in range(25):
        grant(data, f"User:early{n}", "Read", f"early-{n}")
    bulk = [f"--allow-principal=User:p{i}" for i in range(10)]
    bulk += [f"--operation={op}" for op in OPERATIONS]
    bulk += [f"--topic=bulk-{i}" for i in range(7)]
    cli("acls", "add", "--data-dir", str(data), *bulk)
    grant(data, "User:late", "Read", "late")
    return data


def _page(client: TestClient, **params: str) -> Any:
    response = client.get("/api/changes", params=params)
    assert response.status_code == 200, response.text
    return response.json()


def test_a_page_holds_at_most_500_records(log_dir: Path) -> None:
    client = TestClient(create_app(log_dir), base_url=LOCAL)
    end = _page(client)
    assert [len(b["records"]) for b in end["batches"]] == [2]  # the bulk batch does not fit
    bulk = _page(client, before=str(end["older_before"]))["batches"]
    assert len(bulk) == 1 and bulk[0]["added"] == 630
    assert len(bulk[0]["records"]) == 500 and bulk[0]["records_left_off"] == 131  # + context
    base = bulk[0]["base_offset"]
    dumped = run_main("dump", str(log_dir), "--from-offset", str(base), "--json").stdout
    assert bulk[0]["records"] == [json.loads(line) for line in dumped.splitlines()[:500]]
    page = client.get("/changes", params={"start": str(base)}).text
    assert "131 more records of this batch are left off the page" in page


def test_older_visits_every_batch_once(log_dir: Path) -> None:
    client = TestClient(create_app(log_dir), base_url=LOCAL)
    dumped = run_main("dump", str(log_dir), "--json").stdout.splitlines()
    every = sorted({json.loads(line)["batch_base_offset"] for line in dumped})
    seen: list[int] = []
    page = _page(client)
    while True:
        seen = [b["base_offset"] for b in page["batches"]] + seen
        assert sum(len(b["records"]) for b in page["batches"]) <= 500
        if page["older_before"] is None:
            break
        page = _page(client, before=str(page["older_before"]))
    assert seen == every


def test_the_origin_of_an_acl_granted_after_a_lookup(tmp_path: Path) -> None:
    grant(tmp_path, "User:a", "Read", "first")
    client = TestClient(create_app(tmp_path), base_url=LOCAL)
    state = client.get("/api/state").json()["acls"]
    assert client.get(f"/changes/acl/{state[0]['id']}", follow_redirects=False).status_code == 303
    grant(tmp_path, "User:b", "Read", "second")  # appended after the origins were read
    added = next(a for a in client.get("/api/state").json()["acls"] if a["principal"] == "User:b")
    moved = client.get(f"/changes/acl/{added['id']}", follow_redirects=False)
    batch = _page(client)["batches"][-1]
    assert (
        moved.headers["location"]
        == f"/changes?start={batch['base_offset']}#b{batch['base_offset']}"
    )


def test_diff_and_lint_pages_show_500_rows_and_never_a_stale_answer(tmp_path: Path) -> None:
    data = tmp_path / "data"
    bulk = [f"--allow-principal=User:p{i}" for i in range(10)]
    bulk += [f"--operation={op}" for op in OPERATIONS] + [f"--topic=bulk-{i}" for i in range(7)]
    cli("acls", "add", "--data-dir", str(data), *bulk)
    client = TestClient(create_app(data), base_url=LOCAL)
    diffed = client.get("/api/diff", params={"from": "0"}).json()
    assert len(diffed["acls"]) == 630
    page = client.get("/diff", params={"from": "0"}).text
    assert page.count('<td class="added">') == 500 and "130 more ACL changes are left off" in page
    assert "<h3>ACLs <small>630</small></h3>" in page  # the page counts what it left off too
    findings = client.get("/api/lint").json()["findings"]
    assert len(findings) > 500
    page = client.get("/lint").text
    assert f"{len(findings) - 500} more findings are left off the page" in page
    grant(data, "User:late", "Read", "late")  # a commit: the kept answers no longer hold
    assert len(client.get("/api/diff", params={"from": "0"}).json()["acls"]) == 631
    assert client.get("/api/lint").json()["acls_checked"] == 631
