"""The contract of :class:`aclog.replay.diff_rows.ChangeRows` (a diff's ACL changes between
table-held images, built when read) against the reference (every change built, which a diff
between mapping-held images gives): the same changes in the same order, whole, sliced or one
at a time, on generated logs where ACLs are created and deleted by several authors; and a
page of a diff builds the changes of that page only."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aclog.image import MetadataImage
from aclog.replay import diff_images, read_decoded, rebuild_image
from aclog.replay.diff_rows import ChangeRows
from tests.image.tabled import tabled, untabled
from tests.pipeline.logs import write_log


def _images(directory: Path, seed: int, steps: int, cuts: tuple[int, int]) -> list[MetadataImage]:
    """The images as of two batches of a generated log (``cuts``: their places, in 0-100)."""
    write_log(directory, seed=seed, steps=steps, snapshot_at=(steps // 2,))
    offsets = [batch.last_offset for batch in read_decoded(directory)]
    points = [offsets[min(len(offsets) - 1, len(offsets) * c // 100)] for c in cuts]
    return [rebuild_image(directory, at_offset=o).image for o in points]


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    steps=st.integers(4, 40),
    cuts=st.tuples(st.integers(0, 100), st.integers(0, 100)),
    window=st.tuples(st.integers(-5, 40), st.integers(-5, 40)),
)
def test_change_rows_equal_the_reference(seed, steps, cuts, window) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        before, after = _images(directory, seed, steps, cuts)
        reference = diff_images(directory, untabled(before), untabled(after))
        fast = diff_images(directory, tabled(before), tabled(after))
        assert isinstance(fast.acls, ChangeRows)
        assert isinstance(reference.acls, list)
        assert len(fast.acls) == len(reference.acls)
        assert list(fast.acls) == reference.acls
        assert fast.acls[window[0] : window[1]] == reference.acls[window[0] : window[1]]
        for index in (0, -1, len(reference.acls) // 2):
            if reference.acls:
                assert fast.acls[index] == reference.acls[index]
        assert fast.to_dict() == reference.to_dict()


def test_a_page_of_a_diff_builds_the_changes_of_that_page_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before, after = _images(tmp_path, seed=7, steps=60, cuts=(0, 100))
    diff = diff_images(tmp_path, tabled(before), tabled(after))
    assert len(diff.acls) > 10
    built: list[object] = []
    module = __import__("aclog.replay.diff_rows", fromlist=["record_to_dict"])
    real = module.record_to_dict
    monkeypatch.setattr(module, "record_to_dict", lambda r: built.append(r) or real(r))
    page = diff.acls[:3]
    assert len(page) == 3 and len(built) == 3
