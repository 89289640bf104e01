"""A state as ``aclog replay --json`` prints it, from the ``state`` job's DataFrames:
:func:`state_dict` collects ``{"offset", "epoch", "timestamp", "acls", "users"}`` (ACLs in
commit order, users by name, credentials by :data:`MECHANISM_ORDER`); :func:`acl_json` is one
ACL row in that shape.

Thread-safe (no shared state). Cost: :func:`state_dict` is one Spark action and collects the
whole state to the driver (small results).
"""

from __future__ import annotations

import json
from typing import Any

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from aclog.pipeline.schema import ACL_FIELDS

MECHANISM_ORDER = {"UNKNOWN": 0, "SCRAM-SHA-256": 1, "SCRAM-SHA-512": 2}
"""Mechanism names by code: the order ``aclog replay`` lists a user's credentials in."""


def mechanism_code(column: Column) -> Column:
    """A mechanism name's code, for ordering credentials as ``aclog replay`` does."""
    expression = F.lit(99)
    for name, code in reversed(list(MECHANISM_ORDER.items())):
        expression = F.when(column == name, F.lit(code)).otherwise(expression)
    return expression


def acl_json(row: dict[str, Any]) -> dict[str, Any]:
    """An ACL row as ``aclog``'s ACL JSON: ``{"id", "resource_type", ..., "permission_type"}``."""
    return {"id": row["acl_id"], **{name: row[name] for name in ACL_FIELDS}}


def state_dict(acls: DataFrame, users: DataFrame, position: DataFrame) -> dict[str, Any]:
    """Collect a state as ``aclog replay --json`` prints it: ``{"offset", "epoch",
    "timestamp", "acls", "users"}``, ACLs in commit order, users by name. One Spark action."""
    rows = _document_rows(acls, users, position).collect()
    acl_list = sorted((r for r in rows if r["part"] == 0), key=lambda r: (r["k1"], r["k2"]))
    credentials = sorted((r for r in rows if r["part"] == 1), key=lambda r: (r["name"], r["k1"]))
    head = next((r for r in rows if r["part"] == 2), None)
    grouped: dict[str, list[dict[str, Any]]] = {}
    for row in credentials:
        grouped.setdefault(row["name"], []).append(
            {"mechanism": row["text"], "iterations": row["n"]}
        )
    return {
        "offset": head["k1"] if head else -1,
        "epoch": head["n"] if head else -1,
        "timestamp": head["k2"] if head else -1,
        "acls": [json.loads(row["text"]) for row in acl_list],
        "users": [{"name": name, "credentials": creds} for name, creds in grouped.items()],
    }


def _document_rows(acls: DataFrame, users: DataFrame, position: DataFrame) -> DataFrame:
    """The ACLs (part 0), credentials (part 1) and provenance (part 2) in one narrow frame, so
    that one action collects them: sort keys ``k1``, ``k2``, then ``text``, ``name``, ``n``."""
    acl_rows = acls.select(
        F.lit(0).alias("part"),
        F.col("created_offset").alias("k1"),
        F.col("created_position").alias("k2"),
        F.to_json(F.struct(F.col("acl_id").alias("id"), *ACL_FIELDS)).alias("text"),
        F.lit(None).cast("string").alias("name"),
        F.lit(None).cast("int").alias("n"),
    )
    credential_rows = users.select(
        F.lit(1).alias("part"),
        mechanism_code(F.col("mechanism")).cast("long").alias("k1"),
        F.lit(0).cast("long").alias("k2"),
        F.col("mechanism").alias("text"),
        F.col("user").alias("name"),
        F.col("iterations").alias("n"),
    )
    head_rows = position.select(
        F.lit(2).alias("part"),
        F.col("offset").alias("k1"),
        F.col("timestamp").alias("k2"),
        F.lit(None).cast("string").alias("text"),
        F.lit(None).cast("string").alias("name"),
        F.col("epoch").alias("n"),
    )
    return acl_rows.unionByName(credential_rows).unionByName(head_rows)
