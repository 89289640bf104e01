"""``make run``'s walk-through: a real listener driven by kafka-python, then dump and explain."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from typer.testing import CliRunner

from aclog.replay.rebuild import rebuild_image
from aclog.tools.main import app
from tests.kraft.layout import build_layout
from tests.tools.harness import run_main, tree_digest


def test_quickstart_walks_through_a_real_server(tmp_path: Path) -> None:
    data = tmp_path / "data"
    command = [
        sys.executable,
        "-m",
        "aclog.tools.main",
        "quickstart",
        "--data-dir",
        str(data),
        "--listen",
        "127.0.0.1:0",
        "--exit",
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "kafka-python created 2 ACLs (0 failed)" in done.stdout
    assert "by User:ANONYMOUS from 127.0.0.1 (aclog-quickstart, CreateAcls)" in done.stdout
    assert "payments.cards: DENIED" in done.stdout and "payments.eu: ALLOWED" in done.stdout
    # the steps are separated by blank lines, not by an escaped "\n" shown as two characters
    assert "\\n" not in done.stdout, done.stdout
    assert "\n\n3. the committed log (aclog dump):\n" in done.stdout
    image = rebuild_image(data).image
    assert len(image.acls) == 2 and "ledger" in image.scram.users


def test_quickstart_json_is_one_document_with_the_log_and_the_decisions(tmp_path: Path) -> None:
    data = tmp_path / "data"
    command = [sys.executable, "-m", "aclog", "quickstart", "--data-dir", str(data),
               "--listen", "127.0.0.1:0", "--exit", "--json"]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)  # the steps for a person went to stderr
    assert (result["created_acls"], result["failed_acls"]) == (2, 0)
    assert result["data_dir"] == str(data) and result["scram_users"] == ["ledger"]
    assert [r["type"] for r in result["records"]].count("AccessControlEntryRecord") == 2
    decisions = {e["topic"]: e["decision"] for e in result["explanations"]}
    assert decisions == {"payments.eu": "ALLOWED", "payments.cards": "DENIED"}
    assert "1. aclog serve is listening" in done.stderr


def test_demo_json_is_the_dump_and_the_replay(tmp_path: Path) -> None:
    data = tmp_path / "data"
    result = CliRunner().invoke(app, ["demo", "--data-dir", str(data), "--json"])
    assert result.exit_code == 0, result.output
    shown = json.loads(result.stdout)
    assert shown["wrote"] is True and shown["data_dir"] == str(data)
    dumped = CliRunner().invoke(app, ["dump", str(data), "--json"]).stdout
    assert shown["records"] == [json.loads(line) for line in dumped.splitlines()]
    replayed = CliRunner().invoke(app, ["replay", "--data-dir", str(data), "--json"]).stdout
    assert shown["state"] == json.loads(replayed)
    again = json.loads(CliRunner().invoke(app, ["demo", "--data-dir", str(data), "--json"]).stdout)
    assert again["wrote"] is False


def test_demo_tenancy_writes_the_sample_once_and_its_suggestions_run(tmp_path: Path) -> None:
    data = tmp_path / "tenancy"
    result = CliRunner().invoke(app, ["demo", "--data-dir", str(data), "--tenancy"])
    assert result.exit_code == 0, result.output
    rebuilt = rebuild_image(data)
    assert f"offsets 0..{rebuilt.image.provenance.last_offset}" in result.stdout
    assert f"{len(rebuilt.image.acls)} ACLs" in result.stdout
    suggestions = [line.split()[1:] for line in result.stdout.splitlines() if "  aclog " in line]
    assert [s[0] for s in suggestions] == ["who-can", "reach", "lint", "timeline"]
    for argv in suggestions:
        asked = CliRunner().invoke(app, argv)
        # lint exits 0 whatever it finds unless --fail-on; the others answer from the ACLs
        assert asked.exit_code == 0, (argv, asked.output)
        assert "ALLOWED" in asked.stdout or "allowed" in asked.stdout or argv[0] == "lint"
    again = CliRunner().invoke(
        app, ["demo", "--data-dir", str(data), "--tenancy", "--json", "--no-show"]
    )
    assert json.loads(again.stdout) == {
        "data_dir": str(data),
        "wrote": False,
        "last_offset": rebuilt.image.provenance.last_offset,
    }
    assert rebuild_image(data).next_offset == rebuilt.next_offset  # kept, nothing appended


def test_demo_tenancy_refuses_a_directory_that_is_not_empty_or_a_log(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine\n")
    result = CliRunner().invoke(app, ["demo", "--data-dir", str(tmp_path), "--tenancy"])
    assert result.exit_code == 2
    assert "not an aclog data directory" in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def test_demo_tenancy_refuses_a_kraft_metadata_directory_and_leaves_it_alone(
    tmp_path: Path,
) -> None:
    # Kafka's metadata directory holds .log segments too: it is not an aclog data directory.
    kraft = tmp_path / "__cluster_metadata-0"
    build_layout(kraft)
    before = tree_digest(kraft)
    result = run_main("demo", "--data-dir", str(kraft), "--tenancy")
    assert result.code == 2, result.stderr
    assert "is a KRaft metadata directory" in result.stderr
    assert tree_digest(kraft) == before


def test_demo_refuses_a_directory_of_other_files_and_leaves_it_alone(tmp_path: Path) -> None:
    # It wrote its segments among them (only --tenancy refused).
    (tmp_path / "notes.txt").write_text("mine\n")
    before = tree_digest(tmp_path)
    result = run_main("demo", "--data-dir", str(tmp_path))
    assert result.code == 2, result.stdout
    assert f"{tmp_path} holds no log segments" in result.stderr
    assert tree_digest(tmp_path) == before


def _children(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(p) for p in path.read_text().split()] if path.exists() else []


def test_quickstart_serves_the_web_view_and_sigterm_stops_both(tmp_path: Path) -> None:
    """``make run`` leaves the server and the web view of the same log running and says where;
    stopped with SIGTERM it must not leave ``aclog serve`` holding the port and the writer lock
    (or the next ``make run`` fails), nor the UI holding its port."""
    command = [sys.executable, "-m", "aclog", "quickstart", "--data-dir", str(tmp_path / "d"),
               "--listen", "127.0.0.1:0", "--ui-port", "0"]  # fmt: skip
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True) as quickstart:
        assert quickstart.stdout is not None
        url = None
        for line in quickstart.stdout:  # bounded: the walk-through ends with this line
            if line.startswith("5. the web view"):
                url = line.rsplit(" ", 1)[1].strip()
            if line.startswith("The server keeps running"):
                break
        assert url is not None and url.startswith("http://127.0.0.1:"), url
        with urllib.request.urlopen(f"{url}api/state", timeout=30) as answer:
            principals = {acl["principal"] for acl in json.load(answer)["acls"]}
        assert principals == {"User:ledger"}  # the two ACLs the walk-through created
        children = _children(quickstart.pid)
        assert len(children) == 2  # the server and the UI
        quickstart.send_signal(signal.SIGTERM)
        assert quickstart.wait(timeout=30) == 0
    deadline = time.monotonic() + 10
    while not all(_gone(child) for child in children) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert all(_gone(child) for child in children)


def _gone(pid: int) -> bool:
    """No such process, or only a zombie waiting for whoever reaps orphans here."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    return stat.rsplit(") ", 1)[1].startswith("Z")
