"""An ACL's identity key is one dict key whether its enums are members or their codes."""

from __future__ import annotations

import dataclasses
import uuid

from hypothesis import given
from hypothesis import strategies as st

from aclog.records import (
    AccessControlEntryRecord,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourceType,
)
from aclog.records.types import ACL_KEY_FIELDS, acl_key, acl_keys

_acls = st.builds(
    AccessControlEntryRecord,
    st.builds(uuid.UUID, int=st.integers(0, (1 << 128) - 1)),
    st.sampled_from(ResourceType),
    st.text(max_size=8),
    st.sampled_from(PatternType),
    st.text(max_size=8),
    st.text(max_size=8),
    st.sampled_from(AclOperation),
    st.sampled_from(AclPermissionType),
)


@given(st.lists(_acls, max_size=8))
def test_keys_equal_the_tuple_of_codes(acls: list[AccessControlEntryRecord]) -> None:
    for acl, key in zip(acls, acl_keys(acls), strict=True):
        codes = (
            int(acl.resource_type),
            acl.resource_name,
            int(acl.pattern_type),
            acl.principal,
            acl.host,
            int(acl.operation),
            int(acl.permission_type),
        )
        assert key == acl_key(acl) == acl_key(acl.binding) == codes
        assert hash(key) == hash(codes)
        assert {codes: acl.id}[key] == acl.id


def test_the_key_fields_are_the_record_fields_after_its_id() -> None:
    names = tuple(field.name for field in dataclasses.fields(AccessControlEntryRecord))
    assert names == ("id", *ACL_KEY_FIELDS)
    assert len(ACL_KEY_FIELDS) == 7
