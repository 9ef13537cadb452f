"""An OpenAI-compatible chat backend (Gemini's compatible endpoint, vLLM, Ollama ...) with an on-disk
cache, bounded concurrency and retries, plus lenient parsing of what the model answers.

The API key is read from ``FASHIONRQ_LLM_API_KEY`` (or passed in) and only ever placed in the
``Authorization`` header: it is not part of any cache key, cache file, log line or ``repr``.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import random
import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import httpx

from fashionrq.errors import InputError
from fashionrq.progress import track

ENV_BASE_URL = "FASHIONRQ_LLM_BASE_URL"
ENV_MODEL = "FASHIONRQ_LLM_MODEL"
ENV_API_KEY = "FASHIONRQ_LLM_API_KEY"

log = logging.getLogger(__name__)


def default_cache_dir() -> Path:
    """``$FASHIONRQ_CACHE/llm`` (default ``~/.cache/fashionrq/llm``)."""
    return Path(os.environ.get("FASHIONRQ_CACHE", Path.home() / ".cache" / "fashionrq")) / "llm"


@dataclass(frozen=True)
class ChatResult:
    """The model's answer text, or the error that remained after every retry."""

    text: str | None
    error: str | None = None
    cached: bool = False
    attempts: int = 0

    @property
    def ok(self) -> bool:
        return self.text is not None


class LLMBackend:
    """Chat completions over HTTP: ``POST {base_url}/chat/completions``.

    ``base_url``, ``model`` and ``api_key`` default to the ``FASHIONRQ_LLM_*`` environment variables.
    Answers are cached under ``cache_dir`` keyed by sha256(model, messages, sampling params); calls run on
    at most ``max_concurrency`` threads, each retried up to ``max_attempts`` times on timeouts, transport
    errors, 429 and 5xx, waiting ``backoff * 2**attempt * (1 + jitter)`` seconds with jitter drawn from
    ``seed`` and the cache key (so reruns wait the same).
    """

    def __init__(
        self,
        base_url: str | None = None,
        model: str | None = None,
        api_key: str | None = None,
        *,
        temperature: float = 0.2,
        top_p: float = 0.8,
        timeout: float = 60.0,
        max_attempts: int = 4,
        backoff: float = 1.0,
        max_concurrency: int = 4,
        cache_dir: str | Path | None = None,
        seed: int = 0,
    ) -> None:
        self.base_url = (base_url or os.environ.get(ENV_BASE_URL) or "").rstrip("/")
        self.model = model or os.environ.get(ENV_MODEL) or ""
        if not self.base_url or not self.model:
            raise InputError(f"no LLM endpoint configured; set {ENV_BASE_URL} and {ENV_MODEL} (and {ENV_API_KEY} if the server needs one) or use the built-in verbalizer.")
        self._api_key = api_key if api_key is not None else os.environ.get(ENV_API_KEY)
        self.temperature = temperature
        self.top_p = top_p
        self.timeout = timeout
        self.max_attempts = max(1, int(max_attempts))
        self.backoff = backoff
        self.max_concurrency = max(1, int(max_concurrency))
        self.cache_dir = Path(cache_dir) if cache_dir is not None else default_cache_dir()
        self.seed = seed
        self._lock = threading.Lock()
        self.requests = 0  # HTTP requests sent (retries included)
        self.cache_hits = 0
        self.failures = 0  # calls that failed after every attempt

    def __repr__(self) -> str:
        return f"LLMBackend(base_url={self.base_url!r}, model={self.model!r})"

    @property
    def params(self) -> dict:
        return {"temperature": self.temperature, "top_p": self.top_p}

    def cache_key(self, messages: list[dict]) -> str:
        blob = json.dumps({"model": self.model, "messages": messages, "params": self.params}, sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(blob.encode()).hexdigest()

    # -- cache ---------------------------------------------------------------------------------------------
    def _cache_path(self, key: str) -> Path:
        return self.cache_dir / key[:2] / f"{key}.json"

    def _cache_get(self, key: str) -> str | None:
        path = self._cache_path(key)
        if not path.exists():
            return None
        try:
            return json.loads(path.read_text())["content"]
        except (OSError, ValueError, KeyError):
            return None

    def _cache_put(self, key: str, content: str) -> None:
        path = self._cache_path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".tmp{os.getpid()}")
        tmp.write_text(json.dumps({"model": self.model, "params": self.params, "content": content}, ensure_ascii=False))
        tmp.replace(path)

    # -- calls ---------------------------------------------------------------------------------------------
    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        return headers

    def _delay(self, key: str, attempt: int) -> float:
        jitter = random.Random(f"{self.seed}:{key}:{attempt}").random()
        return self.backoff * (2 ** attempt) * (1.0 + 0.5 * jitter)

    def _call(self, client: httpx.Client, messages: list[dict]) -> ChatResult:
        key = self.cache_key(messages)
        cached = self._cache_get(key)
        if cached is not None:
            with self._lock:
                self.cache_hits += 1
            return ChatResult(cached, cached=True)
        body = {"model": self.model, "messages": messages, **self.params}
        error = "no attempt made"
        for attempt in range(self.max_attempts):
            if attempt:
                time.sleep(self._delay(key, attempt - 1))
            with self._lock:
                self.requests += 1
            try:
                response = client.post(f"{self.base_url}/chat/completions", json=body, headers=self._headers())
            except httpx.HTTPError as err:  # timeouts and transport errors: retry
                error = f"{type(err).__name__}"
                log.info("LLM call %s attempt %d/%d failed: %s", key[:12], attempt + 1, self.max_attempts, error)
                continue
            if response.status_code == 429 or response.status_code >= 500:
                error = f"HTTP {response.status_code}"
                log.info("LLM call %s attempt %d/%d failed: %s", key[:12], attempt + 1, self.max_attempts, error)
                continue
            if response.status_code >= 400:
                error = f"HTTP {response.status_code}"
                log.warning("LLM call %s rejected with %s; not retried", key[:12], error)
                break
            try:
                content = response.json()["choices"][0]["message"]["content"]
            except (ValueError, KeyError, IndexError, TypeError):
                error = "response is not a chat completion"
                log.info("LLM call %s attempt %d/%d: %s", key[:12], attempt + 1, self.max_attempts, error)
                continue
            if not isinstance(content, str):
                error = "response content is not text"
                continue
            self._cache_put(key, content)
            return ChatResult(content, attempts=attempt + 1)
        with self._lock:
            self.failures += 1
        log.warning("LLM call %s failed after %d attempt(s): %s", key[:12], self.max_attempts, error)
        return ChatResult(None, error=error, attempts=self.max_attempts)

    def chat(self, messages: list[dict]) -> ChatResult:
        """One chat completion (from the cache when the same model, messages and params were asked before)."""
        return self.chat_many([messages])[0]

    def chat_many(self, conversations: list[list[dict]]) -> list[ChatResult]:
        """Chat completions of many conversations, concurrently, in input order."""
        with httpx.Client(timeout=self.timeout) as client, ThreadPoolExecutor(self.max_concurrency) as pool:
            results = pool.map(lambda m: self._call(client, m), conversations)
            return list(track(results, f"Asking {self.model}", total=len(conversations)))


