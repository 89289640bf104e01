"""Plans: they never reach outside what a file owns, applying one converges (a second plan is
empty), an exported state plans to nothing, a plan survives its JSON form, and a data-directory
apply is one batch or nothing."""

from __future__ import annotations

import tempfile
from pathlib import Path

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aclog.controller import upsertion_for_password
from aclog.controller.caller import Caller
from aclog.controller.controller import Controller, LocalOperator
from aclog.desired import (
    CurrentState,
    DesiredState,
    DesiredUser,
    Ownership,
    PasswordSource,
    apply_atomically,
    export_dict,
    export_yaml,
    load_desired,
    plan,
    plan_from_dict,
)
from aclog.desired import export as export_module
from aclog.desired.atomic import NOT_APPLIED
from aclog.desired.export import HEADER
from aclog.desired.planning import Plan
from aclog.image import MetadataImage
from aclog.records import (
    AclBinding,
    AclOperation,
    AclPermissionType,
    PatternType,
    RequestContextRecord,
    ResourceType,
    ScramMechanism,
)
from aclog.replay.stream import read_decoded

PRINCIPALS = ["User:a", "User:b", "User:c", "User:*"]
NAMES = ["orders.x", "orders", "pay", "p", "*"]
USERS = ["a", "b", "c"]
MECHANISMS = [ScramMechanism.SCRAM_SHA_256, ScramMechanism.SCRAM_SHA_512]
CALLER = Caller("User:tester", "local", "test", "aclog apply test.yaml sha256=00")

bindings = st.builds(
    AclBinding,
    st.just(ResourceType.TOPIC),
    st.sampled_from(NAMES),
    st.sampled_from([PatternType.LITERAL, PatternType.PREFIXED, PatternType.GLOB]),
    st.sampled_from(PRINCIPALS),
    st.sampled_from(["*", "10.0.0.1"]),
    st.sampled_from([AclOperation.READ, AclOperation.WRITE, AclOperation.ALL]),
    st.sampled_from([AclPermissionType.ALLOW, AclPermissionType.DENY]),
)
credentials = st.dictionaries(
    st.tuples(st.sampled_from(USERS), st.sampled_from(MECHANISMS)), st.sampled_from([4096, 8192])
)
ownerships = st.one_of(
    st.just(Ownership(everything=True)),
    st.builds(
        Ownership,
        st.just(False),
        st.frozensets(st.sampled_from(PRINCIPALS)),
        st.lists(st.sampled_from(["orders.", "p"]), unique=True).map(tuple),
    ),
)


def _desired(owns: Ownership, acls: list[AclBinding], users: dict) -> DesiredState:  # type: ignore[type-arg]
    owned = tuple(dict.fromkeys(a for a in acls if owns.owns_acl(a)))
    wanted = tuple(
        DesiredUser(name, mechanism, iterations, PasswordSource(env="UNUSED"), 1)
        for (name, mechanism), iterations in users.items()
        if owns.owns_user(name)
    )
    return DesiredState("test.yaml", "00", owns, owned, wanted, dict.fromkeys(owned, 1))


def _passwords(desired: DesiredState) -> dict[tuple[str, ScramMechanism], str]:
    return {u.key: f"pw-{u.name}" for u in desired.users}


@given(ownerships, st.lists(bindings), credentials, st.lists(bindings), credentials)
def test_a_plan_never_reaches_outside_what_the_file_owns(
    owns: Ownership,
    present: list[AclBinding],
    present_users: dict,  # type: ignore[type-arg]
    wanted: list[AclBinding],
    wanted_users: dict,  # type: ignore[type-arg]
) -> None:
    current = CurrentState.from_described(present, [])
    current = CurrentState(current.acls, present_users)
    desired = _desired(owns, wanted, wanted_users)
    computed = plan(desired, current, passwords=_passwords(desired))
    assert all(owns.owns_acl(a) for a in (*computed.add, *computed.remove))
    assert all(owns.owns_user(u.name) for u in (*computed.upsert, *computed.delete))
    # Applied to a model of the state: the owned part becomes the file, the rest stays.
    after = (set(current.acls) - set(computed.remove)) | set(computed.add)
    assert {a for a in after if owns.owns_acl(a)} == set(desired.acls)
    assert {a for a in after if not owns.owns_acl(a)} == {
        a for a in current.acls if not owns.owns_acl(a)
    }
    kept = {k for k in current.users if (k[0], k[1]) not in {(d.name, d.mechanism)
                                                             for d in computed.delete}}  # fmt: skip
    assert {k for k in kept if owns.owns_user(k[0])} <= {u.key for u in desired.users}


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ownerships, st.lists(bindings, max_size=8), credentials, st.lists(bindings, max_size=8),
       credentials)  # fmt: skip
