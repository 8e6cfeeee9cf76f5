"""A user id is Unicode-normalised (NFC) wherever it enters, so "José" typed composed or decomposed is one
user; numbers and booleans in JSON bodies are JSON numbers and booleans, as on /add."""

from __future__ import annotations

import unicodedata

import pytest
from rest_framework.test import APIClient

from ingestion.pipeline import run_inline
from memhq.models import Episode

COMPOSED = "jos\u00e9"  # é as one code point
DECOMPOSED = "jose\u0301"  # e + combining acute accent


def test_the_two_spellings_are_two_strings_but_one_user() -> None:
    assert COMPOSED != DECOMPOSED and unicodedata.normalize("NFC", DECOMPOSED) == COMPOSED


def test_add_stores_the_nfc_user_and_recall_and_lists_find_it_by_either_spelling(api: APIClient) -> None:
    response = api.post(
        "/v1/memhq/add",
        {"user_id": DECOMPOSED, "messages": [{"role": "user", "content": "I live in Lisbon."}]},
        format="json",
    )
    assert response.status_code == 202, response.json()
    run_inline(response.json()["episode_id"])
    assert list(Episode.objects.values_list("user_id", flat=True)) == [COMPOSED]
    for spelling in (COMPOSED, DECOMPOSED):
        asked = {"user_id": spelling, "query": "Where do I live?"}
        recall = api.post("/v1/memhq/recall", asked, format="json")
        assert recall.status_code == 200, recall.json()
        assert any("Lisbon" in item["text"] for item in recall.json()["items"])
        listed = api.get("/v1/memhq/episodes", {"user_id": spelling})
        assert listed.status_code == 200 and len(listed.json()["results"]) == 1


def test_erasing_by_the_other_spelling_erases_the_user(api: APIClient) -> None:
    api.post(
        "/v1/memhq/add",
        {"user_id": COMPOSED, "messages": [{"role": "user", "content": "I live in Lisbon."}]},
        format="json",
    )
    response = api.delete(f"/v1/memhq/users/{DECOMPOSED}")
    assert response.status_code == 200, response.json()
    assert response.json()["user_id"] == COMPOSED
    assert not Episode.objects.exists()


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("limit", "5"),
        ("limit", True),
        ("max_tokens", "800"),
        ("include_history", "true"),
        ("include_history", 1),
    ],
)
def test_recall_refuses_json_values_of_the_wrong_type(api: APIClient, field: str, value: object) -> None:
    response = api.post("/v1/memhq/recall", {"user_id": "u1", "query": "x", field: value}, format="json")
    assert response.status_code == 400
    assert field in response.json()["error"]["fields"], response.json()


def test_recall_takes_json_numbers_and_booleans(api: APIClient) -> None:
    body = {"user_id": "u1", "query": "x", "limit": 5, "max_tokens": 800, "include_history": True}
    assert api.post("/v1/memhq/recall", body, format="json").status_code == 200
