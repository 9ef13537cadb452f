"""Label-free lexical baselines: seeded ``random``, ``bm25`` (bm25s) and ``tfidf`` (scikit-learn)."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import numpy as np
import pyarrow as pa

from fashionrq.encoders import item_texts
from fashionrq.systems.base import BaseRetriever
from fashionrq.systems.index import bm25_index

_HYPHENATED = re.compile(r"(?<=\w)-(?=\w)")
_WORD = re.compile(r"[a-z0-9]+")


def tokenize(text: str) -> list[str]:
    """Lower-cased word tokens; hyphens inside words are dropped ("T-shirts" -> "tshirt") and a plural -s is stripped."""
    words = _WORD.findall(_HYPHENATED.sub("", text.lower()))
    return [w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w for w in words]


class RandomRetriever(BaseRetriever):
    """Uniform random scores, a deterministic function of (seed, query, item): the floor every system must beat."""

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def fit(self, items: pa.Table) -> RandomRetriever:
        return self

    def _all_scores(self, query: str) -> np.ndarray:
        digest = hashlib.sha256(f"{self.seed}\x00{query}".encode()).digest()
        return np.random.default_rng(int.from_bytes(digest[:8], "little")).random(self.n_items)

    def score(self, query: str, candidate_rows: np.ndarray) -> np.ndarray:
        self._check_fitted()
        return self._all_scores(query)[candidate_rows]

    def config(self) -> dict:
        return {"seed": self.seed}


class BM25Retriever(BaseRetriever):
    """Okapi BM25 over the item-text template (bm25s), with :func:`tokenize`."""

    name = "bm25"

    def __init__(self, k1: float = 1.2, b: float = 0.75, cache_dir: str | Path | None = None) -> None:
        self.k1 = k1
        self.b = b
        self.cache_dir = cache_dir

    def fit(self, items: pa.Table) -> BM25Retriever:
        """Index the items (a bm25s index built once per corpus and cached under ``cache_dir/indexes/``)."""
        self.index = bm25_index(item_texts(items), tokenize, self.k1, self.b, self.cache_dir)
        return self

    def corpus_scores(self, query: str) -> np.ndarray:
        """BM25 score of ``query`` against every item."""
        self._check_fitted()
        vocab = self.index.vocab_dict
        tokens = [t for t in tokenize(query) if t in vocab]
        if not tokens:
            return np.zeros(self.n_items, dtype=np.float32)
        return np.asarray(self.index.get_scores(tokens), dtype=np.float32)

    def score(self, query: str, candidate_rows: np.ndarray) -> np.ndarray:
        return self.corpus_scores(query)[candidate_rows]

    def config(self) -> dict:
        return {"k1": self.k1, "b": self.b}


class TfidfRetriever(BaseRetriever):
    """Cosine similarity of sublinear TF-IDF vectors (scikit-learn) over word uni- and bigrams."""

    name = "tfidf"

    def __init__(self, ngram_max: int = 2, min_df: int = 1) -> None:
        self.ngram_max = ngram_max
        self.min_df = min_df

    def fit(self, items: pa.Table) -> TfidfRetriever:
        from sklearn.feature_extraction.text import TfidfVectorizer

        self.vectorizer = TfidfVectorizer(
            analyzer="word", tokenizer=tokenize, preprocessor=None, lowercase=False, token_pattern=None,
            ngram_range=(1, self.ngram_max), min_df=self.min_df, sublinear_tf=True, dtype=np.float32,
        )
        self.matrix = self.vectorizer.fit_transform(item_texts(items)).tocsr()
        return self

    def score(self, query: str, candidate_rows: np.ndarray) -> np.ndarray:
        self._check_fitted()
        q = self.vectorizer.transform([query])
        return np.asarray((self.matrix[candidate_rows] @ q.T).toarray()).ravel().astype(np.float32)

    def score_batch(self, queries, candidate_rows):
        self._check_fitted()
        distinct = sorted(set(queries))
        position = {q: i for i, q in enumerate(distinct)}
        qmat = self.vectorizer.transform(distinct).tocsr()
        return [
            np.asarray((self.matrix[rows] @ qmat[position[q]].T).toarray()).ravel().astype(np.float32)
            for q, rows in zip(queries, candidate_rows)
        ]

    def config(self) -> dict:
        return {"ngram_max": self.ngram_max, "min_df": self.min_df}
