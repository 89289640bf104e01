"""The whole metadata image (ACLs + SCRAM + provenance) at one log position, and the records that
restate it (what a snapshot holds).

The delta that replays records into an image is :mod:`aclog.image.metadata_delta`.

Immutable values; thread-safe. :func:`image_records` is O(ACLs + credentials).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import ClassVar

from aclog.image.acls_image import AclsImage
from aclog.image.provenance import MetadataProvenance
from aclog.image.scram import ScramImage
from aclog.records.types import Record, UserScramCredentialRecord


@dataclass(frozen=True)
class MetadataImage:
    """Represents the committed metadata at one log position.

    Immutable; thread-safe. Images are values: equal images hold equal ACLs, credentials and
    provenance.
    """

    provenance: MetadataProvenance = MetadataProvenance.EMPTY
    acls: AclsImage = AclsImage.EMPTY
    scram: ScramImage = ScramImage.EMPTY

    EMPTY: ClassVar[MetadataImage]
    SMALL: ClassVar[MetadataImage]

    @property
    def is_empty(self) -> bool:
        """True when the image holds no ACL and no credential."""
        return not self.acls.acls and not self.scram.users

    def to_dict(self) -> dict[str, object]:
        """``{"provenance", "acls", "users"}``, JSON-ready, with no SCRAM secrets."""
        return {
            "provenance": self.provenance.to_dict(),
            "acls": self.acls.to_dict(),
            "users": self.scram.to_dict(),
        }

    def in_a_mapping(self) -> MetadataImage:
        """This image with its ACLs held in a mapping
        (:meth:`~aclog.image.acls_image.AclsImage.in_a_mapping`): the image of a writer or of
        a loader fed its commits, so that a commit of a few ACLs replays in a few dict
        operations rather than a few numpy calls per run of a table (O(1) Python steps per
        record against a fixed numpy cost per run).
        O(ACLs) once for a table-backed image; replay onto it keeps the mapping."""
        acls = self.acls.in_a_mapping()
        return self if acls is self.acls else replace(self, acls=acls)


MetadataImage.EMPTY = MetadataImage()
MetadataImage.SMALL = MetadataImage(acls=AclsImage.SMALL)
"""The empty image a rebuild of a small log starts from: its ACLs held in a mapping while they
are few (:attr:`~aclog.image.acls_image.AclsImage.SMALL`), so its replay loads no numpy."""


def image_records(image: MetadataImage) -> Iterator[Record]:
    """The image written out as records: what a snapshot holds.

    ACLs come in commit order (so replaying them rebuilds the same order), then SCRAM
    credentials by user name and mechanism code. Replaying these into an empty delta and
    applying gives an image equal to ``image`` (provenance aside).
    """
    yield from image.acls.acls.values()
    for name in sorted(image.scram.users):
        credentials = image.scram.users[name]
        for mechanism in sorted(credentials):
            credential = credentials[mechanism]
            yield UserScramCredentialRecord(
                name,
                mechanism,
                credential.salt,
                credential.stored_key,
                credential.server_key,
                credential.iterations,
            )
