"""Pick the embedder and the extractor the settings ask for; each is built once per process."""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

from django.conf import settings

from memhq.ai.llm import LLMConfig

if TYPE_CHECKING:
    from ingestion.extractors.base import Extractor
    from memhq.ai.embeddings import Embedder


def llm_config() -> LLMConfig:
    return LLMConfig(
        base_url=settings.OPENAI_BASE_URL,
        api_key=settings.OPENAI_API_KEY or "not-needed",
        model=settings.OPENAI_MODEL,
        timeout_s=settings.OPENAI_TIMEOUT_S,
        stream=settings.OPENAI_STREAM,
        max_call_s=settings.OPENAI_MAX_CALL_S,
    )


@cache
def get_embedder() -> Embedder:
    if settings.MEMHQ_EMBEDDINGS == "openai":
        from memhq.ai.openai_embeddings import OpenAIEmbedder

        return OpenAIEmbedder(llm_config(), model=settings.OPENAI_EMBEDDING_MODEL)
    from memhq.ai.embeddings import get_local_embedder

    return get_local_embedder()


@cache
def get_extractor() -> Extractor:
    if settings.MEMHQ_EXTRACTOR == "openai":
        from ingestion.extractors.openai_extractor import OpenAIExtractor

        return OpenAIExtractor(llm_config(), examples=settings.MEMHQ_EXTRACT_EXAMPLES)
    from ingestion.extractors.rules import RulesExtractor

    return RulesExtractor()
