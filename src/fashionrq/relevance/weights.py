"""Attribute-weight estimation (spec §8.0.5): matched twin-pair ablation plus a ridge-regression cross-check
against a relevance oracle, blended into non-negative weights that sum to 1.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa

from fashionrq import __version__
from fashionrq.encoders import embed_texts, get_encoder, item_text
from fashionrq.encoders.sentence import hf_offline
from fashionrq.errors import FashionRQError, InputError
from fashionrq.progress import track
from fashionrq.relevance.matcher import ATTRIBUTES, SOFT_KEYS, AttributeMatcher, _phi_variants
from fashionrq.vocab import gender_group, normalise_age_group, normalise_colour, normalise_price_hint

#: Match-status feature values: f_a = 1 match, 0 mismatch, 0.5 unspecified (query silent or product lacks a value).
MATCH, MISMATCH, UNSPECIFIED = 1.0, 0.0, 0.5


# -- oracles ------------------------------------------------------------------------------------------
class Oracle:
    """A relevance oracle: ``score(queries, item_texts)`` -> one float per (query, item text) pair."""

    name: str

    def score(self, queries: Sequence[str], texts: Sequence[str]) -> np.ndarray:
        raise NotImplementedError


class BiEncoderOracle(Oracle):
    """Cosine(query, item text) under a dense text encoder (``fashionrq.encoders.get_encoder`` name)."""

    def __init__(self, encoder: str = "minilm") -> None:
        self.name = encoder
        self.encoder = get_encoder(encoder)
        if self.encoder.kind != "dense":
            raise FashionRQError(f"oracle encoder '{encoder}' is sparse: use a dense encoder or a cross-encoder.")

    def score(self, queries: Sequence[str], texts: Sequence[str]) -> np.ndarray:
        uq, qi = np.unique(np.asarray(queries, dtype=object), return_inverse=True)
        ut, ti = np.unique(np.asarray(texts, dtype=object), return_inverse=True)
        q = embed_texts(list(uq), self.encoder, kind="query")
        t = embed_texts(list(ut), self.encoder, kind="document")
        return np.einsum("ij,ij->i", q[qi], t[ti]).astype(np.float64)


class CrossEncoderOracle(Oracle):
    """A sentence-transformers CrossEncoder; the raw logit (no activation) is the relevance score.

    For a model with several output labels the last label's logit is used.
    """

    def __init__(self, model: str, batch_size: int = 32) -> None:
        import torch
        from sentence_transformers import CrossEncoder

        self.name = f"st:{model}"
        self.batch_size = batch_size
        try:
            self.model = CrossEncoder(
                model, device="cpu", local_files_only=hf_offline(), activation_fn=torch.nn.Identity()
            )
        except (OSError, ValueError, RuntimeError) as err:
            raise FashionRQError(
                f"cross-encoder '{model}' is not available ({type(err).__name__}): download it with network access "
                "(or set HF_HOME to a cache that has it), or pass --oracle minilm to use the bundled bi-encoder."
            ) from None

    def score(self, queries: Sequence[str], texts: Sequence[str]) -> np.ndarray:
        out = self.model.predict(
            list(zip(queries, texts)), batch_size=self.batch_size, show_progress_bar=False, convert_to_numpy=True
        )
        out = np.asarray(out, dtype=np.float64)
        return out[:, -1] if out.ndim == 2 else out


def load_oracle(spec: str) -> Oracle:
    """``minilm`` (bundled bi-encoder) or ``st:<model id or folder>``: a cross-encoder when the model's config
    declares a sequence-classification head, else a sentence-transformers bi-encoder."""
    if spec == "minilm":
        return BiEncoderOracle("minilm")
    if not spec.startswith("st:") or len(spec) <= 3:
        raise InputError(f"--oracle '{spec}' is unknown: use minilm or st:<cross-encoder or bi-encoder id>.")
    model = spec[3:]
    from transformers import AutoConfig

    try:
        config = AutoConfig.from_pretrained(model, local_files_only=hf_offline())
    except (OSError, ValueError) as err:
        raise FashionRQError(
            f"oracle model '{model}' is not available ({type(err).__name__}): download it with network access "
            "(or set HF_HOME to a cache that has it), or pass --oracle minilm to use the bundled bi-encoder."
        ) from None
    if any(arch.endswith("ForSequenceClassification") for arch in (config.architectures or [])):
        return CrossEncoderOracle(model)
    return BiEncoderOracle(spec)


# -- queries ------------------------------------------------------------------------------------------
def read_queries(path: str | Path) -> list[dict]:
    """Queries for estimation from JSONL: one ``{"text": str, "phi": {...}}`` per line (``qid`` optional)."""
    out = []
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as err:
        raise InputError(f"queries file {path} is unreadable ({err.strerror}): pass a JSONL file of {{text, phi}} rows.") from None
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError:
            raise InputError(f"{path} line {n} is not JSON: write one {{\"text\", \"phi\"}} object per line.") from None
        if not isinstance(row, dict) or not isinstance(row.get("text"), str) or not isinstance(row.get("phi"), dict):
            raise InputError(f"{path} line {n} needs a string 'text' and a dict 'phi' (the φ(q) of the query).")
        _phi_variants(row["phi"], f"{path} line {n}")
        out.append({"qid": str(row.get("qid", f"line{n}")), "text": row["text"], "phi": row["phi"]})
    if not out:
        raise InputError(f"queries file {path} has no queries: write one {{\"text\", \"phi\"}} object per line.")
    return out


_GENDER_WORD = {"Men": "men's", "Women": "women's", "Boys": "boys'", "Girls": "girls'", "Unisex": "unisex"}


def synthesise_queries(matcher: AttributeMatcher, pool: Sequence[int], n: int, seed: int = 0) -> list[dict]:
    """``n`` structured queries built from catalog attribute combinations of seeded anchor items in ``pool``.

    Each anchor contributes its article type (always), then each other attribute it has a catalog value for
    with probability 1/2 (age group only when not adult; one random structured value for the soft attributes).
    Text template: "[tier] [brand] [gender's] [kids] [colour] [pattern] [material] [style] <type> [for <occasion>]".
    """
    rng = np.random.default_rng(seed)
    anchors = rng.choice(np.asarray(pool), size=n, replace=len(pool) < n)
    cols = matcher._columns
    out = []
    for qn, index in enumerate(anchors.tolist()):
        p = matcher.profile(index)
        phi: dict[str, list[str] | None] = {a: None for a in ATTRIBUTES}
        phi["product_type"] = [cols["article_type"][index].lower()]
        candidates = {
            "gender": cols["gender"][index], "color": cols["base_colour"][index], "brand": cols["brand"][index],
            "price_hint": p.tier, "age_group": p.age_group if p.age_group not in (None, "adult") else None,
        }
        for attr in SOFT_KEYS:
            if p.sources[attr] == "structured":
                candidates[attr] = p.values[attr][int(rng.integers(len(p.values[attr])))]
        for attr in ATTRIBUTES:
            if candidates.get(attr) and rng.random() < 0.5:
                phi[attr] = [candidates[attr]]
        words = [
            phi["price_hint"] and phi["price_hint"][0], phi["brand"] and phi["brand"][0],
            phi["gender"] and _GENDER_WORD.get(phi["gender"][0], phi["gender"][0]),
            phi["age_group"] and phi["age_group"][0], phi["color"] and phi["color"][0].lower(),
            phi["pattern"] and phi["pattern"][0].lower(), phi["material"] and phi["material"][0].lower(),
            phi["style_tags"] and phi["style_tags"][0].lower(), phi["product_type"][0],
            phi["occasion"] and f"for {phi['occasion'][0].lower()}",
        ]
        out.append({"qid": f"s{qn}", "text": " ".join(w for w in words if w), "phi": phi, "anchor": index})
    return out


# -- match status -------------------------------------------------------------------------------------
def _norm(value: str) -> str:
    text = " ".join(value.lower().replace("-", " ").split())
    return text[:-1] if text.endswith("s") and len(text) > 3 else text


@dataclass
class _PoolIndex:
    """Canonical attribute values of the pool items, vectorised for match-status computation."""

    single: dict[str, np.ndarray]  # attr -> (P,) object array of canonical values (None = missing)
    sets: dict[str, list[frozenset]]  # attr -> per item set of canonical values (empty = missing)
    types: list[frozenset]  # canonical category levels per item


def _pool_index(matcher: AttributeMatcher, pool: Sequence[int]) -> _PoolIndex:
    cols = matcher._columns
    single = {
        "gender": [gender_group(cols["gender"][i]) for i in pool],
        "age_group": [normalise_age_group(cols["age_group"][i]) for i in pool],
        "color": [normalise_colour(cols["base_colour"][i]) if cols["base_colour"][i] else None for i in pool],
        "brand": [cols["brand"][i].strip().lower() if cols["brand"][i] else None for i in pool],
        "price_hint": matcher.price_tiers.tiers([cols["price"][i] for i in pool]),
    }
    sets = {
        attr: [frozenset(_norm(v) for v in matcher.profile(i).values[attr])
               if matcher.profile(i).sources[attr] == "structured" else frozenset() for i in pool]
        for attr in SOFT_KEYS
    }
    types = [frozenset(_norm(v) for v in matcher.profile(i).levels) for i in pool]
    return _PoolIndex({a: np.asarray(v, dtype=object) for a, v in single.items()}, sets, types)


def _query_value(attr: str, value: str) -> str | None:
    if attr == "gender":
        return gender_group(value)
    if attr == "age_group":
        return normalise_age_group(value)
    if attr == "color":
        return normalise_colour(value)
    if attr == "brand":
        return value.strip().lower()
    if attr == "price_hint":
        return normalise_price_hint(value)
    return _norm(value)


def match_status(phi: Mapping, index: _PoolIndex) -> np.ndarray:
    """(P, 10) match-status features f_a ∈ {1, 0, 0.5} of one query against every pool item.

    Canonicalised equality: a match when any query value equals the item's value (or one of its values,
    or for product type one of its category levels); 0.5 when the query is silent or the item lacks a value.
    """
    n = len(index.types)
    out = np.full((n, len(ATTRIBUTES)), UNSPECIFIED)
    for j, attr in enumerate(ATTRIBUTES):
        values = phi.get(attr)
        if not values:
            continue
        wanted = {_query_value(attr, v) for v in values} - {None}
        if attr in index.single:
            col = index.single[attr]
            present = np.array([v is not None for v in col])
            hit = np.array([v in wanted for v in col])
        else:
            sets = index.types if attr == "product_type" else index.sets[attr]
            present = np.array([bool(s) for s in sets])
            hit = np.array([bool(s & wanted) for s in sets])
        out[present, j] = np.where(hit[present], MATCH, MISMATCH)
    return out


# -- estimation ---------------------------------------------------------------------------------------
def _normalise(raw: Mapping[str, float]) -> dict[str, float]:
    clipped = {a: max(0.0, v) if np.isfinite(v) else 0.0 for a, v in raw.items()}
    total = sum(clipped.values())
    if total <= 0:
        raise FashionRQError("every attribute estimate is <= 0: use more queries or a stronger oracle.")
    return {a: v / total for a, v in clipped.items()}


def _vif(x: np.ndarray) -> list[float | None]:
    """Variance inflation factor of each (standardised) column; None for a constant column."""
    from sklearn.linear_model import LinearRegression

    out: list[float | None] = []
    live = [j for j in range(x.shape[1]) if x[:, j].std() > 0]
    for j in range(x.shape[1]):
        others = [i for i in live if i != j]
        if j not in live:
            out.append(None)
            continue
        if not others:
            out.append(1.0)
            continue
        r2 = LinearRegression().fit(x[:, others], x[:, j]).score(x[:, others], x[:, j])
        out.append(float(1 / max(1 - r2, 1e-12)))
    return out


def estimate_weights(
    items: pa.Table,
    oracle: Oracle,
    queries: Sequence[Mapping] | None = None,
    n_queries: int = 400,
    pool_size: int = 1500,
    pairs_per_attribute: int = 3,
    regression_items: int = 8,
    bootstrap: int = 1000,
    ridge_alpha: float = 1.0,
    seed: int = 0,
) -> dict:
    """Estimate attribute weights against ``oracle``; returns the weights with every diagnostic.

    ``queries``: [{"text", "phi"}]; ``None`` synthesises ``n_queries`` from catalog attribute combinations.
    Products come from a seeded pool of ``pool_size`` items (synthetic queries are anchored in it). For every
    query and expressed attribute a, up to ``pairs_per_attribute`` twin pairs (p_match, p_mismatch) are drawn
    whose match status agrees on every other attribute; Δ = oracle(q, p_match) - oracle(q, p_mismatch).
    The ridge cross-check fits oracle scores on standardised match-status features of ``regression_items``
    products per query (half sharing the query's product type where possible, half random).
    """
    from scipy.stats import spearmanr
    from sklearn.linear_model import Ridge
    from sklearn.preprocessing import StandardScaler

    rng = np.random.default_rng(seed)
    matcher = AttributeMatcher(items, weights={a: 1.0 for a in ATTRIBUTES})
    n_items = items.num_rows
    pool = sorted(rng.choice(n_items, size=min(pool_size, n_items), replace=False).tolist())
    source = "given"
    if queries is None:
        queries = synthesise_queries(matcher, pool, n_queries, seed=seed)
        source = "synthesised"
    queries = list(queries)
    for q in queries:
        if not isinstance(q.get("phi"), Mapping) or not isinstance(q.get("text"), str):
            raise InputError(f"estimation query {q.get('qid', '?')} needs a string 'text' and one φ dict 'phi'.")
        _phi_variants(q["phi"], f"query {q.get('qid', '?')}")
    pool_arr = np.asarray(pool)
    index = _pool_index(matcher, pool)
    codes = np.array([3 ** j for j in range(len(ATTRIBUTES))], dtype=np.int64)

    twins: list[tuple[int, int, int, int]] = []  # (query, attr, p_match, p_mismatch) as pool positions
    reg: list[tuple[int, int]] = []  # (query, pool position)
    statuses = []
    for qn, q in enumerate(track(queries, "weights: twin pairs", total=len(queries))):
        status = match_status(q["phi"], index)
        statuses.append(status)
        coded = np.rint(status * 2).astype(np.int64)  # 0 mismatch, 1 unspecified, 2 match
        for j, attr in enumerate(ATTRIBUTES):
            if not q["phi"].get(attr):
                continue
            keys = (coded * codes).sum(axis=1) - coded[:, j] * codes[j]
            match_rows = np.flatnonzero(coded[:, j] == 2)
            miss_rows = np.flatnonzero(coded[:, j] == 0)
            common = np.intersect1d(keys[match_rows], keys[miss_rows])
            if common.size == 0:
                continue
            for key in rng.permutation(common)[:pairs_per_attribute]:
                a = int(rng.choice(match_rows[keys[match_rows] == key]))
                b = int(rng.choice(miss_rows[keys[miss_rows] == key]))
                twins.append((qn, j, a, b))
        same_type = np.flatnonzero(status[:, 0] == MATCH)
        half = regression_items // 2
        chosen = list(rng.choice(same_type, size=min(half, same_type.size), replace=False)) if same_type.size else []
        rest = np.setdiff1d(np.arange(len(pool)), chosen)
        chosen += list(rng.choice(rest, size=min(regression_items - len(chosen), rest.size), replace=False))
        reg.extend((qn, int(p)) for p in chosen)

    pairs = sorted({(qn, a) for qn, _, a, _ in twins} | {(qn, b) for qn, _, _, b in twins} | set(reg))
    needed = sorted({int(pool_arr[p]) for _, p in pairs})
    texts_by_item = dict(zip(needed, (item_text(row) for row in items.take(needed).to_pylist())))
    scores = oracle.score([queries[qn]["text"] for qn, _ in pairs], [texts_by_item[int(pool_arr[p])] for _, p in pairs])
    oracle_score = dict(zip(pairs, scores.tolist()))

    ablation = {}
    for j, attr in enumerate(ATTRIBUTES):
        deltas = np.array([oracle_score[(qn, a)] - oracle_score[(qn, b)] for qn, jj, a, b in twins if jj == j])
        if deltas.size == 0:
            ablation[attr] = {"n": 0, "mean_delta": None, "ci95": None, "sign_consistency": None}
            continue
        mean = float(deltas.mean())
        boot = deltas[rng.integers(0, deltas.size, size=(bootstrap, deltas.size))].mean(axis=1)
        ablation[attr] = {
            "n": int(deltas.size),
            "mean_delta": mean,
            "ci95": [float(np.percentile(boot, 2.5)), float(np.percentile(boot, 97.5))],
            "sign_consistency": float(np.mean(np.sign(deltas) == np.sign(mean))) if mean != 0 else 0.0,
        }

    x = np.array([statuses[qn][p] for qn, p in reg])
    y = np.array([oracle_score[(qn, p)] for qn, p in reg])
    xs = StandardScaler().fit_transform(x)
    ridge = Ridge(alpha=ridge_alpha).fit(xs, y)
    regression = {
        "n": int(len(y)),
        "r2": float(ridge.score(xs, y)),
        "alpha": ridge_alpha,
        "coef": {a: float(c) for a, c in zip(ATTRIBUTES, ridge.coef_)},
        "vif": dict(zip(ATTRIBUTES, _vif(xs))),
    }

    raw_abl = {a: ablation[a]["mean_delta"] if ablation[a]["mean_delta"] is not None else 0.0 for a in ATTRIBUTES}
    raw_reg = regression["coef"]
    w_abl, w_reg = _normalise(raw_abl), _normalise(raw_reg)
    a_vals, r_vals = [raw_abl[a] for a in ATTRIBUTES], [raw_reg[a] for a in ATTRIBUTES]
    rho = spearmanr(a_vals, r_vals).statistic if np.ptp(a_vals) > 0 and np.ptp(r_vals) > 0 else float("nan")
    blended = {a: (w_abl[a] + w_reg[a]) / 2 for a in ATTRIBUTES}
    total = sum(blended.values())
    return {
        "weights": {a: blended[a] / total for a in ATTRIBUTES},
        "oracle": oracle.name,
        "fashionrq_version": __version__,
        "item_text_example": texts_by_item[needed[0]],
        "queries": {"source": source, "n": len(queries), "seed": seed},
        "pool_size": len(pool),
        "ablation": ablation,
        "ablation_weights": w_abl,
        "regression": regression,
        "regression_weights": w_reg,
        "spearman": None if rho != rho else float(rho),
        "n_twin_pairs": len(twins),
    }
