import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
# A web process embeds one short query per recall, where latency is what counts: two onnxruntime threads
# (8.4 → 6.6 ms per query on a 2-core box) unless MEMHQ_EMBED_THREADS says otherwise. Workers keep 1.
if not os.environ.get("MEMHQ_EMBED_THREADS"):
    os.environ["MEMHQ_EMBED_THREADS"] = "2"
application = get_wsgi_application()
