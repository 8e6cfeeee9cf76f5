"""Request validation and response shapes for the episode endpoints."""

from __future__ import annotations

import unicodedata
from typing import Any

from django.conf import settings
from rest_framework import serializers
from rest_framework.fields import empty

from memhq.models import Episode, EpisodePhase, EpisodeStatus

ROLES = ("user", "assistant", "system", "tool")
MAX_NAME_CHARS = 200
MAX_ID_CHARS = 200


class UserIdField(serializers.CharField):
    """A ``user_id``: at most ``MEMHQ_MAX_USER_ID_CHARS``, NFC (memhq/text_rules.py)."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("max_length", settings.MEMHQ_MAX_USER_ID_CHARS)
        super().__init__(**kwargs)

    def run_validation(self, data: Any = empty) -> Any:
        value = super().run_validation(data)  # NUL and surrogates are refused here, as by every CharField
        return unicodedata.normalize("NFC", value) if isinstance(value, str) else value


class JsonIntegerField(serializers.IntegerField):
    """An integer in a JSON body is a JSON number: ``"5"`` and ``true`` are errors, as they are on /add."""

    def to_internal_value(self, data: Any) -> int:
        if isinstance(data, bool) or not isinstance(data, int | float):
            self.fail("invalid")
        return int(super().to_internal_value(data))


class JsonBooleanField(serializers.BooleanField):
    """A boolean in a JSON body is ``true`` or ``false``, not ``"yes"`` or ``1``."""

    def to_internal_value(self, data: Any) -> bool:
        if not isinstance(data, bool):
            self.fail("invalid", input=data)
        return data


class StrictSerializer(serializers.Serializer):
    """Rejects fields it does not declare, so a typo never passes silently."""

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, dict):
            unknown = sorted(set(data) - set(self.fields))
            if unknown:
                raise serializers.ValidationError({name: ["Unknown field."] for name in unknown})
        return super().to_internal_value(data)


class MessageInSerializer(StrictSerializer):
    role = serializers.ChoiceField(choices=ROLES)
    content = serializers.CharField(allow_blank=False, trim_whitespace=False)
    name = serializers.CharField(required=False, max_length=MAX_NAME_CHARS, allow_blank=True)
    timestamp = serializers.DateTimeField(required=False)
    id = serializers.CharField(required=False, max_length=MAX_ID_CHARS)

    def validate_content(self, value: str) -> str:
        limit = settings.MEMHQ_MAX_MESSAGE_BYTES
        if len(value) * 4 > limit and len(value.encode()) > limit:
            raise serializers.ValidationError(f"A message may hold at most {limit} bytes.")
        return value


class AddResponseSerializer(serializers.Serializer):
    episode_id = serializers.UUIDField()
    status = serializers.CharField()
    received_at = serializers.DateTimeField()


class EpisodeSerializer(serializers.ModelSerializer):
    thread_id = serializers.CharField(source="thread_key")
    phase_done_name = serializers.SerializerMethodField()
    enqueued = serializers.SerializerMethodField()
    timings_ms = serializers.SerializerMethodField()

    class Meta:
        model = Episode
        fields = [
            "id",
            "user_id",
            "thread_id",
            "status",
            "phase_done",
            "phase_done_name",
            "phase_running",
            "attempts",
            "error",
            "error_phase",
            "error_kind",
            "enqueued",
            "timings_ms",
            "stats",
            "summary",
            "received_at",
            "completed_at",
            "indexed_at",
        ]

    def get_phase_done_name(self, episode: Episode) -> str | None:
        return EpisodePhase(episode.phase_done).label.lower() if episode.phase_done else None

    def get_enqueued(self, episode: Episode) -> bool:
        """Whether the relay has handed the episode's chain to the broker (ingestion/outbox.py)."""
        return episode.publish_from is None

    def get_timings_ms(self, episode: Episode) -> dict[str, float]:
        timings = episode.stats.get("timings_ms", {}) if isinstance(episode.stats, dict) else {}
        return {str(key): float(value) for key, value in timings.items()}


class EpisodeListQuerySerializer(StrictSerializer):
    user_id = UserIdField(required=False)
    status = serializers.ChoiceField(required=False, choices=EpisodeStatus.choices)
    cursor = serializers.CharField(required=False)
    page_size = serializers.IntegerField(required=False, min_value=1, max_value=200)