def test_applying_converges_and_a_second_apply_is_a_no_op(
    owns: Ownership,
    present: list[AclBinding],
    present_users: dict,  # type: ignore[type-arg]
    wanted: list[AclBinding],
    wanted_users: dict,  # type: ignore[type-arg]
) -> None:
    with (
        tempfile.TemporaryDirectory() as tmp,
        Controller.open(Path(tmp), authorizer=LocalOperator()) as controller,
    ):
        controller.create_acls(list(dict.fromkeys(present)), CALLER)
        seed = [upsertion_for_password(n, m, "old", i) for (n, m), i in present_users.items()]
        controller.alter_scram(seed, [], CALLER)
        desired = _desired(owns, wanted, wanted_users)
        passwords = _passwords(desired)
        first = plan(desired, CurrentState.from_image(controller.image), passwords=passwords)
        end = controller.log.end_offset
        result = apply_atomically(first, controller, passwords, CALLER)
        assert result.refused is None and not result.failures
        # One batch: a request context and the plan's records, or nothing at all.
        assert (controller.log.end_offset > end) == first.has_changes
        again = plan(desired, CurrentState.from_image(controller.image), passwords=passwords)
        assert not again.has_changes, again.to_dict()
        end = controller.log.end_offset
        assert apply_atomically(again, controller, passwords, CALLER).items == ()
        assert controller.log.end_offset == end


@given(st.lists(bindings), credentials)
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_an_exported_state_plans_to_no_changes(
    tmp_path: Path,
    acls: list[AclBinding],
    users: dict,  # type: ignore[type-arg]
) -> None:
    current = CurrentState(CurrentState.from_described(acls, []).acls, users)
    path = tmp_path / "exported.yaml"
    path.write_text(export_yaml(current, "a comment"), encoding="utf-8")
    desired = load_desired(path)
    assert set(desired.acls) == set(current.acls)
    computed = plan(desired, current)
    assert not computed.has_changes, computed.to_dict()


def test_a_plan_survives_its_json_form_and_holds_no_password() -> None:
    owns = Ownership(False, frozenset({"User:a"}), ("orders.",))
    acl = AclBinding(ResourceType.TOPIC, "orders.x", PatternType.GLOB, "User:a", "*",
                     AclOperation.READ, AclPermissionType.ALLOW)  # fmt: skip
    desired = _desired(owns, [acl], {("a", ScramMechanism.SCRAM_SHA_512): 8192})
    current = CurrentState((), {("a", ScramMechanism.SCRAM_SHA_256): 4096})
    computed = plan(desired, current, passwords={("a", ScramMechanism.SCRAM_SHA_512): "hunter2"})
    data = computed.to_dict()
    assert "hunter2" not in repr(data)
    back = plan_from_dict(data)
    assert back.changes_dict() == computed.changes_dict()
    assert back.fingerprint == computed.fingerprint == current.fingerprint
    assert data["users"] == {
        "upsert": [{"name": "a", "mechanism": "SCRAM-SHA-512", "iterations": 8192,
                    "reason": "new"}],
        "delete": [{"name": "a", "mechanism": "SCRAM-SHA-256", "iterations": None,
                    "reason": "not in the file"}],
    }  # fmt: skip


def test_the_fingerprint_ignores_listing_order() -> None:
    acls = [
        AclBinding(ResourceType.TOPIC, n, PatternType.LITERAL, "User:a", "*",
                   AclOperation.READ, AclPermissionType.ALLOW)
        for n in "xyz"
    ]  # fmt: skip
    one = CurrentState.from_described(acls, [])
    other = CurrentState.from_described(reversed(acls), [])
    assert one.fingerprint == other.fingerprint
    assert one.fingerprint != CurrentState.from_described(acls[:2], []).fingerprint


def test_a_data_directory_apply_is_one_batch_or_nothing(tmp_path: Path) -> None:
    good = AclBinding(ResourceType.TOPIC, "t", PatternType.LITERAL, "User:a", "*",
                      AclOperation.READ, AclPermissionType.ALLOW)  # fmt: skip
    bad = AclBinding(ResourceType.TOPIC, "t", PatternType.LITERAL, "User:a", "example.com",
                     AclOperation.READ, AclPermissionType.ALLOW)  # fmt: skip
    with Controller.open(tmp_path, authorizer=LocalOperator()) as controller:
        fingerprint = CurrentState.from_image(controller.image).fingerprint
        end = controller.log.end_offset
        # An item the controller refuses: nothing of the plan is committed.
        half = Plan("f.yaml", "00", fingerprint, add=(good, bad))
        result = apply_atomically(half, controller, {}, CALLER)
        assert not result.committed
        assert result.items[0].error == NOT_APPLIED
        assert "Invalid host" in (result.items[1].error.message or "")
        assert controller.log.end_offset == end
        # A plan made against another state is refused inside the commit.
        stale = Plan("f.yaml", "00", "sha256:other", add=(good,))
        refused = apply_atomically(stale, controller, {}, CALLER)
        assert refused.refused is not None and "state changed" in refused.refused
        assert controller.log.end_offset == end
        applied = apply_atomically(Plan("f.yaml", "00", fingerprint, add=(good,)),
                                   controller, {}, CALLER)  # fmt: skip
        assert applied.committed and controller.log.end_offset == end + 2
    last = list(read_decoded(tmp_path))[-1].records
    assert last[0] == RequestContextRecord(
        "User:tester",
        "local",
        "test",
        last[0].timestamp_ms,
        "aclog apply test.yaml sha256=00",  # type: ignore[union-attr]
    )
    assert last[1:] == (good.with_id(last[1].id),)  # type: ignore[union-attr]


