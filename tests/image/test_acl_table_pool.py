"""The ACL table's string pool (``aclog.image.acl_pool``) and its compaction
(``aclog.image.acl_table_compact``): a pool codes each string exactly once whatever its hash,
however the strings come (Python lists, Arrow arrays, slices of them); a table whose pool has
grown well past what it uses moves to a smaller one with every answer unchanged; a long run of
batches with ever-new names keeps the pool bounded; and readers of older tables never notice."""

from __future__ import annotations

import random
import threading
from typing import Any
from unittest.mock import patch

import numpy as np
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from aclog.image import acl_table_compact
from aclog.image.acl_column_rows import of_kinds, of_records, removal_words, words_of_id_bytes
from aclog.image.acl_pool import StringPool
from aclog.image.acl_pool_few import string_hash
from aclog.image.acl_string_hashes import ArrowStrings, string_hashes, utf8_of
from aclog.image.acl_table import AclTable
from aclog.image.acl_table_keys import SortedKeys
from aclog.image.acls import AclsDelta
from aclog.image.acls_image import AclsImage
from aclog.records import encode
from aclog.records.columnar import decode_kinds
from aclog.records.types import AccessControlEntryRecord, Record, RemoveAccessControlEntryRecord
from tests.acl_factory import acl_record

_TEXTS = st.lists(
    st.one_of(st.sampled_from(["", "a", "a\x00", "é", "日本", "\ud800", "a" * 300]), st.text()),
    max_size=30,
)


def _arrow(texts: list[str]) -> ArrowStrings:
    """``texts`` (no lone surrogates) as an Arrow-held sequence, sliced off a longer array so
    that its offset is not 0."""
    whole = pa.array(["padding", *texts], pa.string())
    return ArrowStrings(whole.slice(1))


def _check_pool(pool: StringPool, seen: dict[str, int]) -> None:
    assert pool.strings == list(seen)
    assert all(pool.code_of(text) == code for text, code in seen.items())


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(_TEXTS, st.booleans()), max_size=6))
def test_a_pool_codes_each_string_once_as_a_dict_would(batches: list[Any]) -> None:
    pool, seen = StringPool(), {}
    for texts, in_arrow in batches:
        arrow = in_arrow and not any("\ud800" <= c <= "\udfff" for t in texts for c in t)
        expected_known = [seen.get(t, -1) for t in texts]
        assert pool.known_codes(_arrow(texts) if arrow else texts).tolist() == expected_known
        codes = pool.codes(_arrow(texts) if arrow else texts).tolist()
        for text in texts:
            seen.setdefault(text, len(seen))
        assert codes == [seen[t] for t in texts]
        _check_pool(pool, seen)
    assert pool.code_of("never added \x01") is None


def test_strings_that_share_a_hash_keep_their_own_codes() -> None:
    # Real hashes collide about once in 2^64 pairs; these collide all the time, so the byte
    # comparisons decide every code.
    def weak(array: pa.Array) -> Any:
        return string_hashes(array) & np.uint64(1)

    # A few strings are hashed one at a time (aclog.image.acl_pool_few): as weakly.
    with (
        patch("aclog.image.acl_pool.string_hashes", weak),
        patch("aclog.image.acl_pool.string_hash", lambda text: string_hash(text) & 1),
    ):
        rng = random.Random(7)
        pool, seen = StringPool(), {}
        for _ in range(40):
            texts = [f"s{rng.randrange(200)}" for _ in range(rng.randrange(1, 30))]
            assert pool.codes(texts).tolist() == [seen.setdefault(t, len(seen)) for t in texts]
            _check_pool(pool, seen)
        test_a_pool_codes_each_string_once_as_a_dict_would()


