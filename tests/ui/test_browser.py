"""``aclog ui`` in a real headless browser (Debian's chromium and chromedriver, driven by
selenium) against a real ``aclog ui`` process: each view opens with no script or style refused
by the Content-Security-Policy, the chart picks a moment, the moment form sets it, explain
decides and links to the change, a commit by ``aclog acls add`` appears without a reload, and
a hostile name is shown as text, never run. Screenshots of each view go to
``$ACLOG_UI_SCREENSHOTS`` when set (``docs/ui`` holds the committed ones), else a temp dir.
Skipped, with one line, where chromium or chromedriver is not installed (``make test``
installs them where it can)."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.gates import unavailable
from tests.ui.logs import HOSTILE, build_log, grant
from tests.ui.server import running_ui

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")


@pytest.fixture(autouse=True)
def _browser_installed() -> None:
    if CHROMIUM is None or DRIVER is None:
        unavailable(
            "chromium and chromedriver are not installed (apt-get install chromium chromium-driver)"
        )


WAIT_S = 30


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    chosen = os.environ.get("ACLOG_UI_SCREENSHOTS")
    folder = Path(chosen) if chosen else tmp_path_factory.mktemp("shots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_log(tmp_path_factory.mktemp("browser") / "data")


@pytest.fixture(scope="module")
def url(data_dir: Path) -> Iterator[str]:
    with running_ui(data_dir) as found:
        yield found


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    profile = tmp_path_factory.mktemp("chromium-profile")
    for flag in (
        "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--disable-dev-shm-usage", f"--user-data-dir={profile}", "--window-size=1280,900",
    ):  # fmt: skip
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(executable_path=str(DRIVER)))
    driver.set_page_load_timeout(2 * WAIT_S)
    try:
        yield driver
    finally:
        driver.quit()


def _until(check: Callable[[], object], what: str) -> None:
    """Wait for ``check()`` to be true; a page still loading (an element gone stale, or not
    there yet) counts as not yet."""
    from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException

    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        try:
            if check():
                return
        except (NoSuchElementException, StaleElementReferenceException):
            pass
        time.sleep(0.2)
    raise AssertionError(f"waited {WAIT_S} s for {what}")


def _no_console_errors(browser: Any) -> None:
    """Nothing refused by the CSP and no script error on the page."""
    errors = [e["message"] for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert not errors, errors


def _text(browser: Any, css: str) -> str:
    from selenium.webdriver.common.by import By

    return str(browser.find_element(By.CSS_SELECTOR, css).text)


def test_the_timeline_chart_draws_and_picks_a_moment(browser: Any, url: str, shots: Path) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    browser.get(f"{url}/timeline")
    _until(lambda: browser.find_element(By.ID, "chart").get_attribute("data-ready"), "the chart")
    browser.save_screenshot(str(shots / "timeline.png"))
    legend = _text(browser, "#chart .u-legend")  # the axes' labels are drawn on the canvas
    assert all(name in legend for name in ("time (UTC)", "bindings", "added", "removed"))
    _no_console_errors(browser)
    over = browser.find_element(By.CSS_SELECTOR, "#chart .u-over")
    ActionChains(browser).move_to_element(over).pause(0.3).click().perform()
    _until(lambda: "/state?at_offset=" in browser.current_url, "the chart's click to open State")
    assert "State at offset" in _text(browser, "main h2")


def test_the_chart_splits_changes_by_principal(browser: Any, url: str) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    browser.get(f"{url}/timeline")
    Select(browser.find_element(By.ID, "by")).select_by_value("principal")
    browser.find_element(By.ID, "split-go").click()
    _until(lambda: "by=principal" in browser.current_url, "the split in the URL")
    _until(lambda: browser.find_element(By.ID, "chart").get_attribute("data-ready"), "the chart")
    legend = _text(browser, "#chart .u-legend")
    assert "User:alice +" in legend and "User:bob \u2212" in legend  # additions, removals
    assert legend.count("<script>alert(1)</script>") == 2  # its additions and removals, as text
    assert legend.count("\\x00nul\\nline") == 2 and "\x00" not in legend  # as the CLI shows it
    _no_console_errors(browser)


def test_changes_show_each_batchs_effect_on_access(browser: Any, url: str) -> None:
    browser.get(f"{url}/changes?start=7")
    effect = _text(browser, "#b9 table.impact")
    assert "User:bob" in effect and "WRITE" in effect and "ALLOWED → DENIED" in effect
    assert "no decision changed" in _text(browser, "#b7")
    _no_console_errors(browser)


def test_state_shows_a_hostile_name_as_text(browser: Any, url: str, shots: Path) -> None:
    from selenium.common.exceptions import NoAlertPresentException

    browser.get(f"{url}/state")
    table = _text(browser, "#acls")
    assert "<script>alert(1)</script>" in table and "User:alice" in table
    assert "\\x00nul\\nline" in table  # NUL and newline shown as escapes, as the CLI shows them
    with pytest.raises(NoAlertPresentException):
        _ = browser.switch_to.alert.text
    _no_console_errors(browser)
    browser.save_screenshot(str(shots / "state.png"))
    assert HOSTILE not in browser.title


def test_the_moment_form_sets_every_view(browser: Any, url: str) -> None:
    from selenium.webdriver.common.by import By

    browser.get(f"{url}/state")
    browser.find_element(By.ID, "at_offset").send_keys("4")
    browser.find_element(By.ID, "moment-go").click()
    _until(lambda: "at_offset=4" in browser.current_url, "the moment in the URL")
    assert "State at offset 4" in _text(browser, "main h2")
    assert "User:bob" in _text(browser, "#acls")  # removed later, present then
    browser.find_element(By.ID, "nav-changes").click()
    _until(lambda: "/changes?at_offset=4" in browser.current_url, "Changes at the moment")
    assert "up to the chosen moment" in _text(browser, "main h2")


def test_explain_decides_and_links_to_the_change(browser: Any, url: str, shots: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    browser.get(f"{url}/explain")
    browser.find_element(By.ID, "principal").send_keys("User:alice")
    Select(browser.find_element(By.ID, "operation")).select_by_visible_text("READ")
    browser.find_element(By.ID, "resource_name").send_keys("orders.secret")
    browser.find_element(By.ID, "explain-go").click()
    _until(lambda: "DENIED" in _text(browser, "main"), "the decision")
    assert "deciding" in _text(browser, "#matching")
    _no_console_errors(browser)
    browser.save_screenshot(str(shots / "explain.png"))
    browser.find_element(By.CSS_SELECTOR, "#matching tr.deny a.origin").click()
    _until(lambda: browser.current_url.endswith("/changes?start=7#b7"), "the change")
    assert "DENY" in _text(browser, "#b7") and "aclog acls add" in _text(browser, "#b7")
    browser.save_screenshot(str(shots / "changes.png"))


def test_a_commit_appears_without_a_reload(browser: Any, url: str, data_dir: Path) -> None:
    from selenium.webdriver.common.by import By

    browser.get(f"{url}/changes")
    body = browser.find_element(By.TAG_NAME, "body")
    _until(lambda: body.get_attribute("data-seen"), "the page's first look at the log's end")
    assert "User:erin" not in _text(browser, "main")
    grant(data_dir, "User:erin", "Read", "live-topic")
    _until(lambda: "User:erin" in _text(browser, "main"), "the new change on the page")
    _no_console_errors(browser)


def test_a_seeded_history_in_every_view(browser: Any, tmp_path: Path, shots: Path) -> None:
    """``aclog demo --tenancy`` (270 records over an hour, several authors) in each view: a
    real time axis in minutes, a past State, and the question views' forms submitted."""
    from selenium.webdriver.common.by import By

    from tests.ui.logs import cli

    data = tmp_path / "tenancy"
    cli("demo", "--data-dir", str(data), "--tenancy")
    with running_ui(data) as seeded:
        browser.get(f"{seeded}/timeline")
        chart = browser.find_element(By.ID, "chart")
        _until(lambda: chart.get_attribute("data-ready"), "the chart")
        _no_console_errors(browser)
        browser.save_screenshot(str(shots / "timeline-tenancy.png"))
        browser.get(f"{seeded}/timeline?by=principal")
        chart = browser.find_element(By.ID, "chart")
        _until(lambda: chart.get_attribute("data-ready"), "the split chart")
        assert "(others) +" in _text(browser, "#chart .u-legend")
        browser.save_screenshot(str(shots / "timeline-split.png"))
        browser.get(f"{seeded}/state?at_time=2026-01-01T00:30:00Z")
        assert "State at offset" in _text(browser, "main h2")
        browser.save_screenshot(str(shots / "state-tenancy.png"))
        browser.get(f"{seeded}/who-can")
        browser.find_element(By.ID, "resource_name").send_keys("acme.payments.events-0000")
        browser.find_element(By.ID, "who-can-go").click()
        _until(lambda: "User:svc-acme-payments-0" in _text(browser, "#allowed"), "who can")
        browser.save_screenshot(str(shots / "who-can.png"))
        browser.get(f"{seeded}/reach")
        browser.find_element(By.ID, "principal").send_keys("User:svc-acme-payments-0")
        browser.find_element(By.ID, "reach-go").click()
        _until(lambda: "acme.payments." in _text(browser, "#reach"), "reach")
        browser.save_screenshot(str(shots / "reach.png"))
        browser.get(f"{seeded}/diff")
        browser.find_element(By.ID, "from").send_keys("2026-01-01T00:20:00Z")
        browser.find_element(By.ID, "to").send_keys("2026-01-01T00:50:00Z")
        browser.find_element(By.ID, "diff-go").click()
        _until(lambda: "removed" in _text(browser, "#diff-acls"), "the diff")
        browser.save_screenshot(str(shots / "diff.png"))
        browser.get(f"{seeded}/lint")
        assert "warning" in _text(browser, "#findings")
        _no_console_errors(browser)
        browser.save_screenshot(str(shots / "lint.png"))
