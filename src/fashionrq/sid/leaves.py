"""Leaf refinement: split every oversized last-level prefix into parts of at least ``min_items`` items.

A residual quantiser gives each parent prefix at most ``K`` children whatever the parent's size, so on a
small catalog a frequent product type ends in a few huge leaves (the 2,181-item fixture with K = 6 had
T-shirt leaves of 40-70 items) while rare ones end in leaves of one or two items. An anchor leaf needs
``min_items`` items (a quarter of a T1 pool), and a huge leaf anchors one pool where it could anchor several.
:func:`split_leaves` halves such leaves recursively, label-blind, along their own embeddings: a seeded
2-means split whose cut is moved, when needed, so both halves keep ``min_items`` items.

The 2-means is scikit-learn's ``KMeans(n_clusters=2, n_init=3, random_state=seed)`` (k-means++ seeding with
two local trials, Lloyd iterations, the best of three inits), re-implemented to run on every part of one
recursion depth at once: the rows of all parts lie contiguous in one permutation, and every step is a
segment sum (``np.add.reduceat``) or a row-wise product over all of them. It draws the same random numbers and
takes the same decisions as scikit-learn, and adds the centre sums in scikit-learn's order (so the centres, and
the output, are the same bytes); its distances, inertias and seeding cumulative sums are formed in another order,
so a decision could differ only where two of them tie to the last bit. A part where a cluster empties
(identical vectors) goes to scikit-learn itself, which relocates empty clusters.
"""

from __future__ import annotations

import warnings
from functools import lru_cache

import numpy as np
from sklearn.cluster import KMeans
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._openmp_helpers import _openmp_effective_n_threads

from fashionrq.sid.base import normalize_rows

N_INIT, TOL, MAX_ITER = 3, 1e-4, 300  # scikit-learn KMeans: n_init=3, its default tol and max_iter
BATCH_ROWS = 1 << 18  # rows per batched 2-means (its float64 arrays stay near 128 MB each)
CHUNK_ROWS = 256  # scikit-learn's Lloyd step works on chunks of 256 rows, one OpenMP thread per block of chunks


def split_leaves(sids: np.ndarray, X: np.ndarray, min_items: int, seed: int = 0) -> tuple[np.ndarray, dict]:
    """SIDs whose last-level prefixes of ``>= 2 * min_items`` items are split into parts of ``>= min_items``.

    Coarser levels are unchanged. The last code of every item is renumbered within its parent prefix
    (0, 1, ... in the order of the original code, then of the part), so codes may exceed the codebook size.
    Returns the new SIDs and a report: leaves before and after, and how many were split.
    """
    sids = np.asarray(sids, dtype=np.int64)
    X = normalize_rows(np.asarray(X, dtype=np.float32))
    leaves, leaf_of = np.unique(sids, axis=0, return_inverse=True)
    leaf_of = leaf_of.reshape(-1)
    order = np.argsort(leaf_of, kind="stable")  # np.unique sorts the leaves, so parts are numbered in code order
    bounds = np.concatenate([[0], np.cumsum(np.bincount(leaf_of, minlength=len(leaves)))])
    while (cuts := _bisect_round(X, order, bounds, min_items, seed)) is not None:
        bounds = np.union1d(bounds, cuts)
    part_leaf = leaf_of[order[bounds[:-1]]]
    parent_of = np.unique(leaves[:, :-1], axis=0, return_inverse=True)[1].reshape(-1)[part_leaf]
    code = np.arange(len(part_leaf)) - np.searchsorted(parent_of, parent_of)  # rank of the part in its parent
    out = sids.copy()
    out[order, -1] = np.repeat(code, np.diff(bounds))
    split = int((np.bincount(part_leaf, minlength=len(leaves)) > 1).sum())
    return out, {"min_items": min_items, "leaves_before": len(leaves), "leaves_after": len(part_leaf), "leaves_split": split}


