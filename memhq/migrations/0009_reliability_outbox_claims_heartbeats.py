"""Reliability (issue 14): the Postgres outbox with a NOTIFY on commit, claims that name their holder, and
worker heartbeats.

``publish_from`` is added without a default first, so existing rows are not all queued for publication
again (the beat sweep still rescues any that were left behind), then given ``DEFAULT 1`` for new rows.
"""

from django.db import migrations, models

OUTBOX_NOTIFY = """
CREATE FUNCTION memhq_outbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('memhq_outbox', '');
    RETURN NULL;
END $$;
-- Every new episode is pending publication: one NOTIFY per statement, delivered when it commits.
CREATE TRIGGER memhq_episode_outbox_insert AFTER INSERT ON memhq_episode
    FOR EACH STATEMENT EXECUTE FUNCTION memhq_outbox_notify();
-- A re-enqueue (sweep, consolidation retry) asks for publication again. Postgres folds identical
-- notifications of one transaction into one.
CREATE TRIGGER memhq_episode_outbox_request AFTER UPDATE OF publish_from ON memhq_episode
    FOR EACH ROW WHEN (NEW.publish_from IS NOT NULL AND OLD.publish_from IS DISTINCT FROM NEW.publish_from)
    EXECUTE FUNCTION memhq_outbox_notify();
"""

DROP_OUTBOX_NOTIFY = """
DROP TRIGGER IF EXISTS memhq_episode_outbox_request ON memhq_episode;
DROP TRIGGER IF EXISTS memhq_episode_outbox_insert ON memhq_episode;
DROP FUNCTION IF EXISTS memhq_outbox_notify();
"""


class Migration(migrations.Migration):
    dependencies = [("memhq", "0007_recall_indexes")]

    operations = [
        migrations.RemoveField(model_name="episode", name="enqueue_failed_at"),
        migrations.AddField(
            model_name="episode",
            name="publish_from",
            field=models.PositiveSmallIntegerField(blank=True, null=True),
        ),
        migrations.AlterField(
            model_name="episode",
            name="publish_from",
            field=models.PositiveSmallIntegerField(blank=True, null=True, default=1, db_default=1),
        ),
        migrations.AddField(
            model_name="episode",
            name="claim_host",
            field=models.CharField(blank=True, default="", db_default="", max_length=255),
        ),
        migrations.AddField(
            model_name="episode", name="claim_pid", field=models.PositiveIntegerField(blank=True, null=True)
        ),
        migrations.AddField(
            model_name="episode", name="claim_pid_start", field=models.BigIntegerField(blank=True, null=True)
        ),
        migrations.AddField(
            model_name="episode", name="claim_expires_at", field=models.DateTimeField(blank=True, null=True)
        ),
        migrations.AddIndex(
            model_name="episode",
            index=models.Index(
                condition=models.Q(publish_from__isnull=False),
                fields=["received_at"],
                name="episode_outbox_pending",
            ),
        ),
        migrations.RunSQL(OUTBOX_NOTIFY, DROP_OUTBOX_NOTIFY),
        migrations.CreateModel(
            name="WorkerHeartbeat",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("node", models.CharField(max_length=255, unique=True)),
                ("pid", models.PositiveIntegerField()),
                ("started_at", models.DateTimeField()),
                ("seen_at", models.DateTimeField()),
            ],
        ),
    ]
