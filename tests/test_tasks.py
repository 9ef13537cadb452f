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
from fashionrq.io import read_jsonl
from fashionrq.tasks import BuildConfig, bench_stats, build_release, export_beir, read_qrels




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


def _catalog_sids(bench: Path, items) -> np.ndarray:
    """The release's SIDs (written in public id order) in the row order of the catalog table ``items``."""
    from fashionrq.tasks import catalog_ids

    ids, sids = _sids(bench)
    public_row = {catalog: row for row, catalog in enumerate(catalog_ids(bench)[i] for i in ids)}
    return sids[[public_row[c] for c in items.column("item_id").to_pylist()]]


def _shared_prefix(sid: tuple, anchor: str) -> int:
    """The prefix grade: the shared-prefix length for a leaf; 3 inside a level-2 anchor, 2 in its level-1 prefix."""
    n = 0
    codes = [int(c) for c in anchor.split("-")]
    for a, b in zip(sid, codes):
        if a != b:
            break
        n += 1
    return n + 3 - len(codes) if n else 0


def _qrels(bench: Path, task: str) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = defaultdict(dict)
    for qid, item, grade in read_qrels(bench / "labels" / f"{task}.qrels"):
        out[qid][item] = grade
    return out


def _lists(bench: Path) -> dict[str, list[tuple[str, list[str]]]]:
    """Every public candidate list: (qid, candidates) of T1, T3 and T4 (T4 by group), and T2 items by query."""
    public = bench / "public"
    t4_qid = {r["group_id"]: r["qid"] for r in read_jsonl(public / "t4_queries.jsonl")}
    t2: dict[str, list[str]] = defaultdict(list)
    for p in read_jsonl(public / "t2_pairs.jsonl"):
        t2[p["qid"]].append(p["item_id"])
    return {
        "t1": [(r["qid"], r["candidates"]) for r in read_jsonl(public / "t1_candidates.jsonl")],
        "t2": sorted(t2.items()),
        "t3": [(r["qid"], r["candidates"]) for r in read_jsonl(public / "t3_queries.jsonl")],
        "t4": [(t4_qid[g["group_id"]], g["candidates"]) for g in read_jsonl(public / "t4_groups.jsonl")],
    }


@pytest.fixture(scope="module")
def full_matches(bench) -> dict[str, set[str]]:
    """Each query's full matches (public item ids), recomputed from its hidden φ and the public items."""
    from fashionrq.protocol.audit import ReleaseMatches

    found = ReleaseMatches.load(bench)
    return {qid: {found.ids[r] for r in rows} for qid, rows in found.matches.items()}


@pytest.fixture(scope="module")
def contradicting(bench) -> dict[str, set[str]]:
    """Each query's judged items that contradict it (public item ids): a known value of a stated attribute that no
    stated value is near (FullMatch.contradicts), recomputed from its hidden φ and the public items."""
    from fashionrq.protocol.audit import ReleaseMatches

    found = ReleaseMatches.load(bench)
    judged = defaultdict(list)
    for task in ("t1", "t1o", "t3", "t4"):
        for qid, item, _ in read_qrels(bench / "labels" / f"{task}.qrels"):
            judged[qid].append(item)
    return {qid: {i for i, hit in zip(items, found.contradicts(qid, items)) if hit} for qid, items in judged.items()}


