from django.apps import AppConfig


class ToolingConfig(AppConfig):
    name = "tooling"
    verbose_name = "MemHQ tooling (benchmarks, evaluation)"