def test_hashes_are_of_the_bytes_however_the_strings_are_held() -> None:
    texts = ["", "a", "ab", "ba", "日本", "x" * 5000, "a\x00", "a"]
    hashes = string_hashes(utf8_of(texts)).tolist()
    assert hashes == string_hashes(utf8_of(_arrow(texts))).tolist()
    assert hashes[1] == hashes[-1] and len(set(hashes[:-1])) == len(texts) - 1
    assert string_hashes(utf8_of(texts).slice(3)).tolist() == hashes[3:]
    # More bytes than one block of the passes: each string's hash as if hashed alone.
    rng = random.Random(3)
    long = [
        "".join(rng.choice("abc") for _ in range(rng.randrange(9000, 11000))) for _ in range(500)
    ]
    together = string_hashes(utf8_of(long)).tolist()
    assert all(together[i] == string_hashes(utf8_of([long[i]]))[0] for i in (0, 250, 499))


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_the_directory_lookup_finds_what_a_binary_search_finds(data: Any) -> None:
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    spread = data.draw(st.sampled_from([64, 20, 3]))  # 3: every key in one run
    size = data.draw(st.integers(4096, 20_000))
    prints = rng.integers(0, 1 << spread, size, dtype=np.uint64) << np.uint64(64 - spread)
    keys = SortedKeys.of(prints)
    queries = np.sort(np.concatenate([prints[: size // 3], rng.integers(0, 2**63, 500, np.uint64)]))
    assert keys.lower_bounds(queries).tolist() == np.searchsorted(keys.keys, queries).tolist()


def _fresh_batch(
    rng: random.Random, serial: Any, live: list[Any], size: int, removing: float = 0.5
) -> list[Record]:
    """``size`` records: additions with names never seen before, and removals of live ACLs
    (each record one with chance ``removing``)."""
    batch: list[Record] = []
    for _ in range(size):
        if live and rng.random() < removing:
            batch.append(RemoveAccessControlEntryRecord(live.pop(rng.randrange(len(live))).id))
        else:
            n = next(serial)
            batch.append(acl_record(n, f"topic-{n}", f"User:u{n % 7}", f"10.0.{n % 3}.1"))
    return batch


def _replayed(image: AclsImage, batch: list[Record]) -> AclsImage:
    """The reference: ``batch`` replayed on ``image`` one record at a time."""
    delta = AclsDelta(image)
    for offset, record in enumerate(batch):
        delta.replay(record, offset)  # type: ignore[arg-type]
    return delta.apply()


def _apply(table: AclTable, batch: list[Record]) -> AclTable | None:
    kinds = decode_kinds([encode(r) for r in batch])
    return table.applied(of_kinds(kinds), removal_words(kinds))


@patch.object(acl_table_compact, "FLOOR", 512)  # small, so that it compacts many times
def test_ever_new_names_keep_the_pool_bounded_and_the_records_right() -> None:
    rng, serial = random.Random(24), iter(range(1000, 10**9))
    live: list[Any] = [acl_record(n, f"base-{n}") for n in range(1, 201)]
    table = AclTable.from_records(live)
    image = _replayed(AclsImage.EMPTY, live)
    assert table is not None
    pools = {id(table.pool)}
    for step in range(400):
        if step % 25 == 0:  # a declined batch: its strings join the pool, unused
            n = next(serial)
            assert (
                _apply(table, [acl_record(n, f"gone-{n}"), acl_record(n + 1, f"gone-{n}")]) is None
            )
            continue
        batch = _fresh_batch(rng, serial, live, rng.randrange(1, 60))
        applied = _apply(table, batch)
        assert applied is not None
        table = applied
        live += [r for r in batch if isinstance(r, AccessControlEntryRecord)]
        pools.add(id(table.pool))
        image = _replayed(image, batch)
        used = {s for r in live for s in (r.resource_name, r.principal, r.host)}
        floor = acl_table_compact.FLOOR
        assert len(table.pool) <= 2.5 * len(used) + 1.5 * floor + 3 * len(batch)
        if step % 50 == 1:
            assert table.records() == live == list(image.acls.values())
    assert len(pools) > 4  # it compacted on the way, many times
    assert table.records() == live == list(image.acls.values())
    assert all(table.id_of_key(r.key) == r.id and table.get(r.id) == r for r in live)


def _churned(table: AclTable, first: int, rounds: int = 50) -> tuple[AclTable, Any, Any]:
    """Rounds of a batch adding ACLs with new names and removing the last round's, from
    ``table`` (ids from ``first`` on) until a batch compacts the pool: the table before that
    batch and the batch's additions and removals."""
    previous: list[Any] = []
    for round_ in range(rounds):
        fresh = [
            acl_record(first + round_ * 3000 + n, f"r{first}.{round_}.{n}") for n in range(3000)
        ]
        additions = of_records(fresh)
        removals = words_of_id_bytes(b"".join(r.id.bytes for r in previous))
        applied = table.applied(additions, removals)
        assert applied is not None
        if applied.pool is not table.pool:
            return table, additions, removals
        table, previous = applied, fresh
    raise AssertionError("no compaction")


def _base() -> AclTable:
    table = AclTable.from_records(
        [acl_record(n, f"t{n % 50}", f"User:{n}") for n in range(1, 3001)]
    )
    assert table is not None
    return table


def test_a_compaction_changes_no_answer_and_keeps_every_order() -> None:
    before, additions, removals = _churned(_base(), 10_000)
    after = before.applied(additions, removals)
    with patch.object(acl_table_compact, "FLOOR", 10**9):  # the same batch, not compacted
        same = before.applied(additions, removals)
    assert after is not None and same is not None and same.pool is before.pool
    assert len(after.pool) < len(before.pool) // 2 and after.segments == 1
    expected = same.records()
    assert after.records() == expected
    assert [r.id for r in after.acls.values()] == [r.id for r in expected]
    sample = expected[::5]
    assert all(after.get(r.id) == r and after.id_of_key(r.key) == r.id for r in sample)
    kept = {r.id for r in expected}
    gone = [r for r in before.records() if r.id not in kept]
    assert gone and all(after.id_of_key(r.key) is None and r.id not in after for r in gone)
    keys_same, keys_after = same.pattern_keys(), after.pattern_keys()
    assert np.array_equal(
        np.argsort(keys_same, kind="stable"), np.argsort(keys_after, kind="stable")
    )
    assert np.array_equal(keys_same[1:] == keys_same[:-1], keys_after[1:] == keys_after[:-1])
    positions = np.arange(len(expected))[::-7]
    assert after.records_at(positions) == [expected[i] for i in positions]
    # The compacted table goes on as any other.
    more = after.applied(of_records([acl_record(99_999, "t1", "User:new")]), words_of_id_bytes(b""))
    assert more is not None and more.records() == [*expected, acl_record(99_999, "t1", "User:new")]


def test_readers_of_an_older_table_see_their_own_values_during_compactions() -> None:
    base = _base()
    expected = base.records()
    pool, strings = base.pool, list(base.pool.strings)
    failures: list[str] = []
    stop = threading.Event()

    def read(seed: int) -> None:
        rng = random.Random(seed)
        while not stop.is_set():
            record = expected[rng.randrange(len(expected))]
            if base.get(record.id) != record or base.id_of_key(record.key) != record.id:
                failures.append(f"{record} read back wrong")
        if base.records() != expected:
            failures.append("records() changed")

    readers = [threading.Thread(target=read, args=(seed,)) for seed in range(3)]
    for reader in readers:
        reader.start()
    table, compactions = base, 0
    try:
        for step in range(3):
            before, additions, removals = _churned(table, 1_000_000 * (step + 1))
            applied = before.applied(additions, removals)
            assert applied is not None and applied.pool is not before.pool
            table, compactions = applied, compactions + 1
    finally:
        stop.set()
        for reader in readers:
            reader.join(timeout=60)
    assert compactions == 3 and not failures
    # The pool only grew (other tables' strings), and the table kept its own.
    assert base.pool is pool and pool.strings[: len(strings)] == strings
    assert base.records() == expected


def _every_batch(pool_size: int, used: int) -> int:
    return 0


def _compacting_at_every_chance() -> Any:
    """No floor and a count after every batch: a table compacts whenever its pool holds over
    twice what it uses."""
    return patch.multiple(
        "aclog.image.acl_table_compact", FLOOR=0, recount_after=_every_batch
    ), patch("aclog.image.acl_table.recount_after", _every_batch)


def test_tables_that_compact_at_every_chance_answer_as_one_by_one_replay() -> None:
    rng, serial = random.Random(11), iter(range(1000, 10**9))
    live: list[Any] = [acl_record(n, f"base-{n}", f"User:{n % 9}") for n in range(1, 101)]
    real, policy, table_policy = StringPool.subset, *_compacting_at_every_chance()
    with (
        policy,
        table_policy,
        patch.object(StringPool, "subset", autospec=True, side_effect=real) as subset,
    ):
        table, image = AclTable.from_records(live), _replayed(AclsImage.EMPTY, live)
        for step in range(120):
            assert table is not None
            if step % 7 == 3:  # a batch one-by-one replay refuses: declined, nothing changed
                n = next(serial)
                assert _apply(table, [acl_record(n, f"x{n}"), acl_record(n + 1, f"x{n}")]) is None
                continue
            removing = 0.7 if len(live) > 60 else 0.3  # much churn, a steady size
            batch = _fresh_batch(rng, serial, live, rng.randrange(1, 25), removing)
            table, image = _apply(table, batch), _replayed(image, batch)
            live += [r for r in batch if isinstance(r, AccessControlEntryRecord)]
            assert table is not None and table.records() == list(image.acls.values())
            for record in image.acls.values():
                assert table.id_of_key(record.key) == record.id and table.get(record.id) == record
            removed = [r.id for r in batch if isinstance(r, RemoveAccessControlEntryRecord)]
            assert not any(acl_id in table for acl_id in removed)
    assert subset.call_count > 5


def test_the_replay_properties_hold_through_compactions_at_every_chance() -> None:
    from tests.image import test_acl_table as replay

    policy, table_policy = _compacting_at_every_chance()
    with policy, table_policy:
        replay.test_a_table_declines_or_applies_exactly_as_one_by_one_replay()
        replay.test_what_a_controller_writes_is_never_declined()