def test_every_label_is_the_shared_prefix_length_or_credits_a_full_match(bench, release, full_matches, contradicting):
    """Labels are the shared-prefix length; open-corpus T1 raises every full match to at least 2; an item of the
    anchor leaf that contradicts the query (the leaf's green bag for "red handbags") is a Sibling for it, 2."""
    sid, meta = release["sid"], release["meta"]
    checked = raised = lowered = 0
    for task in ("t1", "t1o", "t3", "t4"):
        for qid, item, grade in read_qrels(bench / "labels" / f"{task}.qrels"):
            assert meta[qid]["task"] == task
            prefix = _shared_prefix(sid[item], meta[qid]["leaf"])
            credit = task == "t1o" and item in full_matches[qid]
            expected = 2 if prefix == 3 and item in contradicting[qid] else max(prefix, 2) if credit else prefix
            assert grade == expected, (task, qid, item)
            raised += grade > prefix
            lowered += grade < prefix
            checked += 1
    assert raised > 100  # the open corpus credits full matches outside the anchor's level-1 prefix
    assert lowered > 10  # the leaves hold items a query of theirs contradicts (its 90 % support leaves a tenth)
    pairs = {p["pair_id"]: p for p in read_jsonl(bench / "public" / "t2_pairs.jsonl")}
    labels = list(read_jsonl(bench / "public" / "t2_dev_labels.jsonl")) + list(read_jsonl(bench / "labels" / "t2_test.jsonl"))
    assert sorted(r["pair_id"] for r in labels) == sorted(pairs)
    for row in labels:
        pair = pairs[row["pair_id"]]
        assert row["label"] == _shared_prefix(sid[pair["item_id"]], meta[pair["qid"]]["leaf"])
    # T2 gets what T1's anchor leaves leave of the fixture, and only the pairs of leaves its queries tell apart
    assert checked > 1000 and len(labels) > 100


def test_open_corpus_qrels_judge_the_level1_prefix_and_every_full_match(bench, release, full_matches):
    sid, meta = release["sid"], release["meta"]
    qrels = _qrels(bench, "t1o")
    assert set(qrels) == {r["qid"] for r in read_jsonl(bench / "public" / "t1o_queries.jsonl")} and len(qrels) > 50
    for qid, judged in qrels.items():
        leaf = meta[qid]["leaf"]
        expected = {item for item, s in sid.items() if s[0] == int(leaf.split("-")[0])}
        lowest = 1 if meta[qid]["level"] == 3 else 2  # a level-2 anchor grades its level-1 prefix 2
        assert set(judged) == expected | full_matches[qid] and min(judged.values()) == lowest and max(judged.values()) == 3


def test_anchors_are_qualified_leaves_or_broad_level2_clusters(bench, release):
    """Every task anchors at qualified leaves; open-corpus T1 also at qualified level-2 clusters (broad queries),
    never at one that holds a T2 unit (T2's dev labels are public)."""
    clusters = pq.read_table(bench / "labels" / "clusters.parquet").to_pandas().set_index("cluster_id")
    meta = release["meta"].values()
    assert all(clusters.loc[m["leaf"], "level"] == 3 for m in meta if m["task"] != "t1o")
    assert all(clusters.loc[m["leaf"], "level"] in (2, 3) and clusters.loc[m["leaf"], "qualified"] for m in meta)
    broad = {m["leaf"] for m in meta if m["level"] == 2}
    assert broad and all(m["task"] == "t1o" for m in meta if m["level"] == 2)
    assert not broad & {m["leaf"].rsplit("-", 1)[0] for m in meta if m["task"] == "t2"}
    assert release["manifest"]["report"]["tasks"]["broad_anchors"]["t1o"] == len(broad)
    counts = release["manifest"]["counts"]["clusters"]
    assert {lv: int((clusters["level"] == int(lv)).sum()) for lv in counts} == {lv: c["prefixes"] for lv, c in counts.items()}


def test_t1_pools_are_full_uniform_and_shared_by_a_leaf(bench, release):
    qrels = _qrels(bench, "t1")
    pools = dict(_lists(bench)["t1"])
    assert set(pools) == set(qrels) == {r["qid"] for r in read_jsonl(bench / "public" / "t1_queries.jsonl")}
    by_leaf = defaultdict(set)
    for qid, pool in pools.items():
        assert len(pool) == len(set(pool)) == 40 and set(pool) == set(qrels[qid])
        grades = Counter(qrels[qid].values())  # 10 of each tier, an Exact item that contradicts the query a Sibling
        assert grades[3] + grades[2] == 20 and grades[1] == grades[0] == 10 and grades[3] >= 8
        by_leaf[release["meta"][qid]["leaf"]].add(tuple(pool))
    assert all(len(p) == 1 for p in by_leaf.values())  # one pool per anchor leaf, shared by its queries
    # Default settings (K chosen by the weakest task's units, big leaves split): anchor leaves with full,
    # item-disjoint pools on the 2,181-item fixture. Issue 9 asked for 100; since the labels must mean what the query
    # asks (issue 25), sibling leaves that no query tells apart are not paired and a pool no query can use is not
    # published; with K = 9 the fixture has 38 (the manifest counts the refused ones).
    report = release["manifest"]["report"]["tasks"]
    units = report["t1_units"]
    assert len(by_leaf) == report["leaves_per_task"]["t1"] >= 35
    assert len({p for ps in by_leaf.values() for p in ps}) == units["planned"] - units["unfillable"] - units["told_apart_by_no_query"]


