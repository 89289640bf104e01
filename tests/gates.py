"""Tests that need something of the machine: a Kafka distribution, a JDK (javac, keytool), root
for a tmpfs, Chromium and chromedriver, pyjks. Where one is missing the test is skipped with one
line saying how to include it; in CI, where ``.ci/run`` sets ``ACLOG_TESTS_NEED_ALL=1`` because
``make test`` installs everything, a missing piece fails the test instead, so no gate can hide a
test there."""

from __future__ import annotations

import os
from typing import NoReturn

import pytest

NEED_ALL = "ACLOG_TESTS_NEED_ALL"


def unavailable(reason: str) -> NoReturn:
    """Skip the test for ``reason`` (what is missing and how to get it), or fail it when
    :data:`NEED_ALL` is set."""
    if os.environ.get(NEED_ALL) == "1":
        pytest.fail(f"{reason} ({NEED_ALL}=1: this run must include every test)", pytrace=False)
    pytest.skip(reason)
