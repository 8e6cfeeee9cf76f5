"""Errors the AI edges raise, split by what the caller should do about them."""


class TransientAIError(Exception):
    """Worth retrying: a timeout, a 429, a 5xx, a connection error, or a model answer that did not parse."""


class PermanentAIError(Exception):
    """Retrying will not help: bad credentials, a 4xx other than 429, a model that does not exist."""
