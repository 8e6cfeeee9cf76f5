"""An operator walks through the admin in a real browser: a failed episode's timeline and its retry, a
memory's journal history, an entity, the user page and a batch revert's confirmation — styled and legible."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from ingestion.phases import extract
from memhq.models import Batch, Entity, Episode, EpisodeStatus, Project
from tests.browser.helpers import Screenshot, admin_login, wait_for, wait_for_text
from tests.control.helpers import moved
from tests.ingestion.helpers import make_episode, run_tasks


def failed_episode(project: Project, monkeypatch: pytest.MonkeyPatch) -> Episode:
    def broken(episode: Episode) -> Any:
        raise RuntimeError("extractor bug")

    with monkeypatch.context() as patch:
        patch.setattr(extract, "compute", broken)
        episode = run_tasks(make_episode(project, [{"role": "user", "content": "I sail."}], "bob"))
    assert episode.status == EpisodeStatus.FAILED
    return episode


def texts(browser: webdriver.Chrome, css: str) -> list[str]:
    return [element.text for element in browser.find_elements(By.CSS_SELECTOR, css)]


def test_operator_pages_show_the_journey(
    live_url: str,
    project: Project,
    browser: webdriver.Chrome,
    screenshot: Screenshot,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    old, _ = moved(project)
    episode = failed_episode(project, monkeypatch)
    get_user_model().objects.create_superuser("operator", "", "a-long-password")
    admin_login(browser, live_url, "operator", "a-long-password")

    browser.get(f"{live_url}/admin/memhq/episode/{episode.pk}/change/")
    rows = wait_for(browser, "table.phase-timeline")
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", rows)
    assert rows.is_displayed()
    outcomes = [row.get_attribute("class") for row in browser.find_elements(By.CSS_SELECTOR, "tr.phase-row")]
    assert outcomes[:4] == ["phase-row phase-done"] * 2 + [
        "phase-row phase-failed",
        "phase-row phase-pending",
    ]
    screenshot("admin-episode-timeline")
    assert "extractor bug" in browser.find_element(By.CSS_SELECTOR, "tr.phase-failed").text

    browser.get(f"{live_url}/admin/memhq/episode/")
    browser.find_element(By.CSS_SELECTOR, f'input.action-select[value="{episode.pk}"]').click()
    Select(browser.find_element(By.NAME, "action")).select_by_value("retry_episodes")
    browser.find_element(By.CSS_SELECTOR, "button[name=index]").click()
    wait_for(browser, "ul.messagelist li")
    shown = texts(browser, "ul.messagelist li")
    assert any("Retried 1" in text for text in shown), (shown, browser.current_url)
    assert Episode.objects.get(pk=episode.pk).status == EpisodeStatus.QUEUED

    browser.get(f"{live_url}/admin/memhq/memory/{old.pk}/change/")
    browser.find_element(By.CSS_SELECTOR, "a.historylink").click()
    events = [text.split("\n")[0] for text in texts(browser, "tr.history-event")]
    assert [event.split()[1] for event in events] == ["extracted", "extracted", "superseded"]
    screenshot("admin-memory-history")

    entity = Entity.objects.get(project=project, name="Lisbon")
    browser.get(f"{live_url}/admin/memhq/entity/{entity.pk}/change/")
    assert "User moved to Lisbon" in browser.find_element(By.CSS_SELECTOR, "#content").text

    browser.find_element(By.CSS_SELECTOR, "a.user-link").click()
    counts = wait_for(browser, "p.memory-counts").text
    assert "active: 1" in counts and "superseded: 1" in counts
    screenshot("admin-user-page")

    batch = Batch.objects.filter(project=project, episode__isnull=False).order_by("-created_at").first()
    assert batch is not None
    browser.get(f"{live_url}/admin/memhq/batch/")
    browser.find_element(By.CSS_SELECTOR, f'input.action-select[value="{batch.pk}"]').click()
    Select(browser.find_element(By.NAME, "action")).select_by_value("revert_batch")
    browser.find_element(By.CSS_SELECTOR, "button[name=index]").click()
    wait_for_text(browser, "#content h1", "Revert")  # the list's h1 goes stale as the confirmation loads
    screenshot("admin-batch-revert-confirmation")
