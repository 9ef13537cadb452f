"""Read a built release: the :class:`Release` reader every stage uses for manifest.json, public/ and labels/, and
the release's integrity (re-hash every file manifest.json lists; find extra or missing ones).

Where the files lie is :mod:`fashionrq.layout`; the release is written by :mod:`fashionrq.tasks.release`.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from fashionrq.errors import FashionRQError, InputError, ReleaseTamperedError, examples
from fashionrq.io import read_jsonl, sha256_file
from fashionrq.layout import ITEMS, LABELS, MANIFEST, PUBLIC

#: The manifest's field holding the digest of all its other fields.
DIGEST = "manifest_sha256"


def release_hash(bench: str | Path) -> str:
    """The release's identity: SHA-256 of BENCH/manifest.json (what RUN/run.json "release" must hold)."""
    path = Path(bench) / MANIFEST
    if not path.is_file():
        raise ReleaseTamperedError(f"{path} does not exist; pass the folder written by `fashionrq build` as BENCH.")
    return sha256_file(path)


def read_manifest(bench: str | Path) -> dict:
    """BENCH/manifest.json as a dict: the one parser of a release's manifest (:attr:`Release.manifest` uses it)."""
    path = Path(bench) / MANIFEST
    release_hash(bench)
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError):
        manifest = None
    if not isinstance(manifest, dict):
        raise ReleaseTamperedError(f"{path} is not a JSON object; rebuild the release.")
    return manifest


def manifest_files(bench: str | Path) -> dict[str, str]:
    """The ``{relative path: sha256}`` table of BENCH/manifest.json (key ``files``)."""
    path = Path(bench) / MANIFEST
    entries = read_manifest(bench).get("files")
    if not isinstance(entries, (dict, list)):
        raise ReleaseTamperedError(f"{path} is not a release manifest (no JSON object with a 'files' table); rebuild the release.")
    if isinstance(entries, list):
        entries = {entry.get("path"): entry for entry in entries if isinstance(entry, dict)}
    table = {}
    for name, value in entries.items():
        digest = value.get("sha256") if isinstance(value, dict) else value
        if not isinstance(name, str) or not isinstance(digest, str):
            raise ReleaseTamperedError(f"{path} has a malformed 'files' entry {name!r}; rebuild the release.")
        table[name] = digest
    if not table:
        raise ReleaseTamperedError(f"{path} lists no files; rebuild the release.")
    return table


@dataclass
class VerifyReport:
    """Outcome of re-hashing a release."""

    bench: str
    release: str
    checked: int = 0
    changed: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)
    #: links, special files (FIFOs, sockets, devices) and folders no listed file lies in
    odd: list[str] = field(default_factory=list)
    #: manifest.json's own fields, when they no longer match its digest (or it has none)
    unhashed: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not (self.changed or self.missing or self.extra or self.odd or self.unhashed)

    def sentence(self) -> str:
        """One sentence naming what failed, or that the release is intact."""
        if self.ok:
            return f"{self.bench}: all {self.checked} files match manifest.json (release {self.release[:12]})."
        parts = []
        if self.changed:
            parts.append(f"{len(self.changed)} file(s) changed since the build ({examples(self.changed)})")
        if self.missing:
            parts.append(f"{len(self.missing)} listed file(s) missing ({examples(self.missing)})")
        if self.extra:
            parts.append(f"{len(self.extra)} unlisted file(s) present ({examples(self.extra)})")
        if self.odd:
            parts.append(f"{len(self.odd)} link(s), special file(s) or unlisted folder(s) present ({examples(self.odd)})")
        if self.unhashed:
            parts.append(f"{MANIFEST} was edited after the build or carries no digest of its own fields, so these are "
                         f"covered by no hash: {examples(self.unhashed)}")
        return f"{self.bench} fails verification: " + "; ".join(parts) + "; restore the release as built or rebuild it."

    def to_dict(self) -> dict:
        return {"bench": self.bench, "release": self.release, "checked": self.checked, "ok": self.ok,
                "changed": self.changed, "missing": self.missing, "extra": self.extra, "odd": self.odd, "unhashed": self.unhashed}


def verify_release(bench: str | Path, *, under: str | None = None, strict: bool = False) -> VerifyReport:
    """Re-hash every file manifest.json lists (only those below ``under`` when given, e.g. ``"public"``).

    Reports changed, missing and unlisted files; with ``strict=True`` raises ReleaseTamperedError instead.
    """
    root = Path(bench)
    table = manifest_files(root)
    report = VerifyReport(bench=str(root), release=release_hash(root))
    prefix = f"{under.rstrip('/')}/" if under else ""
    listed = {name for name in table if name.startswith(prefix)}
    for name in sorted(listed):
        path = root / name
        if path.is_symlink() or (path.exists() and not path.is_file()):
            report.odd.append(name)
        elif not path.is_file():
            report.missing.append(name)
        elif sha256_file(path) != table[name]:
            report.changed.append(name)
        report.checked += 1
    _scan(root, root / under if under else root, listed, report)
    if under is None:
        report.unhashed = unhashed_fields(root)
    if strict and not report.ok:
        raise ReleaseTamperedError(report.sentence())
    return report


