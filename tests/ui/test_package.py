"""The UI's templates and static assets ship in the package: pyproject's package data names
every file under ``aclog/ui/templates`` and ``aclog/ui/static`` (a file it missed would be
absent from a wheel, and the page would break offline), and the vendored chart library keeps
its licence beside it."""

from __future__ import annotations

import tomllib
from fnmatch import fnmatch
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
UI = ROOT / "aclog" / "ui"


def test_package_data_covers_every_template_and_asset() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    patterns = config["tool"]["setuptools"]["package-data"]["aclog.ui"]
    shipped = [p for folder in ("templates", "static") for p in (UI / folder).rglob("*")]
    assert shipped
    missed = [
        str(path.relative_to(UI))
        for path in shipped
        if path.is_file() and not any(fnmatch(str(path.relative_to(UI)), p) for p in patterns)
    ]
    assert not missed


def test_the_vendored_chart_library_keeps_its_licence() -> None:
    licence = (UI / "static" / "uPlot.LICENSE.txt").read_text()
    assert "MIT License" in licence and "Leon Sorokin" in licence
    assert (UI / "static" / "uPlot.iife.min.js").stat().st_size > 10_000


def test_templates_hold_no_inline_script_or_style() -> None:
    """The Content-Security-Policy refuses inline script and style: a template holding any
    would break in the browser, so none may."""
    import re

    inline = re.compile(r"<script(?![^>]*\bsrc=)|<style|\sstyle=|\son[a-z]+=|javascript:", re.I)
    found = [
        f"{path.name}: {match.group(0)!r}"
        for path in sorted((UI / "templates").glob("*.html"))
        for match in inline.finditer(path.read_text())
    ]
    assert not found
