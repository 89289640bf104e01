"""The iteration counts aclog allows and gives SCRAM credentials (and the fewest ``aclog lint``
calls strong), and the length of the salts it makes: the rules a command's help states, apart
from the managers and the questions that apply them (importing this imports nothing).

Constants; thread-safe. Cost: nothing.
"""

from __future__ import annotations

MIN_ITERATIONS = 4096
"""The fewest PBKDF2 iterations a credential may have (Kafka's minimum)."""
MAX_ITERATIONS = 16384
"""The most PBKDF2 iterations a credential may have (Kafka's maximum)."""
DEFAULT_ITERATIONS = 8192
"""The PBKDF2 iteration count aclog gives a new credential unless told otherwise."""
DEFAULT_MIN_ITERATIONS = 8192
"""The fewest PBKDF2 iterations ``aclog lint`` (and ``aclog pipeline lint``) takes as strong
unless told otherwise (:mod:`aclog.questions.hygiene`'s ``weak_iterations``)."""
DEFAULT_SALT_BYTES = 32
"""The length of the salts aclog makes."""
