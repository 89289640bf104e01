"""The ``access`` job: the effective decision for every (principal, host, resource, operation),
with the deciding ACL, as :meth:`aclog.authorizer.Authorizer.authorize` and ``explain`` give it.

Which ACL patterns apply to which resource names is found with equi-joins
(:mod:`~aclog.pipeline.pattern_matches`). Then each ACL is paired with the principals and hosts
it covers (:mod:`~aclog.pipeline.covered`), its operation is widened by Kafka's rules (ALL;
ALLOW READ, WRITE, DELETE, ALTER imply DESCRIBE; ALLOW ALTER_CONFIGS implies DESCRIBE_CONFIGS;
DENY never implies), and per request the deciding ACL is the most specific matching DENY, else
the most specific matching ALLOW: ordered by name characters skipped, pattern type (LITERAL,
PREFIXED, GLOB), then id, as ``explain`` ranks them. A request no ACL matches is DENIED when any
ACL is on the resource, else it gets the allow-everyone default; super users are always ALLOWED.

Lazy DataFrame -> DataFrame; thread-safe.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pyspark import StorageLevel
from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F

from aclog.acl.operations import ALLOW_OPS, DENY_OPS
from aclog.authorizer import supported_operations
from aclog.pipeline import matching
from aclog.pipeline.covered import acl_matchers, covered, hosts_covered
from aclog.pipeline.pattern_matches import pattern_matches
from aclog.records import AclOperation, AclPermissionType, PatternType, ResourceType

ALLOWED = "ALLOWED"
DENIED = "DENIED"

REASON_SUPER_USER = "super_user"
REASON_DENY = "deny_acl"
REASON_ALLOW = "allow_acl"
REASON_NO_MATCH = "no_matching_acl"
REASON_NO_ACL = "no_acl_on_resource"

ACCESS_COLUMNS = (
    "principal",
    "host",
    "resource_type",
    "resource_name",
    "operation",
    "decision",
    "reason",
    "acl_id",
)

_PATTERN_CODES = {m.name: int(m) for m in PatternType}


@dataclass(frozen=True)
class AccessQuestion:
    """What to decide: every principal x host x resource x operation.

    ``operations`` empty means every operation the resource's type supports (KIP-430). Hosts
    are client addresses; the default ``*`` stands for a client that no host-specific ACL
    names. ``super_users`` and ``allow_everyone_if_no_acl_found`` are Kafka's settings.
    """

    hosts: tuple[str, ...] = ("*",)
    operations: tuple[AclOperation, ...] = ()
    super_users: frozenset[str] = frozenset()
    allow_everyone_if_no_acl_found: bool = False


def resources_frame(
    spark: SparkSession, resources: Sequence[tuple[ResourceType, str]]
) -> DataFrame:
    """A ``resource_type``, ``resource_name`` DataFrame from (type, name) pairs."""
    schema = "resource_type string, resource_name string"
    return spark.createDataFrame([(t.name, n) for t, n in resources], schema)


def principals_frame(spark: SparkSession, principals: Sequence[str]) -> DataFrame:
    """A ``principal`` DataFrame from ``Type:name`` texts."""
    return spark.createDataFrame([(p,) for p in principals], "principal string")


def _id_order(acl_id: Column) -> Column:
    """The 16 id bytes from Kafka's URL-safe base64 text: binary order is ``UUID.int`` order."""
    return F.unbase64(F.translate(acl_id, "-_", "+/"))


def _operation_rules(operations: Sequence[AclOperation]) -> list[tuple[str, str, str]]:
    """(permission, ACL operation, requested operation) for every ACL operation that decides a
    requested one: Kafka's implication table (:mod:`aclog.acl.operations`)."""
    rules = []
    for op in dict.fromkeys(operations):
        for acl_op in sorted(DENY_OPS[op]):
            rules.append((AclPermissionType.DENY.name, AclOperation(acl_op).name, op.name))
        for acl_op in sorted(ALLOW_OPS[op]):
            rules.append((AclPermissionType.ALLOW.name, AclOperation(acl_op).name, op.name))
    return rules


def requested_operations(
    operations: Sequence[AclOperation],
) -> list[tuple[ResourceType, AclOperation]]:
    """The (resource type, operation) pairs to decide: the given operations for every type,
    or each type's supported operations (KIP-430) when none are given."""
    types = [t for t in ResourceType if t not in (ResourceType.ANY, ResourceType.UNKNOWN)]
    return [(t, op) for t in types for op in (operations or sorted(supported_operations(t)))]


def _literal_map(entries: dict[str, list[str]]) -> Column:
    """A map<string, array<string>> literal (small lookup tables inline, instead of joins)."""
    parts: list[Column] = []
    for key, values in entries.items():
        parts += [F.lit(key), F.array(*(F.lit(v) for v in values))]
    return F.create_map(*parts) if parts else F.create_map().cast("map<string,array<string>>")


