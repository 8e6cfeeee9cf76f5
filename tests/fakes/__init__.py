"""Fakes for the network edges (the OpenAI-compatible API); everything else in tests is real."""
