"""Records in commit order as admin clients write them, a request at a time: ACL additions,
one ACL record in ten a removal of an earlier one, one request in ten a SCRAM change instead
(set or delete a user's credential). The small-batch replay rows
(:mod:`benchmarks.bench_small_batches`) and the serve start rows
(:mod:`benchmarks.bench_serve_start`) both write their logs from it (:func:`write`).
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from pathlib import Path

from aclog.log import SegmentedLog
from aclog.records import (
    AccessControlEntryRecord,
    RemoveAccessControlEntryRecord,
    RemoveUserScramCredentialRecord,
    RequestContextRecord,
    ScramMechanism,
    UserScramCredentialRecord,
    encode_many,
)
from aclog.records.types import Record
from benchmarks.bench_log import acl_records


def stream(records: int, seed: int = 5, *, after: int = 0) -> list[Record]:
    """``records`` records in commit order (see the module), no request contexts; ``after``:
    its ACLs follow the first ``after`` of :func:`distinct_acls` (a snapshot's), no id or
    binding shared."""
    rng = random.Random(seed)
    acls = iter(distinct_acls(records * 2 + after)[after:])
    added: list[Record] = []
    users: list[str] = []
    out: list[Record] = []
    while len(out) < records:
        if rng.random() < 0.1:
            out.append(_scram(rng, users, len(out)))
        elif added and rng.random() < 0.1:
            out.append(RemoveAccessControlEntryRecord(added.pop(rng.randrange(len(added))).id))  # type: ignore[attr-defined]
        else:
            added.append(next(acls))
            out.append(added[-1])
    return out


def distinct_acls(count: int) -> list[AccessControlEntryRecord]:
    """The ACL additions :func:`stream` draws from, in order, each binding once (fewer than
    ``count``: a binding drawn twice is kept once); a longer list starts with a shorter one."""
    return list({r.binding: r for r in acl_records(count, seed=3)}.values())


def _scram(rng: random.Random, users: list[str], n: int) -> Record:
    mechanism = ScramMechanism.SCRAM_SHA_256
    if users and rng.random() < 0.3:
        return RemoveUserScramCredentialRecord(users.pop(rng.randrange(len(users))), mechanism)
    users.append(f"user-{n}")
    return UserScramCredentialRecord(users[-1], mechanism, b"s" * 16, b"k" * 32, b"v" * 32, 4096)


def write(directory: Path, records: list[Record], sizes: Iterable[int]) -> None:
    """``records`` written to a new log in ``directory``, in batches of the next of ``sizes``
    records each (the last may hold fewer), each led by the request context that authored it
    (as a controller commits one ``kafka-acls`` call)."""
    at = 0
    with SegmentedLog(directory, fsync=False) as log:
        for n, size in enumerate(sizes):
            if at >= len(records):
                break
            context = RequestContextRecord(
                f"User:admin-{n % 7}", "10.0.4.17", "kafka-acls", 0, "CreateAcls"
            )
            body = [context, *records[at : at + size]]
            log.append(encode_many(body), 1, timestamp_ms=1_700_000_000_000 + n)
            at += size
