"""An operator opens the admin and the API docs in a real browser."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from memhq.models import Episode, Project
from tests.browser.helpers import Screenshot, admin_login, loaded_stylesheets, wait_for


def test_admin_login_page_is_styled_and_an_operator_can_log_in(
    live_url: str, browser: webdriver.Chrome, screenshot: Screenshot
) -> None:
    get_user_model().objects.create_superuser("operator", "", "a-long-password")
    browser.get(f"{live_url}/admin/login/")
    wait_for(browser, "#id_username")
    sheets = loaded_stylesheets(browser)
    assert any("/static/admin/css/base." in sheet["url"] for sheet in sheets), sheets
    assert all(sheet["status"] == 200 for sheet in sheets), sheets
    # Styled: the header bar has the admin's colour, not a transparent default.
    header = browser.find_element(By.CSS_SELECTOR, "#header")
    assert header.value_of_css_property("background-color") not in ("rgba(0, 0, 0, 0)", "transparent")
    screenshot("admin-login")
    admin_login(browser, live_url, "operator", "a-long-password")
    assert "Site administration" in browser.page_source
    screenshot("admin-index")


def test_docs_render_swagger_ui_and_a_try_out_of_add_answers_202(
    live_url: str, project: Project, browser: webdriver.Chrome, screenshot: Screenshot
) -> None:
    key = project.test_key  # type: ignore[attr-defined]
    browser.get(f"{live_url}/docs")
    title = wait_for(browser, ".swagger-ui .info .title")
    assert "MemHQ API" in title.text
    # Authorize with the project's key.
    wait_for(browser, ".btn.authorize").click()
    wait_for(browser, ".auth-container input").send_keys(key)
    browser.find_element(By.CSS_SELECTOR, ".auth-btn-wrapper .authorize").click()
    browser.find_element(By.CSS_SELECTOR, ".btn-done").click()
    # Open POST /v1/memhq/add, try it out with a small episode.
    wait_for(browser, '.opblock-post [data-path="/v1/memhq/add"]').click()
    block = wait_for(browser, ".opblock-post.is-open")
    block.find_element(By.CSS_SELECTOR, ".try-out__btn").click()
    body = wait_for(browser, ".opblock-post.is-open textarea.body-param__text")
    body.send_keys(Keys.CONTROL, "a")
    body.send_keys(Keys.DELETE)
    body.send_keys('{"user_id": "docs-user", "messages": [{"role": "user", "content": "I live in Lyon."}]}')
    block.find_element(By.CSS_SELECTOR, ".execute").click()
    live = ".opblock-post.is-open .live-responses-table .response"
    status = wait_for(browser, f"{live} .response-col_status")
    assert status.text.strip().startswith("202"), status.text
    browser.execute_script("arguments[0].scrollIntoView({block: 'start'})", status)
    shown = browser.find_element(By.CSS_SELECTOR, f"{live} .response-col_description").text
    screenshot("docs-add-202")
    episode = Episode.objects.get(project=project, user_id="docs-user")
    assert str(episode.pk) in shown
    assert "I live in Lyon." in bytes(episode.raw_body).decode()