def _bisect_round(X: np.ndarray, order: np.ndarray, bounds: np.ndarray, min_items: int, seed: int) -> np.ndarray | None:
    """Split every part of ``>= 2 * min_items`` rows once: reorder its rows in ``order``, return the new cuts."""
    sizes = np.diff(bounds)
    big = np.flatnonzero(sizes >= 2 * min_items)
    if not len(big):
        return None
    cuts = []
    for batch in _batches(sizes[big]):
        starts, n = bounds[big[batch]], sizes[big[batch]]
        where = np.repeat(starts - np.cumsum(n) + n, n) + np.arange(n.sum())  # positions of the batch's rows in order
        rows = order[where]
        perm, cut = _two_means_cut(X[rows], n, min_items, seed)
        order[where] = rows[perm]
        cuts.append(starts + cut)
    return np.concatenate(cuts)


def _batches(sizes: np.ndarray) -> list[slice]:
    """Consecutive runs of parts holding about ``BATCH_ROWS`` rows (a bigger part is a batch of its own)."""
    edges = np.searchsorted(np.cumsum(sizes), np.arange(BATCH_ROWS, int(sizes.sum()) + BATCH_ROWS, BATCH_ROWS), "left")
    edges = np.unique(np.concatenate([[0], np.minimum(edges + 1, len(sizes))]))
    return [slice(a, b) for a, b in zip(edges[:-1], edges[1:])]


