"""The survey of a state's records: what :func:`~aclog.pipeline.state.state` must know before
it plans (how many ACL removals there are, which chooses its join) and the provenance
``aclog replay`` prints in its header (the last record's offset, epoch and time).

Immutable; thread-safe. Cost: :func:`survey` runs one Spark job over the rows' offsets, epochs,
times and type codes.
"""

from __future__ import annotations

from dataclasses import dataclass

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from aclog.pipeline.schema import REMOVE_ACL_CODE

PROVENANCE_SCHEMA = "offset long, epoch int, timestamp long"


@dataclass(frozen=True)
class Survey:
    """What :func:`state` needs to know before it plans: how many ACL removals the records
    hold, and their provenance as ``aclog replay``'s header: the ``offset``, ``epoch`` and
    ``timestamp`` (ms) of the last record, all -1 when there is none."""

    removals: int
    offset: int = -1
    epoch: int = -1
    timestamp: int = -1

    def provenance(self, spark: SparkSession) -> DataFrame:
        """The provenance as a one-row DataFrame of :data:`PROVENANCE_SCHEMA`."""
        return spark.createDataFrame([(self.offset, self.epoch, self.timestamp)], PROVENANCE_SCHEMA)


def survey(records: DataFrame) -> Survey:
    """The :class:`Survey` of ``records``, from one Spark job that reads the rows' offsets,
    epochs, times and type codes only."""
    # Rows share an offset only within one snapshot, and then their epoch and time too: so the
    # newest offset's values need no struct of (offset, position, ...), whose ordering Spark
    # evaluates field by field for every row.
    offset = F.col("offset")
    removal = F.when(F.col("type_code") == REMOVE_ACL_CODE, F.lit(1))
    found = records.agg(
        F.max(offset).alias("offset"),
        F.max_by("epoch", offset).alias("epoch"),
        F.max_by("timestamp_ms", offset).alias("timestamp"),
        F.count(removal).alias("removals"),
    ).first()
    assert found is not None  # an aggregate without grouping has one row
    if found["offset"] is None:
        return Survey(found["removals"])
    return Survey(found["removals"], found["offset"], found["epoch"], found["timestamp"])
