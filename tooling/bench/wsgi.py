"""WSGI entry of the benchmark's baseline server (``gunicorn tooling.bench.wsgi:application``).

It forces the bench settings: the parent process may export DJANGO_SETTINGS_MODULE=config.settings.
"""

import os

from django.core.wsgi import get_wsgi_application

SETTINGS_MODULE = "tooling.bench.settings"

os.environ["DJANGO_SETTINGS_MODULE"] = SETTINGS_MODULE
application = get_wsgi_application()
