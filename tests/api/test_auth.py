from __future__ import annotations

from typing import Any

import pytest
from django.core.management import call_command
from django.utils import timezone
from rest_framework.test import APIClient

from memhq.models import ApiKey, Episode, Project
from memhq.services.tenancy import api_key_create, api_key_revoke, hash_key

ADD = "/v1/memhq/add"
PAYLOAD = {"user_id": "u1", "messages": [{"role": "user", "content": "hello"}]}


def add(client: APIClient) -> Any:
    return client.post(ADD, PAYLOAD, format="json")


@pytest.mark.parametrize(
    "header",
    [
        None,
        "Bearer",
        "Bearer ",
        "Basic abc",
        "Bearer not-a-key",
        "Bearer mhq_abc",
        "Bearer mhq_000000000000_wrong",
    ],
    ids=["missing", "no-token", "empty-token", "basic", "not-a-key", "no-secret", "unknown"],
)
def test_missing_malformed_or_unknown_keys_are_401(project: Project, header: str | None) -> None:
    client = APIClient()
    if header is not None:
        client.credentials(HTTP_AUTHORIZATION=header)
    response = add(client)
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "unauthenticated"
    assert Episode.objects.count() == 0


def test_right_prefix_wrong_secret_is_401(project: Project) -> None:
    prefix = project.api_keys.get().prefix
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer mhq_{prefix}_wrongsecret")
    assert add(client).status_code == 401


def test_revoked_key_is_401(project: Project, api: APIClient) -> None:
    api_key_revoke(prefix=project.api_keys.get().prefix)
    response = add(api)
    assert response.status_code == 401
    assert "revoked" in response.json()["error"]["message"]


def test_keys_are_stored_as_prefix_and_sha256_only(project: Project) -> None:
    key = project.api_keys.get()
    plaintext: str = project.test_key  # type: ignore[attr-defined]
    assert key.secret_hash == hash_key(plaintext)
    assert plaintext not in str(list(ApiKey.objects.values()))


def test_last_used_at_is_recorded(project: Project, api: APIClient) -> None:
    assert add(api).status_code == 202
    assert project.api_keys.get().last_used_at is not None


def test_a_second_key_works_and_revoking_it_leaves_the_first(project: Project, api: APIClient) -> None:
    issued = api_key_create(project=project, name="second")
    second = APIClient()
    second.credentials(HTTP_AUTHORIZATION=f"Bearer {issued.plaintext}")
    assert add(second).status_code == 202
    api_key_revoke(prefix=issued.api_key.prefix)
    assert add(second).status_code == 401
    assert add(api).status_code == 202


def test_project_command_creates_project_and_prints_key_once(
    db: None, capsys: pytest.CaptureFixture[str]
) -> None:
    call_command("memhq_project", "create", "cli-project")
    out = capsys.readouterr().out
    key = next(word for word in out.split() if word.startswith("mhq_"))
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    assert add(client).status_code == 202
    call_command("memhq_project", "key", "create", "cli-project", "--name", "ci")
    second = next(word for word in capsys.readouterr().out.split() if word.startswith("mhq_"))
    assert second != key
    prefix = key.split("_")[1]
    call_command("memhq_project", "key", "revoke", prefix)
    assert add(client).status_code == 401
    revoked_at = ApiKey.objects.get(prefix=prefix).revoked_at
    assert revoked_at is not None and revoked_at <= timezone.now()
