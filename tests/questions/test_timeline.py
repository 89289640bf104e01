"""``timeline``: one request's decisions over a log, checked against a rebuild as of every batch
(what ``explain --at-offset`` answers) on generated logs where principals, patterns and hosts
overlap; each flip at the batch that changed the answer, with that batch's author and the ACLs
on the resource it changed."""

from __future__ import annotations

import dataclasses
import functools
import importlib
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aclog.acl.filters import AclFilter
from aclog.authorizer import Authorizer, Decision
from aclog.questions.host_answers import answers_by_host, named_hosts
from aclog.questions.timeline import Question, timeline, timelines
from aclog.questions.timeline_result import ADDED, REMOVED, Timeline, state_key
from aclog.records import AclOperation, PatternType, ResourceType
from aclog.replay import Point, read_decoded, rebuild_image
from aclog.replay.batches import replay_batches
from tests.image.tabled import tabling
from tests.pipeline.logs import REQUEST_HOSTS, REQUEST_NAMES, REQUEST_PRINCIPALS, write_log

timeline_module = importlib.import_module("aclog.questions.timeline")  # the package's
# ``timeline`` attribute is the function of that name

OPERATIONS = [AclOperation.READ, AclOperation.WRITE, AclOperation.DESCRIBE, AclOperation.ALTER]


def _authorizer_at(directory: Path, offset: int) -> Authorizer:
    """The authorizer ``explain --at-offset OFFSET`` builds."""
    authorizer = Authorizer()
    authorizer.load(list(rebuild_image(directory, at_offset=offset).image.acls))
    return authorizer


def _decision_at(result: Timeline, offset: int) -> Decision:
    """The timeline's decision (one host) after the batch ending at ``offset``."""
    answers = result.initial
    for flip in result.flips:
        if flip.last_offset <= offset:
            answers = flip.after
    return answers[-1].decision


