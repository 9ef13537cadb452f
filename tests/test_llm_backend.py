"""The LLM backend against a real OpenAI-compatible HTTP server on loopback that misbehaves on purpose."""

from __future__ import annotations

import json
import logging
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pandas as pd
import pytest

from fashionrq.errors import InputError
from fashionrq.hierarchy import build_hierarchy
from fashionrq.querygen import PHI_KEYS, LexiconParser, LLMBackend, LLMEnricher, enrich, generate_all, generate_queries
from fashionrq.querygen.llm import free_text_queries, parse_generation_answer, parse_json_answer

KEY = "sk-test-5f3a9c1e-never-written"


class ChatServer(ThreadingHTTPServer):
    """Speaks POST /v1/chat/completions; ``modes[cluster_id]`` picks how it answers a generation prompt."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), ChatHandler)
        self.lock = threading.Lock()
        self.modes: dict[str, str] = {}
        self.requests = 0
        self.attempts: dict[str, int] = {}
        self.auth: set[str] = set()
        self.in_flight = 0
        self.max_in_flight = 0
        self.delay = 0.0
        self.single_slot: threading.Lock | None = None  # set: one request served at a time, like llama.cpp
        self.max_tokens: list[int] = []
        self.formats: list[dict | None] = []  # each request's response_format
        self.refuse_schema = False  # answer 422 to a request with a response_format, as a server without JSON mode

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


def _queries_for(context: dict) -> tuple[list[str], dict[str, list[int]]]:
    """What a well-behaved model would answer: one query per required type, then general ones."""
    queries, cmap = [], {}
    universal = context["exclusivity_constraints"]["universal_values"]
    gender = {"Men": "men's ", "Women": "women's "}.get((universal.get("gender") or [""])[0], "")
    for t in context["required_product_types"]:
        cmap[t] = [len(queries)]
        queries.append(f"show me {gender}{t.lower()}")
    primary = context["prefix"]["primary_value"].lower()
    for frame in ("looking for {}", "i need {} for everyday wear", "{} under ₹2,000", "best {}", "any {}?", "{} please"):
        if len(queries) >= 6:
            break
        queries.append(frame.format(primary))
    return queries, cmap


class ChatHandler(BaseHTTPRequestHandler):
    def log_message(self, *args) -> None:  # keep the test output quiet
        pass

    def _reply(self, status: int, content: str | None = None) -> None:
        body = json.dumps({"choices": [{"message": {"role": "assistant", "content": content}}]}) if content is not None else "oops"
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        try:
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up waiting (timeout test)
            pass

    def do_POST(self) -> None:
        server: ChatServer = self.server
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        prompt = body["messages"][-1]["content"]
        with server.lock:
            server.requests += 1
            server.auth.add(self.headers.get("Authorization", ""))
            server.in_flight += 1
            server.max_in_flight = max(server.max_in_flight, server.in_flight)
            attempt = server.attempts[prompt] = server.attempts.get(prompt, 0) + 1
        try:
            if server.single_slot is not None:
                with server.single_slot:
                    time.sleep(server.delay)  # the server finishes a request even when the client gave up
            else:
                time.sleep(server.delay)
            server.max_tokens.append(body["max_tokens"])
            server.formats.append(body.get("response_format"))
            if server.refuse_schema and "response_format" in body:
                return self._reply(422, "response_format is not supported")
            assert self.path == "/v1/chat/completions" and body["temperature"] == 0.2 and body["top_p"] == 0.8
            if "DATA CONTEXT:" in prompt:
                self._generation(server, json.loads(prompt.split("DATA CONTEXT:\n", 1)[1]), attempt)
            else:
                self._enrichment(prompt.rsplit("Query: ", 1)[1])
        finally:
            with server.lock:
                server.in_flight -= 1

    def _generation(self, server: ChatServer, context: dict, attempt: int) -> None:
        mode = server.modes.get(context["prefix"]["cluster_id"], "ok")
        queries, cmap = _queries_for(context)
        answer = {"queries": queries, "insights": "a test cluster", "validation_checks": ["distinct from siblings"], "coverage_map": cmap}
        if mode == "always500" or (mode == "flaky500" and attempt == 1):
            return self._reply(500)
        if mode == "slow_once" and attempt == 1:
            time.sleep(3.0)  # past the client timeout
        if mode == "bad_body" and attempt == 1:
            return self._reply(200)
        if mode == "ok":  # one claim no item supports: flagged, not silently trusted
            answer["queries"].append(f"{context['prefix']['primary_value'].lower()} for toddlers")
        if mode == "gap":
            answer["coverage_map"] = dict(list(cmap.items())[1:])
        text = json.dumps(answer)
        if mode == "fenced":  # code fence, prose around it and trailing commas
            text = "Here you go:\n```json\n" + text.replace("]", ",]").replace("}", ",}", 1) + "\n```\nHope it helps!"
        elif mode == "freetext":
            text = "Sure! Queries:\n" + "\n".join(f"{i + 1}. {q}" for i, q in enumerate(queries))
        elif mode == "garbage":
            text = "I cannot help with that request."
        elif mode == "vacuous":  # well-formed JSON that says nothing, as SmolLM2-135M answers under a schema
            cid = context["prefix"]["cluster_id"]
            text = json.dumps({"queries": [f"search_query {cid}", f"keywords {cid}"]})
        self._reply(200, text)

    def _enrichment(self, query: str) -> None:
        if query.startswith(("search_query", "keywords")):  # the vacuous queries: a φ that asserts nothing
            return self._reply(200, json.dumps(dict.fromkeys(PHI_KEYS)))
        if "kurtas" in query.lower():  # a model that rambles instead of answering JSON
            return self._reply(200, "The query is about ethnic wear.")
        phi = {"product_type": [query.split()[-1]], "gender": None, "age_group": None, "color": None, "pattern": None,
               "material": None, "occasion": None, "brand": None, "price_hint": ["cheap"], "style_tags": None}
        self._reply(200, "```json\n" + json.dumps(phi) + "\n```")


@pytest.fixture
def server():
    srv = ChatServer()
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()


@pytest.fixture(scope="module")
def items(fixture_items) -> pd.DataFrame:
    return fixture_items.to_pandas()


@pytest.fixture(scope="module")
def clusters(fixture_items, items):
    """Qualified clusters of a catalog-structure hierarchy (master category > sub-category > article type)."""
    codes = np.column_stack([pd.factorize(items[c].fillna("?"), sort=True)[0] for c in ("master_category", "sub_category", "article_type")])
    qualified = [c for c in build_hierarchy(fixture_items, codes).clusters.values() if c.qualified]
    mixed = [c for c in qualified if len([s for _, s in c.distributions["article_type"] if s >= 0.05]) > 1]
    pure = [c for c in qualified if c.level == 3 and c.size >= 20]
    return mixed[:2] + pure[:7]


def _backend(server, tmp_path, **kw) -> LLMBackend:
    params = dict(api_key=KEY, timeout=1.0, max_attempts=3, backoff=0.01, max_concurrency=4, cache_dir=tmp_path / "cache")
    params.update(kw)
    return LLMBackend(server.url, "stub-model", **params)


MODES = ["ok", "fenced", "freetext", "garbage", "flaky500", "always500", "slow_once", "gap", "bad_body"]


def test_pipeline_survives_a_misbehaving_server(server, tmp_path, clusters, items, caplog, capsys):
    caplog.set_level(logging.DEBUG)
    assert len(clusters) == len(MODES)
    server.modes = {c.cluster_id: m for c, m in zip(clusters, MODES)}
    backend = _backend(server, tmp_path)
    sets = dict(zip(MODES, generate_all(clusters, items, backend=backend, seed=0)))

    for mode in ("ok", "flaky500", "slow_once", "gap", "bad_body"):
        assert sets[mode].malformed == 0 and sets[mode].failed == 0, mode
        assert all(q.source == "llm:stub-model" for q in sets[mode].queries)
    assert sets["fenced"].malformed == 1 and len(sets["fenced"].queries) >= 6  # repaired, still usable
    assert sets["freetext"].malformed == 1 and sets["freetext"].queries[0].text.startswith("show me")
    assert sets["garbage"].malformed == 1 and sets["garbage"].queries[0].source == "verbalizer"
    assert sets["always500"].failed == 1 and 6 <= len(sets["always500"].queries) <= 12
    assert sets["always500"].queries[0].source == "verbalizer"
    required = [v for v, s in clusters[MODES.index("gap")].distributions["article_type"] if s >= 0.05]
    assert sets["gap"].coverage_gaps == required[:1]
    assert sets["ok"].coverage_gaps == []
    ok = sets["ok"].queries
    assert ok[-1].text in sets["ok"].unsupported and ok[-1].expressed["age_group"] == ["toddler"]
    assert not any(q.text.startswith("show me") for q in ok if q.text in sets["ok"].unsupported)  # sub-type coverage is fine
    assert ok[0].covers is not None and ok[0].expressed["product_type"]
    assert backend.failures == 1 and backend.requests == len(MODES) + 1 + 2 + 1 + 1  # first tries + retries (flaky, always500, slow, bad body)
    assert server.attempts and max(server.attempts.values()) == 3  # bounded attempts
    assert server.auth == {f"Bearer {KEY}"}

    # a second run is answered from the cache: only the always-failing cluster reaches the server again
    before = server.requests
    again = generate_all(clusters, items, backend=_backend(server, tmp_path), seed=0)
    assert server.requests - before == 3
    assert [q.texts for q in again] == [sets[m].texts for m in MODES]

    cached = list((tmp_path / "cache").rglob("*"))
    assert sum(p.is_file() for p in cached) == len(MODES) - 1
    for path in cached:
        if path.is_file():
            assert KEY not in path.read_text()
    out = capsys.readouterr()
    assert KEY not in caplog.text and KEY not in out.out + out.err and KEY not in repr(backend)
    assert "failed after 3 attempt" in caplog.text


def test_answers_are_bounded_by_max_tokens(server, tmp_path, clusters, items):
    backend = _backend(server, tmp_path, max_tokens=300)
    generate_all(clusters[:2], items, backend=backend, seed=0)
    LLMEnricher(backend, LexiconParser(items)).parse_many(["black tees"])
    assert server.max_tokens == [300, 300, 256]  # enrichment answers are small JSON objects


@pytest.mark.slow  # 11 s of real timeouts against the loopback server (README command 2 keeps under 5 minutes; CI runs it with -m slow)
def test_a_single_slot_server_gets_fewer_calls_instead_of_stacked_retries(server, tmp_path, clusters, items, capsys):
    server.single_slot, server.delay = threading.Lock(), 0.6  # 4 queued calls take 2.4 s; the client waits 1 s
    backend = _backend(server, tmp_path, max_attempts=4)
    sets = generate_all(clusters, items, backend=backend, seed=0)
    assert backend.timeouts >= 1 and backend.lowest_concurrency == 1  # it backed off
    assert backend.failures == 0 and sum(s.failed for s in sets) == 0  # and every call got its answer
    assert backend.requests <= len(clusters) + backend.timeouts  # one retry per timeout, never more
    err = " ".join(capsys.readouterr().err.split())
    assert f"{len(clusters)}/{len(clusters)} calls done (0 from the cache, 0 failed)" in err and "elapsed" in err


def test_stops_with_one_sentence_once_most_calls_fail(server, tmp_path, clusters, items):
    from fashionrq.querygen.llm import LLMUnusableError

    server.modes = {c.cluster_id: "always500" for c in clusters}
    backend = _backend(server, tmp_path, max_concurrency=1, min_calls=3, max_attempts=2)
    with pytest.raises(LLMUnusableError, match=r"3 of 3 calls failed \(HTTP 500 ×3\), more than the 50% allowed") as err:
        generate_all(clusters, items, backend=backend, seed=0)
    assert err.value.exit_code == 5 and "rerun resumes" in str(err.value)
    assert server.requests in (6, 7)  # at most the call already started when it stopped; the others were cancelled


def test_calls_run_concurrently_within_the_bound(server, tmp_path, clusters, items):
    server.delay = 0.1
    backend = _backend(server, tmp_path, max_concurrency=3)
    generate_all(clusters, items, backend=backend, seed=1)
    assert 2 <= server.max_in_flight <= 3


def test_llm_enrichment_deduplicates_canonicalises_and_falls_back(server, tmp_path, items):
    parser = LexiconParser(items)
    enricher = LLMEnricher(_backend(server, tmp_path), parser)
    texts = ["Show me cheap tees", "show me  CHEAP tees", "women's kurtas for a party", "men's formal shirts"]
    phis = enrich(texts, enricher)
    assert server.requests == 3  # the duplicate is asked once
    assert phis[0] == phis[1] and phis[0]["product_type"] == ["Tshirts"] and phis[0]["price_hint"] == ["budget"]
    assert phis[2] == parser.parse(texts[2]) and enricher.malformed == 1  # rambling answer -> lexicon parse
    assert phis[3]["product_type"] == ["Shirts"] and phis[3]["gender"] is None


def test_generate_queries_reads_the_endpoint_from_the_environment(server, tmp_path, clusters, items, monkeypatch):
    monkeypatch.setenv("FASHIONRQ_LLM_BASE_URL", server.url)
    monkeypatch.setenv("FASHIONRQ_LLM_MODEL", "env-model")
    monkeypatch.setenv("FASHIONRQ_LLM_API_KEY", KEY)
    monkeypatch.setenv("FASHIONRQ_CACHE", str(tmp_path))
    backend = LLMBackend(timeout=2.0)
    qset = generate_queries(clusters[0], items, backend=backend)
    assert qset.queries[0].source == "llm:env-model" and server.auth == {f"Bearer {KEY}"}
    assert list((tmp_path / "llm").rglob("*.json")) and KEY not in repr(backend)
    monkeypatch.delenv("FASHIONRQ_LLM_MODEL")
    with pytest.raises(InputError, match="FASHIONRQ_LLM_MODEL"):
        LLMBackend()


@pytest.mark.parametrize("style", ["json_object", "json_schema"])
def test_every_call_asks_for_json_of_its_schema(server, tmp_path, clusters, items, style):
    from fashionrq.querygen.prompt import ENRICH_SCHEMA, GENERATION_SCHEMA

    backend = _backend(server, tmp_path, response_format=style)
    sets = generate_all(clusters[:2], items, backend=backend, parser=LexiconParser(items))
    assert all(qs.queries for qs in sets)
    LLMEnricher(backend, LexiconParser(items)).parse_many(["black tees"])
    expected = [{"type": "json_object", "schema": schema} if style == "json_object" else
                {"type": "json_schema", "json_schema": {"name": "answer", "schema": schema, "strict": True}}
                for schema in (GENERATION_SCHEMA, ENRICH_SCHEMA)]
    assert server.formats == [expected[0]] * 2 + [expected[1]] and backend.schema_refused == 0


def test_a_server_that_refuses_the_schema_gets_the_call_again_without_it(server, tmp_path, clusters, items):
    server.refuse_schema = True
    backend = _backend(server, tmp_path)
    sets = generate_all(clusters[:2], items, backend=backend, parser=LexiconParser(items))
    assert all(qs.queries and not qs.failed for qs in sets)
    assert backend.schema_refused == 2 and sorted(f is None for f in server.formats) == [False, False, True, True]
    assert _backend(server, tmp_path / "none", response_format="none").cache_key([]) != backend.cache_key([], schema={"type": "object"})
    with pytest.raises(InputError, match="response format"):
        _backend(server, tmp_path, response_format="xml")


def test_lenient_parsing_of_model_answers():
    obj, strict = parse_json_answer('noise {"queries": ["a", "b",], "coverage_map": {"X": [0,],},} tail {"x": 1}')
    assert obj == {"queries": ["a", "b"], "coverage_map": {"X": [0]}} and not strict
    assert parse_json_answer('{"queries": ["has } brace"]}') == ({"queries": ["has } brace"]}, True)
    assert parse_json_answer("no json here") == (None, False)
    assert free_text_queries("Queries:\n1. red kurtas\n2) \"black tees\"\n- blue jeans\nthanks") == ["red kurtas", "black tees", "blue jeans"]
    answer = parse_generation_answer('```json\n{"queries": [{"query": "white sneakers"}, "  "]}\n```')
    assert answer.queries == ["white sneakers"] and not answer.malformed


def test_retry_jitter_is_deterministic_per_seed(server, tmp_path):
    a, b, c = (_backend(server, tmp_path, seed=s, backoff=1.0) for s in (7, 7, 8))
    assert [a._delay("k", i) for i in range(3)] == [b._delay("k", i) for i in range(3)]
    assert a._delay("k", 0) != c._delay("k", 0)
    assert 1.0 <= a._delay("k", 0) <= 1.5 and 4.0 <= a._delay("k", 2) <= 6.0


def test_prompt_carries_the_data_context(clusters, items):
    from fashionrq.querygen.prompt import SYSTEM, generation_messages

    cluster = clusters[0]  # mixes article types
    system, user = generation_messages(cluster, items, seed=0)
    assert system["content"] == SYSTEM and "6-12" in user["content"] and "catch-all" in user["content"]
    assert "unsupported universal claims" in user["content"]
    context = json.loads(user["content"].split("DATA CONTEXT:\n", 1)[1])
    assert context["prefix"]["cluster_id"] == cluster.cluster_id and context["prefix"]["size"] == cluster.size
    shares = dict(cluster.distributions["article_type"])
    assert set(context["required_product_types"]) == {v for v, s in shares.items() if s >= 0.05}
    assert len(context["discriminating_signatures"]) == len(cluster.discriminating)
    assert len(context["sibling_differences"]) == len(cluster.sibling_contrast)
    assert len(context["parent_stats"]) == len(cluster.parent_contrast)
    assert context["attribute_distributions"]["article_type"][0][0] == cluster.distributions["article_type"][0][0]
    universal = context["exclusivity_constraints"]["universal_values"]
    rows = items.iloc[list(cluster.item_rows)]
    for value in universal.get("gender", []):
        assert (rows["gender"] == value).mean() >= 0.9
    assert set(context["sample_product_names"]) <= set(rows["name"])
    assert generation_messages(cluster, items, seed=0) == [system, user]  # deterministic, so cacheable


def test_unknown_backend_and_foreign_items_are_user_errors(clusters, items):
    with pytest.raises(InputError, match="unknown query backend"):
        generate_queries(clusters[0], items, backend="gpt")
    with pytest.raises(InputError, match="items table has 10 rows"):
        generate_queries(clusters[0], items.head(10))


def test_leaves_whose_llm_queries_describe_nothing_get_verbalizer_queries(server, tmp_path, fixture_items, items):
    """A weak model's well-formed but empty answers: every query's φ asserts nothing, so no item fully matches it and
    the tasks drop it; its leaves are verbalized instead, counted, and the release keeps task queries."""
    from fashionrq.tasks import BuildConfig, construct_release

    sids = np.column_stack([pd.factorize(items[c].fillna("?"), sort=True)[0] for c in ("master_category", "sub_category", "article_type")])
    options = dict(base_url=server.url, model="stub-model", api_key=KEY, timeout=5.0, backoff=0.01, cache_dir=tmp_path / "cache")
    server.modes = {cid: "vacuous" for cid in _cluster_ids(fixture_items, sids)}
    manifest = construct_release(BuildConfig(out=tmp_path / "B", seed=0, queries_backend="llm", llm_options=options), fixture_items, sids)
    report = json.loads(manifest.read_text())["report"]
    querygen, validity = report["querygen"], report["tasks"]["validity"]
    vacuous = querygen["sources"]["llm:stub-model"]
    assert vacuous > 0 and validity["queries_not_describing_their_leaf"] == vacuous
    fallback = querygen["verbalized_undescribed_leaves"]
    assert fallback["leaves"] == querygen["leaves_with_queries"] and fallback["queries"] > 0
    assert querygen["kept_in_tasks"] > 0
    sources = [json.loads(line)["source"] for line in (tmp_path / "B" / "labels" / "queries.jsonl").read_text().splitlines()]
    assert sources and set(sources) == {"verbalizer"}  # every task query is one of the fallback's


def _cluster_ids(table, sids) -> list[str]:
    return list(build_hierarchy(table, sids).clusters)