def test_every_task_of_the_fixture_passes_the_quality_gate(release):
    """Issue 21: every task of the test release has enough bootstrap units for the probe test to judge every cell.
    The codebook size is chosen by the weakest task's units (K = 9: 22 or more each), so the first task plan needs
    no rebalancing (under the old T1-first choice, K = 5, T1 had to be capped to give T2 and T3 8 units)."""
    report = release["manifest"]["report"]["tasks"]
    assert min(report["bootstrap_units"].values()) >= 20, report["bootstrap_units"]
    assert "task_plan" not in report


def test_t3_groups_the_catalog_cannot_fill_are_counted_not_kept_short(bench, release):
    """Every T3 list has at least ``t3_min_candidates`` items; groups left short by the other tasks are reported."""
    lists = dict(_lists(bench)["t3"])
    groups = release["manifest"]["report"]["tasks"]["t3_groups"]
    assert lists and min(len(c) for c in lists.values()) >= 4 and max(len(c) for c in lists.values()) <= 5
    assert len({tuple(sorted(c)) for c in lists.values()}) == groups["planned"] - groups["unfillable"] - groups["told_apart_by_no_query"] >= 2


def test_no_item_recurs_so_frequency_says_nothing(bench):
    """Every item sits in one candidate list of one task: its frequency is 1 whatever its grade."""
    lists = _lists(bench)
    distinct = {task: {tuple(sorted(c)) for _, c in rows} for task, rows in lists.items()}
    assert distinct["t4"] <= distinct["t1"]  # T4 groups reuse their leaf's T1 pool
    seen = Counter(item for task in ("t1", "t2", "t3") for pool in distinct[task] for item in pool)
    assert seen and set(seen.values()) == {1}
    for task in ("t1", "t3"):
        assert set(release_recurrence(bench)[task]["mean_by_grade"].values()) <= {1.0, None}


def release_recurrence(bench: Path) -> dict:
    return json.loads((bench / "manifest.json").read_text())["report"]["tasks"]["recurrence"]


def test_tasks_share_no_leaf_item_or_text(bench, release):
    meta = release["meta"]
    leaves = defaultdict(set)
    for m in meta.values():
        leaves[m["task"]].add(m["leaf"])
    assert leaves["t4"] <= leaves["t1"]
    for a in ("t1", "t1o", "t2", "t3"):
        for b in ("t1", "t1o", "t2", "t3"):
            assert a == b or not leaves[a] & leaves[b]
    texts = {t: {r["text"] for r in read_jsonl(bench / "public" / f"{t}_queries.jsonl")} for t in ("t1", "t1o", "t2", "t3")}
    assert all(not texts[a] & texts[b] for a in texts for b in texts if a < b)
    items = {t: {i for _, c in rows for i in c} for t, rows in _lists(bench).items()}
    assert not items["t1"] & items["t2"] and not items["t1"] & items["t3"] and not items["t2"] & items["t3"]


def test_bootstrap_units_share_no_candidate(bench, release):
    meta = release["meta"]
    for task, rows in _lists(bench).items():
        owner: dict[str, str] = {}
        for qid, cands in rows:
            for item in cands:
                assert owner.setdefault(item, meta[qid]["unit"]) == meta[qid]["unit"]
        units = {meta[qid]["unit"] for qid, _ in rows}
        # T2 and T3 get a handful of units on the fixture (T1's anchors take most of its 2,181 items, and only leaves
        # their queries tell apart are paired): T2 3 and T3 6 where the fixture is embedded on an Intel Xeon (float
        # kernels differ by CPU; docs/demo.md)
        assert len(units) == release["manifest"]["protocol"]["bootstrap_unit"][task]["n_units"] >= (3 if task in ("t2", "t3") else 4)


