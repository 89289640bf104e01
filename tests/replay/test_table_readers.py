"""The readers of whole ACL images give the same answers when an image's ACLs are held by an
:class:`~aclog.image.acl_table.AclTable` (as replay will make them) as when a dict holds
them: ``diff`` (ids compared as columns), the KRaft reconcile, ``verify``'s image
comparison, the controller's DeleteAcls and the shared reads of :mod:`aclog.image.acl_reads`,
on generated logs where ACLs are created and deleted and credentials change."""

from __future__ import annotations

import dataclasses
import importlib
import tempfile
import uuid
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aclog.controller.acl_manager import AclControlManager
from aclog.image import AclsImage, MetadataImage
from aclog.image.acl_reads import acls_by_id, only_in, stored_records
from aclog.replay import Point, read_decoded, rebuild_image
from aclog.replay.kraft_reconcile import reconcile_records
from aclog.replay.verify import image_differences
from tests.authorizer.strategies import filters
from tests.image.tabled import tabled, tabling, untabled
from tests.pipeline.logs import write_log

LOGS = settings(max_examples=10, deadline=None)
diff_module = importlib.import_module("aclog.replay.diff")


def images_along(directory: Path, seed: int, steps: int) -> tuple[list[int], list[MetadataImage]]:
    """A generated log written in ``directory``, the last offsets of a few of its batches (the
    start, a third, two thirds and the end), and the image as of each."""
    write_log(directory, seed=seed, steps=steps, snapshot_at=(steps // 2,))
    offsets = [batch.last_offset for batch in read_decoded(directory)]
    picked = [-1, *(offsets[len(offsets) * k // 3] for k in (1, 2)), offsets[-1]]
    return picked, [rebuild_image(directory, at_offset=o).image for o in picked]


def both(image: MetadataImage) -> tuple[MetadataImage, MetadataImage]:
    """The image as a dict holds it and as a table holds it."""
    return untabled(image), tabled(image)


@LOGS
@given(seed=st.integers(0, 10_000), steps=st.integers(8, 30))
def test_a_diff_between_table_backed_images_equals_the_dict_backed_diff(seed, steps) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        offsets, _ = images_along(directory, seed, steps)
        first, third, two_thirds, last = offsets
        for start, end in [(first, last), (third, two_thirds), (two_thirds, third)]:
            points = Point(offset=start), Point(offset=end)
            expected = diff_module.diff(directory, *points).to_dict()
            with pytest.MonkeyPatch.context() as patch:
                patch.setattr(diff_module, "rebuild_image", tabling(rebuild_image))
                assert diff_module.diff(directory, *points).to_dict() == expected


@LOGS
@given(seed=st.integers(0, 10_000), steps=st.integers(8, 30))
def test_reconcile_and_verify_compare_table_backed_images_as_dict_backed_ones(seed, steps) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        _, images = images_along(Path(tmp), seed, steps)
    for held in images:
        for wanted in images:
            expected = reconcile_records(held, wanted)
            differences = image_differences(held, wanted)
            for mine in both(held):
                for theirs in both(wanted):
                    assert reconcile_records(mine, theirs) == expected
                    assert image_differences(mine, theirs) == differences


def test_verify_still_tells_a_different_commit_order_on_tables() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        _, images = images_along(Path(tmp), seed=7, steps=20)
    last = images[-1]
    acls = list(last.acls)
    assert len(acls) > 1
    reordered = dataclasses.replace(last, acls=AclsImage({a.id: a for a in reversed(acls)}))
    for mine in both(last):
        for theirs in both(reordered):
            assert image_differences(mine, theirs) == ["the same ACLs, in a different commit order"]
            assert image_differences(mine, theirs, ordered=False) == []


@LOGS
@given(seed=st.integers(0, 10_000), chosen=st.lists(filters, min_size=1, max_size=4))
def test_delete_acls_on_a_table_backed_image_matches_as_on_a_dict_backed_one(seed, chosen) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        _, images = images_along(Path(tmp), seed, 25)
    plain, table = both(images[-1])
    manager = AclControlManager()
    assert manager.delete_acls(table.acls, chosen) == manager.delete_acls(plain.acls, chosen)


@LOGS
@given(seed=st.integers(0, 10_000), data=st.data())
def test_the_shared_reads_agree_on_both_kinds_of_image(seed, data) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        _, images = images_along(Path(tmp), seed, 20)
    first, last = images[1], images[-1]
    known = [acl.id for acl in last.acls] + [acl.id for acl in first.acls]
    asked = data.draw(st.lists(st.sampled_from(known) | st.builds(uuid.uuid4), max_size=8))
    for mine in both(last):
        assert stored_records(mine.acls, asked) == [last.acls.acls.get(i) for i in asked]
        assert dict(acls_by_id(mine.acls)) == dict(last.acls.acls.items())
        for theirs in both(first):
            assert only_in(mine.acls, theirs.acls) == [
                acl for acl in last.acls if acl.id not in first.acls.acls
            ]
