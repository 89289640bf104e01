"""Loading and changing the ACLs: errors, atomic batches, copy-on-write snapshots, large nodes,
and readers racing a writer."""

from __future__ import annotations

import threading
import uuid

import pytest

from aclog.authorizer import AclFilter, Authorizer, Decision, UnknownAclError, kafka_order, shards
from aclog.authorizer.decide import NO_ACL, decide
from aclog.authorizer.invariants import check_index
from aclog.records.enums import AclOperation, AclPermissionType, PatternType, ResourceType
from tests.authorizer.reference import ReferenceAuthorizer
from tests.authorizer.strategies import make_acl

O = AclOperation  # noqa: E741
TOPIC = ResourceType.TOPIC
DENY = AclPermissionType.DENY
ALICE = "User:alice"
HOST = "10.0.0.1"
EVERYTHING = AclFilter()


def ready(acls=()) -> Authorizer:
    authorizer = Authorizer()
    authorizer.load(acls)
    return authorizer


def test_add_rejects_a_stored_id_and_remove_an_unknown_one() -> None:
    acl = make_acl("foo")
    authorizer = ready([acl])
    with pytest.raises(ValueError, match="is already stored"):
        authorizer.add(acl)
    unknown = uuid.UUID(int=99)
    with pytest.raises(UnknownAclError, match="no stored ACL has it") as caught:
        authorizer.remove(unknown)
    assert isinstance(caught.value, KeyError)
    authorizer.remove(acl.id)
    assert len(authorizer) == 0
    with pytest.raises(KeyError):
        authorizer.remove(acl.id)


def test_a_failing_batch_changes_nothing() -> None:
    kept = make_acl("foo")
    authorizer = ready([kept])
    before = authorizer.index
    with pytest.raises(UnknownAclError):
        authorizer.apply([make_acl("bar")], [kept.id, uuid.UUID(int=98)])
    with pytest.raises(ValueError, match="already stored"):
        authorizer.apply([make_acl("baz"), kept], [])
    with pytest.raises(ValueError, match="GLOB pattern"):
        authorizer.apply([make_acl("ok"), make_acl("bad\\", PatternType.GLOB)], [kept.id])
    assert authorizer.index is before
    assert authorizer.acls(EVERYTHING) == [kept]
    authorizer.remove(kept.id)  # the writer's own view was not corrupted either


def test_a_batch_may_replace_an_acl_under_the_same_id() -> None:
    old = make_acl("foo")
    new = make_acl("bar", acl_id=old.id)
    authorizer = ready([old])
    authorizer.apply([new], [old.id])
    assert authorizer.acls(EVERYTHING) == [new]
    authorizer.apply_changes({new.id: None, (extra := make_acl("baz")).id: extra})
    assert authorizer.acls(EVERYTHING) == [extra]
    with pytest.raises(UnknownAclError):
        authorizer.apply_changes({uuid.UUID(int=97): None})


def test_load_replaces_everything_and_rejects_repeated_ids() -> None:
    authorizer = ready([make_acl("foo"), make_acl("bar")])
    fresh = make_acl("baz")
    authorizer.load([fresh])
    assert authorizer.acls(EVERYTHING) == [fresh]
    with pytest.raises(ValueError, match="appears twice"):
        authorizer.load([fresh, fresh])
    assert authorizer.acls(EVERYTHING) == [fresh]


def _shard_of(table: shards.ShardedMap, key: str) -> dict:
    return table.shards[hash(key) >> table.shift]


def test_published_snapshots_never_change_and_untouched_shards_are_shared(monkeypatch) -> None:
    monkeypatch.setattr(shards, "TARGET", 1)  # many shards of about one name each
    names = [f"topic-{i}" for i in range(64)]
    acls = [make_acl(name) for name in names]
    authorizer = ready(acls)
    old = authorizer.index
    old_listing = kafka_order(old)
    authorizer.add(make_acl("alps"))
    authorizer.remove(acls[2].id)
    check_index(old)
    assert kafka_order(old) == old_listing
    new = authorizer.index
    old_names, new_names = old.names(TOPIC).literal, new.names(TOPIC).literal
    assert new_names is not old_names and len(new_names.shards) == len(old_names.shards)
    touched = {id(_shard_of(old_names, key)) for key in ("alps", names[2])}
    shared = [n for n in names if id(_shard_of(old_names, n)) not in touched]
    assert shared  # names in untouched shards: their shard dicts were not copied
    for name in shared:
        assert _shard_of(new_names, name) is _shard_of(old_names, name)
    assert new_names.get(names[2]) is None and old_names.get(names[2]) is not None
    check_index(new)


