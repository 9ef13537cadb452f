"""An OpenAI-compatible chat backend (Gemini's compatible endpoint, vLLM, Ollama, llama.cpp ...) with an
on-disk cache, bounded answers, an adaptive concurrency limit, bounded retries, progress with an estimate and
a stop once too many calls fail, plus lenient parsing of what the model answers.

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
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

import httpx

from fashionrq.errors import FashionRQError, InputError
from fashionrq.io import atomic_write_text
from fashionrq.layout import default_cache_dir
from fashionrq.querygen.pacing import AdaptiveLimit, CallProgress

ENV_BASE_URL = "FASHIONRQ_LLM_BASE_URL"
ENV_MODEL = "FASHIONRQ_LLM_MODEL"
ENV_API_KEY = "FASHIONRQ_LLM_API_KEY"

log = logging.getLogger(__name__)

#: How a request asks for JSON of a schema: ``json_object`` with the schema beside it (llama-cpp-python's server,
#: Anyscale), ``json_schema`` (OpenAI's structured outputs: llama.cpp's llama-server, vLLM, Gemini), or ``none``.
RESPONSE_FORMATS = ("json_object", "json_schema", "none")
#: A server that answers 400/422 to a request with a ``response_format`` gets it once more without one.
SCHEMA_REFUSED = "the server refused the response_format"


def response_format(style: str, schema: dict) -> dict:
    """The ``response_format`` field of a chat request asking for JSON matching ``schema``."""
    if style == "json_schema":
        return {"type": "json_schema", "json_schema": {"name": "answer", "schema": schema, "strict": True}}
    return {"type": "json_object", "schema": schema}


@dataclass(frozen=True)
class ChatResult:
    """The model's answer text, or the error that remained after every retry."""

    text: str | None
    error: str | None = None
    cached: bool = False
    attempts: int = 0
    truncated: bool = False  # the answer stopped at max_tokens

    @property
    def ok(self) -> bool:
        return self.text is not None


class LLMUnusableError(FashionRQError):
    """Too many LLM calls failed for the answers to be worth a release (exit code 5)."""

    exit_code = 5


