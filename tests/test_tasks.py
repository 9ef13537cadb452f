"""Tasks and the frozen release on the Myntra fixture: graded relevance, balance, splits, leakage, determinism."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

from conftest import MYNTRA_SMALL, SMALL_BUILD
from fashionrq.catalog import FIELDS
from fashionrq.errors import InputError
from fashionrq.tasks import bench_stats, build_release, export_beir, read_jsonl, read_qrels




def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "fashionrq", *args], capture_output=True, text=True)


@pytest.fixture(scope="module")
def bench(small_bench) -> Path:
    return small_bench


@pytest.fixture(scope="module")
def release(bench):
    """Everything the checks need, read back from the files."""
    ids, sids = _sids(bench)
    meta = {m["qid"]: m for m in read_jsonl(bench / "labels" / "queries.jsonl")}
    return {"sid": dict(zip(ids, map(tuple, sids.tolist()))), "meta": meta,
            "manifest": json.loads((bench / "manifest.json").read_text())}


def _sids(bench: Path):
    table = pq.read_table(bench / "labels" / "sids.parquet")
    return table.column("item_id").to_pylist(), np.column_stack([table.column(f"sid_{i}").to_numpy() for i in (1, 2, 3)])


def _shared_prefix(sid: tuple, leaf: str) -> int:
    n = 0
    for a, b in zip(sid, (int(c) for c in leaf.split("-"))):
        if a != b:
            break
        n += 1
    return n


def test_every_label_is_the_shared_prefix_length(bench, release):
    sid, meta = release["sid"], release["meta"]
    checked = 0
    for task in ("t1", "t3", "t4"):
        for qid, item, grade in read_qrels(bench / "labels" / f"{task}.qrels"):
            assert meta[qid]["task"] == task
            assert grade == _shared_prefix(sid[item], meta[qid]["leaf"])
            checked += 1
    pairs = {p["pair_id"]: p for p in read_jsonl(bench / "public" / "t2_pairs.jsonl")}
    labels = list(read_jsonl(bench / "public" / "t2_dev_labels.jsonl")) + list(read_jsonl(bench / "labels" / "t2_test.jsonl"))
    assert sorted(r["pair_id"] for r in labels) == sorted(pairs)
    for row in labels:
        pair = pairs[row["pair_id"]]
        assert row["label"] == _shared_prefix(sid[pair["item_id"]], meta[pair["qid"]]["leaf"])
    assert checked > 1000 and len(labels) > 500


def test_anchors_are_qualified_leaves(bench, release):
    clusters = pq.read_table(bench / "labels" / "clusters.parquet").to_pandas().set_index("cluster_id")
    leaves = {m["leaf"] for m in release["meta"].values()}
    assert all(clusters.loc[leaf, "level"] == 3 and clusters.loc[leaf, "qualified"] for leaf in leaves)
    counts = release["manifest"]["counts"]["clusters"]
    assert {lv: int((clusters["level"] == int(lv)).sum()) for lv in counts} == {lv: c["prefixes"] for lv, c in counts.items()}


def test_t1_pools_are_balanced_and_fully_judged(bench):
    qrels = defaultdict(dict)
    for qid, item, grade in read_qrels(bench / "labels" / "t1.qrels"):
        qrels[qid][item] = grade
    pools = {r["qid"]: r["candidates"] for r in read_jsonl(bench / "public" / "t1_candidates.jsonl")}
    assert set(pools) == set(qrels) == {r["qid"] for r in read_jsonl(bench / "public" / "t1_queries.jsonl")}
    for qid, pool in pools.items():
        assert len(pool) == len(set(pool)) <= 40 and set(pool) == set(qrels[qid])
        tiers = Counter(qrels[qid].values())
        assert set(tiers) == {0, 1, 2, 3} and len(set(tiers.values())) == 1 and tiers[3] >= 2
    grades = Counter(g for q in qrels.values() for g in q.values())
    total = sum(grades.values())
    assert all(abs(grades[g] / total - 0.25) <= 0.025 for g in range(4))


def test_t2_split_is_by_cluster_and_balanced(bench, release):
    meta = release["meta"]
    pairs = list(read_jsonl(bench / "public" / "t2_pairs.jsonl"))
    leaves = defaultdict(set)
    for p in pairs:
        leaves[p["split"]].add(meta[p["qid"]]["leaf"])
    assert leaves["dev"] and leaves["test"] and not leaves["dev"] & leaves["test"]
    mids = {split: {leaf.rsplit("-", 1)[0] for leaf in s} for split, s in leaves.items()}
    assert not mids["dev"] & mids["test"]
    dev = {r["pair_id"] for r in read_jsonl(bench / "public" / "t2_dev_labels.jsonl")}
    assert dev == {p["pair_id"] for p in pairs if p["split"] == "dev"}
    labels = Counter(r["label"] for r in read_jsonl(bench / "labels" / "t2_test.jsonl"))
    labels.update(r["label"] for r in read_jsonl(bench / "public" / "t2_dev_labels.jsonl"))
    total = sum(labels.values())
    assert all(abs(labels[g] / total - 0.25) <= 0.025 for g in range(4))


def test_t3_one_target_against_neighbouring_leaves(bench, release):
    sid, meta = release["sid"], release["meta"]
    clusters = pq.read_table(bench / "labels" / "clusters.parquet", columns=["cluster_id", "children", "level"]).to_pandas()
    children = dict(zip(clusters["cluster_id"], clusters["children"]))
    rows = list(read_jsonl(bench / "public" / "t3_queries.jsonl"))
    assert rows
    for row in rows:
        leaf = meta[row["qid"]]["leaf"]
        grades = [_shared_prefix(sid[i], leaf) for i in row["candidates"]]
        assert grades.count(3) == 1 and 4 <= len(grades) <= 5 and min(grades) >= 1
        distractor_leaves = {"-".join(map(str, sid[i])) for i, g in zip(row["candidates"], grades) if g < 3}
        assert len(distractor_leaves) == len(grades) - 1
        siblings = len(children[leaf.rsplit("-", 1)[0]]) - 1
        assert grades.count(2) == min(siblings, len(grades) - 1)  # siblings are used before cousins


def test_t4_groups_share_a_leaf_and_a_pool(bench, release):
    meta = release["meta"]
    by_group = defaultdict(list)
    for r in read_jsonl(bench / "public" / "t4_queries.jsonl"):
        by_group[r["group_id"]].append(r["qid"])
    groups = {g["group_id"]: g["candidates"] for g in read_jsonl(bench / "public" / "t4_groups.jsonl")}
    assert set(by_group) == set(groups)
    qrels = defaultdict(set)
    for qid, item, _ in read_qrels(bench / "labels" / "t4.qrels"):
        qrels[qid].add(item)
    for gid, qids in by_group.items():
        assert len(qids) >= 2 and len({meta[q]["leaf"] for q in qids}) == 1
        assert all(qrels[q] == set(groups[gid]) for q in qids)


def test_public_files_leak_no_sid_cluster_or_grade(bench, release):
    prefixes = {m["leaf"] for m in release["meta"].values()}
    prefixes |= {p.rsplit("-", 1)[0] for p in prefixes}
    public = bench / "public"
    items = pq.read_table(public / "items.parquet")
    assert items.column_names == list(FIELDS)
    for path in public.glob("*.jsonl"):
        for row in read_jsonl(path):
            assert set(row) <= {"qid", "text", "candidates", "pair_id", "item_id", "split", "label", "group_id"}
            assert ("label" in row) == (path.name == "t2_dev_labels.jsonl")
            for key in ("qid", "pair_id", "group_id"):
                if key in row:
                    assert re.fullmatch(r"[qpg]\d{4,}", row[key])
            assert not any(p in row.get("text", "").split() for p in prefixes)


def _rank_correlation(x: list[float], y: list[float]) -> float:
    rx = np.argsort(np.argsort(x)).astype(float)
    ry = np.argsort(np.argsort(np.asarray(y) + np.random.default_rng(0).random(len(y)) * 1e-3)).astype(float)
    return float(np.corrcoef(rx, ry)[0, 1])


def test_candidate_and_id_order_carry_no_grade(bench, release):
    grade = {(q, i): g for t in ("t1", "t3") for q, i, g in read_qrels(bench / "labels" / f"{t}.qrels")}
    for name in ("t1_candidates.jsonl", "t3_queries.jsonl"):
        positions, grades = [], []
        for row in read_jsonl(bench / "public" / name):
            for pos, item in enumerate(row["candidates"]):
                positions.append(pos / len(row["candidates"]))
                grades.append(grade[(row["qid"], item)])
        assert abs(_rank_correlation(positions, grades)) < 0.05
    # query ids say nothing about the anchor cluster: qid order vs leaf order is uncorrelated
    meta = sorted(release["meta"].values(), key=lambda m: m["qid"])
    leaf_rank = {leaf: i for i, leaf in enumerate(sorted({m["leaf"] for m in meta}, key=lambda p: tuple(map(int, p.split("-")))))}
    assert abs(_rank_correlation(list(range(len(meta))), [leaf_rank[m["leaf"]] for m in meta])) < 0.05


def test_tier_balance_is_reported(release):
    balance = release["manifest"]["report"]["tasks"]["tier_balance"]
    assert balance["t1"]["within_tolerance"] and balance["t2"]["within_tolerance"]
    assert release["manifest"]["report"]["querygen"]["kept"] == release["manifest"]["counts"]["queries"]["anchor"]


def test_manifest_hashes_every_file(bench, release):
    import hashlib

    files = release["manifest"]["files"]
    on_disk = sorted(p.relative_to(bench).as_posix() for p in bench.rglob("*") if p.is_file() and p.name != "manifest.json")
    assert sorted(files) == on_disk
    assert all(hashlib.sha256((bench / f).read_bytes()).hexdigest() == h for f, h in files.items())


def test_cli_rebuild_gives_a_byte_identical_manifest(bench, tmp_path):
    out = tmp_path / "again"
    done = run_cli("build", "--catalog", str(MYNTRA_SMALL), "--out", str(out), "--encoder", "minilm", "--sid-method", "rkmeans",
                   "--codebook-size", "16", "--seed", "0", "--pool-size", "40", "--min-per-tier", "2")
    assert done.returncode == 0, done.stderr
    assert (out / "manifest.json").read_bytes() == (bench / "manifest.json").read_bytes()


def test_stats_match_the_files(bench):
    stats = bench_stats(bench)
    t1 = read_qrels(bench / "labels" / "t1.qrels")
    assert stats["tasks"]["t1"]["judged_pairs"] == len(t1)
    assert stats["labels"]["t1"]["exact"]["count"] == sum(g == 3 for _, _, g in t1)
    assert stats["catalog_coverage"]["items_touched"] <= stats["items"] == 2181
    assert sum(stats["catalog_coverage"]["t2_pairs_by_gender"].values()) <= sum(stats["tasks"]["t2"]["pairs"].values())
    assert stats["attribute_tags"]["per_attribute"]["product_type"] > 0
    done = run_cli("stats", str(bench))
    assert done.returncode == 0, done.stderr
    assert "Table 8" in done.stdout + done.stderr


def test_export_beir(bench, tmp_path):
    out = export_beir(bench, tmp_path / "beir")
    corpus = [json.loads(line) for line in (out / "corpus.jsonl").read_text().splitlines()]
    queries = [json.loads(line) for line in (out / "queries.jsonl").read_text().splitlines()]
    qrels = (out / "qrels" / "test.tsv").read_text().splitlines()
    assert len(corpus) == 2181 and all(c["text"] for c in corpus)
    assert qrels[0] == "query-id\tcorpus-id\tscore" and len(qrels) - 1 == len(read_qrels(bench / "labels" / "t1.qrels"))
    ids = {c["_id"] for c in corpus}
    assert all(line.split("\t")[1] in ids for line in qrels[1:])
    assert {q["_id"] for q in queries} == {line.split("\t")[0] for line in qrels[1:]}


def test_bad_inputs_are_one_sentence_errors(tmp_path):
    with pytest.raises(InputError, match="not a benchmark release"):
        bench_stats(tmp_path)
    done = run_cli("export", "beir", "--bench", str(tmp_path), "--out", str(tmp_path / "x"))
    assert done.returncode == 2 and "not a benchmark release" in done.stdout + done.stderr
    done = run_cli("build", "--catalog", str(MYNTRA_SMALL), "--out", str(tmp_path / "b"), "--queries-backend", "poem")
    assert done.returncode == 2 and "unknown queries backend" in done.stdout + done.stderr
    (tmp_path / "junk.txt").write_text("x")
    with pytest.raises(InputError, match="not a release"):
        build_release(MYNTRA_SMALL, tmp_path, **SMALL_BUILD)