# ---- lenient answer parsing ----------------------------------------------------------------------------
_FENCE = re.compile(r"```[a-zA-Z]*")
_TRAILING_COMMA = re.compile(r",\s*([}\]])")
_LIST_LINE = re.compile(r"^\s*(?:\d+\s*[.):]|[-*•])\s+(.+?)\s*$")


def _first_object(text: str) -> str | None:
    """The first balanced ``{...}`` in ``text`` (string-aware), or ``None``."""
    start = text.find("{")
    while start != -1:
        depth, in_string, escape = 0, False, False
        for i in range(start, len(text)):
            ch = text[i]
            if in_string:
                if escape:
                    escape = False
                elif ch == "\\":
                    escape = True
                elif ch == '"':
                    in_string = False
                continue
            if ch == '"':
                in_string = True
            elif ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    return text[start:i + 1]
        start = text.find("{", start + 1)
    return None


def parse_json_answer(text: str) -> tuple[dict | None, bool]:
    """``(object, strict)``: the first JSON object of a model answer, code fences stripped and trailing
    commas tolerated; ``strict`` is False when repairs were needed; ``(None, False)`` when none parses."""
    stripped = _FENCE.sub("", text).strip()
    try:
        obj = json.loads(stripped)
        if isinstance(obj, dict):
            return obj, True
    except ValueError:
        pass
    block = _first_object(stripped)
    if block is None:
        return None, False
    for candidate in (block, _TRAILING_COMMA.sub(r"\1", block)):
        try:
            obj = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(obj, dict):
            return obj, False
    return None, False


def free_text_queries(text: str) -> list[str]:
    """Numbered or bulleted lines of a free-text answer, quotes stripped."""
    out = []
    for line in _FENCE.sub("", text).splitlines():
        m = _LIST_LINE.match(line)
        if m:
            query = m.group(1).strip().strip('"“”').strip()
            if query:
                out.append(query)
    return out


@dataclass
class GenerationAnswer:
    """What one generation answer held after lenient parsing."""

    queries: list[str]
    coverage_map: dict[str, list] | None
    insights: object = None
    validation_checks: object = None
    malformed: bool = False


def parse_generation_answer(text: str) -> GenerationAnswer:
    """Queries, coverage map, insights and checks of a model answer (JSON, repaired JSON or free text)."""
    obj, strict = parse_json_answer(text)
    if obj is not None and isinstance(obj.get("queries"), list):
        queries = []
        for q in obj["queries"]:
            if isinstance(q, dict):
                q = q.get("query") or q.get("text")
            if isinstance(q, str) and q.strip():
                queries.append(q.strip())
        cmap = obj.get("coverage_map")
        return GenerationAnswer(queries, cmap if isinstance(cmap, dict) else None, obj.get("insights"),
                                obj.get("validation_checks"), malformed=not strict)
    return GenerationAnswer(free_text_queries(text), None, malformed=True)
