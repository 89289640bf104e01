"""Which requests an ACL's entry covers: the principals (``User:*`` covers all, other
principals join on equality, a GLOB ACL's principal glob is matched with ``compile_glob``)
and the hosts (``*`` covers all, else equal canonical forms, or a GLOB ACL's host glob).

Used by the ``access`` and ``orphans`` jobs. Lazy DataFrame -> DataFrame; thread-safe.
"""

from __future__ import annotations

from collections.abc import Sequence

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from aclog.pipeline import matching
from aclog.pipeline.match_udfs import glob_matches_udf, host_matcher_udf, principal_matcher_udf
from aclog.records import PatternType


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
        principal_matcher_udf("principal", is_glob).alias("pm"),
        host_matcher_udf("host", is_glob).alias("hm"),
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
        .filter(glob_matches_udf(F.col("_t"), F.col(value)))
        .select(F.lit(matching.GLOB).alias("_k"), "_t", *columns)
    )
    accepted = exact.unionByName(everyone).unionByName(globbed)
    joined = ids.join(
        accepted,
        on=(F.col("_kind") == F.col("_k")) & F.col("_text").eqNullSafe(F.col("_t")),
    )
    return joined.select("acl_id", *requests.columns)


def hosts_covered(matchers: DataFrame, hosts: Sequence[tuple[str, str]]) -> DataFrame:
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
        glob_matches_udf(text, F.col("_h.canonical"))
    )
    return plain.unionByName(globbed).withColumn("host", F.col("_h.host")).drop("_h", "hm")
