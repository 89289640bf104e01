"""The loader and the garbage collector: its start (a process edge) pauses the collector while
building and freezes the result, its thread polls with the collector paused, the collector's
state is restored whatever happens; its library calls (and rebuilds, replays, authorizer
builds) never touch the collector."""

from __future__ import annotations

import gc
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from aclog.authorizer import Authorizer
from aclog.broker import AuthorizerPublisher, MetadataLoader
from aclog.broker.loader import Manifest
from aclog.controller.caller import Caller
from aclog.controller.controller import Controller, LocalOperator
from aclog.image import MetadataDelta, MetadataImage
from aclog.records import AclBinding, AclOperation, AclPermissionType, PatternType, ResourceType
from aclog.replay import rebuild_image, replay_tail

CALLER = Caller("User:admin", "10.0.0.1", "test", "test")


def _binding(i: int) -> AclBinding:
    return AclBinding(
        ResourceType.TOPIC,
        f"t{i}",
        PatternType.PREFIXED if i % 2 else PatternType.LITERAL,
        f"User:u{i % 7}",
        "*",
        AclOperation.READ,
        AclPermissionType.ALLOW,
    )


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    controller = Controller.open(tmp_path, authorizer=LocalOperator())
    controller.create_acls([_binding(i) for i in range(50)], CALLER)
    controller.snapshot()
    controller.create_acls([_binding(i) for i in range(50, 80)], CALLER)
    controller.close()
    return tmp_path


@pytest.fixture(autouse=True)
def _collector_restored() -> Iterator[None]:
    enabled = gc.isenabled()
    yield
    gc.unfreeze()  # let the rest of the session collect what these tests froze
    if enabled:
        gc.enable()
    else:
        gc.disable()


class _Failing:
    def publish(
        self, delta: MetadataDelta | None, image: MetadataImage, manifest: Manifest
    ) -> None:
        raise RuntimeError("publisher failed")


class _Observer:
    def __init__(self) -> None:
        self.enabled_during: list[bool] = []

    def publish(
        self, delta: MetadataDelta | None, image: MetadataImage, manifest: Manifest
    ) -> None:
        self.enabled_during.append(gc.isenabled())


def _published(observer: _Observer, count: int) -> bool:
    deadline = time.monotonic() + 10
    while len(observer.enabled_during) < count and time.monotonic() < deadline:
        time.sleep(0.01)
    return len(observer.enabled_during) >= count


def test_start_freezes_what_it_built_and_its_thread_polls_paused(data_dir: Path) -> None:
    """The loader's start is a process edge: its catch-up runs with the collector paused and
    freezes what it built; each poll of its thread runs paused; the collector is back on once
    the thread stopped (while it runs, a poll may be pausing it)."""
    gc.enable()
    gc.unfreeze()
    observer = _Observer()
    authorizer = Authorizer()
    loader = MetadataLoader(data_dir, [AuthorizerPublisher(authorizer), observer])
    loader.start()
    try:
        assert observer.enabled_during == [False]
        assert gc.get_freeze_count() > 0
        assert len(authorizer) == 80
        controller = Controller.open(data_dir, authorizer=LocalOperator())
        controller.create_acls([_binding(i) for i in range(80, 90)], CALLER)
        controller.close()
        loader.wake()
        assert _published(observer, 2)
        assert observer.enabled_during[1] is False
    finally:
        loader.stop()
    assert gc.isenabled()


def test_a_failed_start_freezes_nothing_and_reenables_the_collector(data_dir: Path) -> None:
    gc.enable()
    gc.unfreeze()
    loader = MetadataLoader(data_dir, [_Failing()])
    with pytest.raises(RuntimeError, match="publisher failed"):
        loader.start()
    assert gc.isenabled()
    assert gc.get_freeze_count() == 0


def test_start_leaves_a_disabled_collector_disabled(data_dir: Path) -> None:
    gc.disable()
    loader = MetadataLoader(data_dir, [AuthorizerPublisher(Authorizer())])
    loader.start()
    loader.stop()
    assert not gc.isenabled()


def test_library_calls_never_touch_the_collector(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Catch-up, polls, rebuilds, replays and authorizer builds leave the process-wide
    collector to the program that embeds them: none of them switches or freezes it."""

    def touched(*args: object) -> None:
        raise AssertionError("a library call touched the garbage collector")

    gc.enable()
    for name in ("disable", "enable", "freeze"):
        monkeypatch.setattr(gc, name, touched)
    observer = _Observer()
    authorizer = Authorizer()
    loader = MetadataLoader(data_dir, [AuthorizerPublisher(authorizer), observer])
    loader.catch_up()
    controller = Controller.open(data_dir, authorizer=LocalOperator())
    controller.create_acls([_binding(i) for i in range(80, 90)], CALLER)
    controller.close()
    assert loader.poll() is not None
    assert observer.enabled_during == [True, True]
    rebuilt = rebuild_image(data_dir)
    assert replay_tail(data_dir, MetadataImage.EMPTY, 0)[0] == rebuilt.image
    acls = list(rebuilt.image.acls)
    authorizer.load(acls)
    authorizer.apply(adds=(), removes=[acl.id for acl in acls])
    assert len(authorizer) == 0


def test_the_image_and_index_have_no_reference_cycles(data_dir: Path) -> None:
    # Freezing is safe only because reference counting frees a replaced image and index:
    # cyclic garbage among frozen objects would never be collected.
    gc.collect()
    gc.disable()
    authorizer = Authorizer()
    loader = MetadataLoader(data_dir, [AuthorizerPublisher(authorizer)])
    loader.catch_up()
    gc.unfreeze()
    del loader, authorizer
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        gc.collect()
        cyclic = [type(o).__name__ for o in gc.garbage]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    assert cyclic == []
