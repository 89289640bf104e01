"""The loader's catch-up and the garbage collector: paused while building, the result frozen
afterwards, the collector's state restored whatever happens."""

from __future__ import annotations

import gc
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


def test_catch_up_freezes_what_it_built_and_reenables_the_collector(data_dir: Path) -> None:
    gc.enable()
    gc.unfreeze()
    observer = _Observer()
    authorizer = Authorizer()
    loader = MetadataLoader(data_dir, [AuthorizerPublisher(authorizer), observer])
    loader.catch_up()
    assert observer.enabled_during == [False]
    assert gc.isenabled()
    assert gc.get_freeze_count() > 0
    assert len(authorizer) == 80


def test_a_failed_catch_up_freezes_nothing_and_reenables_the_collector(data_dir: Path) -> None:
    gc.enable()
    gc.unfreeze()
    loader = MetadataLoader(data_dir, [_Failing()])
    with pytest.raises(RuntimeError, match="publisher failed"):
        loader.catch_up()
    assert gc.isenabled()
    assert gc.get_freeze_count() == 0


def test_catch_up_leaves_a_disabled_collector_disabled(data_dir: Path) -> None:
    gc.disable()
    MetadataLoader(data_dir, [AuthorizerPublisher(Authorizer())]).catch_up()
    assert not gc.isenabled()


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


def test_a_poll_replays_and_publishes_with_the_collector_paused_then_reenables_it(
    tmp_path: Path,
) -> None:
    gc.enable()
    controller = Controller.open(tmp_path, authorizer=LocalOperator())
    controller.create_acls([_binding(i) for i in range(20)], CALLER)
    observer = _Observer()
    loader = MetadataLoader(tmp_path, [AuthorizerPublisher(Authorizer()), observer])
    loader.catch_up()
    controller.create_acls([_binding(i) for i in range(20, 30)], CALLER)
    manifest = loader.poll()
    assert manifest is not None and manifest.records > 0
    assert observer.enabled_during == [False, False]
    assert gc.isenabled()
    loader.publishers.append(_Failing())
    controller.create_acls([_binding(i) for i in range(30, 35)], CALLER)
    with pytest.raises(RuntimeError, match="publisher failed"):
        loader.poll()
    assert gc.isenabled()
    controller.close()
