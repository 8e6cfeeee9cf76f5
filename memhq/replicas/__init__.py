"""Reads on PostgreSQL streaming replicas (``DATABASE_REPLICA_URLS``), with read-your-writes.

``pool``: which replicas answer and how far behind they are. ``freshness``: the primary's WAL position
after each user-visible write, per user, thread and project (Redis). ``routing``: runs a read on a replica
that has replayed its scope's last write, else on the primary; a failed replica is left out, never an error.
docs/deployment.md says how to run them.
"""
