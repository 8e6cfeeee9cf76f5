"""Tooling, not product: the benchmarks (``bench/``, ``manage.py memhq_bench``), the retrieval evaluation
(``evaluation/``, ``manage.py memhq_eval``) and the extraction evaluation (``manage.py
memhq_extraction_eval``). Installed as a Django app for its commands; nothing in ``memhq``, ``ingestion`` or
``retrieval`` imports it."""
