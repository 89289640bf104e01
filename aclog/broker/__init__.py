"""The runtime that follows the log: the metadata loader, its publishers, the not-ready gate."""

from typing import TYPE_CHECKING

from aclog.faces import lazy_face

if TYPE_CHECKING:
    from aclog.broker.loader import Manifest, ManifestKind, MetadataLoader, Publisher
    from aclog.broker.publishers import AuthorizerPublisher, ScramCredentialCache

__all__ = [
    "AuthorizerPublisher",
    "Manifest",
    "ManifestKind",
    "MetadataLoader",
    "Publisher",
    "ScramCredentialCache",
]

__getattr__ = lazy_face(__name__)
