"""Structural checks of an :class:`AclIndex`, for tests and debugging.

:func:`check_index` raises ``AssertionError`` naming the first broken invariant: every ACL sits
where its pattern says (LITERAL on its name's node, PREFIXED on its prefix's node, GLOB on its
literal prefix's node under its pattern, LITERAL ``*`` beside the trie); the trie is path
compressed (no bare node with fewer than two children below the root, no empty labels, children
keyed by the first character of their label); containers are non-empty, tuples hold at most
``SMALL`` ACLs and buckets more than ``SMALL // 2``; sizes add up.

Pure; thread-safe. O(ACLs + nodes).
"""

from __future__ import annotations

from aclog.authorizer import buckets
from aclog.authorizer.buckets import AclBucket, Container
from aclog.authorizer.entries import WILDCARD_RESOURCE
from aclog.authorizer.glob import compile_glob
from aclog.authorizer.index import AclIndex
from aclog.authorizer.nodes import Node
from aclog.authorizer.trie import NameTrie
from aclog.records.enums import PatternType, ResourceType


def _fail(message: str) -> None:
    raise AssertionError(message)


def check_index(index: AclIndex) -> None:
    """Raise ``AssertionError`` if ``index`` breaks an invariant (see the module docstring)."""
    total = 0
    for resource_type in index.resource_types:
        trie = index.trie(resource_type)
        assert trie is not None
        total += _check_trie(resource_type, trie)
    if total != len(index):
        _fail(f"index size {len(index)} but {total} ACLs stored")


def _check_trie(resource_type: ResourceType, trie: NameTrie) -> int:
    count = 0
    if trie.wildcard is not None:
        count += _check_container(trie.wildcard, resource_type, PatternType.LITERAL, "*")
    stack: list[tuple[Node, str]] = [(trie.root, "")]
    while stack:
        node, path = stack.pop()
        count += _check_node(node, path, resource_type)
        for first, child in (node.children or {}).items():
            if not child.label or child.label[0] != first:
                _fail(f"child {child.label!r} of {path!r} is keyed by {first!r}")
            stack.append((child, path + child.label))
    if count != trie.size:
        _fail(f"{resource_type.name} trie size {trie.size} but {count} ACLs stored")
    if count == 0:
        _fail(f"{resource_type.name} trie is empty but still published")
    return count


def _check_node(node: Node, path: str, resource_type: ResourceType) -> int:
    if path and node.is_bare() and len(node.children or {}) < 2:
        _fail(f"node {path!r} holds no ACL and has fewer than two children")
    if node.children is not None and not node.children:
        _fail(f"node {path!r} has an empty child dict")
    count = 0
    if node.literal is not None:
        if path == WILDCARD_RESOURCE:
            _fail("a LITERAL '*' ACL is stored in the trie instead of beside it")
        count += _check_container(node.literal, resource_type, PatternType.LITERAL, path)
    if node.prefixed is not None:
        count += _check_container(node.prefixed, resource_type, PatternType.PREFIXED, path)
    if node.globs is not None:
        if not node.globs:
            _fail(f"node {path!r} has an empty GLOB dict")
        for pattern, group in node.globs.items():
            if compile_glob(pattern).literal_prefix != path or group.glob.pattern != pattern:
                _fail(f"GLOB {pattern!r} is stored on node {path!r}")
            count += _check_container(group.acls, resource_type, PatternType.GLOB, pattern)
    return count


def _check_container(
    container: Container, resource_type: ResourceType, kind: PatternType, pattern: str
) -> int:
    if isinstance(container, tuple):
        if not 0 < len(container) <= buckets.SMALL:
            _fail(f"tuple container of {len(container)} ACLs for {pattern!r}")
    elif isinstance(container, AclBucket):
        _check_bucket(container, pattern)
    for entry in buckets.entries(container):
        acl = entry.acl
        if (acl.resource_type, acl.pattern_type, acl.resource_name) != (
            resource_type,
            kind,
            pattern,
        ):
            _fail(f"ACL {acl.id} is stored under {resource_type.name} {kind.name} {pattern!r}")
    return buckets.size(container)


def _check_bucket(bucket: AclBucket, pattern: str) -> None:
    if bucket.size <= buckets.SMALL // 2:
        _fail(f"bucket for {pattern!r} holds only {bucket.size} ACLs")
    if bucket.size != sum(len(group) for group in bucket.exact.values()) + len(bucket.globby):
        _fail(f"bucket for {pattern!r} miscounts its ACLs")
    for key, group in bucket.exact.items():
        if not group or any((e.principal_key, e.host_key) != key for e in group):
            _fail(f"bucket for {pattern!r} files ACLs under the wrong key {key}")
    if any(not e.has_glob_fields for e in bucket.globby):
        _fail(f"bucket for {pattern!r} keeps a non-glob ACL in its glob list")
