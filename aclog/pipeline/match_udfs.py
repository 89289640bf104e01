"""The matching rules of :mod:`aclog.pipeline.matching` as Spark UDFs, defined once for the
jobs that join ACLs with what they cover (:mod:`~aclog.pipeline.pattern_matches`,
:mod:`~aclog.pipeline.covered`).

``principal_matcher_udf`` / ``host_matcher_udf``: how an ACL's principal or host is compared (a
``kind``/``text`` struct); ``glob_parts_udf``: a GLOB's literal prefix, suffix and specificity;
``glob_matches_udf``: whether a GLOB matches a text (vectorised, one ``compile_glob`` per
distinct pattern in a batch).

Thread-safe (UDF objects are immutable). Cost: a Python worker round trip per row (per batch
for ``glob_matches_udf``).
"""

from __future__ import annotations

from pyspark.sql import functions as F
from pyspark.sql.pandas.functions import pandas_udf
from pyspark.sql.types import BooleanType, IntegerType, StringType, StructField, StructType

from aclog.pipeline import matching

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

principal_matcher_udf = F.udf(matching.acl_principal_matcher, _MATCHER_TYPE, useArrow=False)
host_matcher_udf = F.udf(matching.acl_host_matcher, _MATCHER_TYPE, useArrow=False)
glob_parts_udf = F.udf(matching.glob_parts, _GLOB_PARTS_TYPE, useArrow=False)
glob_matches_udf = pandas_udf(matching.glob_matches_batches, BooleanType())  # type: ignore[call-overload]
