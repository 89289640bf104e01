"""The UI's views through Starlette's TestClient over real data directories written by the
CLI: each view's JSON equals the CLI's ``--json`` for the same question, names are escaped,
no secret reaches a page, bad input is a 4xx page (and the app keeps answering), the log is
never written, and a change a writer commits shows on the next request."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from aclog.ui import create_app
from tests.tools.harness import run_main
from tests.ui.logs import HOSTILE, PASSWORD, build_log, cli, cli_json, grant

LOCAL = "http://127.0.0.1"
"""What a browser on this machine names the server as (without a token, the only hosts served
are loopback ones)."""


@pytest.fixture(scope="module")
def log_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_log(tmp_path_factory.mktemp("ui") / "data")


@pytest.fixture
def client(log_dir: Path) -> TestClient:
    return TestClient(create_app(log_dir), base_url=LOCAL, raise_server_exceptions=False)


def _api(client: TestClient, path: str, **params: Any) -> Any:
    response = client.get(path, params=params)
    assert response.status_code == 200, response.text
    return response.json()


@pytest.mark.parametrize("at_offset", ["4", "10", "14"])
def test_state_equals_replay_and_acls_list(
    client: TestClient, log_dir: Path, at_offset: str
) -> None:
    d = str(log_dir)
    state = _api(client, "/api/state", at_offset=at_offset)
    replayed = cli_json("replay", "--data-dir", d, "--at-offset", at_offset)
    for key in ("offset", "epoch", "timestamp", "acls", "users"):
        assert state[key] == replayed[key]
    alice = _api(client, "/api/state", at_offset=at_offset, principal="User:alice")
    listed = cli_json("acls", "list", "--data-dir", d, "--principal", "User:alice",
                      "--at-offset", at_offset)  # fmt: skip
    assert alice["acls"] == listed["acls"]
    assert alice["total"] == len(listed["acls"])


def test_a_match_filter_lists_what_acls_list_lists(client: TestClient, log_dir: Path) -> None:
    got = _api(client, "/api/state", resource_type="TOPIC", resource_name="orders.secret",
               pattern_type="MATCH")  # fmt: skip
    listed = cli_json("acls", "list", "--data-dir", str(log_dir), "--topic", "orders.secret",
                      "--resource-pattern-type", "match")  # fmt: skip
    assert got["acls"] == listed["acls"] and len(got["acls"]) == 2


@pytest.mark.parametrize(
    ("principal", "topic", "at"),
    [
        ("User:alice", "payments", {}),
        ("User:alice", "orders.secret", {}),
        ("User:carol", "orders.eu", {"at_offset": "6"}),
        ("User:bob", "payments", {"at_offset": "4"}),
        ("User:bob", "payments", {}),
        (f"User:{HOSTILE}", HOSTILE, {}),
    ],
)
def test_explain_equals_the_cli(
    client: TestClient, log_dir: Path, principal: str, topic: str, at: dict[str, str]
) -> None:
    got = _api(client, "/api/explain", principal=principal, host="10.0.0.1", operation="Read",
               resource_type="TOPIC", resource_name=topic, **at)  # fmt: skip
    point = [f"--{key.replace('_', '-')}" if i == 0 else value
             for key, value in at.items() for i in (0, 1)]  # fmt: skip
    request = ["--principal", principal, "--host", "10.0.0.1", "--operation", "Read"]
    expected = cli_json("explain", "--data-dir", str(log_dir), *request, "--topic", topic, *point)
    assert got == expected


def test_changes_hold_what_dump_prints(client: TestClient, log_dir: Path) -> None:
    got = _api(client, "/api/changes", start="3")
    records = [row for batch in got["batches"] for row in batch["records"]]
    dumped = run_main("dump", str(log_dir), "--from-offset", "3", "--json")
    assert [json.loads(line) for line in dumped.stdout.splitlines()] == records
    removal = next(r for r in records if r["type"] == "RemoveAccessControlEntryRecord")
    assert removal["removed_acl"]["principal"] == "User:bob"
    assert [b["author"]["api"] for b in got["batches"]][:2] == ["aclog acls add"] * 2


def test_explain_links_each_binding_to_the_change_that_made_it(client: TestClient) -> None:
    params = {"principal": "User:alice", "host": "10.0.0.1", "operation": "READ",
              "resource_type": "TOPIC", "resource_name": "orders.secret"}  # fmt: skip
    page = client.get("/explain", params=params).text
    assert "DENIED" in page and "deciding" in page
    deny = _api(client, "/api/explain", **params)["deciding_acl"]
    moved = client.get(f"/changes/acl/{deny['id']}", follow_redirects=False)
    assert moved.status_code == 303
    assert moved.headers["location"] == "/changes?start=7#b7"
    assert 'id="b7"' in client.get("/changes?start=7").text


def test_every_name_is_escaped_and_no_secret_is_shown(client: TestClient, log_dir: Path) -> None:
    secrets = [
        row["data"][key]
        for line in run_main("dump", str(log_dir), "--json", "--no-redact").stdout.splitlines()
        if (row := json.loads(line))["type"] == "UserScramCredentialRecord"
        for key in ("salt", "stored_key", "server_key")
    ]
    assert len(secrets) == 3
    explain = {"principal": f"User:{HOSTILE}", "host": "*", "operation": "READ",
               "resource_type": "TOPIC", "resource_name": HOSTILE}  # fmt: skip
    for path, params in [
        ("/state", {}), ("/changes", {}), ("/timeline", {}), ("/explain", explain),
        ("/state", {"principal": f"User:{HOSTILE}"}), ("/state", {"at_time": HOSTILE}),
        ("/who-can", {"operation": "READ", "resource_name": HOSTILE}),
        ("/reach", {"principal": f"User:{HOSTILE}"}), ("/diff", {"from": "0", "to": HOSTILE}),
        ("/diff", {"from": "0"}), ("/lint", {}), ("/reach", {"principal": HOSTILE}),
    ]:  # fmt: skip
        page = client.get(path, params=params).text
        assert "<script>alert" not in page and "\x00" not in page
        assert "nul\nline" not in page
        assert not [s for s in [*secrets, PASSWORD] if s and str(s) in page]
    shown = client.get("/state").text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;&#34;quote&#39;\\x00nul\\nline" in shown
    assert '<script src="/static/app.js" defer></script>' in shown  # the only scripts: files


def test_pages_carry_a_strict_content_security_policy(client: TestClient) -> None:
    for path in ("/state", "/nope", "/state?at_offset=x", "/api/state"):
        csp = client.get(path).headers["content-security-policy"]
        assert "script-src 'self'" in csp and "default-src 'none'" in csp
        assert "unsafe-inline" not in csp


@pytest.mark.parametrize(
    ("path", "status", "says"),
    [
        ("/state?at_offset=abc", 400, "not a whole number"),
        ("/state?at_offset=1&at_time=1", 400, "not both"),
        ("/state?at_time=yesterday", 400, "cannot read the time"),
        ("/state?at_time=2999-01-01", 400, "in the future"),
        ("/state?at_offset=500", 404, "past the end of the log"),
        ("/state?at_time=2001-01-01", 404, "before the log starts"),
        ("/state?operation=FLY", 400, "is not one of"),
        ("/state?page=99", 400, "past the last page"),
        ("/state?principal=alice", 400, "principal"),
        ("/explain?principal=alice", 400, "Type:name"),
        ("/explain?principal=User:a&host=nohost&operation=READ&resource_name=t", 400, "host"),
        ("/explain?principal=User:a&operation=READ", 400, "resource_name is empty"),
        ("/changes/acl/zzz", 400, "not an ACL id"),
        ("/changes/acl/AAAAAAAAAAAAAAAAAAAAAA", 404, "no batch"),
        ("/no/such/page", 404, "no page"),
    ],
)
def test_bad_input_is_a_clear_page_and_the_app_keeps_answering(
    client: TestClient, path: str, status: int, says: str
) -> None:
    response = client.get(path)
    assert response.status_code == status
    assert says in response.text and "Traceback" not in response.text
    assert client.get("/state").status_code == 200


def test_a_missing_or_damaged_directory_is_a_page_not_a_crash(tmp_path: Path) -> None:
    data = build_log(tmp_path / "data")
    client = TestClient(create_app(data), base_url=LOCAL, raise_server_exceptions=False)
    assert client.get("/state").status_code == 200
    segment = data / "00000000000000000000.log"
    raw = bytearray(segment.read_bytes())
    raw[200] ^= 0xFF  # inside a batch that is not the last: a CRC mismatch, not a torn tail
    segment.write_bytes(bytes(raw))
    damaged = client.get("/state")
    assert damaged.status_code == 409 and "cannot be read" in damaged.text
    gone = TestClient(  # warmed as a server is: the build fails, the requests say why
        create_app(tmp_path / "missing", warm=True), base_url=LOCAL, raise_server_exceptions=False
    )
    for path in ("/state", "/changes", "/timeline", "/api/timeline", "/explain"):
        response = gone.get(path)
        assert response.status_code == 404 and "no data directory" in response.text


def test_a_warmed_app_answers_as_a_cold_one_and_sees_later_commits(tmp_path: Path) -> None:
    data = build_log(tmp_path / "data")
    warmed = TestClient(create_app(data, warm=True), base_url=LOCAL)
    cold = TestClient(create_app(data), base_url=LOCAL)
    for path in ("/api/state", "/api/state?page=1&principal=User:alice", "/api/timeline"):
        assert _api(warmed, path) == _api(cold, path)
    grant(data, "User:dave", "Read", "fresh-topic")
    assert "fresh-topic" in warmed.get("/state").text


def test_an_empty_directory_reads_as_an_empty_log(tmp_path: Path) -> None:
    client = TestClient(create_app(tmp_path), base_url=LOCAL, raise_server_exceptions=False)
    assert "the log is empty" in client.get("/state").text
    assert client.get("/api/timeline").json() == {"points": []}
    assert client.get("/state?at_offset=0").status_code == 404


def _files(directory: Path) -> dict[str, tuple[int, int, bytes]]:
    return {
        p.name: (p.stat().st_mtime_ns, p.stat().st_mode, p.read_bytes())
        for p in sorted(directory.iterdir())
    }


def test_reading_writes_nothing_and_a_new_commit_shows_at_once(tmp_path: Path) -> None:
    data = build_log(tmp_path / "data")
    before = _files(data)
    client = TestClient(create_app(data), base_url=LOCAL, raise_server_exceptions=False)
    for path in ("/state", "/changes", "/timeline", "/api/timeline", "/state?at_offset=4",
                 "/explain?principal=User:alice&operation=READ&resource_name=payments",
                 "/api/end", "/changes?at_offset=8"):  # fmt: skip
        assert client.get(path).status_code == 200
    assert _files(data) == before  # no byte, mode or mtime moved; no lock file made
    end = client.get("/api/end").json()["last_offset"]
    grant(data, "User:dave", "Read", "fresh-topic")
    assert client.get("/api/end").json()["last_offset"] > end
    assert "fresh-topic" in client.get("/state").text
    assert "User:dave" in client.get("/changes").text
    assert client.get("/api/timeline").json()["points"][-1]["bindings"] == 5


def test_timeline_counts_additions_and_removals(client: TestClient) -> None:
    points = _api(client, "/api/timeline")["points"]
    assert [(p["added"], p["removed"]) for p in points] == [
        (0, 0), (1, 0), (1, 0), (1, 0), (1, 0), (0, 1), (0, 0), (1, 0)
    ]  # fmt: skip
    assert [p["bindings"] for p in points][-1] == 4
    assert all(a["timestamp"] <= b["timestamp"] for a, b in itertools.pairwise(points))


def test_a_token_guards_every_data_route(log_dir: Path) -> None:
    token = "t0ken-that-is-long-enough"
    client = TestClient(create_app(log_dir, token), base_url=LOCAL, raise_server_exceptions=False)
    assert client.get("/api/state").status_code == 401
    redirected = client.get("/state", follow_redirects=False)
    assert (redirected.status_code, redirected.headers["location"]) == (303, "/login")
    assert client.get("/static/app.js").status_code == 200
    bearer = client.get("/api/state", headers={"Authorization": f"Bearer {token}"})
    assert bearer.status_code == 200
    assert client.post("/login", data={"token": "wrong"}).status_code == 401
    logged = client.post("/login", data={"token": token}, follow_redirects=False)
    cookie = logged.cookies.get("aclog_ui_session")
    assert logged.status_code == 303 and cookie and token not in cookie
    page = client.get("/state")
    assert page.status_code == 200 and token not in page.text
    assert "logged in" in page.text


@pytest.mark.parametrize(
    ("topic", "host"), [("orders.secret", None), ("payments", None), ("orders.eu", "10.0.0.1")]
)
def test_who_can_equals_the_cli(
    client: TestClient, log_dir: Path, topic: str, host: str | None
) -> None:
    where = {} if host is None else {"host": host}
    got = _api(client, "/api/who-can", operation="READ", resource_type="TOPIC",
               resource_name=topic, **where)  # fmt: skip
    flags = [] if host is None else ["--host", host]
    expected = cli_json("who-can", "--data-dir", str(log_dir), "--operation", "Read",
                        "--topic", topic, *flags)  # fmt: skip
    assert got == expected
    page = client.get("/who-can", params={"operation": "READ", "resource_name": topic}).text
    assert all(row["principal"] in page for row in expected["allowed"] + expected["denied"])


@pytest.mark.parametrize("principal", ["User:alice", "User:carol", f"User:{HOSTILE}"])
def test_reach_equals_the_cli(client: TestClient, log_dir: Path, principal: str) -> None:
    got = _api(client, "/api/reach", principal=principal, at_offset="14")
    expected = cli_json("reach", "--data-dir", str(log_dir), "--principal", principal,
                        "--at-offset", "14")  # fmt: skip
    assert got == expected
    page = client.get("/reach", params={"principal": principal}).text
    assert "<script>alert" not in page and "\x00" not in page


def test_an_unknown_principal_is_a_404_page(client: TestClient) -> None:
    response = client.get("/reach", params={"principal": "User:nobody"})
    assert response.status_code == 404 and "no ACL names the principal" in response.text
    assert client.get("/api/reach", params={"principal": "nobody"}).status_code == 400


@pytest.mark.parametrize(("start", "end"), [("0", "14"), ("3", "10"), ("5", ""), ("4", "4")])
def test_diff_equals_the_cli(client: TestClient, log_dir: Path, start: str, end: str) -> None:
    got = _api(client, "/api/diff", **{"from": start, "to": end})
    expected = cli_json("diff", "--data-dir", str(log_dir), "--from", start, "--to", end or "99")
    assert got == expected
    page = client.get("/diff", params={"from": start, "to": end}).text
    assert "<script>alert" not in page and "\x00" not in page and "salt" not in page


def test_a_diff_backwards_or_unreadable_is_a_400_page(client: TestClient) -> None:
    for params, says in [
        ({"from": "10", "to": "3"}, "from comes after to"),
        ({"from": "-1", "to": "3"}, "offsets start at 0"),
        ({"from": "soon", "to": "3"}, "cannot read the time"),
    ]:
        response = client.get("/diff", params=params)
        assert response.status_code == 400 and says in response.text


@pytest.mark.parametrize("at", [{}, {"at_offset": "8"}])
def test_lint_equals_the_cli(client: TestClient, log_dir: Path, at: dict[str, str]) -> None:
    got = _api(client, "/api/lint", **at)
    point = ["--at-offset", at["at_offset"]] if at else []
    assert got == cli_json("lint", "--data-dir", str(log_dir), *point)
    page = client.get("/lint", params=at).text
    assert all(f["kind"] in page for f in got["findings"])
    assert "<script>alert" not in page and "\x00" not in page


def test_lint_of_a_seeded_history_links_each_finding(tmp_path: Path) -> None:
    data = tmp_path / "tenancy"
    cli("demo", "--data-dir", str(data), "--tenancy")
    client = TestClient(create_app(data), base_url=LOCAL, raise_server_exceptions=False)
    got = _api(client, "/api/lint")
    assert got == cli_json("lint", "--data-dir", str(data))
    assert got["findings"] and got["counts"]["warning"] > 0
    page = client.get("/lint").text
    first = next(f for f in got["findings"] if f["acls"])
    assert f'href="/changes/acl/{first["acls"][0]["id"]}"' in page


def test_a_locked_directory_is_read_beside_its_writer(tmp_path: Path) -> None:
    from aclog.controller.controller import Controller

    data = build_log(tmp_path / "data")
    client = TestClient(create_app(data), base_url=LOCAL, raise_server_exceptions=False)
    with Controller.open(data):  # the writer holds the lock: the UI never needs it
        held = _files(data)
        for path in ("/state", "/changes", "/lint", "/diff?from=0", "/api/timeline"):
            assert client.get(path).status_code == 200
        assert _files(data) == held


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8080", "10.0.0.1"])
def test_without_a_token_only_loopback_host_names_are_served(log_dir: Path, host: str) -> None:
    client = TestClient(create_app(log_dir), base_url=f"http://{host}")
    for path in ("/state", "/api/state", "/static/app.js"):
        response = client.get(path)
        assert response.status_code == 403 and "loopback" in response.text
    for local in ("http://localhost:8080", "http://[::1]:8080", "http://127.0.0.1"):
        assert TestClient(create_app(log_dir), base_url=local).get("/state").status_code == 200


def test_moments_in_any_order_answer_as_a_rebuild_there(log_dir: Path) -> None:
    """Past states are built from the nearest kept one below: each equals a rebuild."""
    from aclog.replay import rebuild_image

    client = TestClient(create_app(log_dir), base_url=LOCAL)
    for at in [2, 4, 6, 5, 10, 3, 14, 12, 0, 8, 9, 13, 1, 7]:
        got = _api(client, "/api/state", at_offset=str(at))
        image = rebuild_image(log_dir, at_offset=at).image
        assert got["acls"] == image.acls.to_dict() and got["users"] == image.scram.to_dict()
        assert got["offset"] == image.provenance.last_offset
