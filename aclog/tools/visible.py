"""Text as a person should see it: :func:`aclog.text.visible` (one rule for the CLI's text
output and the UI's pages)."""

from aclog.text import visible

__all__ = ["visible"]
