"""Records a controller might write, a few at a time, with an error now and then: the stream
the backlog and batch-run tests replay (``ops`` say what to do; :class:`RecordStream` turns
them into records)."""

from __future__ import annotations

import uuid

from hypothesis import strategies as st

from aclog.records import (
    RemoveAccessControlEntryRecord,
    RemoveUserScramCredentialRecord,
    ScramMechanism,
    UserScramCredentialRecord,
)
from aclog.records.types import Record
from tests.acl_factory import acl_record

NAMES = ["t0", "t1", "t2", *(f"n{i}" for i in range(1, 12))]
STORED = tuple(acl_record(100 + i, NAMES[i]) for i in range(3))
"""ACLs of the table-backed base: the stream removes them, re-adds their bindings and ids."""

op = st.tuples(st.sampled_from(["add", "add", "remove", "scram", "unscram"]), st.integers(0, 99))
"""What to do, and a number that picks what to do it to (and, now and then, does it wrong)."""
op_lists = st.lists(op, min_size=1, max_size=40)


class RecordStream:
    """Turns ops into records a controller might write, with an error now and then: an id or
    a binding stated twice, a removal of an unknown or removed ACL, an unknown user's."""

    def __init__(self, stored: bool) -> None:
        self.live = [(acl.id, acl.resource_name) for acl in STORED] if stored else []
        self.gone: list[tuple[uuid.UUID, str]] = []
        self.users: list[str] = []
        self.fresh = 0

    def record(self, kind: str, n: int) -> Record:
        if kind == "add":
            return self._add(n)
        if kind == "remove" and self.live and n >= 2:
            acl_id, name = self.live.pop(n % len(self.live))
            self.gone.append((acl_id, name))
            return RemoveAccessControlEntryRecord(acl_id)
        if kind == "remove":  # an unknown id, or one removed already
            return RemoveAccessControlEntryRecord(self.gone[0][0] if n and self.gone else _id(999))
        if kind == "scram" or not self.users:
            self.users.append(f"u{n % 3}")
            return UserScramCredentialRecord(
                f"u{n % 3}", ScramMechanism.SCRAM_SHA_256, b"s" * 8, b"k" * 32, b"v" * 32, 4096
            )
        user = self.users.pop(n % len(self.users)) if n else "nobody"
        return RemoveUserScramCredentialRecord(user, ScramMechanism.SCRAM_SHA_256)

    def _add(self, n: int) -> Record:
        self.fresh += 1
        acl_id, name = _id(self.fresh), f"n{self.fresh}"
        if n < 2 and self.live:  # a stored id, or a stored binding, stated again
            twin_id, twin_name = self.live[0]
            acl_id, name = (twin_id, name) if n == 0 else (acl_id, twin_name)
        elif n < 30 and self.gone:  # a removed ACL's binding added again
            name = self.gone[n % len(self.gone)][1]
        self.live.append((acl_id, name))
        return acl_record(acl_id, name, "User:bob" if n % 2 else "User:x")


def _id(n: int) -> uuid.UUID:
    return uuid.UUID(int=n)
