"""An ACL image backed by an ACL table reads as the image of the same records does."""

from __future__ import annotations

from aclog.image import AclsImage
from aclog.image.acl_table import AclTable
from tests.acl_factory import acl_record


def test_an_image_of_a_table_equals_the_image_of_its_records() -> None:
    acls = [acl_record(3, "orders", "User:alice"), acl_record(1, "payments", "User:alice")]
    table = AclTable.from_records(acls)
    assert table is not None
    image = AclsImage.of_table(table)
    plain = AclsImage({acl.id: acl for acl in acls})
    assert image == plain and image.table is table and plain.table is None
    assert list(image) == acls and len(image) == 2
    assert (
        image.id_of(acls[1]) == acls[1].id
        and image.id_of(acl_record(9, "other", "User:alice")) is None
    )
    assert image.to_dict() == plain.to_dict()
