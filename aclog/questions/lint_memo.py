"""The ACL findings of an image's ACLs (:func:`~aclog.questions.lint.lint_acls`'s), worked out
once per image: a reader that shows one state many times (the UI's Lint view, paged or
reloaded) pays the lint once.

Images are immutable, so an answer stays true while its image lives; it is kept beside the
image by the image's identity and dropped when the image is collected (a weak reference's
finaliser), so the memo never holds an image alive nor answers for a later object given the
same id.

Thread-safe (one lock guards the memo; two threads asking for one new image at once may both
work it out, and either answer is kept). Cost: the first call per image is
:func:`~aclog.questions.lint_fast.lint_table`'s (a table-backed image; the fast path on its
records for a large image held in a mapping; the reference for a small one, under
:data:`~aclog.image.acls_image.TABLE_MIN` ACLs); later calls O(findings) for the copy.
"""

from __future__ import annotations

import threading
import weakref

from aclog.image import AclsImage
from aclog.image.acls_image import TABLE_MIN
from aclog.questions.findings import Finding
from aclog.questions.lint import lint_acls

_lock = threading.Lock()
_memo: dict[int, list[Finding]] = {}


def acl_findings(acls: AclsImage) -> list[Finding]:
    """Every finding about the ACLs of ``acls``, in :func:`~aclog.questions.lint.lint_acls`'s
    order (a new list each call; the findings are immutable)."""
    key = id(acls)
    with _lock:
        found = _memo.get(key)
    if found is None:
        found = _worked_out(acls)
        with _lock:
            if key not in _memo:
                _memo[key] = found
                weakref.finalize(acls, _forget, key)
    return list(found)


def _worked_out(acls: AclsImage) -> list[Finding]:
    """The findings by the fast path, or by the reference for a small image held in a mapping
    (a small log's: its lint then loads no numpy, as its listing does not)."""
    if acls.table is None and len(acls) < TABLE_MIN:
        return lint_acls(acls)
    from aclog.questions.lint_fast import lint_records, lint_table  # noqa: PLC0415  # (numpy)

    return lint_records(list(acls)) if acls.table is None else lint_table(acls.table)


def _forget(key: int) -> None:
    with _lock:
        _memo.pop(key, None)
