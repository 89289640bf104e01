"""One module per Kafka API the listener serves; :data:`APIS` maps API keys to them.

| key | API | versions |
|---|---|---|
| 3 | Metadata | 0-13 |
| 17 | SaslHandshake | 0-1 |
| 18 | ApiVersions | 0-4 |
| 29 | DescribeAcls | 1-3 |
| 30 | CreateAcls | 1-3 |
| 31 | DeleteAcls | 1-3 |
| 36 | SaslAuthenticate | 0-2 |
| 50 | DescribeUserScramCredentials | 0 |
| 51 | AlterUserScramCredentials | 0 |
| 60 | DescribeCluster | 0-2 |

The ACL APIs start at v1, Kafka 4.0's baseline (v0 cannot carry pattern types).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from aclog.wire.apis import (
    alter_user_scram_credentials,
    api_versions,
    create_acls,
    delete_acls,
    describe_acls,
    describe_cluster,
    describe_user_scram_credentials,
    metadata,
    sasl_authenticate,
    sasl_handshake,
)
from aclog.wire.context import Api

APIS: Mapping[int, Api] = MappingProxyType(
    {
        api.key: api
        for api in (
            metadata.API,
            sasl_handshake.API,
            api_versions.API,
            describe_acls.API,
            create_acls.API,
            delete_acls.API,
            sasl_authenticate.API,
            describe_user_scram_credentials.API,
            alter_user_scram_credentials.API,
            describe_cluster.API,
        )
    }
)
"""Every served API by key."""

ADVERTISED_VERSIONS: Mapping[int, tuple[int, int]] = MappingProxyType(
    {key: (api.min_version, api.max_version) for key, api in APIS.items()}
)
"""What ApiVersions lists."""

__all__ = ["ADVERTISED_VERSIONS", "APIS"]
