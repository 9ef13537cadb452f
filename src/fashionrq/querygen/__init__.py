"""Query generation (§3, §8.0.2): shopper queries per cluster, and φ(q) attribute enrichment.

``generate_queries(cluster, items, backend="verbalizer" | LLMBackend, seed)`` -> ``QuerySet``;
``enrich(texts, parser)`` -> φ(q) per text with a ``LexiconParser`` or an ``LLMEnricher``.
"""

from fashionrq.querygen.enrich import LLMEnricher, enrich, normalise_query, parser_agreement, parser_warnings, unique_queries
from fashionrq.querygen.generate import generate_all, generate_queries
from fashionrq.querygen.llm import LLMBackend
from fashionrq.querygen.parser import LexiconParser
from fashionrq.querygen.records import CATCH_ALL, PHI_KEYS, GeneratedQuery, QuerySet

__all__ = [
    "CATCH_ALL", "PHI_KEYS", "GeneratedQuery", "LLMBackend", "LLMEnricher", "LexiconParser", "QuerySet", "enrich",
    "generate_all", "generate_queries", "normalise_query", "parser_agreement", "parser_warnings", "unique_queries",
]
