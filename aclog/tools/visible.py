"""Text as a person should see it: :func:`aclog.records.visible` (one rule for the CLI's text
output and the UI's pages)."""

from aclog.records import visible

__all__ = ["visible"]
