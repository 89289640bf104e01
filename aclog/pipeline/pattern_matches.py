"""Which ACL resource patterns apply to which resource names, found with equi-joins, never by
pairing every pattern with every name:

- LITERAL names join on the name; the LITERAL ``*`` ACLs apply to every name of their type;
- PREFIXED patterns join on the resource name's prefixes, one per distinct prefix length that
  some pattern has (so a name explodes into a handful of keys, not ``len(name)`` of them);
- a GLOB joins the same way on its literal prefix (or, lacking one, its literal suffix against
  the names' suffixes), and each candidate is then checked with ``compile_glob``, the one
  definition of GLOB; only GLOBs with neither (``*a*``) meet every name of their type, exactly
  as the authorizer's index tests them against every name.

Used by the ``access`` and ``orphans`` jobs. Lazy DataFrame -> DataFrame (one small action in
:func:`pattern_matches`); thread-safe.
"""

from __future__ import annotations

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from aclog.pipeline.match_udfs import glob_matches_udf, glob_parts_udf
from aclog.records import PatternType


def classify_patterns(acls: DataFrame) -> DataFrame:
    """The distinct resource patterns of ``acls`` with how they are looked up: ``kind``
    (literal, wildcard, prefix, glob_prefix, glob_suffix, glob_rest), ``key`` (the text joined
    on) and ``literal_count`` (GLOB specificity). Invalid GLOBs and unknown types drop out."""
    patterns = acls.select(
        "resource_type", "pattern_type", F.col("resource_name").alias("pattern")
    ).distinct()
    globs = (
        patterns.filter(F.col("pattern_type") == PatternType.GLOB.name)
        .withColumn("g", glob_parts_udf("pattern"))
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
        .filter(glob_matches_udf(F.col("pattern"), F.col("resource_name")))
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
