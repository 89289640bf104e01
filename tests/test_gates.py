"""The gate of machine-dependent tests: a skip saying what is missing, or in CI a failure."""

from __future__ import annotations

import pytest

from tests.gates import NEED_ALL, unavailable


def test_a_missing_piece_skips_with_its_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(NEED_ALL, raising=False)
    with pytest.raises(pytest.skip.Exception, match="no javac"):
        unavailable("no javac")


def test_in_ci_a_missing_piece_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(NEED_ALL, "1")
    with pytest.raises(pytest.fail.Exception, match=f"no javac .*{NEED_ALL}=1"):
        unavailable("no javac")