def _two_means_cut(Xb: np.ndarray, n: np.ndarray, min_items: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """For parts of ``n`` consecutive rows of ``Xb``: a row permutation (each part's rows by descending projection
    on centre 0 - centre 1, stably) and each part's cut (its cluster-0 size, clipped to ``[min_items, n - min_items]``)."""
    seg, starts = np.repeat(np.arange(len(n)), n), np.cumsum(n) - n
    labels, centres = _two_means(Xb, seg, n, seed)
    diff = centres[:, 0] - centres[:, 1]  # the projection as one matrix-vector product per part, as the reference
    proj = np.concatenate([Xb[a:a + k] @ v for a, k, v in zip(starts.tolist(), n.tolist(), diff)])
    zeros = np.bincount(seg, weights=labels == 0, minlength=len(n)).astype(np.int64)
    return np.lexsort((-proj, seg)), np.clip(zeros, min_items, n - min_items)


def _two_means(Xb: np.ndarray, seg: np.ndarray, n: np.ndarray, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Labels and (uncentred) centres of ``KMeans(2, n_init=3, random_state=seed)`` fitted to every part."""
    starts = np.cumsum(n) - n
    X64 = Xb.astype(np.float64)
    mean = _sequential_sums(X64, starts, n) / n[:, None]
    Xc = X64 - mean[seg]
    tol = (np.add.reduceat(Xc * Xc, starts) / n[:, None]).mean(1) * TOL
    xsq = np.einsum("ij,ij->i", Xc, Xc)
    best = None
    for first, trials in _draws(seed):
        centres = _plusplus(Xc, seg, starts, n, xsq, first, trials)
        labels, centres, inertia, empty = _lloyd(Xc, seg, n, centres, tol)
        best = (labels, centres, inertia, empty) if best is None else _keep_best(best, (labels, centres, inertia, empty), seg)
    labels, centres, _, empty = best
    centres = centres + mean[:, None, :]
    for part in np.flatnonzero(empty):
        rows = slice(starts[part], starts[part] + n[part])
        labels[rows], centres[part] = _sklearn_two_means(X64[rows], seed)
    return labels, centres


def _draws(seed: int) -> list[tuple[float, np.ndarray]]:
    """The uniforms each of scikit-learn's inits draws from its fresh ``RandomState(seed)``: the first centre's
    ``choice`` (one sample), then the two local trials of the second centre."""
    rng = np.random.RandomState(seed)
    return [(rng.random_sample(), rng.uniform(size=2)) for _ in range(N_INIT)]


@lru_cache(maxsize=4096)
def _choice(n: int, u: float) -> int:
    """``RandomState.choice(n, p=ones(n) / n)`` given its uniform draw ``u`` (the same cumulative sum and search)."""
    cdf = (np.ones(n) / n).cumsum()
    cdf /= cdf[-1]
    return int(cdf.searchsorted(u, side="right"))


def _sq_dist(Xc: np.ndarray, seg: np.ndarray, centre: np.ndarray, xsq: np.ndarray) -> np.ndarray:
    """Squared distance of every row to its part's ``centre`` as scikit-learn's ``_euclidean_distances`` forms it."""
    dist = -2 * np.einsum("ij,ij->i", Xc, centre[seg]) + np.einsum("ij,ij->i", centre, centre)[seg] + xsq
    return np.maximum(dist, 0)


def _plusplus(Xc, seg, starts, n, xsq, first: float, trials: np.ndarray) -> np.ndarray:
    """k-means++ with two centres and two local trials per part (scikit-learn's ``_kmeans_plusplus``): ``(S, 2, d)``."""
    c0 = starts + np.array([_choice(int(k), first) for k in n])
    closest = _sq_dist(Xc, seg, Xc[c0], xsq)
    pot = np.add.reduceat(closest, starts)
    cum = np.cumsum(closest)
    before = np.concatenate([[0.0], cum])[starts]
    best, best_pot = None, None
    for u in trials:
        cand = np.clip(np.searchsorted(cum, before + u * pot), starts, starts + n - 1)
        cand_pot = np.add.reduceat(np.minimum(closest, _sq_dist(Xc, seg, Xc[cand], xsq)), starts)
        if best is None:
            best, best_pot = cand, cand_pot
        else:
            best = np.where(cand_pot < best_pot, cand, best)
    return np.stack([Xc[c0], Xc[best]], axis=1)


def _assign(Xc: np.ndarray, seg: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """Label 1 where the row is strictly nearer centre 1: ``|c1|^2 - |c0|^2 < 2 x.(c1 - c0)`` (scikit-learn compares
    ``|c|^2 - 2 x.c``; the two differ only where the distances tie to the last bit)."""
    norms = np.einsum("sjd,sjd->sj", centres, centres)
    dots = np.einsum("id,id->i", Xc, (centres[:, 1] - centres[:, 0])[seg])
    return (norms[:, 1][seg] - norms[:, 0][seg] < 2 * dots).astype(np.int8)


def _update(Xc: np.ndarray, seg: np.ndarray, n: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """New centres (per part and label, the sum times the reciprocal count, as scikit-learn) and whether one emptied."""
    sums = _lloyd_sums(Xc, labels, n).reshape(len(n), 2, -1)
    counts = np.stack([np.bincount(seg, weights=1 - labels, minlength=len(n)),
                       np.bincount(seg, weights=labels, minlength=len(n))], axis=1)
    return sums * (1.0 / np.maximum(counts, 1))[:, :, None], (counts == 0).any(1)


def _lloyd_sums(Xc: np.ndarray, labels: np.ndarray, n: np.ndarray) -> np.ndarray:
    """Per part, the row sums of label 0 then label 1 in scikit-learn's order: each of its OpenMP threads sums its
    static block of 256-row chunks row by row, and the blocks' sums are added in thread order."""
    chunks = -(-n // CHUNK_ROWS)
    threads = np.minimum(_openmp_effective_n_threads(), chunks)
    part = np.repeat(np.arange(len(n)), threads)
    thread = np.arange(len(part)) - np.repeat(np.cumsum(threads) - threads, threads)
    q, r = np.divmod(chunks, threads)
    first = lambda t: np.minimum((t * q[part] + np.minimum(t, r[part])) * CHUNK_ROWS, n[part])  # noqa: E731
    begin, end = first(thread), first(thread + 1)
    partial = _sequential_sums(Xc, (np.cumsum(n) - n)[part] + begin, end - begin, labels)
    sums = np.zeros((len(n), partial.shape[1]))
    for t in range(int(threads.max())):
        sums[part[thread == t]] += partial[thread == t]
    return sums


def _sequential_sums(A: np.ndarray, begin: np.ndarray, length: np.ndarray, labels: np.ndarray | None = None) -> np.ndarray:
    """Sum of ``A[begin:begin + length]`` per run (with ``labels``: of its label-0 rows, then of its label-1 rows),
    added row by row from zero (numpy's order for an axis-0 sum; ``np.add.reduceat`` adds in another). Runs of
    similar length are stacked, padded, and summed with the padding masked out."""
    groups = 1 if labels is None else 2
    out = np.zeros((len(begin), groups * A.shape[1]))
    bucket = np.ceil(np.log2(np.maximum(length, 1))).astype(np.int64)
    for b in np.unique(bucket):
        runs = np.flatnonzero(bucket == b)
        width = np.arange(int(length[runs].max()))
        valid = width < length[runs, None]
        rows = np.where(valid, begin[runs, None] + width, 0)
        block = A[rows]
        if labels is None:
            out[runs] = np.sum(block, axis=1, where=valid[..., None])
            continue
        for label in range(2):
            mask = (valid & (labels[rows] == label))[..., None]
            out[runs, label * A.shape[1]:(label + 1) * A.shape[1]] = np.sum(block, axis=1, where=mask)
    return out


def _lloyd(Xc, seg, n, centres, tol) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Lloyd iterations per part until its labels repeat or its centres move ``<= tol`` (then one more assignment,
    as scikit-learn). Returns labels, centres, inertia and whether a cluster emptied on the way."""
    S, starts = len(n), np.cumsum(n) - n
    labels, out, empty = np.zeros(len(Xc), np.int8), centres.copy(), np.zeros(S, bool)
    live, rows, old = np.arange(S), np.arange(len(Xc)), np.full(len(Xc), -1, np.int8)
    lseg, ln, C, Xl = seg, n, centres, Xc
    for it in range(MAX_ITER):
        lab = _assign(Xl, lseg, C)
        new, emptied = _update(Xl, lseg, ln, lab)
        empty[live] |= emptied
        strict = np.bincount(lseg, weights=lab != old, minlength=len(live)) == 0
        done = strict | ((np.sqrt(((new - C) ** 2).sum(-1)) ** 2).sum(-1) <= tol[live]) | (it == MAX_ITER - 1)
        stop = done[lseg]
        redo = stop & ~strict[lseg]  # converged on the centre shift: labels of the final centres
        lab[redo] = _assign(Xl[redo], lseg[redo], new)
        labels[rows[stop]], out[live[done]] = lab[stop], new[done]
        if done.all():
            break
        keep = ~done
        live, rows, old, C, Xl, ln = live[keep], rows[~stop], lab[~stop], new[keep], Xl[~stop], ln[keep]
        lseg = (np.cumsum(keep) - 1)[lseg[~stop]]
    diff = Xc - out[seg, labels]
    return labels, out, np.add.reduceat(np.einsum("ij,ij->i", diff, diff), starts), empty


def _keep_best(best: tuple, new: tuple, seg: np.ndarray) -> tuple:
    """Per part, the new init where its inertia is lower and its clustering differs (scikit-learn's rule); a part
    whose cluster emptied in any init is flagged (scikit-learn's relocation changes its inertia)."""
    take = (new[2] < best[2]) & ~_same_clustering(new[0], best[0], seg, len(best[2]))
    rows = take[seg]
    return (np.where(rows, new[0], best[0]), np.where(take[:, None, None], new[1], best[1]),
            np.where(take, new[2], best[2]), best[3] | new[3])


def _same_clustering(a: np.ndarray, b: np.ndarray, seg: np.ndarray, S: int) -> np.ndarray:
    """scikit-learn's ``_is_same_clustering`` per part: every cluster of ``a`` falls in one cluster of ``b``."""
    pairs = np.bincount(seg * 4 + a.astype(np.int64) * 2 + b, minlength=4 * S).reshape(S, 2, 2) > 0
    return ~(pairs.all(-1).any(-1))


def _sklearn_two_means(rows: np.ndarray, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """scikit-learn's own 2-means on one part (it relocates an emptied cluster; the warning is expected)."""
    with warnings.catch_warnings():  # a part of identical vectors: one cluster, cut in the middle
        warnings.simplefilter("ignore", ConvergenceWarning)
        km = KMeans(n_clusters=2, n_init=N_INIT, random_state=seed).fit(rows)
    return km.labels_.astype(np.int8), km.cluster_centers_
