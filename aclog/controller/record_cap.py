"""Kafka's cap of 10,000 records per request, as a person is told about it.

A CreateAcls that would create more than :data:`~aclog.controller.MAX_RECORDS_PER_USER_OP` ACLs
(or a DeleteAcls that would remove more) fails whole, and every item of it is answered with an
error: a Kafka 4.0 broker here sent :data:`KAFKA_CAP_MESSAGE` with UNKNOWN_SERVER_ERROR (-1) or
POLICY_VIOLATION (44) for each creation, and aclog's controller sends the same (-1 with that
message); for a DeleteAcls over the cap it sends -1 with no message, as the reference describes
Kafka. Kafka's controller also stumbles on such a request (requests right after it were
answered -1 for a moment), so aclog never sends one on purpose.
:func:`is_over_cap` recognises both, so a tool says it once, with :func:`cap_exceeded`, instead of
once per ACL.

Pure; thread-safe. Cost: O(1).
"""

from __future__ import annotations

from aclog.acl import ApiError, Errors

MAX_RECORDS_PER_USER_OP = 10_000
"""Kafka's ``QuorumController.MAX_RECORDS_PER_USER_OP``: the most records one request may commit."""

KAFKA_CAP_MESSAGE = "Unable to perform excessively large batch operation."
"""The message a Kafka 4.0 broker sends with each creation of a CreateAcls over the cap (seen on
the real broker, tests/tools/test_as_code_kafka.py), though code -1 usually goes without one."""


def is_over_cap(error: ApiError) -> bool:
    """Whether ``error`` is how an item of a request over the cap is answered: Kafka's message
    with any code (a 4.0 broker sent it with -1 and, in another run, with POLICY_VIOLATION
    (44)), or -1 with no message."""
    if error.message == KAFKA_CAP_MESSAGE:
        return True
    return error.code == Errors.UNKNOWN_SERVER_ERROR and not error.message


def cap_exceeded(count: int, what: str) -> str:
    """``<what> 10,200 ACLs, and Kafka commits at most 10,000 records per request (...)``:
    the reason a change of ``count`` ACLs cannot go in one request."""
    return (
        f"{what} {count:,} ACLs, and Kafka commits at most {MAX_RECORDS_PER_USER_OP:,} records "
        "per request (QuorumController.MAX_RECORDS_PER_USER_OP)"
    )
