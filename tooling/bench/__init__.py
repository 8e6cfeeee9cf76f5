"""Benchmarks behind ``manage.py memhq_bench <name>``: one module per benchmark, shared load and report code.

- ``http``: the load generator (closed-loop clients or a fixed arrival rate over raw HTTP/1.1).
- ``report``: percentiles, the printed table, the JSON document.
- ``server``: a gunicorn started exactly like the Procfile's web line, on a free loopback port.
- ``cpu``: CPU seconds per process group (client, web, postgres, redis) over the measured window.
- ``add``: ``POST /v1/memhq/add`` against a one-INSERT baseline (``baseline``, mounted by ``urls``/``wsgi``).
"""
