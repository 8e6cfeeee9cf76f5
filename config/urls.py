from django.contrib import admin
from django.urls import path
from drf_spectacular.views import SpectacularJSONAPIView, SpectacularSwaggerView

from memhq.api.episodes import AddView, EpisodeDetailView, EpisodeListView
from memhq.api.health import HealthView
from memhq.api.memories import EntityDetailView, EntityListView, MemoryDetailView, MemoryListView

API = "v1/memhq/"

urlpatterns = [
    path(f"{API}add", AddView.as_view(), name="add"),
    path(f"{API}episodes", EpisodeListView.as_view(), name="episode-list"),
    path(f"{API}episodes/<str:episode_id>", EpisodeDetailView.as_view(), name="episode-detail"),
    path(f"{API}memories", MemoryListView.as_view(), name="memory-list"),
    path(f"{API}memories/<str:memory_id>", MemoryDetailView.as_view(), name="memory-detail"),
    path(f"{API}entities", EntityListView.as_view(), name="entity-list"),
    path(f"{API}entities/<str:entity_id>", EntityDetailView.as_view(), name="entity-detail"),
    path(f"{API}openapi.json", SpectacularJSONAPIView.as_view(), name="openapi"),
    path("docs", SpectacularSwaggerView.as_view(url_name="openapi"), name="docs"),
    path("healthz", HealthView.as_view(), name="healthz"),
    path("admin/", admin.site.urls),
]

handler404 = "memhq.api.errors.json_404"
handler500 = "memhq.api.errors.json_500"
