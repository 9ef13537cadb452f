"""T2 (hierarchical relevance classification): map query-item similarity to a grade, fitted on dev pairs only.

Features of a pair (all label-free, :data:`FIRST_STAGE_FEATURES` then :data:`RERANKER_FEATURES`):

* the system's score; its percentile among the scores of every catalog item for that query (so that
  unnormalised scores such as BM25 become comparable across queries);
* the shape of the query's candidate set (the items of its pairs, public in ``t2_pairs.jsonl``): the
  score's mid-rank within the set and its difference from the set's mean score, and the item's closeness
  to the rest of the set, the mean score the system gives it when each other candidate's text is the
  query (:func:`set_closeness`), minus the set's mean closeness;
* with a reranker, its pair score, with its rank within the set and its difference from the set's mean.

A class-balanced multinomial logistic regression on the standardised features is fitted on
``t2_dev_labels.jsonl`` and predicts the test pairs; the written ``score`` is the expected grade under
the fitted probabilities.
"""

from __future__ import annotations

import numpy as np

from fashionrq.errors import InputError

LABELS = (0, 1, 2, 3)
#: Feature columns from the first stage alone, then those a reranker adds (one row per T2 pair).
FIRST_STAGE_FEATURES = ("score", "corpus_percentile", "set_rank", "set_deviation", "set_closeness")
RERANKER_FEATURES = ("rerank_score", "rerank_set_rank", "rerank_set_deviation")


def corpus_percentile(corpus_scores: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Mid-rank percentile of each of ``values`` among ``corpus_scores`` (in [0, 1])."""
    ordered = np.sort(np.asarray(corpus_scores, dtype=np.float64))
    below = np.searchsorted(ordered, values, side="left")
    at_or_below = np.searchsorted(ordered, values, side="right")
    return (below + at_or_below) / (2.0 * len(ordered))


def within_sets(values: np.ndarray, sets: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """``(mid-rank percentile within its set, value minus its set's mean)`` of each of ``values``; ``sets``
    partitions the rows (one index array per query)."""
    values = np.asarray(values, dtype=np.float64)
    rank, deviation = np.zeros(len(values)), np.zeros(len(values))
    for at in sets:
        rank[at] = corpus_percentile(values[at], values[at])
        deviation[at] = values[at] - values[at].mean()
    return rank, deviation


def set_closeness(system, texts: list[str], rows: np.ndarray) -> np.ndarray:
    """Closeness of each item of a candidate set (``rows``, their ``texts``) to the rest of the set, in the
    system's own terms: the mean of ``system``'s scores of the item when each other item's text is the query."""
    if len(rows) < 2:
        return np.zeros(len(rows))
    matrix = np.array([np.asarray(s, dtype=np.float64) for s in system.score_batch(texts, [rows] * len(rows))])
    return (matrix.sum(axis=0) - np.diag(matrix)) / (len(rows) - 1)


class GradeCalibrator:
    """Features -> grade 0-3 by a class-balanced multinomial logistic regression
    (:class:`~fashionrq.systems.logistic.MultinomialLogistic`: the same grades on every CPU)."""

    def __init__(self, C: float = 1.0) -> None:
        self.C = C

    def fit(self, features: np.ndarray, labels: np.ndarray) -> GradeCalibrator:
        labels = np.asarray(labels, dtype=np.int64)
        if len(labels) == 0:
            raise InputError("t2_dev_labels.jsonl has no labelled dev pair; T2 calibration needs at least one.")
        self.classes_ = np.unique(labels)
        if len(self.classes_) == 1:
            self.model = None
        else:
            # deferred: numba (the compiled regression), which the sealed child's start-up and naming a system do without
            from fashionrq.systems.logistic import MultinomialLogistic

            self.model = MultinomialLogistic(C=self.C).fit(features, labels)
        return self

    def predict(self, features: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(labels, expected grades)`` for the rows of ``features``."""
        if self.model is None:
            grade = int(self.classes_[0])
            return np.full(len(features), grade, dtype=np.int64), np.full(len(features), float(grade))
        proba = self.model.predict_proba(features)
        classes = self.model.classes_
        expected = np.zeros(len(proba))
        for column, grade in enumerate(classes):  # in class order (a matrix product's order is its BLAS kernel's)
            expected += proba[:, column] * float(grade)
        return classes[np.argmax(proba, axis=1)].astype(np.int64), expected

    def config(self) -> dict:
        return {"model": "multinomial logistic regression, class-balanced, standardised features, Newton's method", "C": self.C,
                "fitted_on": "t2_dev_labels.jsonl"}
