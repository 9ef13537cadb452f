"""Multinomial logistic regression that gives the same bits on every x86-64 CPU: standardised features, an L2
penalty on the weights, Newton's method, every sum in a fixed order and ``exp``/``log`` from :mod:`fashionrq.ieee`.

It minimises ``C · Σ_i w_i · (−log p_i[y_i]) + ½ ‖W‖²`` over the weights ``W`` (classes × features) and the
intercepts (unpenalised; the last class's is 0, which changes no probability), the objective of scikit-learn's
multinomial ``LogisticRegression`` with ``class_weight="balanced"`` (``w_i = n / (classes · n_{y_i})``). scikit-learn
reaches it by L-BFGS through BLAS and numpy's dispatched ``exp``, whose last bits depend on the CPU, and a T2 run's
grades moved with them (docs/architecture.md, "What depends on the CPU"). The problem is small (a few features,
at most four grades), so each Newton step forms the whole Hessian and solves it by Cholesky.
"""

from __future__ import annotations

import numpy as np

from fashionrq.ieee import exp_scalar, kernel, log_scalar

#: Newton steps at most; the step is taken as converged when no parameter moves by more than STEP_TOLERANCE
#: (relative to the largest parameter, at least 1).
MAX_STEPS = 100
STEP_TOLERANCE = 1e-12


class MultinomialLogistic:
    """``fit(X, y)`` then ``predict_proba(X)``; ``classes_`` are the sorted labels seen."""

    def __init__(self, C: float = 1.0) -> None:
        self.C = C

    def fit(self, X: np.ndarray, y: np.ndarray) -> MultinomialLogistic:
        X = np.ascontiguousarray(X, dtype=np.float64)
        self.classes_, target = np.unique(np.asarray(y), return_inverse=True)
        counts = np.bincount(target).astype(np.float64)
        weight = (len(target) / (len(counts) * counts))[target]
        self.mean_, self.scale_ = _standardiser(X)
        self.weights_, self.steps_ = _newton(_standardised(X, self.mean_, self.scale_), target.astype(np.int64),
                                             weight, float(self.C), len(counts))
        return self

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        """``(rows, classes)`` probabilities."""
        X = _standardised(np.ascontiguousarray(X, dtype=np.float64), self.mean_, self.scale_)
        return _probabilities(X, self.weights_, len(self.classes_))


