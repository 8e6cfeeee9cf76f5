"""The memory graph page in a real browser: drawn with as many nodes as GET /graph returns, the as_of
control changes it, clicking a node lists its memories with their evidence; and the embeddable link."""

from __future__ import annotations

from typing import Any

import httpx
from django.contrib.auth import get_user_model
from selenium import webdriver
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from memhq.models import Project
from tests.browser.helpers import Screenshot, admin_login, wait_for, wait_until
from tests.control.helpers import moved


def drawn(browser: webdriver.Chrome, loads: int) -> dict[str, Any]:
    """The graph the page has drawn once it has loaded ``loads`` times."""
    wait_until(browser, lambda driver: driver.execute_script("return window.memhqGraph.loads") >= loads)
    result: dict[str, Any] = browser.execute_script(
        "var g = window.memhqGraph; return {nodes: g.cy.nodes().length, edges: g.cy.edges().length,"
        " texts: g.data.edges.map(e => e.text), as_of: g.data.as_of};"
    )
    return result


def test_admin_graph_page_draws_the_users_graph_and_moves_through_time(
    live_url: str, project: Project, browser: webdriver.Chrome, screenshot: Screenshot
) -> None:
    moved(project)  # Berlin (superseded), then Lisbon
    key = project.test_key  # type: ignore[attr-defined]
    expected = httpx.get(
        f"{live_url}/v1/memhq/graph", params={"user_id": "alice"}, headers={"Authorization": f"Bearer {key}"}
    ).json()
    get_user_model().objects.create_superuser("operator", "", "a-long-password")
    admin_login(browser, live_url, "operator", "a-long-password")
    browser.get(f"{live_url}/admin/memhq/memory/")
    wait_for(browser, "a.graph-link").click()
    now = drawn(browser, 1)
    assert now["nodes"] == len(expected["nodes"]) > 1
    assert now["edges"] == len(expected["edges"])
    assert any("Lisbon" in text for text in now["texts"])
    screenshot("graph-now")
    # Click the user's node: its memories and their evidence quotes appear beside the graph.
    x, y = browser.execute_script(
        "var p = window.memhqGraph.cy.$id('user').renderedPosition(); return [p.x, p.y];"
    )
    canvas = browser.find_element(By.CSS_SELECTOR, "#graph")
    offset_x = round(x - canvas.size["width"] / 2)
    offset_y = round(y - canvas.size["height"] / 2)
    ActionChains(browser).move_to_element_with_offset(canvas, offset_x, offset_y).click().perform()
    wait_until(browser, lambda driver: driver.find_elements(By.CSS_SELECTOR, "#details blockquote"))
    assert "Lisbon" in browser.find_element(By.CSS_SELECTOR, "#details").text
    # The time control, moved to its start (the first memory's date): the graph before the move.
    wait_for(browser, "#as-of-range").send_keys(Keys.HOME)
    as_of = "return window.memhqGraph.data.as_of"
    wait_until(browser, lambda driver: driver.execute_script(as_of) < "2023-02")
    then = drawn(browser, 2)
    assert any("Berlin" in text for text in then["texts"])
    assert not any("Lisbon" in text for text in then["texts"])
    assert then["as_of"].startswith("2023-01")
    screenshot("graph-as-of-start")


def test_an_embedded_link_draws_the_graph_without_a_login(
    live_url: str, project: Project, browser: webdriver.Chrome, screenshot: Screenshot
) -> None:
    moved(project)
    key = project.test_key  # type: ignore[attr-defined]
    link = httpx.post(
        f"{live_url}/v1/memhq/graph/links",
        json={"user_id": "alice"},
        headers={"Authorization": f"Bearer {key}"},
    )
    assert link.status_code == 201
    browser.get(link.json()["url"])
    assert drawn(browser, 1)["nodes"] > 1
    screenshot("graph-embedded")