def _scan(root: Path, scan: Path, listed: set[str], report: VerifyReport) -> None:
    """Walk ``scan`` without following links: an unlisted file is extra; a link, a special file or a folder that holds
    no listed file is odd (the release has none of them)."""
    folders = {parent.as_posix() for name in listed for parent in Path(name).parents}
    for folder, dirs, files in os.walk(scan):  # a linked folder is listed, never entered
        for entry in sorted(dirs + files):
            path = Path(folder) / entry
            name = path.relative_to(root).as_posix()
            if name == MANIFEST or name in listed:  # listed files are checked by name
                continue
            if path.is_symlink() or not (path.is_file() or path.is_dir()) or (path.is_dir() and name not in folders):
                report.odd.append(name)
            elif path.is_file():
                report.extra.append(name)


def manifest_digest(manifest: dict) -> str:
    """SHA-256 of the canonical JSON of every field of ``manifest`` but :data:`DIGEST` (what the build records)."""
    body = {key: value for key, value in manifest.items() if key != DIGEST}
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")).hexdigest()


def with_digest(manifest: dict) -> dict:
    """``manifest`` with its own digest (:func:`manifest_digest`), so that verify notices an edited field."""
    return {**manifest, DIGEST: manifest_digest(manifest)}


def unhashed_fields(bench: str | Path) -> list[str]:
    """The top-level fields of BENCH/manifest.json that no hash covers: none when its digest matches, every field but
    ``files`` (whose files are hashed) when the digest is missing or does not match."""
    manifest = read_manifest(bench)
    if manifest.get(DIGEST) == manifest_digest(manifest):
        return []
    return sorted(key for key in manifest if key not in ("files", DIGEST))


class LabelAccessError(FashionRQError):
    """A system reached for a file outside its sealed view (BENCH/labels/, the release, the SID cache)."""

    exit_code = 3


class Release:
    """A built release: its manifest, public files (``BENCH/public/``, what a system sees) and label files
    (``BENCH/labels/``, what scoring and the audit open), each file name checked and each JSONL file read alike.

    ``verify`` re-hashes public/ against the manifest first. A sealed child passes its staged folder (which holds
    ``public/`` only) with ``verify=False`` and the ``release`` hash the parent computed.
    """

    def __init__(self, bench: str | Path, verify: bool = True, release: str | None = None) -> None:
        self.root = Path(bench)
        self.public = self.root / PUBLIC
        self.labels = self.root / LABELS
        if not self.public.is_dir():
            raise InputError(f"{self.public} does not exist; pass the release folder written by `fashionrq build` as BENCH.")
        self.release = release or release_hash(self.root)
        if verify:
            verify_release(self.root, under=PUBLIC, strict=True)

    @cached_property
    def manifest(self) -> dict:
        """The records of manifest.json (construction, protocol, counts, files)."""
        return read_manifest(self.root)

    def path(self, name: str) -> Path:
        """``BENCH/public/<name>``; names with a folder part are refused."""
        return _file_in(self.public, name, "systems read only files directly in BENCH/public/")

    def label_path(self, name: str) -> Path:
        """``BENCH/labels/<name>``; names with a folder part are refused."""
        return _file_in(self.labels, name, "label files lie directly in BENCH/labels/")

    def items(self) -> pa.Table:
        """The items table (``public/items.parquet``), each ``image_path`` resolved to its photo in ``public/images/``."""
        items = pq.read_table(_present(self.path(ITEMS)))
        if "image_path" not in items.column_names:
            return items
        index = items.schema.get_field_index("image_path")
        photos = [None if p is None else str(self.public / p) for p in items.column(index).to_pylist()]
        return items.set_column(index, items.schema.field(index), pa.array(photos, pa.string()))

    def jsonl(self, name: str, required: bool = True, fields: tuple[str, ...] = ()) -> list[dict]:
        """The records of ``public/<name>`` (``[]`` when absent and not ``required``), each holding ``fields``."""
        return _records(self.path(name), required, fields)

    def public_records(self) -> list[tuple[str, dict]]:
        """Every record of every ``public/*.jsonl`` file with its file's stem, in file-name then line order."""
        return [(path.stem, row) for path in sorted(self.public.glob("*.jsonl")) for row in self.jsonl(path.name)
                if isinstance(row, dict)]

    def label_jsonl(self, name: str, required: bool = True, fields: tuple[str, ...] = ()) -> list[dict]:
        """The records of ``labels/<name>`` (``[]`` when absent and not ``required``), each holding ``fields``."""
        return _records(self.label_path(name), required, fields)


def named_items(row: dict) -> list[str]:
    """The item ids a public record names: its candidate list, and its item (a T2 pair's)."""
    items = [str(i) for i in row.get("candidates") or []]
    if isinstance(row.get("item_id"), (str, int)):
        items.append(str(row["item_id"]))
    return items


def _file_in(folder: Path, name: str, rule: str) -> Path:
    if Path(name).name != name or name in {"", ".", ".."}:
        raise InputError(f"'{name}' is not a file name in {folder}; {rule}.")
    return folder / name


def _present(path: Path) -> Path:
    if not path.is_file():
        raise ReleaseTamperedError(f"{path} is missing; the release is incomplete, rebuild it with `fashionrq build`.")
    return path


def _records(path: Path, required: bool, fields: tuple[str, ...]) -> list[dict]:
    if not required and not path.is_file():
        return []
    return list(read_jsonl(_present(path), fields, ReleaseTamperedError, "the release is damaged, rebuild it"))
