"""Tests that need something of the machine: a Kafka distribution, a JDK (javac, keytool), root
for a tmpfs, Chromium and chromedriver, pyjks. ``make test`` installs each of them (Kafka is
``../shared/kafka``), so a missing one is a broken setup, not a reason to leave a test out: the
test fails with one line saying what is missing and how to get it."""

from __future__ import annotations

from typing import NoReturn

import pytest


def unavailable(reason: str) -> NoReturn:
    """Fail the test for ``reason`` (what is missing and how to get it), without a traceback."""
    pytest.fail(f"{reason} (make test installs it; this test needs it)", pytrace=False)
