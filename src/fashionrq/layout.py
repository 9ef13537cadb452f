"""Where fashionrq's files live: a release's layout (``BENCH/manifest.json``, ``public/``, ``labels/``), a run
folder's record and ledger, the cache folder, and the guards that keep every output out of a release (each task's
files, its prediction file included, are named in :mod:`fashionrq.taskspec`, beside the guard off a committed run).

The bottom layer beside :mod:`fashionrq.io`: it imports nothing of fashionrq but ``errors`` and ``io``. Readers of
a release go through :class:`fashionrq.release.Release`; its writer is :mod:`fashionrq.tasks.release`.
"""

from __future__ import annotations

import os
from pathlib import Path

from fashionrq.errors import InputError, ReleaseTamperedError
from fashionrq.io import refuse_existing

#: The release's identity and table of contents: the sha256 of every other file, construction and protocol records.
MANIFEST = "manifest.json"
#: What a system may see.
PUBLIC = "public"
#: What only scoring and the audit open.
LABELS = "labels"
#: Folder of public/ holding every photo under its public item id (``image_path`` is relative to public/).
PHOTOS = "images"
#: public/: the items table under opaque ids.
ITEMS = "items.parquet"
#: public/: the pairs of T2 (ids and split), and the labels of its dev split.
T2_PAIRS = "t2_pairs.jsonl"
T2_DEV_LABELS = "t2_dev_labels.jsonl"
#: public/: the paraphrase groups of T4 and their shared pool.
T4_GROUPS = "t4_groups.jsonl"
#: labels/: each query's task, leaf, bootstrap unit and source.
QUERY_RECORDS = "queries.jsonl"
#: labels/: each query's hidden φ(q).
PHI = "phi.jsonl"
#: labels/: each MCMR-style query's constraints (absent from a release without them).
MCMR = "mcmr.jsonl"
#: labels/: the labels of T2's test split.
T2_TEST = "t2_test.jsonl"
#: labels/: the private map from each public (opaque) item id to the catalog's own id.
ITEM_IDS = "item_ids.parquet"
#: labels/: the semantic IDs, in the order of public/items.parquet.
SIDS = "sids.parquet"
#: labels/: the hierarchy's cluster records.
CLUSTERS = "clusters.parquet"

#: A run folder's record of its system, configuration, release and isolation.
RUN_JSON = "run.json"
#: A run folder's hash-chained commitments.
LEDGER = "commitments.jsonl"
#: A run folder's score report, written after its commitment (``protocol.scoring.score_run``'s report).
SCORES = "scores.json"

#: Folders of the cache (:func:`default_cache_dir`) that hold labels, denied to a sealed system: the SIDs of the
#: catalogs built from, and the stage outputs (:mod:`fashionrq.stagecache`; a release's labels/ among them).
SIDS_CACHE = "sids"
STAGES_CACHE = "stages"


def queries_file(task: str) -> str:
    """public/: the queries of ``task`` (T3's carry their candidates)."""
    return f"{task}_queries.jsonl"


def candidates_file(task: str) -> str:
    """public/: the candidate pools of a pooled task (T1)."""
    return f"{task}_candidates.jsonl"


def qrels_file(task: str) -> str:
    """labels/: the graded judgments of a ranking task."""
    return f"{task}.qrels"


def public_file(name: str) -> str:
    """A public file's path relative to the release folder (as manifest.json lists it)."""
    return f"{PUBLIC}/{name}"


def label_file(name: str) -> str:
    """A label file's path relative to the release folder (as manifest.json lists it)."""
    return f"{LABELS}/{name}"


def default_cache_dir() -> Path:
    """``$FASHIONRQ_CACHE`` if set and not empty, else ``~/.cache/fashionrq``; refuses a path that is a file."""
    path = Path(os.environ.get("FASHIONRQ_CACHE") or Path.home() / ".cache" / "fashionrq")
    if path.exists() and not path.is_dir():
        raise InputError(f"FASHIONRQ_CACHE={str(path)[:200]} is a file, not a folder; point it at a folder (or unset it).")
    return path


def enclosing_release(path: str | Path) -> Path | None:
    """The release folder (manifest.json beside public/) that ``path`` is, or lies in; None if none."""
    path = Path(path).resolve()
    for folder in (path, *path.parents):
        if (folder / MANIFEST).is_file() and (folder / PUBLIC).is_dir():
            return folder
    return None


def refuse_in_release(path: str | Path, what: str = "output") -> None:
    """Refuse, always, an output at or inside a release: a release stays byte-for-byte as built."""
    release = enclosing_release(path)
    if release is not None:
        raise ReleaseTamperedError(f"{what} {path} is inside the release {release}, which must stay as built; write it outside the release.")


def check_folder_output(path: str | Path, force: bool = False, what: str = "output folder") -> Path:
    """Refuse a folder output that lies in a release (always), names an existing file, or exists and is not
    empty (unless ``force``). Once it passes, the caller may replace ``path`` (``atomic_directory(force=True)``)."""
    path = Path(path)
    refuse_in_release(path, what)
    if path.exists() and not path.is_dir():
        raise InputError(f"--out {path} is an existing file; name a folder for the {what}.")
    if path.is_dir() and any(path.iterdir()):
        refuse_existing(path, force, what)
    return path


def check_file_output(path: str | Path | None, force: bool = False, what: str = "output file") -> Path | None:
    """Refuse a file output that lies in a release (always), names a folder, or exists (unless ``force``)."""
    if path is None:
        return None
    path = Path(path)
    refuse_in_release(path, what)
    if path.is_dir():
        raise InputError(f"--out {path} is a folder; name a file for the {what}.")
    refuse_existing(path, force, what)
    return path
