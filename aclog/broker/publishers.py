"""Publishers: the parts of a broker that the metadata loader keeps current.

:class:`AuthorizerPublisher` feeds the trie authorizer: a SNAPSHOT is one bulk load (which also
ends the not-ready state), a LOG_DELTA applies its ACL changes in commit order as one swap, so a
DENY and an ALLOW committed together become visible together.
:class:`ScramCredentialCache` holds the newest SCRAM image for SASL logins.

Both are written by the loader thread and read by any thread: each update is one attribute swap.
"""

from __future__ import annotations

from aclog.authorizer import Authorizer
from aclog.broker.loader import Manifest, ManifestKind
from aclog.image import MetadataDelta, MetadataImage, ScramCredential, ScramImage
from aclog.records import ScramMechanism


class AuthorizerPublisher:
    """Keeps an :class:`Authorizer` equal to the published image's ACLs."""

    def __init__(self, authorizer: Authorizer) -> None:
        self.authorizer = authorizer

    def publish(
        self, delta: MetadataDelta | None, image: MetadataImage, manifest: Manifest
    ) -> None:
        if manifest.kind is ManifestKind.SNAPSHOT or delta is None:
            self.authorizer.load(image.acls)
            return
        acls_delta = delta.acls_delta
        if acls_delta is not None and acls_delta.changes:
            self.authorizer.apply_changes(acls_delta.changes)


class ScramCredentialCache:
    """The SCRAM credentials a broker verifies logins against."""

    def __init__(self) -> None:
        self.image = ScramImage.EMPTY

    def publish(
        self, delta: MetadataDelta | None, image: MetadataImage, manifest: Manifest
    ) -> None:
        self.image = image.scram

    def credential(self, user: str, mechanism: ScramMechanism) -> ScramCredential | None:
        """The stored credential of ``user`` for ``mechanism``, if any."""
        return self.image.credential(user, mechanism)
