"""``AclListing``: what a filter selects from an image's listing is exactly what
:meth:`AclFilter.matches` selects, in image order, whichever field's index narrows it, and
a listing is built once per image and kept for the newest few."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from aclog.authorizer import AclFilter
from aclog.image import AclsImage
from aclog.questions import AclListing, listing_of
from aclog.questions.listing import KEPT
from aclog.records import (
    AccessControlEntryRecord,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourceType,
)
from tests.acl_factory import acl_record

OPS = [AclOperation.READ, AclOperation.WRITE, AclOperation.DESCRIBE]
TYPES = [ResourceType.TOPIC, ResourceType.GROUP]
PATTERNS = [PatternType.LITERAL, PatternType.PREFIXED]
PERMISSIONS = [AclPermissionType.ALLOW, AclPermissionType.DENY]

acls = st.lists(
    st.builds(
        AccessControlEntryRecord,
        st.uuids(),
        st.sampled_from(TYPES),
        st.sampled_from(["a", "ab", "b", "*"]),
        st.sampled_from(PATTERNS),
        st.sampled_from(["User:x", "User:y", "User:*"]),
        st.sampled_from(["*", "10.0.0.1"]),
        st.sampled_from(OPS),
        st.sampled_from(PERMISSIONS),
    ),
    max_size=30,
    unique_by=lambda acl: acl.id,
)
filters = st.builds(
    AclFilter,
    st.sampled_from([ResourceType.ANY, *TYPES]),
    st.sampled_from([None, "a", "ab", "*"]),
    st.sampled_from([PatternType.ANY, PatternType.MATCH, *PATTERNS]),
    st.sampled_from([None, "User:x", "User:*"]),
    st.sampled_from([None, "*", "10.0.0.1"]),
    st.sampled_from([AclOperation.ANY, *OPS]),
    st.sampled_from([AclPermissionType.ANY, *PERMISSIONS]),
)


@settings(max_examples=200, deadline=None)
@given(acls=acls, chosen=st.lists(filters, min_size=1, max_size=4))
def test_a_filter_selects_what_matches_selects(
    acls: list[AccessControlEntryRecord], chosen: list[AclFilter]
) -> None:
    image = AclsImage({acl.id: acl for acl in acls})
    listing = AclListing(image)
    for acl_filter in chosen:  # later filters reuse the indexes the earlier ones built
        assert list(listing.matching(acl_filter)) == [a for a in acls if acl_filter.matches(a)]


def test_a_listing_is_kept_per_image() -> None:
    images = [AclsImage({acl.id: acl for acl in [acl_record(n, f"t{n}")]}) for n in range(3)]
    first = listing_of(images[0])
    assert listing_of(images[0]) is first
    assert listing_of(AclsImage(dict(images[0].acls))) is not first  # an equal image, not it
    for image in images[1:]:
        listing_of(image)
    assert KEPT == 2 and listing_of(images[0]) is not first  # the oldest went
    assert [a.resource_name for a in listing_of(images[2]).records] == ["t2"]