class LLMBackend:
    """Chat completions over HTTP: ``POST {base_url}/chat/completions``.

    ``base_url``, ``model`` and ``api_key`` default to the ``FASHIONRQ_LLM_*`` environment variables.
    Answers are cached under ``cache_dir`` keyed by sha256(model, messages, sampling params, max_tokens).
    Every request asks for at most ``max_tokens`` tokens, so a looping model stops. At most ``max_concurrency``
    calls are in flight; a timeout halves that limit (see ``querygen.pacing``). Each call is retried up to
    ``max_attempts`` times on timeouts, transport errors, 429 and 5xx, waiting ``backoff * 2**attempt *
    (1 + jitter)`` seconds with jitter drawn from ``seed`` and the cache key (so reruns wait the same); a retry
    after a timeout waits twice as long for its answer (at most 4 × ``timeout``). Once at least
    ``min_calls`` calls (or all of them) finished and more than ``max_failure_rate`` of them failed, the
    remaining calls are cancelled and ``LLMUnusableError`` is raised.
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
        max_tokens: int = 1024,
        max_failure_rate: float = 0.5,
        min_calls: int = 8,
        cache_dir: str | Path | None = None,
        seed: int = 0,
        response_format: str = "json_object",
    ) -> None:
        self.base_url = (base_url or os.environ.get(ENV_BASE_URL) or "").rstrip("/")
        self.model = model or os.environ.get(ENV_MODEL) or ""
        if not self.base_url or not self.model:
            raise InputError(f"no LLM endpoint configured; set {ENV_BASE_URL} and {ENV_MODEL} (and {ENV_API_KEY} if the server needs one) or use the built-in verbalizer.")
        self._api_key = api_key if api_key is not None else os.environ.get(ENV_API_KEY)
        self.temperature = temperature
        self.top_p = top_p
        self.timeout = _positive("timeout", timeout)
        self.max_attempts = max(1, int(max_attempts))
        self.backoff = backoff
        self.max_concurrency = int(_positive("max_concurrency", max_concurrency))
        self.max_tokens = int(_positive("max_tokens", max_tokens))
        if not 0.0 <= max_failure_rate <= 1.0:
            raise InputError(f"max_failure_rate is {max_failure_rate}; pass a share between 0 and 1, e.g. 0.5.")
        self.max_failure_rate = max_failure_rate
        self.min_calls = max(1, int(min_calls))
        self.cache_dir = Path(cache_dir) if cache_dir is not None else default_cache_dir() / "llm"
        self.seed = seed
        if response_format not in RESPONSE_FORMATS:
            raise InputError(f"LLM response format {response_format!r} is unknown; choose one of {', '.join(RESPONSE_FORMATS)}.")
        self.response_format = response_format
        self.schema_refused = 0  # requests resent without a schema because the server refused it
        self._lock = threading.Lock()
        self.requests = 0  # HTTP requests sent (retries included)
        self.cache_hits = 0
        self.failures = 0  # calls that failed after every attempt
        self.timeouts = 0  # requests that timed out
        self.truncated = 0  # answers cut at max_tokens
        self.lowest_concurrency = self.max_concurrency
        self._limit = AdaptiveLimit(self.max_concurrency, hold=self.timeout)

    def __repr__(self) -> str:
        return f"LLMBackend(base_url={self.base_url!r}, model={self.model!r})"

    @property
    def params(self) -> dict:
        return {"temperature": self.temperature, "top_p": self.top_p}

    def _body_params(self, max_tokens: int | None, schema: dict | None = None) -> dict:
        params = {**self.params, "max_tokens": min(max_tokens or self.max_tokens, self.max_tokens)}
        if schema is not None and self.response_format != "none":
            params["response_format"] = response_format(self.response_format, schema)
        return params

    def cache_key(self, messages: list[dict], max_tokens: int | None = None, schema: dict | None = None) -> str:
        params = self._body_params(max_tokens, schema)
        blob = json.dumps({"model": self.model, "messages": messages, "params": params}, sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(blob.encode()).hexdigest()

    # -- cache ---------------------------------------------------------------------------------------------
    def _cache_path(self, key: str) -> Path:
        return self.cache_dir / key[:2] / f"{key}.json"

    def _cache_get(self, key: str) -> ChatResult | None:
        path = self._cache_path(key)
        if not path.exists():
            return None
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
            return ChatResult(record["content"], cached=True, truncated=bool(record.get("truncated")))
        except (OSError, ValueError, KeyError):
            return None

    def _cache_put(self, key: str, content: str, params: dict, truncated: bool) -> None:
        record = {"model": self.model, "params": params, "content": content, "truncated": truncated}
        atomic_write_text(self._cache_path(key), json.dumps(record, ensure_ascii=False))

    # -- calls ---------------------------------------------------------------------------------------------
    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        return headers

    def _delay(self, key: str, attempt: int) -> float:
        jitter = random.Random(f"{self.seed}:{key}:{attempt}").random()
        return self.backoff * (2 ** attempt) * (1.0 + 0.5 * jitter)

    def _post(self, client: httpx.Client, body: dict, key: str, timeout: float) -> tuple[ChatResult | None, str, bool, bool]:
        """One request: ``(result or None, error, worth retrying, timed out)``."""
        with self._lock:
            self.requests += 1
        try:
            response = client.post(f"{self.base_url}/chat/completions", json=body, headers=self._headers(), timeout=timeout)
        except httpx.TimeoutException as err:
            return None, type(err).__name__, True, True
        except httpx.HTTPError as err:  # transport errors: retry
            return None, type(err).__name__, True, False
        if response.status_code == 429 or response.status_code >= 500:
            return None, f"HTTP {response.status_code}", True, False
        if response.status_code in (400, 422) and "response_format" in body:
            return None, SCHEMA_REFUSED, True, False  # resent without the schema
        if response.status_code >= 400:
            return None, f"HTTP {response.status_code}", False, False
        try:
            choice = response.json()["choices"][0]
            content = choice["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            return None, "response is not a chat completion", True, False
        if not isinstance(content, str):
            return None, "response content is not text", True, False
        truncated = choice.get("finish_reason") == "length"
        params = {k: v for k, v in body.items() if k not in ("model", "messages")}
        self._cache_put(key, content, params, truncated)
        return ChatResult(content, truncated=truncated), "", False, False

    def _call(self, client: httpx.Client, messages: list[dict], max_tokens: int | None = None,
              schema: dict | None = None) -> ChatResult:
        key = self.cache_key(messages, max_tokens, schema)
        cached = self._cache_get(key)
        if cached is not None:
            with self._lock:
                self.cache_hits += 1
                self.truncated += cached.truncated  # a property of the answer, so a rerun reports the same
            return cached
        body = {"model": self.model, "messages": messages, **self._body_params(max_tokens, schema)}
        error, timeouts, attempt = "no attempt made", 0, 0
        for attempt in range(1, self.max_attempts + 1):
            if attempt > 1:
                time.sleep(self._delay(key, attempt - 2))
            if not self._limit.acquire():
                return ChatResult(None, error="stopped", attempts=attempt - 1)
            timed_out = False
            try:  # a retry after a timeout waits longer for its answer: the server may just be queueing
                result, error, retry, timed_out = self._post(client, body, key, min(self.timeout * 2 ** timeouts, 4 * self.timeout))
            finally:
                self._limit.release(timed_out)
            timeouts += timed_out
            if error == SCHEMA_REFUSED:
                body.pop("response_format")
                with self._lock:
                    self.schema_refused += 1
            if result is not None:
                with self._lock:
                    self.timeouts += timeouts
                    self.truncated += result.truncated
                return ChatResult(result.text, attempts=attempt, truncated=result.truncated)
            log.info("LLM call %s attempt %d/%d failed: %s", key[:12], attempt, self.max_attempts, error)
            if not retry:
                break
        with self._lock:
            self.failures += 1
            self.timeouts += timeouts
        log.warning("LLM call %s failed after %d attempt(s): %s", key[:12], attempt, error)
        return ChatResult(None, error=error, attempts=attempt)

    def chat(self, messages: list[dict], max_tokens: int | None = None, schema: dict | None = None) -> ChatResult:
        """One chat completion (from the cache when the same model, messages and params were asked before)."""
        return self.chat_many([messages], max_tokens, schema)[0]

    def chat_many(self, conversations: list[list[dict]], max_tokens: int | None = None,
                  schema: dict | None = None) -> list[ChatResult]:
        """Chat completions of many conversations, concurrently, in input order; ``max_tokens`` (capped at the
        backend's) bounds each answer; ``schema`` (a JSON schema) asks the server for JSON of that shape in the
        backend's :data:`RESPONSE_FORMATS` style. Raises ``LLMUnusableError`` once too many calls failed."""
        results: list[ChatResult] = [ChatResult(None, error="not run")] * len(conversations)
        progress = CallProgress(len(conversations), f"Asking {self.model}")
        client = httpx.Client(timeout=self.timeout)
        pool = ThreadPoolExecutor(self.max_concurrency)
        try:
            futures = {pool.submit(self._call, client, m, max_tokens, schema): i for i, m in enumerate(conversations)}
            for future in as_completed(futures):
                result = results[futures[future]] = future.result()
                progress.advance(result.cached, result.error, self._limit.limit)
                self._check_failures(progress)
        except BaseException:
            self._limit.stop()  # waiting calls give up, running ones fail fast on the closed client
            pool.shutdown(wait=False, cancel_futures=True)
            client.close()
            raise
        finally:
            pool.shutdown(wait=True)
            client.close()
            progress.close()
            self.lowest_concurrency = min(self.lowest_concurrency, self._limit.lowest)
        return results

    def _check_failures(self, progress: CallProgress) -> None:
        """Stop once ``min_calls`` calls (or all) finished and more than ``max_failure_rate`` of them failed."""
        done = progress.done
        if done < self.min_calls and done < progress.total:
            return
        if progress.failed > self.max_failure_rate * done:
            errors = ", ".join(f"{error} ×{n}" for error, n in progress.errors.most_common(3))
            raise LLMUnusableError(
                f"stopped asking {self.model} at {self.base_url}: {progress.failed} of {done} calls failed ({errors}), "
                f"more than the {self.max_failure_rate:.0%} allowed, so the release would be mostly fallback queries; "
                "check that the server answers, or raise --llm-timeout or lower --llm-concurrency "
                "(answers so far are cached, so a rerun resumes)."
            )


def _positive(name: str, value: float) -> float:
    if not value or value <= 0:
        raise InputError(f"the LLM setting {name} is {value!r}; pass a positive number.")
    return value


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
