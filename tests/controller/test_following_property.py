"""A property of lock-free following: whatever mix of acknowledged writes, writes still in
flight (whole batches not yet fsynced, as a leader frozen before its fsync leaves them) and
elections happens on a shared directory, a standby's image after a tick is exactly the log
replayed up to the recovery point: it never shows a batch that is not yet committed and never
misses one that is."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from aclog.controller.caller import Caller
from aclog.controller.controller import LocalOperator
from aclog.controller.quorum import ControllerNode
from aclog.log.recovery_point import read_recovery_point
from aclog.records import NoOpRecord
from aclog.records.codec import encode
from aclog.replay.rebuild import rebuild_image
from tests.acl_factory import acl_binding

STEPS = st.lists(st.sampled_from(["write", "in-flight", "tick", "silence"]), max_size=14)


def _acls(image: object) -> set[str]:
    return {acl.resource_name for acl in image.acls.acls.values()}  # type: ignore[attr-defined]


def _committed(directory: Path) -> tuple[int, set[str]]:
    point = read_recovery_point(directory).offset
    return point - 1, _acls(rebuild_image(directory, at_offset=point - 1).image)


@settings(max_examples=25, deadline=None)
@given(STEPS)
def test_a_standby_shows_exactly_what_is_committed(steps: list[str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        directory, clock = Path(tmp), [0.0]
        nodes = [
            ControllerNode(directory, i, clock=lambda: clock[0], authorizer=LocalOperator())
            for i in (1, 2)
        ]
        try:
            for n, step in enumerate(steps):
                _step(step, n, directory, nodes, clock)
                for node in nodes:
                    node.tick()
                    if not node.is_active:
                        image = node.controller.image
                        assert (image.provenance.last_offset, _acls(image)) == _committed(directory)
        finally:
            for node in nodes:
                node.close()


def _step(
    step: str, n: int, directory: Path, nodes: list[ControllerNode], clock: list[float]
) -> None:
    clock[0] += 2.5 if step == "silence" else 0.1
    active = next((node for node in nodes if node.is_active), None)
    if step == "write" and active is not None:
        active.create_acls([acl_binding(f"t{n}")], Caller())
    elif step == "in-flight" and active is not None:
        # A whole batch of the leader's, not yet fsynced (its image does not hold it, so the
        # leader steps down at its next append, as a leader frozen before its fsync is deposed).
        writer = active.controller.log
        writer.append([encode(NoOpRecord())], writer.latest_epoch, fsync=False)
