"""What the browser tests share: waiting for what a person would see."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait

WAIT_S = 20.0  # generous: the test machine is shared and often loaded
Screenshot = Callable[[str], Path]


def wait_for(browser: webdriver.Chrome, css: str, timeout: float = WAIT_S) -> WebElement:
    found = WebDriverWait(browser, timeout).until(
        lambda driver: next(iter(driver.find_elements(By.CSS_SELECTOR, css)), False)
    )
    assert isinstance(found, WebElement)
    return found


def wait_for_text(browser: webdriver.Chrome, css: str, text: str, timeout: float = WAIT_S) -> None:
    """Until an element matching ``css`` shows ``text``: read afresh each time, so the page being left
    (whose element goes stale as the next one loads) is never read twice."""
    WebDriverWait(browser, timeout).until(
        expected_conditions.text_to_be_present_in_element((By.CSS_SELECTOR, css), text)
    )


def wait_until(browser: webdriver.Chrome, check: Callable[[Any], Any], timeout: float = WAIT_S) -> Any:
    return WebDriverWait(browser, timeout).until(check)


def loaded_stylesheets(browser: webdriver.Chrome) -> list[dict[str, Any]]:
    """Every CSS file the page loaded, with the HTTP status the browser got for it."""
    entries = browser.execute_script(
        "return performance.getEntriesByType('resource')"
        ".filter(e => e.initiatorType === 'link' || e.name.endsWith('.css'))"
        ".map(e => ({url: e.name, status: e.responseStatus}))"
    )
    return [entry for entry in entries if entry["url"].split("?")[0].endswith(".css")]


def admin_login(browser: webdriver.Chrome, base: str, username: str, password: str) -> None:
    browser.get(f"{base}/admin/login/")
    wait_for(browser, "#id_username").send_keys(username)
    browser.find_element(By.CSS_SELECTOR, "#id_password").send_keys(password)
    browser.find_element(By.CSS_SELECTOR, "input[type=submit]").click()
    wait_for(browser, "#user-tools")