@kernel
def _standardiser(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each column's mean and standard deviation (population; 1 where a column is constant)."""
    n, d = X.shape
    mean, scale = np.zeros(d), np.ones(d)
    for j in range(d):
        total = 0.0
        for i in range(n):
            total += X[i, j]
        mean[j] = total / n
        squares = 0.0
        for i in range(n):
            squares += (X[i, j] - mean[j]) * (X[i, j] - mean[j])
        if squares > 0.0:
            scale[j] = np.sqrt(squares / n)
    return mean, scale


@kernel
def _standardised(X: np.ndarray, mean: np.ndarray, scale: np.ndarray) -> np.ndarray:
    out = np.empty_like(X)
    for i in range(X.shape[0]):
        for j in range(X.shape[1]):
            out[i, j] = (X[i, j] - mean[j]) / scale[j]
    return out


@kernel
def _softmax_row(x: np.ndarray, theta: np.ndarray, classes: int, logits: np.ndarray, p: np.ndarray) -> float:
    """One row's logits and class probabilities into ``logits`` and ``p``; returns log Σ exp(logits)."""
    d = x.shape[0]
    top = -np.inf
    for k in range(classes):
        z = theta[classes * d + k] if k < classes - 1 else 0.0
        for j in range(d):
            z += theta[k * d + j] * x[j]
        logits[k] = z
        top = max(top, z)
    total = 0.0
    for k in range(classes):
        p[k] = exp_scalar(logits[k] - top)
        total += p[k]
    for k in range(classes):
        p[k] = p[k] / total
    return top + log_scalar(total)


@kernel
def _objective(X: np.ndarray, target: np.ndarray, weight: np.ndarray, C: float, classes: int, theta: np.ndarray) -> float:
    n, d = X.shape
    value = 0.0
    for index in range(classes * d):
        value += 0.5 * theta[index] * theta[index]
    logits, p = np.empty(classes), np.empty(classes)
    for i in range(n):
        normaliser = _softmax_row(X[i], theta, classes, logits, p)
        value += C * weight[i] * (normaliser - logits[target[i]])
    return value


@kernel
def _gradient_hessian(X: np.ndarray, target: np.ndarray, weight: np.ndarray, C: float, classes: int,
                      theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The objective's gradient and Hessian; parameters are the weights (class-major) then the intercepts of all
    classes but the last."""
    n, d = X.shape
    size = classes * d + classes - 1
    gradient, hessian = np.zeros(size), np.zeros((size, size))
    for index in range(classes * d):
        gradient[index] = theta[index]
        hessian[index, index] = 1.0
    logits, p = np.empty(classes), np.empty(classes)
    for i in range(n):
        x = X[i]
        _softmax_row(x, theta, classes, logits, p)
        scale = C * weight[i]
        for k in range(classes):
            residual = scale * (p[k] - (1.0 if k == target[i] else 0.0))
            for j in range(d):
                gradient[k * d + j] += residual * x[j]
            if k < classes - 1:
                gradient[classes * d + k] += residual
        for k in range(classes):
            for l in range(classes):
                curvature = scale * ((p[k] if k == l else 0.0) - p[k] * p[l])
                for a in range(d):
                    for b in range(d):
                        hessian[k * d + a, l * d + b] += curvature * x[a] * x[b]
                if l < classes - 1:
                    for a in range(d):
                        hessian[k * d + a, classes * d + l] += curvature * x[a]
                if k < classes - 1:
                    for b in range(d):
                        hessian[classes * d + k, l * d + b] += curvature * x[b]
                if k < classes - 1 and l < classes - 1:
                    hessian[classes * d + k, classes * d + l] += curvature
    return gradient, hessian


@kernel
def _cholesky_solve(A: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``A⁻¹ b`` for a symmetric positive-definite ``A``, with a jitter of 1e-12 of the largest diagonal entry."""
    size = A.shape[0]
    jitter = 0.0
    for i in range(size):
        jitter = max(jitter, A[i, i])
    jitter *= 1e-12
    L = np.zeros((size, size))
    for j in range(size):
        total = A[j, j] + jitter
        for k in range(j):
            total -= L[j, k] * L[j, k]
        L[j, j] = np.sqrt(max(total, jitter))
        for i in range(j + 1, size):
            total = A[i, j]
            for k in range(j):
                total -= L[i, k] * L[j, k]
            L[i, j] = total / L[j, j]
    y = np.empty(size)
    for i in range(size):
        total = b[i]
        for k in range(i):
            total -= L[i, k] * y[k]
        y[i] = total / L[i, i]
    x = np.empty(size)
    for i in range(size - 1, -1, -1):
        total = y[i]
        for k in range(i + 1, size):
            total -= L[k, i] * x[k]
        x[i] = total / L[i, i]
    return x


@kernel
def _newton(X: np.ndarray, target: np.ndarray, weight: np.ndarray, C: float, classes: int) -> tuple[np.ndarray, int]:
    """The minimiser, by Newton steps halved until the objective falls enough (Armijo); returns it and the steps."""
    size = classes * X.shape[1] + classes - 1
    theta = np.zeros(size)
    value = _objective(X, target, weight, C, classes, theta)
    for step in range(MAX_STEPS):
        gradient, hessian = _gradient_hessian(X, target, weight, C, classes, theta)
        direction = _cholesky_solve(hessian, gradient)
        slope = 0.0
        for index in range(size):
            slope += gradient[index] * direction[index]
        length = 1.0
        while True:
            trial = theta - length * direction
            trial_value = _objective(X, target, weight, C, classes, trial)
            if trial_value <= value - 1e-4 * length * slope or length < 1e-10:
                break
            length *= 0.5
        largest, moved = 1.0, 0.0
        for index in range(size):
            largest = max(largest, abs(trial[index]))
            moved = max(moved, abs(trial[index] - theta[index]))
        theta, value = trial, trial_value
        if moved <= STEP_TOLERANCE * largest:
            return theta, step + 1
    return theta, MAX_STEPS


@kernel
def _probabilities(X: np.ndarray, theta: np.ndarray, classes: int) -> np.ndarray:
    out, logits = np.empty((X.shape[0], classes)), np.empty(classes)
    for i in range(X.shape[0]):
        _softmax_row(X[i], theta, classes, logits, out[i])
    return out
