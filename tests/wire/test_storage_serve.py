"""``aclog serve`` on a full disk (issue 35): a Kafka client's CreateAcls gets
KAFKA_STORAGE_ERROR (56) with "No space left on device" and the file, the server logs the
condition once however many requests fail, and again when it clears; nothing acknowledged is
lost and nothing failed reappears after a restart."""

from __future__ import annotations

from pathlib import Path

from aclog.acl import Errors
from aclog.acl.filters import AclFilter
from aclog.records import AclBinding, AclOperation, AclPermissionType, PatternType, ResourceType
from aclog.remote import RemoteAdmin
from tests.small_fs import fill, small_tmpfs
from tests.wire.harness import ServerProcess

SETTINGS = {"request_timeout_ms": 10_000, "bootstrap_timeout_ms": 10_000}


def _acl(name: str) -> AclBinding:
    return AclBinding(
        ResourceType.TOPIC,
        name,
        PatternType.LITERAL,
        "User:alice",
        "*",
        AclOperation.READ,
        AclPermissionType.ALLOW,
    )


def test_serve_answers_a_full_disk_with_the_error_and_logs_it_once(tmp_path: Path) -> None:
    with small_tmpfs(tmp_path / "fs", "1m") as fs:
        server = ServerProcess(tmp_path, "--super-users", "User:ANONYMOUS")
        server.data_dir = fs / "data"  # the server's own output stays off the small disk
        server.start()
        try:
            with RemoteAdmin.connect(server.bootstrap, SETTINGS) as admin:
                assert admin.create_acls([_acl("kept")])[0].error.is_success
                filler = fill(fs)
                acked, failed = {"kept"}, []
                for i in range(400):  # the segment's last page has room for a few first
                    name = f"{i:03d}-" + "x" * 900
                    error = admin.create_acls([_acl(name)])[0].error
                    if error.is_success:
                        acked.add(name)
                        continue
                    failed.append(error)
                    if len(failed) == 5:
                        break
                filler.unlink()
                assert admin.create_acls([_acl("after")])[0].error.is_success
            assert server.logged("works again: an append succeeded after 5 failed")
            acked.add("after")
        finally:
            server.stop()
        log = server.stderr()
        assert log.count("No space left on device") == 1, log  # once, not per request
        assert "STORAGE ERROR" in log
        for error in failed:
            assert error.error == Errors.KAFKA_STORAGE_ERROR
            assert f"No space left on device (ENOSPC) on {server.data_dir}/" in str(error.message)
        server.start()  # a restart: exactly the acknowledged ACLs
        try:
            with RemoteAdmin.connect(server.bootstrap, SETTINGS) as admin:
                _, acls = admin.describe_acls(AclFilter())
            assert {acl.resource_name for acl in acls} == acked
        finally:
            server.stop()
