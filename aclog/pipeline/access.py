"""The ``access`` job: the effective decision for every (principal, host, resource, operation),
with the deciding ACL, as :meth:`aclog.authorizer.Authorizer.authorize` and ``explain`` give it.

Which ACL patterns apply to which resource names is found with equi-joins, never by pairing
every pattern with every name:

- LITERAL names join on the name; the LITERAL ``*`` ACLs apply to every name of their type;
- PREFIXED patterns join on the resource name's prefixes, one per distinct prefix length that
  some pattern has (so a name explodes into a handful of keys, not ``len(name)`` of them);
- a GLOB joins the same way on its literal prefix (or, lacking one, its literal suffix against
  the names' suffixes), and each candidate is then checked with ``compile_glob``, the one
  definition of GLOB; only GLOBs with neither (``*a*``) meet every name of their type, exactly
  as the authorizer's index tests them against every name.

Then each ACL is paired with the principals and hosts it covers (``User:*`` and host ``*`` cover
all; other principals join on equality; a GLOB ACL's principal and host globs are matched with
``compile_glob``), its operation is widened by Kafka's rules (ALL; ALLOW READ, WRITE, DELETE,
ALTER imply DESCRIBE; ALLOW ALTER_CONFIGS implies DESCRIBE_CONFIGS; DENY never implies), and per
request the deciding ACL is the most specific matching DENY, else the most specific matching
ALLOW: ordered by name characters skipped, pattern type (LITERAL, PREFIXED, GLOB), then id, as
``explain`` ranks them. A request no ACL matches is DENIED when any ACL is on the resource, else
it gets the allow-everyone default; super users are always ALLOWED.

Lazy DataFrame -> DataFrame; thread-safe.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pyspark import StorageLevel
from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.pandas.functions import pandas_udf
from pyspark.sql.types import BooleanType, IntegerType, StringType, StructField, StructType

from aclog.acl.operations import ALLOW_OPS, DENY_OPS
from aclog.authorizer import supported_operations
from aclog.pipeline import matching
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

_MATCHER_TYPE = StructType(
    [StructField("kind", StringType(), False), StructField("text", StringType(), True)]
)
_GLOB_PARTS_TYPE = StructType(
    [
        StructField("prefix", StringType(), False),
        StructField("suffix", StringType(), False),
        StructField("literal_count", IntegerType(), False),
        StructField("valid", BooleanType(), False),
    ]
)

_principal_matcher = F.udf(matching.acl_principal_matcher, _MATCHER_TYPE, useArrow=False)
_host_matcher = F.udf(matching.acl_host_matcher, _MATCHER_TYPE, useArrow=False)
_glob_parts = F.udf(matching.glob_parts, _GLOB_PARTS_TYPE, useArrow=False)
_glob_matches = pandas_udf(matching.glob_matches_batches, BooleanType())  # type: ignore[call-overload]


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


def classify_patterns(acls: DataFrame) -> DataFrame:
    """The distinct resource patterns of ``acls`` with how they are looked up: ``kind``
    (literal, wildcard, prefix, glob_prefix, glob_suffix, glob_rest), ``key`` (the text joined
    on) and ``literal_count`` (GLOB specificity). Invalid GLOBs and unknown types drop out."""
    patterns = acls.select(
        "resource_type", "pattern_type", F.col("resource_name").alias("pattern")
    ).distinct()
    globs = (
        patterns.filter(F.col("pattern_type") == PatternType.GLOB.name)
        .withColumn("g", _glob_parts("pattern"))
        .filter(F.col("g.valid"))
        .select(
            "resource_type",
            "pattern_type",
            "pattern",
            F.when(F.col("g.prefix") != "", F.lit("glob_prefix"))
            .when(F.col("g.suffix") != "", F.lit("glob_suffix"))
            .otherwise(F.lit("glob_rest"))
            .alias("kind"),
            F.when(F.col("g.prefix") != "", F.col("g.prefix"))
            .otherwise(F.col("g.suffix"))
            .alias("key"),
            F.col("g.literal_count").alias("literal_count"),
        )
    )
    literal = F.col("pattern_type") == PatternType.LITERAL.name
    others = patterns.filter(
        F.col("pattern_type").isin(PatternType.LITERAL.name, PatternType.PREFIXED.name)
    ).select(
        "resource_type",
        "pattern_type",
        "pattern",
        F.when(literal & (F.col("pattern") == "*"), F.lit("wildcard"))
        .when(literal, F.lit("literal"))
        .otherwise(F.lit("prefix"))
        .alias("kind"),
        F.col("pattern").alias("key"),
        F.length("pattern").alias("literal_count"),
    )
    return others.unionByName(globs)


def _with_keys(names: DataFrame, lengths: list[int], *, suffix: bool) -> DataFrame:
    """Each name with its prefixes (or suffixes) of the given lengths, as ``key``."""
    size = F.length("resource_name")
    wanted = (
        F.array(*(F.lit(n) for n in sorted(lengths))) if lengths else F.array().cast("array<int>")
    )
    exploded = names.select(
        "resource_type",
        "resource_name",
        F.explode(F.filter(wanted, lambda n: n <= size)).alias("_n"),
    )
    start = (size - F.col("_n") + 1) if suffix else F.lit(1)
    return exploded.select(
        "resource_type",
        "resource_name",
        F.col("resource_name").substr(start, F.col("_n")).alias("key"),
    )


def _lengths(patterns: DataFrame) -> dict[str, list[int]]:
    """The distinct key lengths of the prefix-keyed and of the suffix-keyed patterns."""
    rows = (
        patterns.filter(F.col("kind").isin("prefix", "glob_prefix", "glob_suffix"))
        .select((F.col("kind") == "glob_suffix").alias("suffix"), F.length("key").alias("n"))
        .distinct()
        .collect()
    )
    found: dict[str, list[int]] = {"prefix": [], "suffix": []}
    for row in rows:
        found["suffix" if row["suffix"] else "prefix"].append(int(row["n"]))
    return found


def _on_key(keyed: DataFrame, patterns: DataFrame) -> DataFrame:
    """Keyed names joined with the patterns of their type whose ``key`` equals theirs."""
    joined = keyed.join(patterns, on=["resource_type", "key"])
    return joined.select(
        "resource_type", "resource_name", "pattern_type", "pattern", "kind", "literal_count"
    )


def pattern_matches(acls: DataFrame, resources: DataFrame) -> DataFrame:
    """Every (resource, ACL pattern) pair where the pattern applies to the resource name, with
    ``skipped``: the name characters the pattern does not pin down (``explain``'s specificity).

    Columns: ``resource_type``, ``resource_name``, ``pattern_type``, ``pattern``, ``skipped``.
    Runs one small action to learn the distinct prefix and suffix lengths."""
    patterns = classify_patterns(acls).cache()
    names = resources.select("resource_type", "resource_name").distinct()
    size = F.length("resource_name")
    columns = ("resource_type", "resource_name", "pattern_type", "pattern")

    def of(*kinds: str) -> DataFrame:
        return patterns.filter(F.col("kind").isin(*kinds))

    literal = _on_key(names.withColumn("key", F.col("resource_name")), of("literal"))
    wildcard = names.join(of("wildcard").drop("key"), on="resource_type")
    lengths = _lengths(patterns)
    by_prefix = _on_key(
        _with_keys(names, lengths["prefix"], suffix=False), of("prefix", "glob_prefix")
    )
    by_suffix = _on_key(_with_keys(names, lengths["suffix"], suffix=True), of("glob_suffix"))
    rest = names.join(of("glob_rest").drop("key"), on="resource_type")
    prefixed = by_prefix.filter(F.col("kind") == "prefix")
    globbed = (
        by_prefix.filter(F.col("kind") == "glob_prefix")
        .unionByName(by_suffix)
        .unionByName(rest.select(*by_suffix.columns))
        .filter(_glob_matches(F.col("pattern"), F.col("resource_name")))
    )
    return (
        literal.select(*columns, F.lit(0).alias("skipped"))
        .unionByName(
            wildcard.select(
                *columns,
                F.when(F.col("resource_name") == "*", F.lit(0)).otherwise(size).alias("skipped"),
            )
        )
        .unionByName(prefixed.select(*columns, (size - F.length("pattern")).alias("skipped")))
        .unionByName(globbed.select(*columns, (size - F.col("literal_count")).alias("skipped")))
    )


def acl_matchers(acls: DataFrame) -> DataFrame:
    """``acls`` with how each ACL's principal (``pm``) and host (``hm``) are compared, as
    ``kind``/``text`` structs (see :mod:`aclog.pipeline.matching`), and its pattern as
    ``pattern`` and operation as ``acl_operation``."""
    is_glob = F.col("pattern_type") == PatternType.GLOB.name
    return acls.select(
        "acl_id",
        "resource_type",
        "pattern_type",
        F.col("resource_name").alias("pattern"),
        "principal",
        F.col("operation").alias("acl_operation"),
        "permission_type",
        _principal_matcher("principal", is_glob).alias("pm"),
        _host_matcher("host", is_glob).alias("hm"),
    )


def covered(acls: DataFrame, matcher: str, requests: DataFrame, value: str) -> DataFrame:
    """(``acl_id``, request columns) for every request whose ``value`` the ACL's ``matcher``
    (a ``kind``/``text`` struct column) accepts, in one equi-join of the ACLs with a small
    table of what each matcher accepts: ``any`` every request, ``exact`` the request with that
    text, ``glob`` the requests ``compile_glob`` matches (distinct patterns x requests)."""
    kind, text = F.col(f"{matcher}.kind"), F.col(f"{matcher}.text")
    ids = acls.select("acl_id", kind.alias("_kind"), text.alias("_text"))
    columns = [F.col(c) for c in requests.columns]
    exact = requests.select(F.lit(matching.EXACT).alias("_k"), F.col(value).alias("_t"), *columns)
    everyone = requests.select(
        F.lit(matching.ANY).alias("_k"), F.lit(None).cast("string").alias("_t"), *columns
    )
    globbed = (
        ids.filter(F.col("_kind") == matching.GLOB)
        .select(F.col("_text").alias("_t"))
        .distinct()
        .crossJoin(requests)
        .filter(_glob_matches(F.col("_t"), F.col(value)))
        .select(F.lit(matching.GLOB).alias("_k"), "_t", *columns)
    )
    accepted = exact.unionByName(everyone).unionByName(globbed)
    joined = ids.join(
        accepted,
        on=(F.col("_kind") == F.col("_k")) & F.col("_text").eqNullSafe(F.col("_t")),
    )
    return joined.select("acl_id", *requests.columns)


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


def _hosts_covered(matchers: DataFrame, hosts: Sequence[tuple[str, str]]) -> DataFrame:
    """(ACL columns, ``host``) for every requested host each ACL's host matcher accepts. The
    hosts are few, so each ACL row is multiplied by them; only GLOB host patterns go through
    ``compile_glob``."""
    pairs = F.array(
        *(F.struct(F.lit(h).alias("host"), F.lit(c).alias("canonical")) for h, c in hosts)
    )
    kind, text = F.col("hm.kind"), F.col("hm.text")
    exploded = matchers.withColumn("_h", F.explode(pairs))
    plain = exploded.filter(
        (kind == matching.ANY) | ((kind == matching.EXACT) & (text == F.col("_h.canonical")))
    )
    globbed = exploded.filter(kind == matching.GLOB).filter(
        _glob_matches(text, F.col("_h.canonical"))
    )
    return plain.unionByName(globbed).withColumn("host", F.col("_h.host")).drop("_h", "hm")


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
    with_hosts = _hosts_covered(matchers.drop("pm", "principal"), hosts).withColumn(
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
