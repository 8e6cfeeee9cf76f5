"""``Episode.error_kind``: whether a failure was transient, stored by the task that failed the episode.

Before it, consolidation recognised a transient failure by the exception name its error text started with.
Episodes already failed keep that reading: the backfill applies the same rule, with the names the phases
retried when this migration was written.
"""

from django.db import migrations, models

#: The exceptions ``ingestion.tasks.TRANSIENT_ERRORS`` named (with their subclasses) at this migration.
TRANSIENT_NAMES = (
    "BrokenPipeError",
    "ConnectionAbortedError",
    "ConnectionError",
    "ConnectionRefusedError",
    "ConnectionResetError",
    "InterfaceError",
    "OperationalError",
    "RateLimitedAIError",
    "RemoteDisconnected",
    "TimeoutError",
    "TransientAIError",
)


def backfill(apps, schema_editor):  # type: ignore[no-untyped-def]
    episode = apps.get_model("memhq", "Episode")
    failed = episode.objects.filter(status="failed")
    transient = "^(" + "|".join(TRANSIENT_NAMES) + "):"
    failed.filter(error__regex=transient).update(error_kind="transient")
    failed.exclude(error__regex=transient).update(error_kind="permanent")


class Migration(migrations.Migration):
    dependencies = [
        ("memhq", "0012_passages"),
    ]

    operations = [
        migrations.AddField(
            model_name="episode",
            name="error_kind",
            field=models.CharField(
                blank=True,
                choices=[("transient", "Transient"), ("permanent", "Permanent")],
                db_default="",
                default="",
                max_length=16,
            ),
        ),
        migrations.RunPython(backfill, migrations.RunPython.noop),
    ]
