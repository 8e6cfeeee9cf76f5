# Batch kind "retry": an operator re-ran a failed episode (memhq/services/episode_retry.py). Choices only.

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("memhq", "0009_reliability_outbox_claims_heartbeats"),
    ]

    operations = [
        migrations.AlterField(
            model_name="batch",
            name="kind",
            field=models.CharField(
                choices=[
                    ("episode", "Episode"),
                    ("consolidation", "Consolidation"),
                    ("edit", "Edit"),
                    ("revert", "Revert"),
                    ("retry", "Retry"),
                ],
                max_length=16,
            ),
        ),
    ]
