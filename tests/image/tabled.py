"""Images whose ACLs an :class:`~aclog.image.acl_table.AclTable` holds, made from the images
replay makes today, so a reader can be held equal on both kinds before replay makes tables
itself: :func:`tabled` converts one image, :func:`tabling` wraps ``rebuild_image`` or
``replay_batches`` so that every image they hand out is table-backed (and every image they
are handed is dict-backed again, as today's replay needs)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from aclog.image import AclsImage, MetadataImage
from aclog.image.acl_table import AclTable


def tabled(image: MetadataImage) -> MetadataImage:
    """``image`` with its ACLs held by a table, in the same order (itself if they are)."""
    if image.acls.table is not None:
        return image
    table = AclTable.from_records(list(image.acls))
    assert table is not None
    return dataclasses.replace(image, acls=AclsImage.of_table(table))


def untabled(image: MetadataImage) -> MetadataImage:
    """``image`` with its ACLs held by a dict again (no-op for a dict-backed one)."""
    if image.acls.table is None:
        return image
    return dataclasses.replace(image, acls=AclsImage({acl.id: acl for acl in image.acls}))


def tabling(function: Callable[..., Any]) -> Callable[..., Any]:
    """``function`` (``rebuild_image`` or ``replay_batches``) whose result's image is
    table-backed; an image argument it is given first goes back to a dict."""

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        args = tuple(untabled(a) if isinstance(a, MetadataImage) else a for a in args)
        result = function(*args, **kwargs)
        return dataclasses.replace(result, image=tabled(result.image))

    return wrapped