def test_t2_split_is_by_level2_prefix_and_balanced(bench, release):
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
    assert len(set(labels.values())) == 1 and set(labels) == {0, 1, 2, 3}


def test_t3_one_target_among_neighbouring_leaves(bench, release):
    sid, meta = release["sid"], release["meta"]
    rows = list(read_jsonl(bench / "public" / "t3_queries.jsonl"))
    assert rows
    for row in rows:
        leaf = meta[row["qid"]]["leaf"]
        grades = [_shared_prefix(sid[i], leaf) for i in row["candidates"]]
        assert grades.count(3) == 1 and 4 <= len(grades) <= 5 and min(grades) >= 1
        assert len({sid[i] for i in row["candidates"]}) == len(grades)  # one item per leaf


def test_t3_distractors_are_sure_wrong_answers_that_meet_every_condition_but_one(fixture_items):
    """T3 draws each distractor among the items nearest to satisfying its group's queries without satisfying one
    (a near miss: "black t-shirts for men" against a women's black t-shirt, not a watch), where it had drawn any item
    that fully matches none: on the bundled release the hybrid + verifier had read T3 at R@1 0.966, above issue 9's
    0.95. On the fixture's items, for one query: a full match weighs most, then an item that neither matches nor
    contradicts it (a missing colour: no sure wrong answer), and among the sure wrong answers fewer unmet conditions
    weigh less."""
    from fashionrq.hierarchy.attributes import items_frame
    from fashionrq.querygen.evidence import CatalogValues
    from fashionrq.relevance.fullmatch import FullMatch
    from fashionrq.tasks.construct import _Penalties
    from fashionrq.tasks.validity import QueryMatches

    frame = items_frame(fixture_items)
    values = CatalogValues(frame)
    full_match = FullMatch(values)
    phi = {"product_type": ["Tshirts"], "gender": ["Men"], "material": ["Cotton"]}
    penalty = _Penalties(QueryMatches(full_match, [phi]), {"leaf": [0]}, None).near_miss(["leaf"])
    tees, men = (frame["article_type"] == "Tshirts").to_numpy(), (frame["gender"] == "Men").to_numpy()
    cotton, no_material = full_match.clause("material", ["Cotton"]), (values.codes["material"] < 0).all(axis=1)
    full = np.flatnonzero(tees & men & cotton)
    unknown = np.flatnonzero(tees & men & no_material)  # neither a match nor a sure wrong answer
    one_off = np.flatnonzero(tees & ~men & (frame["gender"] == "Women").to_numpy() & cotton)
    two_off = np.flatnonzero(~tees & (frame["gender"] == "Women").to_numpy() & cotton)
    assert len(full) and len(unknown) and len(one_off) and len(two_off)
    assert penalty[one_off].max() < penalty[two_off].min() and penalty[two_off].max() < penalty[unknown].min()
    assert penalty[unknown].max() < penalty[full].min()


def test_t4_groups_share_a_leaf_and_its_t1_pool(bench, release):
    meta = release["meta"]
    by_group = defaultdict(list)
    for r in read_jsonl(bench / "public" / "t4_queries.jsonl"):
        by_group[r["group_id"]].append(r["qid"])
    groups = {g["group_id"]: g["candidates"] for g in read_jsonl(bench / "public" / "t4_groups.jsonl")}
    t1_pool = {meta[q]["leaf"]: set(c) for q, c in _lists(bench)["t1"]}
    assert set(by_group) == set(groups)
    qrels = _qrels(bench, "t4")
    for gid, qids in by_group.items():
        assert len(qids) >= 2 and len({meta[q]["leaf"] for q in qids}) == 1
        assert all(set(qrels[q]) == set(groups[gid]) == t1_pool[meta[q]["leaf"]] for q in qids)


