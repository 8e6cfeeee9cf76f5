"""Working memory (threads): compaction, the inactivity sweep, prepare-and-recall and the admin.

Models live in ``memhq.models.threads``, writes in ``memhq.services.threads``, reads in
``memhq.selectors.threads``, the prepare SQL in ``retrieval.prepare``, Celery tasks in ``memhq.thread_tasks``.
"""