def test_a_pattern_with_many_acls_is_indexed_and_shrinks_back() -> None:
    principals = [f"User:u{i}" for i in range(40)] + ["User:*"]
    hosts = ["*", "10.0.0.1", "::1", "10.0.0.2"]
    acls = [
        make_acl("foo", principal=p, host=h, operation=op, permission=perm)
        for p in principals
        for h in hosts
        for op, perm in [(O.READ, AclPermissionType.ALLOW), (O.WRITE, AclPermissionType.DENY)]
    ]
    acls.append(make_acl("foo", PatternType.LITERAL, principal="User:u1", host="*"))
    authorizer = ready(acls)
    reference = ReferenceAuthorizer()
    reference.load(acls)
    rules = authorizer.index.names(TOPIC).exact(PatternType.LITERAL, "foo")
    # One entry per principal from any host; User:* and host-specific ACLs aside.
    assert len(rules.exact) == 40 and rules.wild and rules.extra is not None
    check_index(authorizer.index)
    for principal in ("User:u1", "User:u39", "User:nobody", "User:*"):
        for host in ("10.0.0.1", "0:0:0:0:0:0:0:1", "10.0.0.3"):
            for op in (O.READ, O.WRITE, O.DESCRIBE):
                request = (principal, host, op, TOPIC, "foo")
                got, want = authorizer.explain(*request), reference.explain(*request)
                assert got.decision == want.decision
                assert got.deciding_acl == want.deciding_acl
                assert got.matching_acls == want.matching_acls
    for acl in acls[: len(acls) - 4]:
        authorizer.remove(acl.id)
        check_index(authorizer.index)
    rules = authorizer.index.names(TOPIC).exact(PatternType.LITERAL, "foo")
    assert len(rules.acls) == 4 and set(rules.exact) == {"User:u1"} and not rules.wild
    for acl in acls[-4:]:
        authorizer.remove(acl.id)
    assert authorizer.index.names(TOPIC) is None


def test_readers_never_see_half_a_batch() -> None:
    authorizer = Authorizer()
    authorizer.load([make_acl(f"other-{i}") for i in range(50)])
    names = [f"topic-{i}" for i in range(8)]
    seen_allowed: list[str] = []
    rounds: list[int] = []
    stop = threading.Event()

    def reader() -> None:
        while not stop.is_set():
            rounds.append(1)
            for name in names:
                if authorizer.authorize(ALICE, HOST, O.READ, TOPIC, name) == Decision.ALLOWED:
                    seen_allowed.append(name)

    threads = [threading.Thread(target=reader) for _ in range(4)]
    for thread in threads:
        thread.start()
    try:
        for _ in range(300):
            batch = []
            for name in names:
                batch.append(make_acl(name, permission=AclPermissionType.DENY))
                batch.append(make_acl(name, permission=AclPermissionType.ALLOW))
            authorizer.apply(batch, [])
            authorizer.apply([], [acl.id for acl in batch])
    finally:
        stop.set()
        for thread in threads:
            thread.join()
    assert seen_allowed == []
    assert len(rounds) > 10  # the readers really ran while batches were applied
    assert len(authorizer) == 50


def test_a_name_asked_before_a_change_is_answered_after_it() -> None:
    """The index remembers the rules of the names asked; a change starts a new memory."""
    authorizer = ready([make_acl("foo")])
    request = (ALICE, HOST, O.WRITE, TOPIC, "foo-1")
    assert authorizer.authorize(*request) == Decision.DENIED
    before = authorizer.index
    authorizer.add(make_acl("foo-", PatternType.PREFIXED, operation=O.WRITE))
    assert authorizer.authorize(*request) == Decision.ALLOWED
    deny = make_acl("foo-?", PatternType.GLOB, operation=O.WRITE, permission=DENY)
    authorizer.add(deny)
    assert authorizer.authorize(*request) == Decision.DENIED
    authorizer.remove(deny.id)
    assert authorizer.authorize(*request) == Decision.ALLOWED
    assert decide(before, *request) == NO_ACL  # the old snapshot still answers as it did
    check_index(before)
    check_index(authorizer.index)


def test_the_rules_of_two_patterns_are_distinct_even_with_the_same_entries() -> None:
    """Rules are dicts (principal -> bits) compared by identity: two patterns whose ACLs give
    the same bits are still two rules, and rules with only ``User:*`` ACLs are still true."""
    same = [make_acl(name, PatternType.LITERAL, principal=ALICE) for name in ("foo", "bar")]
    wild = make_acl("baz", PatternType.LITERAL, principal="User:*")
    authorizer = ready([*same, wild])
    names = authorizer.index.names(TOPIC)
    foo, bar = (names.exact(PatternType.LITERAL, n) for n in ("foo", "bar"))
    assert foo is not None and bar is not None
    assert foo.exact == bar.exact and foo != bar and len({foo, bar}) == 2
    only_wild = names.exact(PatternType.LITERAL, "baz")
    assert only_wild is not None and not only_wild.exact and only_wild
