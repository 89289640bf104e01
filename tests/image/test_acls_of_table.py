"""An ACL image backed by an ACL table reads as the image of the same records does."""

from __future__ import annotations

import uuid

from aclog.image import AclsImage
from aclog.image.acl_table import AclTable
from aclog.records import (
    AccessControlEntryRecord,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourceType,
)


def _acl(n: int, name: str) -> AccessControlEntryRecord:
    return AccessControlEntryRecord(
        uuid.UUID(int=n),
        ResourceType.TOPIC,
        name,
        PatternType.LITERAL,
        "User:alice",
        "*",
        AclOperation.READ,
        AclPermissionType.ALLOW,
    )


def test_an_image_of_a_table_equals_the_image_of_its_records() -> None:
    acls = [_acl(3, "orders"), _acl(1, "payments")]
    table = AclTable.from_records(acls)
    assert table is not None
    image = AclsImage.of_table(table)
    plain = AclsImage({acl.id: acl for acl in acls})
    assert image == plain and image.table is table and plain.table is None
    assert list(image) == acls and len(image) == 2
    assert image.id_of(acls[1]) == acls[1].id and image.id_of(_acl(9, "other")) is None
    assert image.to_dict() == plain.to_dict()
