"""The first-sight walk (:mod:`aclog.authorizer.first_bits`) equals its reference."""

from __future__ import annotations

from hypothesis import given, settings

from aclog.acl.matchers import canonical_host
from aclog.authorizer import Authorizer
from aclog.authorizer.first_bits import first_bits, reference_bits
from aclog.authorizer.rules import Rules
from tests.authorizer.strategies import scenarios


@settings(max_examples=300, deadline=None)
@given(scenarios())
def test_first_bits_equal_the_applicable_rules_bits(scenario) -> None:
    """For every request of a scenario (LITERAL, PREFIXED, GLOB and host-specific ACLs, names
    aimed at them and not), the one walk finds the applicable patterns' rules, in their order,
    and their bits."""
    acls, asked = scenario
    authorizer = Authorizer()
    authorizer.load(acls)
    for principal, host, _, resource_type, name in asked:
        names = authorizer.index.by_type.get(resource_type)
        if names is None:
            continue
        canonical = canonical_host(host)
        found: list[Rules] = []
        got = first_bits(names, name, principal, canonical, found)
        assert got == reference_bits(names, name, principal, canonical), (principal, host, name)
        assert found == [rules for _, _, rules in names.applicable(name)], name
