"""``acl_page`` (the column comparisons over a table) gives what ``acl_page_reference`` (the
filter's rule asked of every record) gives: the same total and the same page, in image order,
for any filter and page, on tables of several segments with removed rows, codes without an
enum member and strings the pool holds but no row uses; ``acls_applying`` gives the ACLs a
MATCH filter of any of the resources selects."""

from __future__ import annotations

import uuid

from hypothesis import given, settings
from hypothesis import strategies as st

from aclog.authorizer import AclFilter
from aclog.image import AclsImage, acl_page, acls_applying
from aclog.image.acl_column_rows import of_records, words_of_id_bytes
from aclog.image.acl_pages import acl_page_reference
from aclog.image.acl_table import AclTable
from aclog.records import (
    AccessControlEntryRecord,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourceType,
)

OPS = [AclOperation.READ, AclOperation.WRITE, AclOperation.ALL, AclOperation.UNKNOWN]
TYPES = [ResourceType.TOPIC, ResourceType.GROUP, ResourceType.UNKNOWN]
PATTERNS = [PatternType.LITERAL, PatternType.PREFIXED, PatternType.GLOB]
PERMISSIONS = [AclPermissionType.ALLOW, AclPermissionType.DENY]
NAMES = ["a", "ab", "abc", "b", "*", "a*", "?b"]
PRINCIPALS = ["User:x", "User:y", "User:*", "User:<script>\x00\n"]
HOSTS = ["*", "10.0.0.1"]
ASKED = ["a", "ab", "abc", "abcd", "b", "zz", "*"]

bindings = st.tuples(
    st.sampled_from(TYPES),
    st.sampled_from(NAMES),
    st.sampled_from(PATTERNS),
    st.sampled_from(PRINCIPALS),
    st.sampled_from(HOSTS),
    st.sampled_from(OPS),
    st.sampled_from(PERMISSIONS),
)
filters = st.builds(
    AclFilter,
    st.sampled_from([ResourceType.ANY, *TYPES]),
    st.sampled_from([None, *NAMES, "abcd", "zz"]),
    st.sampled_from([PatternType.ANY, PatternType.MATCH, *PATTERNS]),
    st.sampled_from([None, *PRINCIPALS, "User:nobody"]),
    st.sampled_from([None, *HOSTS, "10.9.9.9"]),
    st.sampled_from([AclOperation.ANY, *OPS]),
    st.sampled_from([AclPermissionType.ANY, *PERMISSIONS]),
)


def _acls(drawn: list[tuple[object, ...]], first: int) -> list[AccessControlEntryRecord]:
    return [
        AccessControlEntryRecord(uuid.UUID(int=(first + n) * 0x1_0000_0001), *binding)  # type: ignore[arg-type]
        for n, binding in enumerate(drawn)
    ]


@settings(max_examples=300, deadline=None)
@given(
    base=st.lists(bindings, unique=True, max_size=25),
    more=st.lists(bindings, unique=True, max_size=10),
    data=st.data(),
    chosen=st.lists(filters, min_size=1, max_size=4),
)
def test_a_page_of_a_table_is_the_reference_page(base, more, data, chosen) -> None:
    old = _acls(base, 0)
    added = [acl for acl in _acls(more, 100) if acl.binding not in {a.binding for a in old}]
    gone = data.draw(st.lists(st.sampled_from(old), unique=True)) if old else []
    first = AclTable.from_records(old)
    assert first is not None
    removal = words_of_id_bytes(b"".join(acl.id.bytes for acl in gone))
    table = first.applied(of_records(added), removal)
    assert table is not None
    image = AclsImage.of_table(table)
    for acl_filter in chosen:
        start = data.draw(st.integers(0, 40))
        count = data.draw(st.integers(0, 10))
        assert acl_page(image, acl_filter, start, count) == acl_page_reference(
            image, acl_filter, start, count
        )
    resources = data.draw(st.lists(st.tuples(st.sampled_from(TYPES), st.sampled_from(ASKED))))
    applying = [
        acl
        for acl in table.records()
        if any(AclFilter(rt, name, PatternType.MATCH).matches(acl) for rt, name in resources)
    ]
    assert acls_applying(image, resources) == applying
    assert acls_applying(AclsImage({acl.id: acl for acl in applying}), resources) == applying


def test_a_page_lists_the_acls_in_image_order_with_their_total() -> None:
    acls = _acls([(ResourceType.TOPIC, f"t{n}", PatternType.LITERAL, "User:x", "*",
                   AclOperation.READ, AclPermissionType.ALLOW) for n in range(250)], 0)  # fmt: skip
    table = AclTable.from_records(acls)
    assert table is not None
    page = acl_page(AclsImage.of_table(table), AclFilter(), 200, 100)
    assert page.total == 250 and page.acls == acls[200:]
    mapping = acl_page(AclsImage({acl.id: acl for acl in acls}), AclFilter(), 200, 100)
    assert mapping == page
    named = acl_page(AclsImage.of_table(table), AclFilter(resource_name="t7"), 0, 100)
    assert named.total == 1 and named.acls == [acls[7]]
