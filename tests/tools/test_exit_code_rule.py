"""The one rule from a caught error to an exit code (:func:`aclog.tools.exit_codes.exit_code_for`):
2 for what the user gave, 3 for the machine or the cluster, 1 for data or a request that cannot
be processed; an operating-system error by the path rule (missing or wrong kind 2, else 3)."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest
from kafka.errors import IncompatibleBrokerVersion

from aclog.image import ReplayError
from aclog.kraft import KraftError
from aclog.kraft.errors import ImportTargetError
from aclog.log import CorruptLogError, LogError, LogLockedError
from aclog.node import ConfigError, LoginSecretError, TopicsFileError
from aclog.records import RecordDecodeError
from aclog.remote import RemoteError
from aclog.remote.command_config import read_command_config
from aclog.replay import RebuildError
from aclog.snapshot import SnapshotError
from aclog.tools.exit_codes import exit_code_for, fail_for, reason
from aclog.tools.options import OptionError

CASES = [
    (ConfigError("bad listener"), 2),
    (TopicsFileError("bad topics file"), 2),
    (ImportTargetError("not empty"), 2),
    (OptionError("bad option"), 2),
    (FileNotFoundError(errno.ENOENT, "No such file or directory", "/nope"), 2),
    (NotADirectoryError(errno.ENOTDIR, "Not a directory", "/file"), 2),
    (PermissionError(errno.EACCES, "Permission denied", "/locked"), 3),
    (OSError(errno.EADDRINUSE, "Address already in use"), 3),
    (LogLockedError("/data", "pid 1"), 3),
    (LogError("fsync failed"), 3),
    (RemoteError("cannot connect to 127.0.0.1:1"), 3),
    (CorruptLogError("/data/0.log", 7, "bad CRC"), 1),
    (RecordDecodeError("unknown record type at offset 3"), 1),
    (ReplayError("no such ACL"), 1),
    (RebuildError("no snapshot at that time"), 1),
    (SnapshotError("truncated snapshot"), 1),
    (KraftError("not a KRaft segment"), 1),
    (LoginSecretError("secret file is short"), 1),
    (IncompatibleBrokerVersion("no DescribeUserScramCredentials"), 1),
]


@pytest.mark.parametrize(("error", "code"), CASES, ids=lambda v: type(v).__name__)
def test_every_caught_error_has_one_exit_code(error: BaseException, code: int) -> None:
    assert exit_code_for(error) == code


def test_a_command_config_that_cannot_work_is_the_one_config_error_and_exits_2(
    tmp_path: Path,
) -> None:
    config = tmp_path / "admin.properties"
    config.write_text("security.protocol=CARRIER_PIGEON\n")
    with pytest.raises(ConfigError, match=r"admin\.properties") as caught:
        read_command_config(config)
    assert exit_code_for(caught.value) == 2


def test_an_os_error_names_its_path_and_reason() -> None:
    error = PermissionError(errno.EACCES, "Permission denied", "/data/0.log")
    assert reason(error) == "/data/0.log: Permission denied"
    assert reason(OSError(errno.EADDRINUSE, "Address already in use")) == "Address already in use"


def test_fail_for_prints_what_was_being_done_and_exits_with_the_code(
    capsys: pytest.CaptureFixture[str],
) -> None:
    import typer

    with pytest.raises(typer.Exit) as raised:
        fail_for(LogLockedError("/data", "pid 1"), "open /data")
    assert raised.value.exit_code == 3
    assert "cannot open /data: data directory /data is locked" in capsys.readouterr().err
