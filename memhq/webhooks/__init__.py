"""Webhook delivery: Standard Webhooks signing, address policy, retry schedule, sending, sweeps.

Writes driven by the API live in ``memhq.services.webhooks``; this package is what the workers run.
"""
