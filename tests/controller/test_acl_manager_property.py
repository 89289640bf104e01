"""Random CreateAcls/DeleteAcls sequences: the replayed image always equals a plain dict model."""

from __future__ import annotations

import itertools
import uuid

from hypothesis import given, settings
from hypothesis import strategies as st

from aclog.acl.filters import AclFilter
from aclog.controller import AclControlManager
from aclog.image import MetadataDelta, MetadataImage, MetadataProvenance
from aclog.records.enums import AclOperation, AclPermissionType, PatternType, ResourceType
from aclog.records.types import AclBinding

bindings = st.builds(
    AclBinding,
    st.sampled_from([ResourceType.TOPIC, ResourceType.GROUP]),
    st.sampled_from(["a", "b", "*", "a*"]),
    st.sampled_from([PatternType.LITERAL, PatternType.PREFIXED, PatternType.GLOB]),
    st.sampled_from(["User:x", "User:y", "bad"]),  # "bad" is rejected at creation
    st.sampled_from(["*", "10.0.0.1"]),
    st.sampled_from([AclOperation.READ, AclOperation.WRITE]),
    st.sampled_from([AclPermissionType.ALLOW, AclPermissionType.DENY]),
)
filters = st.builds(
    AclFilter,
    resource_type=st.sampled_from([ResourceType.ANY, ResourceType.TOPIC, ResourceType.GROUP]),
    resource_name=st.sampled_from([None, "a", "b", "*"]),
    principal=st.sampled_from([None, "User:x", "User:y"]),
    operation=st.sampled_from([AclOperation.ANY, AclOperation.READ, AclOperation.UNKNOWN]),
)
operations = st.one_of(
    st.tuples(st.just("create"), st.lists(bindings, max_size=6)),
    st.tuples(st.just("delete"), st.lists(filters, max_size=3)),
)


def model_matches(f: AclFilter, b: AclBinding) -> bool:
    """Kafka's filter rules for the restricted filters above (pattern type ANY)."""
    return (
        f.resource_type in (ResourceType.ANY, b.resource_type)
        and f.resource_name in (None, b.resource_name)
        and f.principal in (None, b.principal)
        and f.operation in (AclOperation.ANY, b.operation)
    )


def model_create(model: dict[uuid.UUID, AclBinding], request, response) -> None:
    for binding, result in zip(request, response, strict=True):
        assert result.error.is_success == (binding.principal != "bad")
        if not result.error.is_success:
            continue
        known = [acl_id for acl_id, b in model.items() if b == binding]
        if known:
            assert result.acl_id == known[0]
        else:
            model[result.acl_id] = binding


def model_delete(model: dict[uuid.UUID, AclBinding], request, response) -> None:
    doomed: set[uuid.UUID] = set()
    for f, result in zip(request, response, strict=True):
        if f.operation == AclOperation.UNKNOWN:
            assert result.error.message == "Unknown entryFilter."
            continue
        expected = [acl_id for acl_id, b in model.items() if model_matches(f, b)]
        assert [acl.id for acl in result.acls] == expected
        doomed.update(expected)
    for acl_id in doomed:
        del model[acl_id]


@settings(max_examples=150, deadline=None)
@given(st.lists(operations, max_size=12))
def test_random_operations_match_the_model(ops) -> None:
    numbers = itertools.count(1)
    manager = AclControlManager(lambda: uuid.UUID(int=next(numbers)))
    image = MetadataImage.EMPTY
    model: dict[uuid.UUID, AclBinding] = {}
    offset = 0
    for kind, request in ops:
        if kind == "create":
            result = manager.create_acls(image.acls, request)
            model_create(model, request, result.response)
        else:
            result = manager.delete_acls(image.acls, request)
            model_delete(model, request, result.response)
        delta = MetadataDelta(image)
        for record in result.records:
            delta.replay(record, offset)
            offset += 1
        image = delta.apply(MetadataProvenance(offset - 1, 1, 0))
        assert {acl_id: acl.binding for acl_id, acl in image.acls.acls.items()} == model
        assert list(image.acls.acls) == list(model)  # commit order
        assert len({acl.binding for acl in image.acls}) == len(model)  # no duplicates
