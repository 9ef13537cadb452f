"""The portable multinomial logistic regression behind every system's T2 grades (fashionrq.systems.logistic): it
reaches scikit-learn's optimum, and fits and predicts the same bits under every library's lowest instruction-set
caps (scikit-learn's L-BFGS, through BLAS and numpy's dispatched exp, does not promise that)."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys

import numpy as np
import pytest

from fashionrq.systems.logistic import MultinomialLogistic, _objective, _standardised
from fashionrq.systems.t2 import GradeCalibrator

from test_determinism import _supported_caps


def fixture_problem(items) -> tuple[np.ndarray, np.ndarray]:
    """Real features and labels: price, discounted price, year and name length of the fixture's items of the four
    commonest master categories, which are the labels."""
    keep = {"Apparel": 0, "Accessories": 1, "Footwear": 2, "Personal Care": 3}
    rows = [i for i, c in enumerate(items.column("master_category").to_pylist()) if c in keep]
    columns = [items.column(name).to_pylist() for name in ("price", "discounted_price", "year", "name", "master_category")]
    features = np.array([[float(columns[0][i] or 0), float(columns[1][i] or columns[0][i] or 0), float(columns[2][i] or 2012),
                          float(len(columns[3][i] or ""))] for i in rows])
    return features, np.array([keep[columns[4][i]] for i in rows])


def test_the_regression_reaches_scikit_learns_optimum_on_fixture_items(fixture_items):
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, y = fixture_problem(fixture_items)
    ours = MultinomialLogistic(C=1.0).fit(X, y)
    tight = make_pipeline(StandardScaler(), LogisticRegression(C=1.0, class_weight="balanced", max_iter=10_000, tol=1e-10)).fit(X, y)
    assert ours.steps_ < 30
    assert np.abs(ours.predict_proba(X) - tight.predict_proba(X)).max() < 1e-5
    counts = np.bincount(y)
    weight = (len(y) / (len(counts) * counts))[y].astype(np.float64)
    standard = _standardised(X, ours.mean_, ours.scale_)
    theirs = np.concatenate([tight[-1].coef_.ravel(), (tight[-1].intercept_ - tight[-1].intercept_[-1])[:-1]])
    assert _objective(standard, y, weight, 1.0, 4, ours.weights_) <= _objective(standard, y, weight, 1.0, 4, theirs) + 1e-9


def test_a_single_grade_is_predicted_without_fitting_and_probabilities_sum_to_one(fixture_items):
    X, y = fixture_problem(fixture_items)
    labels, expected = GradeCalibrator().fit(X[:50], np.full(50, 2)).predict(X[:5])
    assert labels.tolist() == [2] * 5 and expected.tolist() == [2.0] * 5
    proba = MultinomialLogistic().fit(X, y).predict_proba(X)
    assert np.allclose(proba.sum(axis=1), 1.0, atol=1e-12) and (proba >= 0).all()
    with pytest.raises(Exception, match="no labelled dev pair"):
        GradeCalibrator().fit(X[:0], y[:0])


CALIBRATE_SCRIPT = """
import hashlib, sys
import numpy as np
from fashionrq.catalog import ingest
from fashionrq.systems.t2 import GradeCalibrator
sys.path.insert(0, sys.argv[2])
from test_logistic import fixture_problem
X, y = fixture_problem(ingest(sys.argv[1]).table)
labels, expected = GradeCalibrator().fit(X[::2], y[::2]).predict(X[1::2])
print(hashlib.sha256(labels.tobytes() + expected.tobytes()).hexdigest())
"""


def test_the_calibrators_grades_are_the_same_under_every_libraries_lowest_caps():
    from conftest import MYNTRA_SMALL

    tests = os.path.dirname(os.path.abspath(__file__))
    hashes = []
    for env in ({}, _supported_caps()):
        done = subprocess.run([sys.executable, "-c", CALIBRATE_SCRIPT, str(MYNTRA_SMALL), tests], capture_output=True,
                              text=True, env={**os.environ, **env}, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
        hashes.append(done.stdout.strip())
    assert hashes[0] == hashes[1] and len(hashes[0]) == len(hashlib.sha256().hexdigest())
