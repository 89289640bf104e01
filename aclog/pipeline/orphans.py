"""The ``orphans`` job: ACLs and credentials that point at nothing.

- ``acl_without_credential``: an ACL whose principal names users (``User:x``, or a GLOB
  principal such as ``User:svc-*``) none of whom has a SCRAM credential. ``User:*`` and
  principals of other types (``Group:...``) are never reported: they name no SCRAM user.
- ``credential_without_acl``: a SCRAM user that no ACL names, by its exact principal or by a
  GLOB principal that matches it (``User:*`` does not count: it names nobody in particular).
- ``acl_without_resource``: with an inventory, an ACL whose pattern applies to no resource in it
  (matched exactly as the ``access`` job matches).

Lazy DataFrame -> DataFrame; thread-safe.
"""

from __future__ import annotations

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from aclog.pipeline import matching
from aclog.pipeline.covered import acl_matchers, covered
from aclog.pipeline.pattern_matches import pattern_matches
from aclog.pipeline.schema import ACL_FIELDS

ACL_WITHOUT_CREDENTIAL = "acl_without_credential"
CREDENTIAL_WITHOUT_ACL = "credential_without_acl"
ACL_WITHOUT_RESOURCE = "acl_without_resource"

ORPHAN_COLUMNS = ("kind", "acl_id", *ACL_FIELDS, "user", "mechanisms")

USER_PREFIX = "User:"


def _acl_rows(acls: DataFrame, kind: str) -> DataFrame:
    return acls.select(
        F.lit(kind).alias("kind"),
        "acl_id",
        *ACL_FIELDS,
        F.lit(None).cast("string").alias("user"),
        F.lit(None).cast("array<string>").alias("mechanisms"),
    )


def orphans(acls: DataFrame, users: DataFrame, resources: DataFrame | None = None) -> DataFrame:
    """The orphans of a state: ``acls`` as :func:`~aclog.pipeline.state.acl_state` gives them,
    ``users`` as :func:`~aclog.pipeline.state.user_state`, ``resources`` an optional inventory
    (``resource_type``, ``resource_name``). Columns: :data:`ORPHAN_COLUMNS`."""
    matchers = acl_matchers(acls)
    named = matchers.filter(
        (F.col("pm.kind") == matching.GLOB)
        | ((F.col("pm.kind") == matching.EXACT) & F.col("pm.text").startswith(USER_PREFIX))
    )
    accounts = users.groupBy("user").agg(
        F.array_sort(F.collect_set("mechanism")).alias("mechanisms")
    )
    principals = accounts.select(
        F.concat(F.lit(USER_PREFIX), F.col("user")).alias("principal"), "user"
    )
    links = covered(named, "pm", principals, "principal")
    lonely_acls = named.join(links.select("acl_id").distinct(), on="acl_id", how="left_anti")
    lonely_users = accounts.join(links.select("user").distinct(), on="user", how="left_anti")
    found = _acl_rows(acls.join(lonely_acls.select("acl_id"), on="acl_id"), ACL_WITHOUT_CREDENTIAL)
    found = found.unionByName(
        lonely_users.select(
            F.lit(CREDENTIAL_WITHOUT_ACL).alias("kind"),
            F.lit(None).cast("string").alias("acl_id"),
            *(F.lit(None).cast("string").alias(name) for name in ACL_FIELDS),
            "user",
            "mechanisms",
        )
    )
    if resources is not None:
        applied = (
            pattern_matches(acls, resources)
            .select("resource_type", "pattern_type", F.col("pattern").alias("resource_name"))
            .distinct()
        )
        unused = acls.join(
            applied, on=["resource_type", "pattern_type", "resource_name"], how="left_anti"
        )
        found = found.unionByName(_acl_rows(unused, ACL_WITHOUT_RESOURCE))
    return found.select(*ORPHAN_COLUMNS)
