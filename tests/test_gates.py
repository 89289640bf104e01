"""The gate of machine-dependent tests: a missing piece fails the test, saying what is missing."""

from __future__ import annotations

import pytest

from tests.gates import unavailable


def test_a_missing_piece_fails_with_its_reason() -> None:
    with pytest.raises(pytest.fail.Exception, match=r"no javac .*make test installs it"):
        unavailable("no javac")
