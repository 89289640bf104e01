"""How often the active controller of a shared data directory heartbeats, and how long the log
may stand still before a standby takes over: the defaults ``aclog serve --controller`` states in
its help, apart from the quorum that applies them (:mod:`aclog.controller.quorum`; importing
this imports nothing).

Constants; thread-safe. Cost: nothing.
"""

from __future__ import annotations

DEFAULT_HEARTBEAT_MS = 500
"""How often the leader appends a heartbeat (a no-op record), in milliseconds."""
DEFAULT_ELECTION_TIMEOUT_MS = 2000
"""How long the log may stand still before a standby claims the next epoch, in milliseconds."""
