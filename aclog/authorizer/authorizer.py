"""The authorizer: Kafka's StandardAuthorizer semantics plus GLOB, over an :class:`AclIndex`.

Decisions follow ``reference/kafka-acl-spec.md`` §6-§9 and DESIGN.md §3: super users are always
allowed (even before the first load, and over any DENY); until :meth:`Authorizer.load` or
:meth:`Authorizer.complete_initial_load` every other request raises
:class:`AuthorizerNotReadyError`; any matching DENY beats any matching ALLOW at any specificity;
the allow-everyone default applies only to a resource with no ACL at all. Deliberate fixes: a
LITERAL ``*`` ACL applies to every name, a session principal ``User:*`` is handled normally, hosts
compare as parsed IP addresses.

Thread-safety: every query is thread-safe and lock-free; it reads the current
:class:`AclIndex` once and works on that immutable snapshot, so a reader never sees half a
batch. Mutations (:meth:`Authorizer.load`, :meth:`~Authorizer.add`, :meth:`~Authorizer.remove`,
:meth:`~Authorizer.apply`) must come from one thread: each builds a new index by copying only the
shards it changes and publishes it with a single attribute rebind.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping

import aclog.authorizer.decide as core
from aclog.acl.filters import AclFilter
from aclog.acl.matchers import CANONICAL, canonical_host
from aclog.acl.operations import granted_operations, supported_operations
from aclog.authorizer.acl_index import AclIndex
from aclog.authorizer.by_type import find_allowed_name
from aclog.authorizer.explain import explanation
from aclog.authorizer.request_checks import (
    check_by_type_request,
    check_ready,
    check_request,
    check_resource_type,
)
from aclog.authorizer.results import Decision, Explanation
from aclog.authorizer.rules import REQUEST_MASKS
from aclog.authorizer.stored_ids import StoredIds, by_id_of
from aclog.authorizer.table_load import index_from_table
from aclog.image.acls_image import AclsImage
from aclog.records.enums import AclOperation, ResourceType
from aclog.records.types import AccessControlEntryRecord


class Authorizer:
    """Represents a broker's authorizer: the published ACL index plus the configuration.

    Queries are thread-safe and lock-free; mutations must come from one thread (see the module
    docstring). ``authorize`` costs two probes of small dicts for a name and principal asked
    before (the index remembers what applies to them, :mod:`aclog.authorizer.memo`), one probe
    per applicable pattern for a new principal on a known name, else one for the LITERAL name, one
    per distinct prefix length (and GLOB suffix length) up to ``len(name)`` whose edge character
    the name has, plus one GLOB match per candidate GLOB pattern (see
    :mod:`aclog.authorizer.names`); then one per applicable pattern: the common path does not
    grow with the number of ACLs (the ``authorizer`` suite of ``make bench`` times it).

    :meth:`authorize` answers, :meth:`explain` says why (``+ELLIPSIS``: the ACL's id text):

    >>> import uuid
    >>> from aclog.records import AclPermissionType, PatternType
    >>> authorizer = Authorizer()
    >>> authorizer.load([AccessControlEntryRecord(
    ...     uuid.UUID(int=1), ResourceType.TOPIC, "orders.", PatternType.PREFIXED,
    ...     "User:alice", "*", AclOperation.READ, AclPermissionType.ALLOW)])
    >>> authorizer.authorize("User:alice", "10.0.0.1", AclOperation.READ, ResourceType.TOPIC,
    ...                      "orders.eu")
    <Decision.ALLOWED: 'ALLOWED'>
    >>> authorizer.authorize("User:alice", "10.0.0.1", AclOperation.WRITE, ResourceType.TOPIC,
    ...                      "orders.eu")
    <Decision.DENIED: 'DENIED'>
    >>> explained = authorizer.explain("User:alice", "10.0.0.1", AclOperation.READ,
    ...                                ResourceType.TOPIC, "orders.eu")
    >>> print(explained.reason)
    allowed by ALLOW rule READ on TOPIC PREFIXED 'orders.' for User:alice from host * (id ...)
    >>> explained.deciding_acl.id.int
    1
    >>> print(authorizer.explain("User:alice", "10.0.0.1", AclOperation.READ,
    ...                          ResourceType.TOPIC, "payments").reason)
    no ACL on the resource; allow.everyone.if.no.acl.found=false
    """

    def __init__(
        self,
        super_users: Iterable[str] = frozenset(),
        allow_everyone_if_no_acl_found: bool = False,
    ) -> None:
        self._super_users = frozenset(super_users)
        self._allow_everyone = allow_everyone_if_no_acl_found
        self._index = AclIndex.EMPTY
        self._ids = StoredIds({})  # the writer's own view of the stored ids
        self._ready = False

    # -- configuration and state ------------------------------------------------------------

    @property
    def super_users(self) -> frozenset[str]:
        """The principals (``Type:name`` text) that are always allowed."""
        return self._super_users

    @property
    def allow_everyone_if_no_acl_found(self) -> bool:
        """The decision for a resource that has no ACL at all."""
        return self._allow_everyone

    @property
    def is_ready(self) -> bool:
        """True once the initial load is complete."""
        return self._ready

    @property
    def index(self) -> AclIndex:
        """The current immutable snapshot of the ACLs."""
        return self._index

    def __len__(self) -> int:
        return len(self._index)

    # -- mutations (one writer thread) ------------------------------------------------------

    def load(self, acls: Iterable[AccessControlEntryRecord] | AclsImage) -> None:
        """Replace every ACL with ``acls`` (records, or an :class:`AclsImage`, which a load
        only reads) and mark the authorizer ready. O(ACLs) (the ``coldstart`` suite of ``make
        bench`` times it), of which the cyclic garbage collector takes a large share unless the
        program pauses it
        (:func:`~aclog.records.collector.gc_paused`, as a broker's loader does when it
        starts). From an image (whose ids are distinct) the writer's view of the ids is the
        image itself plus the changes since (:class:`StoredIds`), so neither the load nor the
        first change builds it; from an image held as a table the index is built from its
        columns, no record made (:func:`~aclog.authorizer.table_load.index_from_table`).

        Raises ``ValueError`` (and changes nothing) for a repeated id or an invalid GLOB."""
        if isinstance(acls, AclsImage):
            table = acls.table
            index = AclIndex.build(list(acls)) if table is None else index_from_table(table)
            ids = StoredIds(acls)
        else:
            records = acls if isinstance(acls, list | tuple) else list(acls)
            ids = StoredIds(by_id_of(records))
            index = AclIndex.build(records)
        self._index = index
        self._ids = ids
        self._ready = True

    def complete_initial_load(self) -> None:
        """Mark the initial load complete: from now on the ACLs decide for every principal."""
        self._ready = True

    def add(self, acl: AccessControlEntryRecord) -> None:
        """Add one ACL. O(ACLs of its pattern + shard). ``ValueError`` if its id is stored."""
        self.apply(adds=(acl,), removes=())

    def remove(self, acl_id: uuid.UUID) -> None:
        """Remove one ACL. O(ACLs of its pattern + shard). :class:`UnknownAclError` (a
        ``KeyError``) if no ACL has that id."""
        self.apply(adds=(), removes=(acl_id,))

    def apply(self, adds: Iterable[AccessControlEntryRecord], removes: Iterable[uuid.UUID]) -> None:
        """Apply one batch atomically: readers see all of it or none of it.

        ``removes`` are applied first and must name stored ACLs; then ``adds``, whose ids must
        not be stored (so removing and re-adding an id replaces that ACL). Two ids may hold
        identical ACLs (the controller prevents it; both are kept). On any error nothing
        changes. O(batch + ACLs of the changed patterns + one shard (about 512 patterns) per
        changed pattern).
        """
        adds, removes = list(adds), list(removes)
        ids = self._ids
        removed = ids.checked(adds, removes)
        self._index = self._index.changed(adds=adds, removes=removed)
        ids.record(adds, removed)

    def apply_changes(self, changes: Mapping[uuid.UUID, AccessControlEntryRecord | None]) -> None:
        """Apply an image delta's ordered changes (a record adds or replaces its id, ``None``
        removes it) as one atomic batch."""
        self.apply(*self._ids.batch(changes))

    # -- queries (thread-safe) --------------------------------------------------------------

    def authorize(
        self,
        principal: str,
        host: str,
        operation: AclOperation,
        resource_type: ResourceType,
        name: str,
    ) -> Decision:
        """Whether ``principal`` connecting from ``host`` may do ``operation`` on the resource.

        Raises :class:`AuthorizerNotReadyError` before the initial load (except for super users)
        and ``ValueError`` for resource type or operation ANY. A few hash probes (see the class
        docstring). Every call runs this method, so the usual request (a known operation and type,
        not a super user, once ready) takes one test; the rest goes to :meth:`_authorize_checked`.
        """
        masks = REQUEST_MASKS.get(operation)
        if (
            masks is None
            or resource_type == _ANY_TYPE
            or principal in self._super_users
            or not self._ready
        ):
            return self._authorize_checked(principal, host, operation, resource_type, name)
        canonical = CANONICAL.get(host) or canonical_host(host)
        bits = core.request_bits(self._index, principal, canonical, resource_type, name)
        if bits & masks[0]:
            return _DENIED
        if bits & masks[1]:
            return _ALLOWED
        if bits:
            return _DENIED  # ACLs on the resource, none matching
        return _ALLOWED if self._allow_everyone else _DENIED

    def _authorize_checked(
        self,
        principal: str,
        host: str,
        operation: AclOperation,
        resource_type: ResourceType,
        name: str,
    ) -> Decision:
        """:meth:`authorize` with every check, in order: ANY arguments, super users, readiness."""
        check_request(operation, resource_type)
        if principal in self._super_users:
            return _ALLOWED
        check_ready(self._ready)
        canonical = canonical_host(host)
        outcome = core.decide(self._index, principal, canonical, operation, resource_type, name)
        return core.decision_of(outcome, self._allow_everyone)

    def explain(
        self,
        principal: str,
        host: str,
        operation: AclOperation,
        resource_type: ResourceType,
        name: str,
    ) -> Explanation:
        """Like :meth:`authorize`, with the reason, the deciding ACL and every matching ACL
        (most specific first). O(len(name)) + candidate GLOBs + sorting the matches."""
        check_request(operation, resource_type)
        if principal in self._super_users:
            return Explanation(Decision.ALLOWED, f"{principal} is a super user")
        check_ready(self._ready)
        index, canonical, everyone = self._index, canonical_host(host), self._allow_everyone
        return explanation(index, principal, canonical, operation, resource_type, name, everyone)

    def authorized_operations(
        self, principal: str, host: str, resource_type: ResourceType, name: str
    ) -> frozenset[AclOperation]:
        """KIP-430: the supported operations of the resource type that :meth:`authorize` would
        allow, found in one walk. See :func:`operations_bitfield` for the wire field."""
        check_resource_type(resource_type)
        supported = supported_operations(resource_type)
        if principal in self._super_users:
            return supported
        check_ready(self._ready)
        allowed, denied, on_resource = core.operations(
            self._index, principal, canonical_host(host), resource_type, name
        )
        if not on_resource:
            return supported if self._allow_everyone else frozenset()
        return granted_operations(supported, allowed, denied)

    def authorize_by_resource_type(
        self, principal: str, host: str, operation: AclOperation, resource_type: ResourceType
    ) -> Decision:
        """Whether ``principal`` may do ``operation`` on at least one resource of the type
        (Kafka's ``authorizeByResourceType``, extended to GLOB as :mod:`aclog.authorizer.by_type`
        documents). O(ACLs of the type)."""
        found = self.allowed_name(principal, host, operation, resource_type)
        return Decision.DENIED if found is None else Decision.ALLOWED

    def allowed_name(
        self, principal: str, host: str, operation: AclOperation, resource_type: ResourceType
    ) -> str | None:
        """The name behind :meth:`authorize_by_resource_type`: a resource name of the type that
        :meth:`authorize` allows, or ``None``. ``ValueError`` for ANY or UNKNOWN arguments."""
        check_by_type_request(operation, resource_type)
        index = self._index
        canonical = canonical_host(host)

        def allows(name: str) -> bool:
            if principal in self._super_users:
                return True
            check_ready(self._ready)
            outcome = core.decide(index, principal, canonical, operation, resource_type, name)
            return core.decision_of(outcome, self._allow_everyone) == Decision.ALLOWED

        return find_allowed_name(index, principal, canonical, operation, resource_type, allows)

    def acls(self, acl_filter: AclFilter) -> list[AccessControlEntryRecord]:
        """The stored ACLs ``acl_filter`` matches (Kafka filter semantics, plus GLOB), in Kafka's
        sort order: :meth:`AclIndex.filtered` of the current index (see there for the cost)."""
        return self._index.filtered(acl_filter)


_ALLOWED = Decision.ALLOWED
_DENIED = Decision.DENIED
_ANY_TYPE = ResourceType.ANY