def test_hidden_phi_is_the_generators_record(bench, release):
    for row in read_jsonl(bench / "labels" / "phi.jsonl"):
        assert sorted(k for k, v in row["phi"].items() if v) == row["expressed"]
    agreement = release["manifest"]["report"]["querygen"]["parser_agreement"]
    assert {"product_type", "gender"} <= set(agreement)
    assert all(0 <= v["precision"] <= 1 and 0 <= v["recall"] <= 1 and v["support"] > 0 for v in agreement.values())


def test_manifest_registers_protocol_and_construction(release):
    from fashionrq.tasks import auto_codebook_size, codebook_candidates
    from fashionrq.taskspec import TASKS, headlines

    manifest = release["manifest"]
    assert manifest["protocol"]["headline"] == headlines()
    assert set(manifest["protocol"]["bootstrap_unit"]) == set(TASKS) and manifest["protocol"]["open_depth"] == 100
    codebook = manifest["construction"]["codebook"]
    # the fixture release is built with the size its search chooses given (conftest.SMALL_BUILD; the slow capped test
    # of test_determinism.py searches), so the record names the option and lists no candidates
    assert codebook == {"size": 9, "items": 2181, "chosen_by": "--codebook-size", "candidates": None}
    assert manifest["config"]["codebook_size"] == SMALL_BUILD["codebook_size"] == 9
    assert codebook_candidates(2181) == [4, 5, 6, 7, 8, 9]  # half to one and a half times auto_codebook_size = 6
    assert auto_codebook_size(2181) == 6 and auto_codebook_size(44446) == 64 and auto_codebook_size(500) == 4
    assert codebook_candidates(44446) == [64] and codebook_candidates(1200) == [4, 5, 6]
    assert codebook_candidates(17593) == [25, 32, 40, 47, 55, 63]  # the 17,593-item catalog of issue 22 (auto 50)
    split = manifest["construction"]["leaf_split"]
    assert split["min_items"] == 10 and split["leaves_after"] == manifest["counts"]["clusters"]["3"]["prefixes"] > split["leaves_before"]
    assert manifest["construction"]["components"]["sid_encoder"] == SMALL_BUILD["encoder"]


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
        positions, grades, lists = [], [], set()
        for row in read_jsonl(bench / "public" / name):
            lists.add(tuple(row["candidates"]))
            for pos, item in enumerate(row["candidates"]):
                positions.append(pos / len(row["candidates"]))
                grades.append(grade[(row["qid"], item)])
        # within 3 standard errors of 0; the queries of a unit share one shuffled list, so the errors count the
        # distinct lists' positions, not the (query, item) pairs
        positions_shuffled = sum(len(c) for c in lists)
        assert abs(_rank_correlation(positions, grades)) < max(0.05, 3 / np.sqrt(positions_shuffled))
    # query ids say nothing about the anchor cluster: qid order vs leaf order is uncorrelated (a shuffled order's rank
    # correlation has standard error 1/sqrt(n): within 3 of them)
    meta = sorted(release["meta"].values(), key=lambda m: m["qid"])
    leaf_rank = {leaf: i for i, leaf in enumerate(sorted({m["leaf"] for m in meta}, key=lambda p: tuple(map(int, p.split("-")))))}
    assert abs(_rank_correlation(list(range(len(meta))), [leaf_rank[m["leaf"]] for m in meta])) < 3 / np.sqrt(len(meta))


def test_tier_balance_is_reported(release):
    balance = release["manifest"]["report"]["tasks"]["tier_balance"]
    assert balance["t1"]["within_tolerance"] and balance["t2"]["within_tolerance"]
    assert release["manifest"]["report"]["querygen"]["kept_in_tasks"] == release["manifest"]["counts"]["queries"]["anchor"]


def test_manifest_hashes_every_file(bench, release):
    import hashlib

    files = release["manifest"]["files"]
    on_disk = sorted(p.relative_to(bench).as_posix() for p in bench.rglob("*") if p.is_file() and p.name != "manifest.json")
    assert sorted(files) == on_disk
    assert all(hashlib.sha256((bench / f).read_bytes()).hexdigest() == h for f, h in files.items())


