"""acls(filter): Kafka's filter semantics plus GLOB and MATCH, answered in Kafka's sort order."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from aclog.authorizer import AclFilter, Authorizer, kafka_order
from aclog.records import AccessControlEntryRecord
from aclog.records.enums import AclOperation, AclPermissionType, PatternType, ResourceType
from tests.authorizer.strategies import acl_sets, filters, make_acl

O = AclOperation  # noqa: E741
LITERAL, PREFIXED, GLOB = PatternType.LITERAL, PatternType.PREFIXED, PatternType.GLOB
TOPIC, GROUP = ResourceType.TOPIC, ResourceType.GROUP


def names(acls) -> list[tuple[str, str]]:
    return [(a.pattern_type.name, a.resource_name) for a in acls]


ACLS = [
    make_acl("foo"),
    make_acl("foo", PREFIXED),
    make_acl("fo", PREFIXED),
    make_acl("foobar"),
    make_acl("*"),
    make_acl("*", PREFIXED),
    make_acl("f?o", GLOB),
    make_acl("*o", GLOB),
    make_acl("foo", GLOB),
    make_acl("b*", GLOB),
    make_acl("foo", resource_type=GROUP),
]


def listing(acl_filter: AclFilter) -> list[tuple[str, str]]:
    authorizer = Authorizer()
    authorizer.load(ACLS)
    return names(authorizer.acls(acl_filter))


def test_match_with_a_name_returns_every_acl_that_applies_to_it() -> None:
    found = listing(AclFilter(TOPIC, "foo", PatternType.MATCH))
    assert found == [
        ("LITERAL", "foo"),
        ("PREFIXED", "foo"),
        ("GLOB", "foo"),
        ("PREFIXED", "fo"),
        ("GLOB", "f?o"),
        ("GLOB", "*o"),
        ("LITERAL", "*"),
    ]
    assert ("LITERAL", "*") in listing(AclFilter(TOPIC, "*abc", PatternType.MATCH))


def test_exact_pattern_filters_compare_names_exactly() -> None:
    assert listing(AclFilter(TOPIC, "foo", PatternType.ANY)) == [
        ("LITERAL", "foo"),
        ("PREFIXED", "foo"),
        ("GLOB", "foo"),
    ]
    assert listing(AclFilter(TOPIC, "*", PatternType.LITERAL)) == [("LITERAL", "*")]
    assert listing(AclFilter(TOPIC, "f?o", PatternType.GLOB)) == [("GLOB", "f?o")]
    assert listing(AclFilter(TOPIC, "fo", PatternType.GLOB)) == []
    assert listing(AclFilter(TOPIC, "bad\\", PatternType.ANY)) == []
    assert listing(AclFilter(ResourceType.ANY, "foo", PatternType.LITERAL)) == [
        ("LITERAL", "foo"),
        ("LITERAL", "foo"),
    ]


def test_entry_filters_compare_strings_exactly() -> None:
    authorizer = Authorizer()
    acls = [
        make_acl("t", principal="User:*"),
        make_acl("t", principal="User:alice", host="::1"),
        make_acl("t", operation=O.ALL, permission=AclPermissionType.DENY),
    ]
    authorizer.load(acls)
    assert authorizer.acls(AclFilter(principal="User:*")) == [acls[0]]
    assert authorizer.acls(AclFilter(host="0:0:0:0:0:0:0:1")) == []
    assert authorizer.acls(AclFilter(host="::1")) == [acls[1]]
    assert authorizer.acls(AclFilter(operation=O.READ)) == kafka_order(acls[:2])
    assert authorizer.acls(AclFilter(permission_type=AclPermissionType.DENY)) == [acls[2]]


def test_kafka_sort_order() -> None:
    acls = [
        make_acl("a", resource_type=GROUP),
        make_acl("b"),
        make_acl("ab"),
        make_acl("a", PREFIXED),
        make_acl("a", operation=O.WRITE),
        make_acl("a", principal="User:bob"),
        make_acl("a", principal="User:bob", host="10.0.0.1"),
        make_acl("a", principal="User:bob", host="10.0.0.1", permission=AclPermissionType.DENY),
        make_acl("\U0001f600"),
        make_acl("\uff5e"),
    ]
    # Types ascending; names descending, as Java compares them (UTF-16 code units, so U+FF5E
    # sorts above the surrogates of U+1F600); then pattern type, operation, principal, host,
    # permission (DENY before ALLOW) ascending.
    assert kafka_order(reversed(acls)) == [acls[i] for i in (9, 8, 1, 2, 5, 7, 6, 4, 3, 0)]


def _java_key(acl: AccessControlEntryRecord) -> tuple[object, ...]:
    """Kafka's order spelled out field by field, strings as Java compares them."""

    def utf16(text: str) -> list[int]:
        data = text.encode("utf-16-be", "surrogatepass")
        return [int.from_bytes(data[i : i + 2], "big") for i in range(0, len(data), 2)]

    # Descending names: the code units negated, then a sentinel above every negated unit, so
    # that a name sorts after its own extensions.
    descending = [-unit for unit in utf16(acl.resource_name)] + [1]
    fields = (acl.operation, utf16(acl.principal), utf16(acl.host), acl.permission_type)
    return (acl.resource_type, descending, acl.pattern_type, *fields, acl.id.bytes)


@given(
    st.lists(
        st.builds(
            make_acl,
            st.text(st.sampled_from("aZ~\uff5e\U0001f600\u00e9"), max_size=3),
            st.sampled_from([LITERAL, PREFIXED, GLOB]),
            principal=st.sampled_from(["User:a", "User:\U0001f600", "User:\uff5e"]),
            host=st.sampled_from(["*", "10.0.0.1", "h\u00e9"]),
        ),
        max_size=12,
    )
)
def test_kafka_order_is_javas_order_for_ascii_and_other_strings(
    acls: list[AccessControlEntryRecord],
) -> None:
    assert kafka_order(acls) == sorted(acls, key=_java_key)


def test_a_listing_is_sorted_once_per_index_and_follows_changes() -> None:
    authorizer = Authorizer()
    authorizer.load(ACLS)
    everything = AclFilter()
    first = authorizer.acls(everything)
    assert first == kafka_order(ACLS)
    listing = authorizer._index.listing()
    assert authorizer._index.listing() is listing  # kept with the index, not sorted again
    added = make_acl("zzz", GLOB)
    authorizer.apply(adds=[added], removes=[ACLS[0].id])
    assert authorizer.acls(everything) == kafka_order([*ACLS[1:], added])
    assert authorizer._index.listing() is not listing
    assert first == kafka_order(ACLS)  # what a reader already holds never changes


@given(filters, acl_sets())
def test_a_filter_that_matches_everything_says_so(
    acl_filter: AclFilter, acls: list[AccessControlEntryRecord]
) -> None:
    if acl_filter.matches_everything:
        assert all(acl_filter.matches(acl) for acl in acls)
    assert AclFilter().matches_everything
    assert AclFilter(pattern_type=PatternType.MATCH).matches_everything


@pytest.mark.parametrize(
    "narrowed",
    [
        AclFilter(resource_type=TOPIC),
        AclFilter(resource_name="foo"),
        AclFilter(pattern_type=LITERAL),
        AclFilter(principal="User:alice"),
        AclFilter(host="*"),
        AclFilter(operation=O.READ),
        AclFilter(permission_type=AclPermissionType.ALLOW),
    ],
)
def test_any_narrowed_field_is_not_everything(narrowed: AclFilter) -> None:
    assert not narrowed.matches_everything
