"""What the state is: immutable images of the ACLs and SCRAM credentials, and the deltas that
replay records into them.

Imports :mod:`aclog.acl` and :mod:`aclog.records` (and the standard library).
"""

from typing import TYPE_CHECKING

from aclog.faces import lazy_face

if TYPE_CHECKING:
    from aclog.image.acl_pages import AclPage, acl_page, acls_applying
    from aclog.image.acls import AclsDelta
    from aclog.image.acls_image import AclChanges, AclsImage
    from aclog.image.errors import ReplayError
    from aclog.image.metadata import MetadataImage, image_records
    from aclog.image.metadata_delta import MetadataDelta, apply_records
    from aclog.image.provenance import MetadataProvenance
    from aclog.image.render import acl_to_dict, user_to_dict
    from aclog.image.scram import (
        CredentialInfo,
        ScramChanges,
        ScramCredential,
        ScramDelta,
        ScramDescribeResult,
        ScramImage,
    )

__all__ = [
    "AclChanges",
    "AclPage",
    "AclsDelta",
    "AclsImage",
    "CredentialInfo",
    "MetadataDelta",
    "MetadataImage",
    "MetadataProvenance",
    "ReplayError",
    "ScramChanges",
    "ScramCredential",
    "ScramDelta",
    "ScramDescribeResult",
    "ScramImage",
    "acl_page",
    "acl_to_dict",
    "acls_applying",
    "apply_records",
    "image_records",
    "user_to_dict",
]

__getattr__ = lazy_face(__name__)
