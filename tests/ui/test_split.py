"""The Timeline's split of additions and removals by principal or resource, through
Starlette's TestClient over a data directory written by the CLI: the split accounts for every
change of every point, names each key as the CLI shows it, and a bad ``by`` is a 400."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from aclog.ui import create_app
from tests.ui.logs import HOSTILE, build_log

LOCAL = "http://127.0.0.1"


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> TestClient:
    log_dir = build_log(tmp_path_factory.mktemp("split") / "data")
    return TestClient(create_app(log_dir), base_url=LOCAL, raise_server_exceptions=False)


@pytest.mark.parametrize("by", ["principal", "resource"])
def test_the_split_accounts_for_every_change(client: TestClient, by: str) -> None:
    data = client.get("/api/timeline", params={"by": by}).json()
    points, series = data["points"], data["split"]["series"]
    for i, point in enumerate(points):
        assert sum(s["added"][i] for s in series) == point["added"]
        assert sum(s["removed"][i] for s in series) == point["removed"]
    assert "split" not in client.get("/api/timeline").json()


def test_each_key_is_named_as_the_cli_shows_it(client: TestClient) -> None:
    series = client.get("/api/timeline", params={"by": "principal"}).json()["split"]["series"]
    bob = next(s for s in series if s["key"] == "User:bob")
    assert sum(bob["added"]) == 1 and sum(bob["removed"]) == 1  # granted, then removed
    hostile = next(s for s in series if s["key"] == f"User:{HOSTILE}")
    assert "\\x00nul\\nline" in hostile["label"] and "\n" not in hostile["label"]
    page = client.get("/timeline", params={"by": "principal"}).text
    assert 'data-source="/api/timeline?by=principal"' in page and "by principal" in page


def test_a_bad_split_is_a_400_page(client: TestClient) -> None:
    response = client.get("/timeline", params={"by": "<script>"})
    assert response.status_code == 400
    assert "is not one of: principal, resource" in response.text
    assert "<script>" not in response.text
    assert client.get("/api/timeline", params={"by": "topic"}).status_code == 400