@settings(max_examples=25)
@given(
    seed=st.integers(0, 10_000),
    steps=st.integers(1, 30),
    principal=st.sampled_from(REQUEST_PRINCIPALS),
    operation=st.sampled_from(OPERATIONS),
    name=st.sampled_from(REQUEST_NAMES),
    host=st.sampled_from(REQUEST_HOSTS),
    resource_type=st.sampled_from([ResourceType.TOPIC, ResourceType.GROUP]),
)
def test_decisions_equal_explain_at_every_batch(
    seed: int,
    steps: int,
    principal: str,
    operation: AclOperation,
    name: str,
    host: str,
    resource_type: ResourceType,
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        write_log(directory, seed=seed, steps=steps, snapshot_at=(steps // 2,))
        result = timeline(directory, principal, operation, resource_type, name, host=host)
        batches = list(read_decoded(directory))
        flips = {flip.last_offset: flip for flip in result.flips}
        previous = _authorizer_at(directory, -1).explain(
            principal, host, operation, resource_type, name
        )
        assert result.initial[-1].decision == previous.decision
        for batch in batches:
            now = _authorizer_at(directory, batch.last_offset).explain(
                principal, host, operation, resource_type, name
            )
            assert _decision_at(result, batch.last_offset) == now.decision
            flipped = now.decision != previous.decision
            assert (batch.last_offset in flips) == flipped, batch.last_offset
            if flipped:
                flip = flips[batch.last_offset]
                assert flip.author == batch.author
                assert flip.base_offset == batch.base_offset
                assert flip.timestamp_ms == batch.timestamp_ms
                assert flip.changes, "a flip changes an ACL on the resource"
                assert all(c.acl.resource_type == resource_type for c in flip.changes)
            previous = now
        assert result.end.last_offset == (batches[-1].last_offset if batches else -1)


@settings(max_examples=15)
@given(
    seed=st.integers(0, 10_000),
    principal=st.sampled_from(REQUEST_PRINCIPALS),
    name=st.sampled_from(REQUEST_NAMES),
)
def test_every_host_class_folded_as_who_can_folds_it(seed: int, principal: str, name: str) -> None:
    """Without a host, each state is the folded answer per host class as of that batch; a flip
    is a change of some host class's decision."""
    operation, resource_type = AclOperation.READ, ResourceType.TOPIC
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        write_log(directory, seed=seed, steps=25)
        result = timeline(directory, principal, operation, resource_type, name)
        flips = {flip.last_offset: flip for flip in result.flips}
        previous = result.initial
        for batch in read_decoded(directory):
            authorizer = _authorizer_at(directory, batch.last_offset)
            on_resource = authorizer.acls(AclFilter(resource_type, name, PatternType.MATCH))
            now = answers_by_host(
                functools.partial(authorizer.explain, principal, operation=operation,
                                  resource_type=resource_type, name=name),
                named_hosts(on_resource),
            )  # fmt: skip
            flipped = state_key(now) != state_key(previous)
            assert (batch.last_offset in flips) == flipped
            if flipped:
                assert state_key(flips[batch.last_offset].after) == state_key(now)
                assert state_key(flips[batch.last_offset].before) == state_key(previous)
            previous = now


def test_a_range_shows_only_its_flips(tmp_path: Path) -> None:
    """From a later point the start answer is that point's, and flips before it are gone; an
    end point stops the walk there."""
    write_log(tmp_path, seed=11, steps=70, snapshot_at=(24, 47))
    args = ("User:alice", AclOperation.READ, ResourceType.TOPIC, "orders")
    whole = timeline(tmp_path, *args, host="::1")
    assert whole.flips, "the fixture log flips this request"
    first = whole.flips[0]
    later = timeline(tmp_path, *args, host="::1", start=Point(offset=first.last_offset))
    assert later.start.last_offset == first.last_offset
    assert later.initial[-1].decision == first.after[-1].decision
    assert [f.last_offset for f in later.flips] == [f.last_offset for f in whole.flips[1:]]
    upto = timeline(tmp_path, *args, host="::1", end=Point(offset=first.last_offset))
    assert [f.last_offset for f in upto.flips] == [first.last_offset]
    assert upto.end.last_offset == first.last_offset


def test_flip_names_the_acls_that_changed(tmp_path: Path) -> None:
    from aclog.controller.caller import Caller
    from aclog.controller.controller import Controller, LocalOperator
    from aclog.log import SegmentedLog
    from aclog.records import AclBinding, AclPermissionType

    grant = AclBinding(
        ResourceType.TOPIC, "pay", PatternType.PREFIXED, "User:alice", "*",
        AclOperation.READ, AclPermissionType.ALLOW,
    )  # fmt: skip
    other = AclBinding(
        ResourceType.TOPIC, "zzz", PatternType.LITERAL, "User:alice", "*",
        AclOperation.READ, AclPermissionType.ALLOW,
    )  # fmt: skip
    granter = Caller("User:ops", "10.0.0.8", "ops-tool", "aclog acls add")
    revoker = Caller("User:sec", "10.0.0.7", "sec-tool", "aclog acls remove")
    log = SegmentedLog(tmp_path, fsync=False)
    with Controller(log, authorizer=LocalOperator()) as controller:
        controller.create_acls([grant, other], granter)
        (acl,) = [a for a in controller.image.acls if a.resource_name == "pay"]
        controller.delete_acls([AclFilter(**dataclasses.asdict(grant))], revoker)
    result = timeline(tmp_path, "User:alice", AclOperation.READ, ResourceType.TOPIC, "payments")
    gained, lost = result.flips
    assert (gained.direction, lost.direction) == ("gained", "lost")
    assert [(c.change, c.acl) for c in gained.changes] == [(ADDED, acl)]
    assert [(c.change, c.acl) for c in lost.changes] == [(REMOVED, acl)]
    assert gained.author is not None and gained.author.principal == "User:ops"
    assert lost.author is not None and lost.author.principal == "User:sec"
    assert result.final[-1].decision == Decision.DENIED


def test_many_questions_in_one_walk_equal_one_each(tmp_path: Path) -> None:
    write_log(tmp_path, seed=7, steps=40, snapshot_at=(15,))
    questions = [
        Question(p, op, ResourceType.TOPIC, n, h)
        for p in REQUEST_PRINCIPALS[:3]
        for op in (AclOperation.READ, AclOperation.WRITE)
        for n in REQUEST_NAMES[:4]
        for h in (None, "10.0.0.1")
    ]
    together = timelines(tmp_path, questions, start=Point(offset=20))
    for question, found in zip(questions, together, strict=True):
        alone = timeline(
            tmp_path, question.principal, question.operation, question.resource_type,
            question.name, host=question.host, start=Point(offset=20),
        )  # fmt: skip
        assert found == alone
    assert any(found.flips for found in together)


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10_000), steps=st.integers(10, 40))
def test_timelines_over_table_backed_images_equal_those_over_dict_backed_ones(
    seed: int, steps: int
) -> None:
    """Every image the walk reads held by a table (as replay will make them), from a start
    in the middle of the log (so the authorizer loads a table and the batches remove and
    replace ACLs of it): the same timelines, flips and changed ACLs."""
    questions = [
        Question(p, o, t, n)
        for p in REQUEST_PRINCIPALS
        for o in OPERATIONS[:2]
        for t in (ResourceType.TOPIC, ResourceType.GROUP)
        for n in REQUEST_NAMES
    ]
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        write_log(directory, seed=seed, steps=steps, snapshot_at=(steps // 3,))
        batches = list(read_decoded(directory))
        start = Point(offset=batches[len(batches) // 2].last_offset)
        expected = timelines(directory, questions, start=start)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(timeline_module, "rebuild_image", tabling(rebuild_image))
            patch.setattr(timeline_module, "replay_batches", tabling(replay_batches))
            assert timelines(directory, questions, start=start) == expected