@pytest.mark.slow  # a second full build: ~9 s
def test_cli_rebuild_gives_a_byte_identical_manifest(bench, tmp_path):
    out = tmp_path / "again"
    done = run_cli("build", "--catalog", str(MYNTRA_SMALL), "--out", str(out), "--encoder", SMALL_BUILD["encoder"], "--seed", "0",
                   "--codebook-size", str(SMALL_BUILD["codebook_size"]), "--allow-weak")
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
    assert "Table 8" in done.stdout and "LexiconParser" in done.stdout and "catalog coverage" in done.stdout  # `> stats.txt` keeps it
    assert "Table 8" not in done.stderr


def test_export_beir(bench, tmp_path):
    out = export_beir(bench, tmp_path / "beir")
    corpus = [json.loads(line) for line in (out / "corpus.jsonl").read_text().splitlines()]
    queries = [json.loads(line) for line in (out / "queries.jsonl").read_text().splitlines()]
    qrels = (out / "qrels" / "test.tsv").read_text().splitlines()
    assert len(corpus) == 2181 and all(c["text"] for c in corpus)
    assert qrels[0] == "query-id\tcorpus-id\tscore" and len(qrels) - 1 == len(read_qrels(bench / "labels" / "t1o.qrels"))
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
        build_release(BuildConfig(catalog=MYNTRA_SMALL, out=tmp_path, **SMALL_BUILD))


def test_public_item_ids_are_opaque_and_mapped_in_labels(bench, fixture_items):
    from fashionrq.tasks import catalog_ids

    public = pq.read_table(bench / "public" / "items.parquet")
    ids = public.column("item_id").to_pylist()
    assert all(re.fullmatch(r"i\d{4,}", i) for i in ids) and len(set(ids)) == len(ids) == fixture_items.num_rows
    mapping = catalog_ids(bench)
    catalog = fixture_items.column("item_id").to_pylist()
    assert ids == sorted(ids) and sorted(mapping[i] for i in ids) == sorted(catalog)  # rows in opaque-id order
    row = {c: r for r, c in enumerate(catalog)}
    order = [row[mapping[i]] for i in ids]  # each public row's catalog row: only the id and photo path are replaced
    assert public.drop(["item_id", "image_path"]).equals(fixture_items.drop(["item_id", "image_path"]).take(order))
    # neither the opaque ids nor the public rows keep the catalog's order (Myntra ids of one product line are close,
    # and neighbouring catalog rows are often one product line)
    assert abs(_rank_correlation([int(i[1:]) for i in ids], [float(mapping[i]) for i in ids])) < 0.05
    assert abs(_rank_correlation(list(range(len(order))), order)) < 0.05
    assert np.mean(np.abs(np.diff(order)) == 1) < 0.01  # neighbours in public/ are not neighbours in the catalog
    sid_ids, _ = _sids(bench)
    qrel_items = {i for t in ("t1", "t3", "t4", "t1o") for _, i, _ in read_qrels(bench / "labels" / f"{t}.qrels")}
    assert sid_ids == ids and qrel_items <= set(ids)
    assert bench_stats(bench)["catalog_coverage"]["items_touched"] > 0


def test_photos_are_public_only_under_public_ids(bench, release, fixture_items):
    import hashlib

    from fashionrq.tasks import catalog_ids

    mapping = catalog_ids(bench)  # public id -> catalog id (Myntra's photo files are named <catalog id>.jpg)
    public = bench / "public"
    names = [p.relative_to(public) for p in public.rglob("*")]
    assert not [n for n in names if any(Path(part).stem in set(mapping.values()) for part in n.parts)]
    items = pq.read_table(public / "items.parquet").to_pylist()
    photos = {r["item_id"]: r["image_path"] for r in items if r["image_path"]}
    assert photos == {i: f"images/{i}.jpg" for i in photos}  # relative to public/, named by the opaque id
    assert sorted(p.name for p in (public / "images").iterdir()) == sorted(f"{i}.jpg" for i in photos)
    original = dict(zip(fixture_items.column("item_id").to_pylist(), fixture_items.column("image_path").to_pylist()))
    assert len(photos) == 30 and all(original[mapping[i]] for i in photos)
    for item, path in photos.items():  # the catalog's own bytes, listed in the manifest
        digest = hashlib.sha256((public / path).read_bytes()).hexdigest()
        assert digest == hashlib.sha256(Path(original[mapping[item]]).read_bytes()).hexdigest()
        assert release["manifest"]["files"][f"public/{path}"] == digest
        assert mapping[item].encode() not in (public / path).read_bytes()  # nor in the JPEG's bytes (EXIF, comment)
    size = sum((public / p).stat().st_size for p in photos.values())
    assert release["manifest"]["counts"]["photos"] == {"count": 30, "bytes": size}


