"""Classification metrics for graded labels (fashionrq uses 3/2/1/0): accuracy, macro-F1, per-class P/R/F1.

Every function takes the label set explicitly (default 0-3). A class with no true and no predicted
examples has precision, recall and F1 of 0 and still counts in the macro average (scikit-learn's
``f1_score(average="macro", labels=labels, zero_division=0)``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from fashionrq.errors import InputError

LABELS = (0, 1, 2, 3)


def _checked(y_true: Sequence[int], y_pred: Sequence[int], labels: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    true, pred = np.asarray(y_true), np.asarray(y_pred)
    if true.ndim != 1 or true.shape != pred.shape:
        raise InputError(
            f"labels and predictions differ in shape ({true.shape} vs {pred.shape}); give one prediction per labelled example."
        )
    if len(true) == 0:
        raise InputError("no labelled examples were given; classification metrics need at least one.")
    for name, values in (("label", true), ("prediction", pred)):
        outside = ~np.isin(values, labels)
        if outside.any():
            raise InputError(
                f"{name} {values[outside][0].item()!r} at position {int(np.argmax(outside))} is not one of {list(labels)}; "
                "map it to a known grade."
            )
    return true, pred


def confusion_matrix(y_true: Sequence[int], y_pred: Sequence[int], labels: Sequence[int] = LABELS) -> np.ndarray:
    """Counts ``C[i, j]`` of examples with true label ``labels[i]`` predicted as ``labels[j]``."""
    true, pred = _checked(y_true, y_pred, labels)
    index = {label: i for i, label in enumerate(labels)}
    rows = np.array([index[v] for v in true.tolist()], dtype=np.int64)
    cols = np.array([index[v] for v in pred.tolist()], dtype=np.int64)
    return np.bincount(rows * len(labels) + cols, minlength=len(labels) ** 2).reshape(len(labels), len(labels))


def accuracy(y_true: Sequence[int], y_pred: Sequence[int], labels: Sequence[int] = LABELS) -> float:
    """Share of examples whose prediction equals the label."""
    true, pred = _checked(y_true, y_pred, labels)
    return float(np.mean(true == pred))


def per_class_prf(y_true: Sequence[int], y_pred: Sequence[int], labels: Sequence[int] = LABELS) -> dict[int, dict[str, float]]:
    """``{label: {"precision", "recall", "f1", "support"}}``; an undefined ratio (0/0) is 0."""
    matrix = confusion_matrix(y_true, y_pred, labels)
    tp = np.diag(matrix).astype(np.float64)
    predicted, support = matrix.sum(axis=0), matrix.sum(axis=1)
    precision = np.divide(tp, predicted, out=np.zeros(len(labels)), where=predicted > 0)
    recall = np.divide(tp, support, out=np.zeros(len(labels)), where=support > 0)
    total = precision + recall
    f1 = np.divide(2 * precision * recall, total, out=np.zeros(len(labels)), where=total > 0)
    return {
        label: {"precision": float(precision[i]), "recall": float(recall[i]), "f1": float(f1[i]), "support": int(support[i])}
        for i, label in enumerate(labels)
    }


def macro_f1(y_true: Sequence[int], y_pred: Sequence[int], labels: Sequence[int] = LABELS) -> float:
    """Unweighted mean of the per-class F1 over ``labels``."""
    return float(np.mean([entry["f1"] for entry in per_class_prf(y_true, y_pred, labels).values()]))


def classification_metrics(y_true: Sequence[int], y_pred: Sequence[int], labels: Sequence[int] = LABELS) -> dict[str, object]:
    """Accuracy, macro-F1, per-class P/R/F1 and the confusion matrix (as nested lists) in one dict."""
    per_class = per_class_prf(y_true, y_pred, labels)
    return {
        "accuracy": accuracy(y_true, y_pred, labels),
        "macro_f1": float(np.mean([entry["f1"] for entry in per_class.values()])),
        "per_class": per_class,
        "confusion_matrix": confusion_matrix(y_true, y_pred, labels).tolist(),
        "labels": list(labels),
    }
