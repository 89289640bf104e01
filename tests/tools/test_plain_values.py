"""The contract of :mod:`aclog.tools.plain_values`: for any value of any option annotation this
CLI uses, its conversion gives what typer's own (pydantic) conversion gives, the same value or
the same error, and a command that runs loads no pydantic."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import pytest
import typer
import typer.main
from hypothesis import given, settings
from hypothesis import strategies as st
from typer import _click as click
from typer._click.exceptions import BadParameter
from typer._coercion import build_runtime_param

from aclog.tools.plain_values import PlainValue, plain
from benchmarks.bench_startup import make_small_log
from tests.tools.test_startup_imports import loaded_by


def _options(
    text: str = "",
    count: Annotated[int, typer.Option(min=0)] = 0,
    port: Annotated[int, typer.Option(min=0, max=65535)] = 0,
    positive: Annotated[int, typer.Option(min=1)] = 1,
    signed: int = 0,
    ratio: float = 0.0,
    flag: bool = False,
    path: Annotated[Path, typer.Option(readable=False)] = Path(),
    readable_path: Path = Path(),
    texts: Annotated[list[str] | None, typer.Option()] = None,
    paths: Annotated[list[Path] | None, typer.Option()] = None,
) -> None:
    """Every kind of option the CLI declares (tests/tools/test_startup_imports.py lists them)."""


_APP = typer.Typer()
_APP.command()(_options)
COMMAND = typer.main.get_command(_APP)
CONTEXT = click.Context(COMMAND)
PARAMS = {p.name: p for p in COMMAND.params}

NUMBERISH = st.from_regex(r"\A[-+ ]?[0-9_]{0,20}(\.[0-9]{0,3})?(e[0-9])? ?\Z")
VALUES = st.one_of(
    st.text(max_size=8),
    NUMBERISH,
    st.sampled_from(["", "0", "-0", "007", "65536", "-1", "1.50", "nan", ".", "a/", "\udcff"]),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    st.lists(st.text(max_size=4), max_size=3),
)


def _outcome(converter: Any, value: Any, param: Any) -> tuple[str, Any]:
    try:
        return "value", converter._coerce_value(value, param=param, ctx=CONTEXT)
    except BadParameter as error:
        return "error", error.message


@settings(max_examples=400, deadline=None)
@given(name=st.sampled_from(sorted(PARAMS)), value=VALUES)
def test_a_plain_value_converts_as_typer_converts_it(name: str, value: Any) -> None:
    param = PARAMS[name]
    descriptor = param.type_descriptor  # type: ignore[attr-defined]
    fast = PlainValue(parameter_info=descriptor.parameter_info, annotation=descriptor.annotation)
    reference = build_runtime_param(descriptor)
    ours, theirs = _outcome(fast, value, param), _outcome(reference, value, param)
    assert repr(ours) == repr(theirs)  # repr: nan is itself, and 1 is not 1.0


def test_every_option_of_the_cli_gets_the_plain_conversion() -> None:
    for param in COMMAND.params:
        plain(param)
        assert isinstance(param._runtime_param, PlainValue), param.name  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "argv",
    [
        ("acls", "list", "--topic", "orders", "--at-offset", "0"),
        ("users", "list", "--json"),
    ],
)
def test_running_a_command_loads_no_pydantic(tmp_path: Path, argv: tuple[str, ...]) -> None:
    # importing pydantic and building typer's adapters was a third of `acls list`'s start-up
    data_dir = tmp_path / "data"
    make_small_log(data_dir)
    loaded = loaded_by(tmp_path, *argv, "--data-dir", str(data_dir))
    assert "pydantic" not in loaded