def test_an_inventory_shows_who_loses_access() -> None:
    read = AclBinding(ResourceType.TOPIC, "orders", PatternType.LITERAL, "User:a", "*",
                      AclOperation.READ, AclPermissionType.ALLOW)  # fmt: skip
    current = CurrentState.from_image(MetadataImage.EMPTY)
    current = CurrentState((read,), {})
    desired = _desired(Ownership(everything=True), [], {})
    computed = plan(desired, current, [(ResourceType.TOPIC, "orders"), (ResourceType.TOPIC, "x")])
    assert computed.impact is not None
    [impact] = computed.impact
    assert impact.name == "orders"
    assert ("User:a", "READ", "ALLOWED", "DENIED") in {
        (c.principal, c.operation, c.before.name, c.after.name) for c in impact.changes
    }


@settings(max_examples=30, deadline=None)
@given(ownerships, st.lists(bindings, max_size=6), st.lists(bindings, max_size=6))
def test_an_inventory_plans_over_any_state(
    owns: Ownership, present: list[AclBinding], wanted: list[AclBinding]
) -> None:
    # Kept, added and removed ACLs are loaded together: their planning ids never collide.
    current = CurrentState.from_described(present, [])
    computed = plan(_desired(owns, wanted, {}), current, [(ResourceType.TOPIC, n) for n in NAMES])
    assert computed.impact is not None
    if computed.add or computed.remove:
        assert computed.impact


_ANY_NAME = st.text(st.characters(exclude_categories=("Cs",)), min_size=1, max_size=12).filter(
    lambda name: name != "*"
)


@given(st.lists(st.tuples(_ANY_NAME, _ANY_NAME), max_size=8))
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)
def test_an_export_of_any_names_loads_back_to_the_same_acls(
    tmp_path: Path, names: list[tuple[str, str]]
) -> None:
    """Kafka takes any text as a name: what loads back is what was exported (PyYAML's own
    emitter wrote U+0085 raw, and 'User:\x85' loaded back as 'User: ')."""
    acls = [
        AclBinding(
            ResourceType.TOPIC,
            name,
            PatternType.LITERAL,
            f"User:{user}",
            "*",
            AclOperation.READ,
            AclPermissionType.ALLOW,
        )
        for name, user in names
    ]
    current = CurrentState(CurrentState.from_described(acls, []).acls, {})
    path = tmp_path / "exported.yaml"
    path.write_text(export_yaml(current), encoding="utf-8")
    assert set(load_desired(path).acls) == set(current.acls)


def test_export_uses_libyaml_and_writes_what_pure_python_yaml_writes() -> None:
    """The export writes its lines itself (PyYAML's representer spent about 40 s of a 200k-ACL
    export; that speed is a benchmark's to show, not a timed test's), quotes through libyaml
    where PyYAML has it, and for plain names its bytes are the pure-Python emitter's."""
    acls = [
        AclBinding(
            ResourceType.TOPIC,
            f"t{i:05d}.orders",
            PatternType.LITERAL,
            f"User:svc-{i % 300}",
            "*",
            AclOperation.READ,
            AclPermissionType.ALLOW,
        )
        for i in range(1_000)
    ]
    current = CurrentState(CurrentState.from_described(acls, []).acls, {})
    options = {"sort_keys": False, "allow_unicode": True, "default_flow_style": False}
    python = yaml.dump(export_dict(current), Dumper=yaml.SafeDumper, **options)
    assert export_yaml(current).endswith(python)
    if yaml.__with_libyaml__:
        assert export_module._DUMPER is yaml.CSafeDumper


_SHORT_NAME = st.text(
    st.sampled_from("aZ09_.-/@+=:*' #é"), min_size=1, max_size=10
) | st.sampled_from(
    ["yes", "No", "null", "~", "123", "0x1f", "1e5", "12:30", "2026-01-01", "-x", "a:", ":a", "<<"]
)


@given(st.lists(st.tuples(_SHORT_NAME, _SHORT_NAME, st.integers(4096, 10_000)), max_size=6))
@settings(deadline=None)
def test_the_export_is_the_text_pyyaml_writes(names: list[tuple[str, str, int]]) -> None:
    """Names that fit a line are written as PyYAML's block style writes them, byte for byte:
    plain where it is plain, quoted as it quotes (numbers, booleans, indicators, spaces)."""
    acls = [
        AclBinding(
            ResourceType.TOPIC,
            name,
            PatternType.PREFIXED,
            f"User:{user}",
            "*",
            AclOperation.WRITE,
            AclPermissionType.DENY,
        )
        for name, user, _ in names
    ]
    users = {(user, ScramMechanism.SCRAM_SHA_256): iterations for _, user, iterations in names}
    current = CurrentState(CurrentState.from_described(acls, []).acls, users)
    options = {"sort_keys": False, "allow_unicode": True, "default_flow_style": False}
    expected = yaml.dump(export_dict(current), Dumper=yaml.SafeDumper, **options)
    assert export_yaml(current) == HEADER + expected
