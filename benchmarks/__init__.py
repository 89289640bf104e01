"""aclog's benchmark suite: every speed claim in the README comes from here."""