@pytest.mark.slow  # two more full builds: ~9 s
def test_a_drawn_secret_is_stored_withheld_from_the_manifest_and_replays_only_with_the_secret(bench, tmp_path):
    from fashionrq.catalog import ingest
    from fashionrq.encoders.given import item_vectors
    from fashionrq.tasks import construct_release

    secret_bench = tmp_path / "secret"
    build_release(BuildConfig(catalog=MYNTRA_SMALL, out=secret_bench, encoder=SMALL_BUILD["encoder"], allow_weak=True))  # no seed, no secret: one is drawn
    manifest = json.loads((secret_bench / "manifest.json").read_text())
    secret = (secret_bench / "labels" / "secret.txt").read_text().strip()
    assert manifest["construction"]["secret"]["source"] == "drawn" and len(secret) == 32
    assert manifest["files"]["labels/secret.txt"] and secret not in (secret_bench / "manifest.json").read_text()
    assert manifest["tokenizer"]["config"]["seed"] == "withheld (construction secret)" and manifest["tokenizer"]["cache_key"] is None
    tasks = sorted(p.name for p in (bench / "public").glob("*.jsonl"))
    # the seed-only release (what an attacker can replay) differs from the secret one in every task file
    assert all((bench / "public" / n).read_bytes() != (secret_bench / "public" / n).read_bytes() for n in tasks)
    # the same secret (and seed 0) rebuilds the same construction: the construction stage on the same SIDs
    again = tmp_path / "again"
    items = ingest(MYNTRA_SMALL).table
    sids = _catalog_sids(secret_bench, items)
    construct_release(BuildConfig(out=again, seed=0, secret=secret), items, sids,
                      vectors=item_vectors(items, SMALL_BUILD["encoder"], None, None)[0])
    public = sorted(p.relative_to(secret_bench / "public") for p in (secret_bench / "public").rglob("*") if p.is_file())
    assert public == sorted(p.relative_to(again / "public") for p in (again / "public").rglob("*") if p.is_file())
    assert all((again / "public" / n).read_bytes() == (secret_bench / "public" / n).read_bytes() for n in public)
    assert (again / "labels" / "t1.qrels").read_bytes() == (secret_bench / "labels" / "t1.qrels").read_bytes()
    assert json.loads((again / "manifest.json").read_text())["construction"]["secret"]["source"] == "given"


def test_queries_go_to_a_seeded_sample_of_whole_level2_groups(bench, fixture_items):
    """Above ``max_leaves`` qualified leaves, queries are written for the leaves of whole sampled level-2 groups."""
    from collections import Counter

    from fashionrq.hierarchy import build_hierarchy
    from fashionrq.tasks.queries import sample_leaves

    hierarchy = build_hierarchy(fixture_items, _catalog_sids(bench, fixture_items))
    every, report = sample_leaves(hierarchy, None)
    assert report == {"qualified": len(every), "sampled": False, "verbalized": len(every)} and len(every) > 40
    leaves, report = sample_leaves(hierarchy, 20, seed=3)
    assert [leaf.cluster_id for leaf in leaves] == [leaf.cluster_id for leaf in sample_leaves(hierarchy, 20, seed=3)[0]]
    groups = {leaf.parent for leaf in leaves}
    assert leaves == [leaf for leaf in every if leaf.parent in groups]  # whole groups, in prefix order
    largest = max(Counter(leaf.parent for leaf in every).values())
    assert 20 <= len(leaves) < 20 + largest
    assert report == {"qualified": len(every), "sampled": True, "verbalized": len(leaves), "level2_prefixes": len(groups)}
