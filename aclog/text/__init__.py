"""Text as people read it, the one rule the apps (the CLI's text output and the UI's pages) share
for showing names Kafka accepts whatever they hold: :func:`visible`.

A package of its own at the bottom of the layers, importing nothing of aclog, so an app can use
it without loading the record codec (``aclog --help`` prints through it)."""

from aclog.text.visible import visible

__all__ = ["visible"]
