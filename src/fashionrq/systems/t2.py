"""T2 (hierarchical relevance classification): map query-item similarity to a grade, fitted on dev pairs only.

Features of a pair (all label-free): the system's score, the score's percentile among the scores of
every catalog item for that query (so that unnormalised scores such as BM25 become comparable across
queries) and, with a reranker, its constraint score. A class-balanced multinomial logistic regression on
the standardised features is fitted on ``t2_dev_labels.jsonl`` and predicts the test pairs; the written
``score`` is the expected grade under the fitted probabilities.
"""

from __future__ import annotations

import numpy as np

from fashionrq.errors import InputError

LABELS = (0, 1, 2, 3)


def corpus_percentile(corpus_scores: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Mid-rank percentile of each of ``values`` among ``corpus_scores`` (in [0, 1])."""
    ordered = np.sort(np.asarray(corpus_scores, dtype=np.float64))
    below = np.searchsorted(ordered, values, side="left")
    at_or_below = np.searchsorted(ordered, values, side="right")
    return (below + at_or_below) / (2.0 * len(ordered))


class GradeCalibrator:
    """Features -> grade 0-3 by a class-balanced multinomial logistic regression (scikit-learn)."""

    def __init__(self, C: float = 1.0) -> None:
        self.C = C

    def fit(self, features: np.ndarray, labels: np.ndarray) -> GradeCalibrator:
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler

        labels = np.asarray(labels, dtype=np.int64)
        if len(labels) == 0:
            raise InputError("t2_dev_labels.jsonl has no labelled dev pair; T2 calibration needs at least one.")
        self.classes_ = np.unique(labels)
        if len(self.classes_) == 1:
            self.model = None
        else:
            self.model = make_pipeline(
                StandardScaler(), LogisticRegression(C=self.C, class_weight="balanced", max_iter=1000)
            ).fit(features, labels)
        return self

    def predict(self, features: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(labels, expected grades)`` for the rows of ``features``."""
        if self.model is None:
            grade = int(self.classes_[0])
            return np.full(len(features), grade, dtype=np.int64), np.full(len(features), float(grade))
        proba = self.model.predict_proba(features)
        classes = self.model.classes_
        return classes[np.argmax(proba, axis=1)].astype(np.int64), proba @ classes.astype(np.float64)

    def config(self) -> dict:
        return {"model": "multinomial logistic regression, class-balanced, standardised features", "C": self.C,
                "fitted_on": "t2_dev_labels.jsonl"}
