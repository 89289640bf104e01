"""``--conf`` pairs and the driver's address: what reaches the Spark builder, and the usage errors
(before Spark starts) for settings that cannot work."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from aclog.pipeline.session import scratch_dir, session_settings
from aclog.pipeline.settings import (
    DRIVER_HOST_ENV,
    SettingError,
    check_master,
    driver_host,
    on_this_machine,
    parse_conf,
)
from tests.pipeline.conftest import Logs
from tests.tools.harness import run_main

KEYS = st.from_regex(r"spark\.[a-z][a-zA-Z0-9.]{0,30}", fullmatch=True).filter(
    lambda k: k != "spark.master"
)
VALUES = st.text(st.characters(exclude_categories=("Cs",)), max_size=40)


@given(st.lists(st.tuples(KEYS, VALUES), max_size=6))
def test_conf_pairs_keep_every_value_and_the_last_key_wins(pairs: list[tuple[str, str]]) -> None:
    # Values may hold '=' and spaces (JVM options do): only the first '=' splits.
    assert parse_conf(f"{k}={v}" for k, v in pairs) == dict(pairs)


@pytest.mark.parametrize(
    ("item", "says"),
    [
        ("spark.executor.memory", "is not KEY=VALUE"),
        ("=2g", "is not KEY=VALUE"),
        ("executor.memory=2g", "is not a Spark setting"),
        ("spark.executor memory=2g", "is not a Spark setting"),
        ("spark.master=local[4]", "--master"),
    ],
)
def test_a_bad_conf_item_is_refused_with_what_to_write(item: str, says: str) -> None:
    with pytest.raises(SettingError, match=says) as caught:
        parse_conf(["spark.ui.enabled=false", item])
    assert "spark.executor.memory=2g" in str(caught.value) or "--master" in str(caught.value)


@pytest.mark.parametrize(
    ("master", "here"),
    [
        ("spark://127.0.0.1:7077", True),
        ("spark://localhost:7077", True),
        ("spark://[::1]:7077", True),
        ("spark://127.0.0.2:7077,localhost:7078", True),
        ("spark://10.0.0.5:7077", False),
        ("spark://spark-master:7077", False),
        ("spark://127.0.0.1:7077,10.0.0.5:7077", False),
        ("yarn", False),
        ("k8s://https://127.0.0.1:6443", False),
        ("local[2]", False),
    ],
)
def test_a_master_is_on_this_machine_when_every_host_is_loopback(master: str, here: bool) -> None:
    assert on_this_machine(master) is here


def test_the_driver_host_default_is_loopback_only_for_a_master_here(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(DRIVER_HOST_ENV, raising=False)
    assert driver_host("spark://127.0.0.1:7077") == "127.0.0.1"
    assert driver_host("spark://spark-master:7077") is None  # Spark's own choice
    assert driver_host("spark://spark-master:7077", "10.0.0.7") == "10.0.0.7"
    monkeypatch.setenv(DRIVER_HOST_ENV, "10.0.0.8")
    assert driver_host("spark://spark-master:7077") == "10.0.0.8"
    assert driver_host("spark://spark-master:7077", "10.0.0.7") == "10.0.0.7"
    assert driver_host("local[2]", "10.0.0.7") == "127.0.0.1"  # executors run in the driver
    with pytest.raises(SettingError, match="--driver-host ' '"):
        driver_host("spark://spark-master:7077", " ")
    monkeypatch.setenv(DRIVER_HOST_ENV, "http://10.0.0.8/")
    with pytest.raises(SettingError, match=r"\$ACLOG_SPARK_DRIVER_HOST 'http://10.0.0.8/'"):
        driver_host("spark://spark-master:7077")


def test_session_settings_put_conf_last_and_keep_aclogs_java_options() -> None:
    conf = {"spark.executor.memory": "2g", "spark.driver.extraJavaOptions": "-Dmine=1"}
    folder = scratch_dir()
    options = {"shuffle_partitions": 2, "driver_memory": "1g", "fast_start": False}
    settings = session_settings("spark://127.0.0.1:7077", folder, "127.0.0.1", conf=conf, **options)
    assert settings["spark.executor.memory"] == "2g"
    assert settings["spark.driver.host"] == settings["spark.driver.bindAddress"] == "127.0.0.1"
    java = settings["spark.driver.extraJavaOptions"].split()
    assert java[-1] == "-Dmine=1" and any(o.startswith("-Dlog4j2.configurationFile") for o in java)
    override = {"spark.driver.bindAddress": "0.0.0.0", "spark.sql.shuffle.partitions": "7"}
    remote = session_settings("spark://m:7077", folder, "10.0.0.7", conf=override, **options)
    assert remote["spark.driver.host"] == "10.0.0.7"
    assert remote["spark.driver.bindAddress"] == "0.0.0.0"
    assert remote["spark.sql.shuffle.partitions"] == "7"
    assert "spark.driver.host" not in session_settings("yarn", folder, None, conf={}, **options)


@pytest.mark.parametrize(
    ("options", "says"),
    [
        (["--conf", "spark.executor.memory"], "is not KEY=VALUE"),
        (["--conf", "memory=2g"], "is not a Spark setting"),
        (["--master", "spark://m:7077", "--driver-host", ""], "--driver-host"),
        (["--master", "bogus://x"], "unknown Spark master 'bogus://x'"),
        (["--master", "Local[2]"], "unknown Spark master"),
    ],
)
def test_the_cli_refuses_a_bad_setting_before_spark_starts(
    logs: Logs, tmp_path: Path, options: list[str], says: str
) -> None:
    # No session fixture: a usage error must not need one (nor start one).
    for command in (["state"], ["history"], ["records", "--out", str(tmp_path / "r")]):
        run = run_main("pipeline", *command, "--data-dir", str(logs.full), *options)
        assert run.code == 2, run.stderr
        assert says in run.stderr and run.stdout == ""
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize(
    "master",
    ["local", "local[2]", "local[*]", "local[2,3]", "local-cluster[2,1,1024]", "yarn",
     "spark://127.0.0.1:7077", "spark://a:1,b:2", "k8s://https://k:6443"],
)  # fmt: skip
def test_every_master_spark_takes_passes_the_check(master: str) -> None:
    assert check_master(master) == master


@pytest.mark.parametrize("master", ["", "bogus://x", "spark:/m", "mesos://m:5050", "LOCAL"])
def test_a_master_spark_refuses_is_a_setting_error(master: str) -> None:
    with pytest.raises(SettingError, match="unknown Spark master"):
        check_master(master)
