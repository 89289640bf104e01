"""Every contract test runs against the trie authorizer and the naive reference."""

from __future__ import annotations

from collections.abc import Callable, Iterable

import pytest

from aclog.authorizer import Authorizer
from aclog.records.types import AccessControlEntryRecord
from tests.authorizer.reference import ReferenceAuthorizer

Factory = Callable[..., Authorizer | ReferenceAuthorizer]


@pytest.fixture(params=["trie", "reference"])
def make(request: pytest.FixtureRequest) -> Factory:
    """``make(acls, super_users=..., allow_everyone=..., ready=True)`` for one implementation."""

    def build(
        acls: Iterable[AccessControlEntryRecord] = (),
        super_users: Iterable[str] = ("User:admin",),
        allow_everyone: bool = False,
        ready: bool = True,
    ) -> Authorizer | ReferenceAuthorizer:
        cls = Authorizer if request.param == "trie" else ReferenceAuthorizer
        authorizer = cls(super_users, allow_everyone)
        if ready:
            authorizer.load(acls)
        return authorizer

    return build
