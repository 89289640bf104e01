"""The iteration counts aclog allows and gives SCRAM credentials, the count below which the lint
calls a credential weak, and the length of the salts it makes: the rules a command's help states,
apart from the managers that apply them (importing this imports nothing).

Constants; thread-safe. Cost: nothing.
"""

from __future__ import annotations

MIN_ITERATIONS = 4096
"""The fewest PBKDF2 iterations a credential may have (Kafka's minimum)."""
MAX_ITERATIONS = 16384
"""The most PBKDF2 iterations a credential may have (Kafka's maximum)."""
DEFAULT_ITERATIONS = 8192
"""The PBKDF2 iteration count aclog gives a new credential unless told otherwise."""
LINT_MIN_ITERATIONS = 8192
"""The fewest iterations a credential may have before ``aclog lint`` reports it as
``weak_iterations``, unless asked for another minimum (:mod:`aclog.questions.hygiene`)."""
DEFAULT_SALT_BYTES = 32
"""The length of the salts aclog makes."""
