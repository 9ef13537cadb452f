"""The "worst queries" of a run: its lowest-scoring T1 queries, φ(q), and the top 5 with grades and failed attributes."""

from __future__ import annotations

import base64
import io
from dataclasses import dataclass
from pathlib import Path

import pyarrow.parquet as pq

from fashionrq.layout import ITEMS, PHI, qrels_file, queries_file
from fashionrq.relevance import AttributeMatcher
from fashionrq.release import Release
from fashionrq.tasks.bench import catalog_ids, read_qrels

#: A product fails an attribute when its match m_a(q, p) is below this (the comparators' neutral value).
FAIL_BELOW = 0.5
THUMBNAIL_PX = 72


@dataclass(frozen=True)
class ShownItem:
    """One of the top 5 of a worst query."""

    rank: int
    item_id: str
    name: str
    grade: int | None
    failed: tuple[str, ...]
    thumbnail: str | None  # data: URI, or None without an image folder


@dataclass(frozen=True)
class WorstQuery:
    qid: str
    text: str
    value: float
    phi: dict
    top: tuple[ShownItem, ...]


def thumbnail(images: Path | None, item_id: str) -> str | None:
    """A downscaled JPEG of ``images/<item_id>.jpg`` (``item_id``: the catalog's own id) as a ``data:`` URI, or None
    when there is no such image."""
    if images is None:
        return None
    path = images / f"{item_id}.jpg"
    if not path.is_file():
        return None
    from PIL import Image

    with Image.open(path) as image:
        image = image.convert("RGB")
        image.thumbnail((THUMBNAIL_PX, THUMBNAIL_PX))
        buffer = io.BytesIO()
        image.save(buffer, format="JPEG", quality=70, optimize=True)
    return "data:image/jpeg;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def read_top(run_file: Path, qids: set[str], k: int = 5) -> dict[str, list[str]]:
    """The first ``k`` item ids per query of a TREC run file, in submitted rank order."""
    top: dict[str, list[tuple[int, str]]] = {q: [] for q in qids}
    with open(run_file, encoding="utf-8") as handle:
        for line in handle:
            parts = line.split()
            if len(parts) == 6 and parts[0] in top:
                top[parts[0]].append((int(parts[3]), parts[2]))
    return {q: [item for _, item in sorted(rows)[:k]] for q, rows in top.items()}


class WorstQueries:
    """Everything the view needs from one release, read once and shared by every run."""

    def __init__(self, bench: str | Path, images: str | Path | None = None) -> None:
        release = Release(bench, verify=False)
        items = pq.read_table(release.path(ITEMS))
        self.names = dict(zip(items.column("item_id").to_pylist(), items.column("name").to_pylist()))
        self.text = {r["qid"]: r["text"] for r in release.jsonl(queries_file("t1"))}
        self.phi = {r["qid"]: r["phi"] for r in release.label_jsonl(PHI)}
        self.grades: dict[tuple[str, str], int] = {}
        for qid, item, grade in read_qrels(release.label_path(qrels_file("t1"))):
            self.grades[(qid, item)] = grade
        self.matcher = AttributeMatcher(items)
        self.images = Path(images) if images else None
        self.catalog_id = catalog_ids(bench)  # photos are named by the catalog's ids, the release publishes opaque ones

    def failed(self, qid: str, item_id: str) -> tuple[str, ...]:
        matches = self.matcher.match(self.phi[qid], item_id)
        return tuple(sorted(a for a, (score, _) in matches.items() if score < FAIL_BELOW))

    def of_run(self, per_unit: dict[str, dict[str, float]], metric: str, run_file: Path, n: int = 5) -> list[WorstQuery]:
        """The ``n`` T1 queries with the lowest ``metric`` (ties by qid), each with its top 5."""
        worst = sorted(per_unit, key=lambda q: (per_unit[q][metric], q))[:n]
        top = read_top(run_file, set(worst))
        out = []
        for qid in worst:
            shown = tuple(ShownItem(rank, item, self.names.get(item) or "", self.grades.get((qid, item)), self.failed(qid, item),
                                    thumbnail(self.images, self.catalog_id.get(item, item))) for rank, item in enumerate(top[qid], start=1))
            raw = self.phi.get(qid) or {}
            phi = {a: v for a, v in raw.items() if v} if isinstance(raw, dict) else {"intents": raw}
            out.append(WorstQuery(qid, self.text.get(qid, ""), per_unit[qid][metric], phi, shown))
        return out
