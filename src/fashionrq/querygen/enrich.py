"""φ(q) enrichment of generated queries, and how well a parser recovers the verbalizer's attributes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from fashionrq.querygen.llm import LLMBackend, parse_json_answer
from fashionrq.querygen.prompt import ENRICH_SCHEMA, enrichment_messages
from fashionrq.querygen.records import PHI_KEYS, GeneratedQuery
from fashionrq.vocab import normalise_price_hint


class PhiParser(Protocol):
    """Anything that turns query texts into φ(q) dicts (``LexiconParser``, ``LLMEnricher``)."""

    def parse_many(self, texts: list[str]) -> list[dict[str, list[str] | None]]: ...


def normalise_query(text: str) -> str:
    """The de-duplication key of a query: lower-case, single spaces, no trailing punctuation."""
    return " ".join(text.lower().split()).strip(" ?.!")


def unique_queries(texts: Sequence[str]) -> list[str]:
    """First occurrence of every query, de-duplicated by :func:`normalise_query`, in input order."""
    seen: dict[str, str] = {}
    for text in texts:
        seen.setdefault(normalise_query(text), text)
    return list(seen.values())


def enrich(texts: Sequence[str], parser: PhiParser) -> list[dict[str, list[str] | None]]:
    """φ(q) of every text, aligned with ``texts``: duplicates (case/space-normalised) are parsed once."""
    unique = unique_queries(texts)
    parsed = dict(zip((normalise_query(t) for t in unique), parser.parse_many(unique)))
    return [parsed[normalise_query(t)] for t in texts]


def parser_agreement(queries: Sequence[GeneratedQuery], parser: PhiParser,
                     held_out: bool = True) -> dict[str, dict[str, float]]:
    """Per φ attribute: micro precision and recall of the parsed values against ``GeneratedQuery.expressed``.

    Precision counts parsed values the query really expresses; recall counts expressed values the parser
    found (values compared case-insensitively). ``support`` is the number of expressed values. Attributes never expressed nor parsed are left out.
    ``held_out=False`` leaves out each query's conditions written in a held-out wording (``GeneratedQuery.held_out``),
    which the public lexicon misses by design: what is left measures the parser itself.
    """
    phis = enrich([q.text for q in queries], parser)
    counts = {key: [0, 0, 0] for key in PHI_KEYS}  # true positives, parsed, expressed
    for query, phi in zip(queries, phis):
        for key in PHI_KEYS if held_out else [k for k in PHI_KEYS if k not in query.held_out]:
            # values compare case-insensitively ("ADIDAS" is "Adidas")
            gold = {v.casefold() for v in query.expressed.get(key) or ()}
            got = {v.casefold() for v in phi.get(key) or ()}
            counts[key][0] += len(gold & got)
            counts[key][1] += len(got)
            counts[key][2] += len(gold)
    out = {}
    for key, (tp, parsed, gold) in counts.items():
        if parsed or gold:
            out[key] = {"precision": tp / parsed if parsed else 1.0, "recall": tp / gold if gold else 1.0, "support": gold}
    return out


#: Below this precision or recall the public parser's reading of an attribute is worth a warning (parser_warnings).
PARSER_BAR = 0.8
#: Expressed values an attribute needs before its precision and recall are read as more than noise.
PARSER_MIN_SUPPORT = 20


def parser_warnings(agreement: dict[str, dict[str, float]]) -> list[str]:
    """One sentence per attribute that the public parser reads with precision or recall below :data:`PARSER_BAR`
    (over at least :data:`PARSER_MIN_SUPPORT` expressed values), from :func:`parser_agreement`'s table without the
    held-out wordings (``held_out=False``: those it misses by design)."""
    out = []
    for key, v in sorted(agreement.items()):
        if v["support"] < PARSER_MIN_SUPPORT or min(v["precision"], v["recall"]) >= PARSER_BAR:
            continue
        misses = [f"recall {v['recall']:.3f}: it misses {1 - v['recall']:.0%} of the {key} conditions the queries state"
                  ] if v["recall"] < PARSER_BAR else []
        misses += [f"precision {v['precision']:.3f}: {1 - v['precision']:.0%} of the {key} values it reads are not asked for"
                   ] if v["precision"] < PARSER_BAR else []
        out.append(f"the public LexiconParser reads {key} with " + "; ".join(misses) + f" (support {v['support']:,}), so a "
                   f"system that filters or reranks by it (hybrid's verifier) is held back on {key}; the labels come from the "
                   "hidden φ(q), not from this parser.")
    return out


#: A φ(q) answer is one small JSON object; a model that keeps nesting keys is cut off here.
ENRICH_MAX_TOKENS = 256


class LLMEnricher:
    """φ(q) from a second chat call per unique query, canonicalised with the lexicon; a failed call or an
    answer that is not a JSON object falls back to the lexicon parse of that query."""

    def __init__(self, backend: LLMBackend, fallback: PhiParser) -> None:
        self.backend = backend
        self.fallback = fallback
        self.malformed = 0
        self.failed = 0

    def _canonical(self, key: str, values) -> list[str] | None:
        if values is None:
            return None
        values = [values] if isinstance(values, str) else values
        if not isinstance(values, list):
            return None
        out: list[str] = []
        for value in values:
            if not isinstance(value, str) or not value.strip():
                continue
            if key == "price_hint":
                value = normalise_price_hint(value)
                if value is None:
                    continue
                mapped = [value]
            else:
                mapped = self.fallback.parse(value).get(key) or [value.strip()]
            out += [v for v in mapped if v not in out]
        return sorted(out) or None

    def parse_many(self, texts: list[str]) -> list[dict[str, list[str] | None]]:
        results = self.backend.chat_many([enrichment_messages(t) for t in texts], max_tokens=ENRICH_MAX_TOKENS, schema=ENRICH_SCHEMA)
        out = []
        for text, result in zip(texts, results):
            if not result.ok:
                self.failed += 1
                out.append(self.fallback.parse(text))
                continue
            obj, strict = parse_json_answer(result.text)
            if obj is None or not any(k in obj for k in PHI_KEYS):
                self.malformed += 1
                out.append(self.fallback.parse(text))
                continue
            self.malformed += int(not strict)
            out.append({key: self._canonical(key, obj.get(key)) for key in PHI_KEYS})
        return out
