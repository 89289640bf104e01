"""LayeredMap behaves exactly like copying a dict and applying the changes to the copy, for
every version ever derived, while the versions share their base."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from aclog.image.layered import MIN_OVERLAY, LayeredMap

Change = tuple[int, int | None]

changes = st.lists(st.tuples(st.integers(0, 40), st.none() | st.integers(0, 9)), max_size=30)


def _reference(previous: dict[int, int], batch: list[Change]) -> dict[int, int]:
    current = dict(previous)
    for key, value in batch:
        current.pop(key, None)  # setting an existing key moves it to the end
        if value is not None:
            current[key] = value
    return current


def _assert_same(layered: LayeredMap[int, int], expected: dict[int, int]) -> None:
    assert list(layered.items()) == list(expected.items())  # order too
    assert list(layered.values()) == list(expected.values())
    assert list(layered) == list(expected)
    assert (1, layered.get(1)) in layered.items() or 1 not in layered
    assert len(layered) == len(expected)
    assert layered == expected
    for key in range(-1, 42):
        assert (key in layered) == (key in expected) == (key not in layered.absent({key}))
        assert layered.get(key) == expected.get(key)
        assert layered.get(key, -7) == expected.get(key, -7)


@settings(max_examples=300)
@given(st.dictionaries(st.integers(0, 40), st.integers(0, 9)), st.lists(changes, max_size=40))
def test_every_version_equals_a_dict_with_the_same_changes(
    start: dict[int, int], batches: list[list[Change]]
) -> None:
    versions = [(LayeredMap(start), dict(start))]
    for batch in batches:
        layered, expected = versions[-1]
        versions.append((layered.updated(batch), _reference(expected, batch)))
    for layered, expected in versions:  # older versions are untouched by later ones
        _assert_same(layered, expected)


def test_missing_key_raises_key_error_even_when_removed_from_the_base() -> None:
    layered = LayeredMap({1: 10, 2: 20}).updated([(1, None)])
    try:
        layered[1]
    except KeyError as error:
        assert error.args == (1,)
    else:
        raise AssertionError("a removed key must raise KeyError")
    assert layered[2] == 20


def test_removing_an_absent_key_changes_nothing() -> None:
    layered = LayeredMap({1: 10}).updated([(5, None), (1, 11)])
    assert dict(layered) == {1: 11} and len(layered) == 1


def test_the_overlay_is_folded_into_a_new_base_once_it_outgrows_the_bound() -> None:
    size = 10_000  # replacing values keeps the size, so the bound stays 2 * sqrt(10,000)
    first = LayeredMap({key: key for key in range(size)})
    bound = max(MIN_OVERLAY, 2 * 100)
    layered = first
    for key in range(bound):
        layered = layered.updated([(key, -key)])
    assert len(layered._top) == bound and layered._base is first._base  # shared, not copied
    layered = layered.updated([(bound, -bound)])
    assert not layered._top and layered._base is not first._base
    assert list(layered)[: size - bound - 1] == list(range(bound + 1, size))
    assert list(layered.items())[-2:] == [(bound - 1, 1 - bound), (bound, -bound)]
    assert dict(first) == {key: key for key in range(size)}


def test_adopt_shares_the_dict_and_the_constructor_copies_it() -> None:
    base = {1: 1}
    assert LayeredMap.adopt(base)._base is base
    assert LayeredMap(base)._base is not base


@settings(max_examples=300)
@given(
    st.dictionaries(st.integers(0, 200), st.integers(0, 9), max_size=150),
    st.lists(changes, max_size=3),
    st.dictionaries(st.integers(0, 400), st.none() | st.integers(0, 9), max_size=120),
)
def test_merged_equals_updated_for_small_and_large_change_sets(
    start: dict[int, int], earlier: list[list[Change]], batch: dict[int, int | None]
) -> None:
    layered = LayeredMap(start)
    for step in earlier:  # an overlay to merge over
        layered = layered.updated(step)
    before = list(layered.items())
    expected = _reference(dict(layered), list(batch.items()))
    present = [key for key in batch if key in layered]
    # The contract: removals name present keys only; touched names every present key.
    batch = {k: v for k, v in batch.items() if v is not None or k in layered}
    merged = layered.merged(batch, present)
    assert list(merged.items()) == list(expected.items()) and len(merged) == len(expected)
    assert list(layered.items()) == before  # the old version is untouched


@settings(max_examples=300)
@given(
    st.dictionaries(st.integers(0, 200), st.integers(0, 9), max_size=150),
    st.lists(changes, max_size=3),
    st.data(),
    st.dictionaries(st.integers(300, 500), st.integers(0, 9), max_size=120),
)
def test_merged_removes_the_touched_keys_that_changes_does_not_set(
    start: dict[int, int],
    earlier: list[list[Change]],
    data: st.DataObject,
    added: dict[int, int],
) -> None:
    """The binding index's use: ``touched`` names the stored keys to drop, ``changes`` holds
    only the keys to set (new ones, or touched ones set again, which move to the end)."""
    layered = LayeredMap(start)
    for step in earlier:
        layered = layered.updated(step)
    before = list(layered.items())
    touched = data.draw(st.lists(st.sampled_from(sorted(layered) or [0]), unique=True))
    touched = [key for key in touched if key in layered]
    again = dict.fromkeys(touched[::2], 5)
    batch = {**again, **added}
    expected = _reference(dict(layered), [(key, None) for key in touched] + list(batch.items()))
    merged = layered.merged(batch, touched)
    assert list(merged.items()) == list(expected.items()) and len(merged) == len(expected)
    assert list(layered.items()) == before


@settings(max_examples=300)
@given(
    st.dictionaries(st.integers(0, 40), st.integers(0, 9)),
    st.lists(changes, max_size=6),
    st.sets(st.integers(-2, 45)),
)
def test_absent_agrees_with_a_plain_dict(
    start: dict[int, int], batches: list[list[Change]], keys: set[int]
) -> None:
    """``absent`` is ``{k for k in keys if k not in map}``, with or without an overlay."""
    layered, expected = LayeredMap(start), dict(start)
    for batch in batches:
        layered, expected = layered.updated(batch), _reference(expected, batch)
    assert layered.absent(set(keys)) == {key for key in keys if key not in expected}