def decided(
    acls: DataFrame,
    matches: DataFrame,
    principals: DataFrame,
    hosts: Sequence[tuple[str, str]],
    operations: Sequence[AclOperation],
) -> DataFrame:
    """Per (resource, principal, host, operation) that some ACL matches: the deciding DENY and
    ALLOW candidates (``deny``, ``allow`` structs ordered by specificity; null when none).
    ``hosts`` are (as given, canonical) pairs; ``operations`` the requested operations."""
    matchers = acl_matchers(acls).cache()
    covered_principals = covered(matchers, "pm", principals, "principal")
    rules: dict[str, list[str]] = {}
    for permission, acl_operation, operation in _operation_rules(operations):
        rules.setdefault(f"{permission}:{acl_operation}", []).append(operation)
    rule_key = F.concat_ws(":", F.col("permission_type"), F.col("acl_operation"))
    with_hosts = hosts_covered(matchers.drop("pm", "principal"), hosts).withColumn(
        "operation", F.explode(_literal_map(rules)[rule_key])
    )
    pattern_code = F.create_map(*(F.lit(x) for kv in _PATTERN_CODES.items() for x in kv))
    rank = F.struct(
        F.col("skipped"),
        pattern_code[F.col("pattern_type")].alias("pattern_code"),
        _id_order(F.col("acl_id")).alias("id_bytes"),
        F.col("acl_id"),
    )
    joined = matches.join(with_hosts, on=["resource_type", "pattern_type", "pattern"]).join(
        covered_principals, on="acl_id"
    )
    deny = F.col("permission_type") == AclPermissionType.DENY.name
    return joined.groupBy("resource_type", "resource_name", "principal", "host", "operation").agg(
        F.min(F.when(deny, rank)).alias("deny"),
        F.min(F.when(~deny, rank)).alias("allow"),
    )


def access(
    acls: DataFrame,
    resources: DataFrame,
    principals: DataFrame,
    question: AccessQuestion = AccessQuestion(),
    *,
    partitions: int | None = None,
) -> DataFrame:
    """The decision for every principal x host x resource x operation (see the module
    docstring). ``acls`` has the ACL columns of :func:`aclog.pipeline.state.acl_state`,
    ``resources`` ``resource_type``/``resource_name``, ``principals`` ``principal``.

    Columns: :data:`ACCESS_COLUMNS`. ``partitions``: how many tasks share the grid (default
    ``spark.sql.shuffle.partitions``); raise it when one task's decisions do not fit in memory.
    """
    spark = acls.sparkSession
    names = resources.select("resource_type", "resource_name").distinct()
    people = principals.select("principal").distinct()
    hosts = [(h, matching.request_host(h)) for h in dict.fromkeys(question.hosts)]
    pairs = requested_operations(question.operations)
    per_type: dict[str, list[str]] = {}
    for resource_type, operation in pairs:
        per_type.setdefault(resource_type.name, []).append(operation.name)
    asked = sorted({op for _, op in pairs})
    matches = pattern_matches(acls, names).persist(StorageLevel.MEMORY_AND_DISK)
    decisions = decided(acls, matches, people, hosts, asked)
    on_resource = (
        matches.select("resource_type", "resource_name")
        .distinct()
        .withColumn("has_acl", F.lit(True))
    )
    # The grid (resources x operations x principals x hosts) is by far the largest input, so it
    # is never shuffled: resources are spread by name once, the broadcast joins that multiply
    # them keep that partitioning, the decisions are spread the same way, and each task joins
    # its share against a hash table of its decisions. (Needs
    # spark.sql.requireAllClusterKeysForCoPartition=false, which make_spark sets; without it
    # the answer is the same, only slower.)
    count = partitions or int(spark.conf.get("spark.sql.shuffle.partitions") or "2")
    grid = (
        names.join(on_resource, on=["resource_type", "resource_name"], how="left")
        .repartition(count, "resource_name")
        .withColumn("operation", F.explode(_literal_map(per_type)[F.col("resource_type")]))
        .crossJoin(
            F.broadcast(
                people.withColumn("host", F.explode(F.array(*(F.lit(h) for h, _ in hosts))))
            )
        )
    )
    keys = ["resource_type", "resource_name", "principal", "host", "operation"]
    found = decisions.repartition(count, "resource_name").hint("shuffle_hash")
    result = grid.join(found, on=keys, how="left")
    supers = list(question.super_users)
    is_super = F.col("principal").isin(*supers) if supers else F.lit(False)
    default = ALLOWED if question.allow_everyone_if_no_acl_found else DENIED
    decision = (
        F.when(is_super, F.lit(ALLOWED))
        .when(F.col("deny").isNotNull(), F.lit(DENIED))
        .when(F.col("allow").isNotNull(), F.lit(ALLOWED))
        .when(F.col("has_acl"), F.lit(DENIED))
        .otherwise(F.lit(default))
    )
    reason = (
        F.when(is_super, F.lit(REASON_SUPER_USER))
        .when(F.col("deny").isNotNull(), F.lit(REASON_DENY))
        .when(F.col("allow").isNotNull(), F.lit(REASON_ALLOW))
        .when(F.col("has_acl"), F.lit(REASON_NO_MATCH))
        .otherwise(F.lit(REASON_NO_ACL))
    )
    acl_id = F.when(~is_super, F.coalesce(F.col("deny.acl_id"), F.col("allow.acl_id")))
    return result.select(
        "principal",
        "host",
        "resource_type",
        "resource_name",
        "operation",
        decision.alias("decision"),
        reason.alias("reason"),
        acl_id.alias("acl_id"),
    )
