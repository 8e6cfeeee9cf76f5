"""Request validation and response shapes for the thread endpoints (same rules and limits as /add)."""

from __future__ import annotations

from django.core.validators import RegexValidator
from rest_framework import serializers

from memhq.api.recall import RecallRequestSerializer, RecallResponseSerializer
from memhq.api.serializers import MAX_ID_CHARS, JsonBooleanField, StrictSerializer, UserIdField
from memhq.models import Thread, ThreadStatus
from retrieval.prepare import DEFAULT_MESSAGE_LIMIT, MAX_MESSAGE_LIMIT

#: A thread id travels in URL paths: no "/" and no whitespace.
THREAD_ID_VALIDATOR = RegexValidator(r"^[^/\s]+$", "A thread_id may not contain '/' or whitespace.")


class ThreadCreateSerializer(StrictSerializer):
    user_id = UserIdField()
    thread_id = serializers.CharField(
        required=False, max_length=MAX_ID_CHARS, validators=[THREAD_ID_VALIDATOR]
    )
    temporary = JsonBooleanField(required=False, default=False)


class ThreadSerializer(serializers.ModelSerializer):
    thread_id = serializers.CharField(source="key")
    pending_messages = serializers.IntegerField()
    summary_through = serializers.IntegerField(source="summary_through_seq")
    episode_ids = serializers.SerializerMethodField()

    class Meta:
        model = Thread
        fields = [
            "thread_id",
            "user_id",
            "temporary",
            "status",
            "message_count",
            "pending_messages",
            "episode_due_at",
            "summary",
            "summary_through",
            "created_at",
            "last_activity_at",
            "ended_at",
            "episode_ids",
        ]

    def get_episode_ids(self, thread: Thread) -> list[str]:
        """Episodes cut from the thread, oldest first."""
        return [str(episode.pk) for episode in thread.episodes.all()]


class ThreadEndSerializer(ThreadSerializer):
    new_episode_ids = serializers.SerializerMethodField()

    class Meta(ThreadSerializer.Meta):
        fields = [*ThreadSerializer.Meta.fields, "new_episode_ids"]

    def get_new_episode_ids(self, thread: Thread) -> list[str]:
        """Episodes this call cut (empty for a temporary thread, or when nothing was pending)."""
        return [str(episode_id) for episode_id in self.context.get("new_episode_ids", [])]


class ThreadListQuerySerializer(StrictSerializer):
    user_id = UserIdField(required=False)
    status = serializers.ChoiceField(required=False, choices=ThreadStatus.choices)
    cursor = serializers.CharField(required=False)
    page_size = serializers.IntegerField(required=False, min_value=1, max_value=200)


class MessageAddedSerializer(serializers.Serializer):
    thread_id = serializers.CharField()
    seq = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    episode_due_at = serializers.DateTimeField(allow_null=True)


class PrepareQuerySerializer(StrictSerializer):
    message_limit = serializers.IntegerField(
        required=False, min_value=1, max_value=MAX_MESSAGE_LIMIT, default=DEFAULT_MESSAGE_LIMIT
    )


class ChatMessageSerializer(serializers.Serializer):
    role = serializers.CharField()
    content = serializers.CharField()
    name = serializers.CharField(required=False)


class PrepareResponseSerializer(serializers.Serializer):
    messages = ChatMessageSerializer(many=True)


class PrepareAndRecallSerializer(RecallRequestSerializer):
    """Recall's options without ``user_id`` (the thread's user), plus ``message_limit``."""

    user_id = None  # type: ignore[assignment]  # DRF: removes the inherited field
    message_limit = serializers.IntegerField(
        required=False, min_value=1, max_value=MAX_MESSAGE_LIMIT, default=DEFAULT_MESSAGE_LIMIT
    )


class PrepareAndRecallResponseSerializer(serializers.Serializer):
    messages = ChatMessageSerializer(many=True)
    recall = RecallResponseSerializer()
