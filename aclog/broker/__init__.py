"""The runtime that follows the log: the metadata loader, its publishers, the not-ready gate."""

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
