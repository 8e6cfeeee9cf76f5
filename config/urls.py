from django.contrib import admin
from django.urls import path
from drf_spectacular.views import SpectacularJSONAPIView, SpectacularSwaggerView

from memhq.api.batches import BatchDetailView, BatchListView, BatchRevertView
from memhq.api.episodes import AddView, EpisodeDetailView, EpisodeListView, EpisodeRetryView
from memhq.api.graph import GraphView
from memhq.api.graph_links import GraphLinkView
from memhq.api.health import HealthView
from memhq.api.memories import EntityDetailView, EntityListView
from memhq.api.memory_control import (
    MemoryCollectionView,
    MemoryDisableView,
    MemoryEnableView,
    MemoryHistoryView,
    MemoryItemView,
)
from memhq.api.recall import RecallView
from memhq.api.threads import (
    ThreadDetailView,
    ThreadEndView,
    ThreadListView,
    ThreadMessagesView,
    ThreadPrepareAndRecallView,
    ThreadPrepareView,
)
from memhq.api.users import UserErasureView
from memhq.api.webhooks import (
    DeliveryReplayView,
    WebhookDeliveryListView,
    WebhookDetailView,
    WebhookListView,
    WebhookRotateSecretView,
    WebhookTestView,
)
from memhq.ops.graph_views import (
    admin_graph_data,
    admin_graph_page,
    admin_user_page,
    embed_graph_data,
    embed_graph_page,
)
from memhq.ops.metrics import metrics_view

API = "v1/memhq/"
WEBHOOK = f"{API}webhooks/<str:endpoint_id>"
THREAD = f"{API}threads/<str:thread_id>"
MEMORY = f"{API}memories/<str:memory_id>"

urlpatterns = [
    path(f"{API}add", AddView.as_view(), name="add"),
    path(f"{API}episodes", EpisodeListView.as_view(), name="episode-list"),
    path(f"{API}episodes/<str:episode_id>", EpisodeDetailView.as_view(), name="episode-detail"),
    path(f"{API}episodes/<str:episode_id>/retry", EpisodeRetryView.as_view(), name="episode-retry"),
    path(f"{API}recall", RecallView.as_view(), name="recall"),
    path(f"{API}memories", MemoryCollectionView.as_view(), name="memory-list"),
    path(MEMORY, MemoryItemView.as_view(), name="memory-detail"),
    path(f"{MEMORY}/history", MemoryHistoryView.as_view(), name="memory-history"),
    path(f"{MEMORY}/disable", MemoryDisableView.as_view(), name="memory-disable"),
    path(f"{MEMORY}/enable", MemoryEnableView.as_view(), name="memory-enable"),
    path(f"{API}graph", GraphView.as_view(), name="graph"),
    path(f"{API}graph/links", GraphLinkView.as_view(), name="graph-links"),
    path("graph/embed/<str:token>", embed_graph_page, name="graph-embed"),
    path("graph/embed/<str:token>/data", embed_graph_data, name="graph-embed-data"),
    path(f"{API}batches", BatchListView.as_view(), name="batch-list"),
    path(f"{API}batches/<str:batch_id>", BatchDetailView.as_view(), name="batch-detail"),
    path(f"{API}batches/<str:batch_id>/revert", BatchRevertView.as_view(), name="batch-revert"),
    path(f"{API}users/<path:user_id>", UserErasureView.as_view(), name="user-erase"),
    path(f"{API}entities", EntityListView.as_view(), name="entity-list"),
    path(f"{API}entities/<str:entity_id>", EntityDetailView.as_view(), name="entity-detail"),
    path(f"{API}webhooks", WebhookListView.as_view(), name="webhook-list"),
    path(WEBHOOK, WebhookDetailView.as_view(), name="webhook-detail"),
    path(f"{WEBHOOK}/rotate-secret", WebhookRotateSecretView.as_view(), name="webhook-rotate"),
    path(f"{WEBHOOK}/test", WebhookTestView.as_view(), name="webhook-test"),
    path(f"{WEBHOOK}/deliveries", WebhookDeliveryListView.as_view(), name="webhook-deliveries"),
    path(f"{API}deliveries/<str:delivery_id>/replay", DeliveryReplayView.as_view(), name="delivery-replay"),
    path(f"{API}threads", ThreadListView.as_view(), name="thread-list"),
    path(THREAD, ThreadDetailView.as_view(), name="thread-detail"),
    path(f"{THREAD}/messages", ThreadMessagesView.as_view(), name="thread-messages"),
    path(f"{THREAD}/prepare", ThreadPrepareView.as_view(), name="thread-prepare"),
    path(f"{THREAD}/end", ThreadEndView.as_view(), name="thread-end"),
    path(f"{THREAD}/prepare-and-recall", ThreadPrepareAndRecallView.as_view(), name="thread-prepare-recall"),
    path(f"{API}openapi.json", SpectacularJSONAPIView.as_view(), name="openapi"),
    path("docs", SpectacularSwaggerView.as_view(url_name="openapi"), name="docs"),
    path("healthz", HealthView.as_view(), name="healthz"),
    path("metrics", metrics_view, name="metrics"),
    path("admin/memhq-user/", admin.site.admin_view(admin_user_page), name="admin-user"),
    path("admin/memhq-graph/", admin.site.admin_view(admin_graph_page), name="admin-graph"),
    path("admin/memhq-graph/data", admin.site.admin_view(admin_graph_data), name="admin-graph-data"),
    path("admin/", admin.site.urls),
]

handler404 = "memhq.api.errors.json_404"
handler500 = "memhq.api.errors.json_500"
