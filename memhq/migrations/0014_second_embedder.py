"""The second embedder's vector (``memhq.ai.e5``, ``MEMHQ_SECOND_EMBEDDER``) on messages.

The column stays NULL while the setting is off; an HNSW index holds no NULLs, so it costs nothing then.
Messages stored before the setting was turned on get theirs from ``manage.py memhq_embed_second``.
"""

import pgvector.django.indexes
import pgvector.django.vector
from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('memhq', '0013_episode_error_kind'),
    ]

    operations = [
        migrations.AddField(
            model_name='episodemessage',
            name='embedding_e5',
            field=pgvector.django.vector.VectorField(blank=True, dimensions=384, null=True),
        ),
        migrations.AddIndex(
            model_name='episodemessage',
            index=pgvector.django.indexes.HnswIndex(ef_construction=64, fields=['embedding_e5'], m=16, name='message_embedding_e5_hnsw', opclasses=['vector_cosine_ops']),
        ),
    ]
