"""Record builders and hypothesis strategies shared by the snapshot tests."""

from __future__ import annotations

import uuid
from pathlib import Path

from hypothesis import strategies as st

from aclog.records import (
    AccessControlEntryRecord,
    AclOperation,
    AclPermissionType,
    PatternType,
    Record,
    ResourceType,
    ScramMechanism,
    UserScramCredentialRecord,
)
from aclog.snapshot import SnapshotInfo, write_snapshot

# Any text but lone surrogates (not encodable as UTF-8, so no writer accepts them).
_text = st.text(max_size=30)
_avro_int = st.integers(min_value=-(2**31), max_value=2**31 - 1)

acl_records = st.builds(
    AccessControlEntryRecord,
    st.builds(uuid.UUID, bytes=st.binary(min_size=16, max_size=16)),
    st.sampled_from(ResourceType),
    _text,
    st.sampled_from(PatternType),
    _text,
    _text,
    st.sampled_from(AclOperation),
    st.sampled_from(AclPermissionType),
)
scram_records = st.builds(
    UserScramCredentialRecord,
    _text,
    st.sampled_from(ScramMechanism),
    st.binary(max_size=64),
    st.binary(max_size=64),
    st.binary(max_size=64),
    _avro_int,
)
snapshot_records = st.lists(st.one_of(acl_records, scram_records), max_size=40)


def acl(n: int, name: str = "orders") -> AccessControlEntryRecord:
    """A distinct, deterministic ACL (its id is ``n``)."""
    return AccessControlEntryRecord(
        uuid.UUID(int=n + 1),
        ResourceType.TOPIC,
        f"{name}-{n}",
        PatternType.LITERAL,
        f"User:svc-{n % 7}",
        "*",
        AclOperation.READ,
        AclPermissionType.ALLOW,
    )


def scram(name: str) -> UserScramCredentialRecord:
    """A deterministic SCRAM-SHA-256 credential of ``name``."""
    return UserScramCredentialRecord(
        name, ScramMechanism.SCRAM_SHA_256, b"s" * 16, b"k" * 32, b"v" * 32, 8192
    )


SMALL: list[Record] = [
    *(acl(n) for n in range(8)),
    acl(8, "tøpic-ß-日本"),
    scram("alice"),
    scram("bøb"),
]
"""A small snapshot's records (about 3 KB on disk, nearly all of it the schema)."""


def write(
    directory: Path, records: list[Record], last_offset: int, epoch: int = 1, rows: bool = False
) -> SnapshotInfo:
    """Write a snapshot without fsync (the tests do not crash the machine); ``rows=True``
    writes format 1 (one Avro row per record) instead of ACL column chunks."""
    return write_snapshot(
        directory,
        records,
        last_offset=last_offset,
        epoch=epoch,
        timestamp_ms=1_700_000_000_000 + last_offset,
        fsync=False,
        rows=rows,
    )


OLD: list[Record] = [acl(1), scram("alice")]
"""An older snapshot's records (a selection test writes it below :data:`NEW`)."""
NEW: list[Record] = [acl(1), acl(2), scram("alice"), scram("bob")]
"""A newer snapshot's records."""


def damage(path: Path) -> None:
    """Flip a bit of the snapshot file's last byte.

    The last byte is always past the header, so the damage is found by the checksum; a byte
    in the middle may fall inside the header's schema text, which then fails to parse first
    (another message), depending on how long the schema is.
    """
    data = bytearray(path.read_bytes())
    data[-1] ^= 0x20
    path.write_bytes(data)
