from django.apps import AppConfig


class MemhqConfig(AppConfig):
    name = "memhq"
    verbose_name = "MemHQ"
    default_auto_field = "django.db.models.BigAutoField"
