"""``aclog acls`` and ``aclog users`` with ``--bootstrap-server``: the same JSON, exit codes and
stderr as with ``--data-dir`` (ids aside), over ``aclog serve`` subprocesses on 127.0.0.1."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from aclog.node import ConfigError
from aclog.records import ScramMechanism
from aclog.remote.command_config import client_settings, parse_jaas, read_properties
from aclog.tools.main import app
from tests.wire.harness import ServerProcess, make_certificate

runner = CliRunner()
ADMIN, ADMIN_PASSWORD = "admin", "admin-secret"
SCRAM_LOGIN = "org.apache.kafka.common.security.scram.ScramLoginModule"


def _run(*args: str, stdin: str | None = None, env: dict[str, str] | None = None) -> Any:
    return runner.invoke(app, list(args), input=stdin, env=env)


@contextmanager
def _serving(workdir: Path, *args: str, seed: bool = False) -> Iterator[ServerProcess]:
    server = ServerProcess(workdir, *args, name="server")
    if seed:
        server.seed_user(ADMIN, ADMIN_PASSWORD, ScramMechanism.SCRAM_SHA_512)
    server.start()
    try:
        yield server
    finally:
        code = server.stop()
        assert code == 0, f"the server exited with {code}:\n{server.stderr()[-3000:]}"


@pytest.fixture
def plain(tmp_path: Path) -> Iterator[ServerProcess]:
    """A fresh PLAINTEXT server where every (anonymous) client is a super user."""
    (tmp_path / "srv").mkdir()
    with _serving(tmp_path / "srv", "--super-users", "User:ANONYMOUS") as server:
        yield server


@pytest.fixture(scope="module")
def sasl(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """SASL_PLAINTEXT with super user ``User:admin`` (SCRAM-SHA-512)."""
    workdir = tmp_path_factory.mktemp("sasl")
    sasl = ("--security-protocol", "SASL_PLAINTEXT")
    with _serving(workdir, *sasl, "--super-users", "User:admin", seed=True) as server:
        yield server


def _without_ids(value: Any, *, any_order: bool = False) -> Any:
    """``value`` without ``id`` keys; with ``any_order``, "acls" lists sorted."""
    if isinstance(value, dict):
        return {
            k: (sorted(_without_ids(v), key=json.dumps) if k == "acls" and any_order else
                _without_ids(v, any_order=any_order))
            for k, v in value.items()
            if k != "id"
        }  # fmt: skip
    if isinstance(value, list):
        return [_without_ids(v, any_order=any_order) for v in value]
    return value


def _ids(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [v for k, v in value.items() if k == "id"] + _ids(list(value.values()))
    if isinstance(value, list):
        return [i for v in value for i in _ids(v)]
    return []


STEPS: list[tuple[tuple[str, ...], str | None]] = [
    (("acls", "add", "--allow-principal", "User:alice", "--operation", "Read",
      "--operation", "describe-configs", "--topic", "orders", "--json"), None),
    (("acls", "add", "--allow-principal", "User:bob", "--producer", "--topic", "pay",
      "--transactional-id", "tx", "--json"), None),
    (("acls", "add", "--allow-principal", "User:fin", "--operation", "READ", "--topic",
      "??-accounts-*", "--resource-pattern-type", "glob", "--json"), None),
    (("acls", "add", "--deny-principal", "User:mallory", "--operation", "Write", "--topic",
      "pay", "--resource-pattern-type", "prefixed", "--json"), None),
    (("acls", "add", "--allow-principal", "alice", "--operation", "Read", "--topic", "t",
      "--json"), None),
    (("acls", "add", "--allow-principal", "User:alice", "--operation", "Read", "--topic",
      "orders", "--json"), None),
    (("acls", "list", "--topic", "us-accounts-payable", "--resource-pattern-type", "match",
      "--json"), None),
    (("acls", "list", "--topic", "usa-accounts-payable", "--resource-pattern-type", "match",
      "--json"), None),
    (("acls", "list", "--topic", "payments", "--resource-pattern-type", "match", "--json"), None),
    (("acls", "list", "--principal", "User:bob", "--json"), None),
    (("acls", "remove", "--topic", "pay", "--dry-run", "--json"), None),
    (("acls", "remove", "--topic", "orders", "--allow-principal", "User:alice", "--operation",
      "Read", "--force", "--json"), None),
    (("acls", "remove", "--topic", "??-accounts-*", "--resource-pattern-type", "glob",
      "--force", "--json"), None),
    (("acls", "remove", "--cluster", "--topic", "pay", "--resource-pattern-type", "any",
      "--force", "--json"), None),
    (("users", "set", "alice", "--mechanism", "SCRAM-SHA-256", "--password-stdin", "--json"),
     "pa55word\n"),
    (("users", "set", "alice", "--mechanism", "scram-sha-512", "--password", "x",
      "--iterations", "16384", "--json"), None),
    (("users", "set", "bob", "--mechanism", "SCRAM-SHA-512", "--password", "x",
      "--iterations", "100", "--json"), None),
    (("users", "list", "--json"), None),
    (("users", "list", "alice", "nobody", "--json"), None),
    (("users", "delete", "alice", "--mechanism", "SCRAM-SHA-256", "--json"), None),
    (("users", "delete", "alice", "--mechanism", "SCRAM-SHA-256", "--json"), None),
    (("users", "list", "--json"), None),
]  # fmt: skip


def _with_target(args: tuple[str, ...], target: tuple[str, ...]) -> list[str]:
    # target options go after the command name (and the user argument of `users`)
    split = 3 if args[0] == "users" and args[1] != "list" else 2
    return [*args[:split], *target, *args[split:]]


def test_remote_json_exit_codes_and_errors_equal_the_data_dir(
    tmp_path: Path, plain: ServerProcess
) -> None:
    local = ("--data-dir", str(tmp_path / "local"))
    remote = ("--bootstrap-server", plain.bootstrap)
    for args, stdin in STEPS:
        mine = _run(*_with_target(args, local), stdin=stdin)
        theirs = _run(*_with_target(args, remote), stdin=stdin)
        assert mine.exit_code in (0, 1), (args, mine.output)
        assert (theirs.exit_code, theirs.stderr) == (mine.exit_code, mine.stderr), args
        # Listings (and remove --dry-run, a DescribeAcls remotely) come in commit order from a
        # data directory and in Kafka's DescribeAcls order from a server.
        any_order = "list" in args or "--dry-run" in args
        assert _without_ids(json.loads(theirs.stdout), any_order=any_order) == _without_ids(
            json.loads(mine.stdout), any_order=any_order
        ), args
        assert all(i is None for i in _ids(json.loads(theirs.stdout))), args
        assert None not in _ids(json.loads(mine.stdout)) or mine.exit_code == 1
    # A full listing: a data directory lists in commit order, the server in Kafka's order.
    mine = json.loads(_run("acls", "list", *local, "--json").stdout)["acls"]
    theirs = json.loads(_run("acls", "list", *remote, "--json").stdout)["acls"]
    assert len(theirs) == len(mine) == 3
    assert _without_ids({"acls": theirs}, any_order=True) == _without_ids(
        {"acls": mine}, any_order=True
    )


def test_text_output_and_failures(plain: ServerProcess) -> None:
    remote = ("--bootstrap-server", plain.bootstrap)
    add = ("acls", "add", *remote, "--allow-principal", "User:a", "--topic", "t")
    first = _run(*add, "--operation", "Read")
    assert first.exit_code == 0 and first.stdout.startswith("added ")
    again = _run(*add, "--operation", "Read", "--operation", "Write")
    assert again.exit_code == 0, again.output
    assert again.stdout.splitlines() == [
        "exists    ALLOW User:a READ from * on TOPIC:LITERAL:t",
        "added     ALLOW User:a WRITE from * on TOPIC:LITERAL:t",
    ]
    listed = _run("acls", "list", *remote, "--topic", "t")
    assert listed.stdout.splitlines()[-1] == "2 ACLs"
    refused = _run("acls", "remove", *remote, "--topic", "t")
    assert refused.exit_code == 2 and "would remove 2 ACLs" in refused.stderr
    removed = _run("acls", "remove", *remote, "--topic", "t", "--force")
    assert removed.exit_code == 0 and removed.stdout.count("removed ") == 2
    bad = _run("acls", "add", *remote, "--allow-principal", "a", "--topic", "t")
    assert bad.exit_code == 1 and "INVALID_REQUEST (42)" in bad.stderr


def test_command_config_with_scram_login(tmp_path: Path, sasl: ServerProcess) -> None:
    admin = tmp_path / "admin.properties"
    admin.write_text(
        "# a kafka-acls --command-config file\n"
        "security.protocol=SASL_PLAINTEXT\n"
        "sasl.mechanism=SCRAM-SHA-512\n"
        f"sasl.jaas.config={SCRAM_LOGIN} required \\\n"
        f'    username="{ADMIN}" password="{ADMIN_PASSWORD}";\n'
    )
    remote = ("--bootstrap-server", sasl.bootstrap, "--command-config", str(admin))
    made = _run("users", "set", "carol", *remote, "--mechanism", "SCRAM-SHA-256", "--password", "c")
    assert made.exit_code == 0, made.output
    added = _run(
        "acls", "add", *remote, "--allow-principal", "User:carol", "--operation", "Read",
        "--topic", "ledger-*", "--resource-pattern-type", "glob", "--json",
    )  # fmt: skip
    assert added.exit_code == 0, added.output
    (row,) = json.loads(added.stdout)["results"]
    assert (row["id"], row["pattern_type"], row["error_code"]) == (None, "GLOB", 0)
    listed = _run("acls", "list", *remote, "--topic", "ledger-eu", "--resource-pattern-type",
                  "match", "--json")  # fmt: skip
    assert [a["principal"] for a in json.loads(listed.stdout)["acls"]] == ["User:carol"]

    # The new user logs in with the credential the CLI salted (librdkafka-style keys); not a
    # super user, so the whole DescribeUserScramCredentials request is refused: exit 1.
    carol = tmp_path / "carol.properties"
    carol.write_text(
        "security.protocol: SASL_PLAINTEXT\nsasl.mechanism SCRAM-SHA-256\n"
        "sasl.username=carol\nsasl.password=c\n"
    )
    denied = _run("users", "list", "--bootstrap-server", sasl.bootstrap,
                  "--command-config", str(carol), "--json")  # fmt: skip
    assert (denied.exit_code, denied.stdout) == (1, "")  # no listing: not "no users"
    assert "CLUSTER_AUTHORIZATION_FAILED (31)" in denied.stderr
    for output in ((), ("--json",)):
        listed = _run("acls", "list", "--bootstrap-server", sasl.bootstrap,
                      "--command-config", str(carol), *output)  # fmt: skip
        assert (listed.exit_code, listed.stdout) == (1, ""), listed.output
        # Kafka sends no message with 31: its own description of the code stands in.
        expected = "CLUSTER_AUTHORIZATION_FAILED (31): Returned by the broker when the client"
        assert expected in listed.stderr, listed.stderr

    # A wrong password: exit 3 at the first SASL_AUTHENTICATION_FAILED (not retried). The
    # server closes the connection right after that response, and kafka-python sometimes sees
    # the close first ("socket disconnected") and retries; the timeout bounds that case, and
    # the message names it.
    wrong = tmp_path / "wrong.properties"
    wrong.write_text(
        carol.read_text().replace("sasl.password=c", "sasl.password=nope")
        + "default.api.timeout.ms=4000\n"
    )
    started = time.monotonic()
    failed = _run("users", "list", "--bootstrap-server", sasl.bootstrap,
                  "--command-config", str(wrong))  # fmt: skip
    assert failed.exit_code == 3 and f"cannot connect to {sasl.bootstrap}: " in failed.stderr
    assert "SASL_AUTHENTICATION_FAILED (58): Authentication failed" in failed.stderr or (
        "no answer within 4 s (default.api.timeout.ms in --command-config)" in failed.stderr
    )
    assert time.monotonic() - started < 8


def test_sasl_ssl_with_a_pem_truststore(tmp_path: Path) -> None:
    cert, key = make_certificate(tmp_path)
    (tmp_path / "srv").mkdir()
    tls = ("--security-protocol", "SASL_SSL", "--tls-cert", str(cert), "--tls-key", str(key))
    with _serving(tmp_path / "srv", *tls, "--super-users", "User:admin", seed=True) as server:
        config = tmp_path / "ssl.properties"
        config.write_text(
            "security.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-512\n"
            f"sasl.username={ADMIN}\nsasl.password={ADMIN_PASSWORD}\n"
            f"ssl.truststore.type=PEM\nssl.truststore.location={cert}\n"
        )
        remote = ("--bootstrap-server", server.bootstrap, "--command-config", str(config))
        listed = _run("users", "list", *remote, "--json")
    assert listed.exit_code == 0, listed.output
    assert json.loads(listed.stdout)["users"][0]["name"] == ADMIN


def test_choosing_the_target_and_data_dir_only_options(tmp_path: Path) -> None:
    remote = ("--bootstrap-server", "127.0.0.1:9")  # never contacted: usage errors come first
    both = _run("acls", "list", *remote, "--data-dir", str(tmp_path))
    assert both.exit_code == 2 and "not both" in both.stderr
    neither = _run("users", "list")
    assert neither.exit_code == 2 and "--bootstrap-server" in neither.stderr
    orphan = _run("acls", "list", "--data-dir", str(tmp_path), "--command-config", "x")
    assert orphan.exit_code == 2 and "--command-config" in orphan.stderr
    add = ("acls", "add", *remote, "--allow-principal", "User:a", "--topic", "t")
    dry = _run(*add, "--dry-run")
    assert dry.exit_code == 2 and "--dry-run needs --data-dir" in dry.stderr
    inventory = tmp_path / "inventory.txt"
    inventory.write_text("TOPIC:t\n")
    impact = _run(*add, "--dry-run", "--inventory", str(inventory))
    assert impact.exit_code == 2 and "needs --data-dir" in impact.stderr
    history = _run("acls", "list", *remote, "--at-offset", "3")
    assert history.exit_code == 2 and "--at-offset/--at-time needs --data-dir" in history.stderr
    address = _run("acls", "list", "--bootstrap-server", "localhost")
    assert address.exit_code == 2 and "HOST:PORT" in address.stderr
    config = tmp_path / "client.properties"
    config.write_text("security.protocol=SASL_SSL\nsasl.kerberos.service.name=kafka\n")
    unknown = _run("acls", "list", *remote, "--command-config", str(config))
    assert unknown.exit_code == 2 and "sasl.kerberos.service.name" in unknown.stderr
    missing = _run("acls", "list", *remote, "--command-config", str(tmp_path / "nope"))
    assert missing.exit_code == 2 and "cannot read" in missing.stderr


def test_the_environment_data_dir_yields_to_bootstrap_server(
    tmp_path: Path, plain: ServerProcess
) -> None:
    env = {"ACLOG_DATA_DIR": str(tmp_path / "local")}
    listed = _run("users", "list", "--bootstrap-server", plain.bootstrap, "--json", env=env)
    assert listed.exit_code == 0 and json.loads(listed.stdout) == {"users": []}
    assert not (tmp_path / "local").exists()
    local = _run("users", "list", "--json", env=env)  # read from $ACLOG_DATA_DIR, never made
    assert local.exit_code == 2 and str(tmp_path / "local") in local.stderr
    assert not (tmp_path / "local").exists()


def test_an_unreachable_cluster_exits_3_naming_the_address(tmp_path: Path) -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = tmp_path / "fast.properties"
    config.write_text("default.api.timeout.ms=1000\nrequest.timeout.ms=1000\n")
    started = time.monotonic()
    result = _run("acls", "list", "--bootstrap-server", f"127.0.0.1:{port}",
                  "--command-config", str(config))  # fmt: skip
    assert result.exit_code == 3, result.output
    assert f"cannot connect to 127.0.0.1:{port}: no answer within 1 s" in result.stderr
    assert time.monotonic() - started < 10


def test_command_config_parsing() -> None:
    text = (
        "! comment\n  # another\nsecurity.protocol = SASL_SSL\nsasl.mechanism:SCRAM-SHA-256\n"
        f'sasl.jaas.config={SCRAM_LOGIN} \\\n  required username="a\\\\"b" password=p=w;\n'
        "ssl.endpoint.identification.algorithm=\nclient.id=tool\\ one\n"
    )
    properties = read_properties(text)
    assert properties["security.protocol"] == "SASL_SSL"
    assert properties["sasl.mechanism"] == "SCRAM-SHA-256"
    assert properties["client.id"] == "tool one"
    assert parse_jaas(properties["sasl.jaas.config"]) == (
        SCRAM_LOGIN,
        {"username": 'a"b', "password": "p=w"},
    )
    assert client_settings(properties) == {
        "security_protocol": "SASL_SSL",
        "sasl_mechanism": "SCRAM-SHA-256",
        "sasl_plain_username": 'a"b',
        "sasl_plain_password": "p=w",
        "ssl_check_hostname": False,
        "client_id": "tool one",
    }
    bad = [
        {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "GSSAPI"},
        {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN"},
        {"security.protocol": "SSL", "ssl.truststore.location": "/x.jks"},
        {"security.protocol": "TLS"},
        {"request.timeout.ms": "soon"},
        {
            "security.protocol": "SASL_PLAINTEXT",
            "sasl.mechanism": "PLAIN",
            "sasl.jaas.config": f"{SCRAM_LOGIN} required username=a password=b;",
        },
    ]
    for properties in bad:
        with pytest.raises(ConfigError):
            client_settings(properties)
