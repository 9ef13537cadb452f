"""Release integrity: re-hash every file listed in BENCH/manifest.json and find extra or missing ones."""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from fashionrq.io import sha256_file
from fashionrq.protocol.errors import ReleaseTamperedError, examples

MANIFEST = "manifest.json"
#: The manifest's field holding the digest of all its other fields.
DIGEST = "manifest_sha256"


def release_hash(bench: str | Path) -> str:
    """The release's identity: SHA-256 of BENCH/manifest.json (what RUN/run.json "release" must hold)."""
    path = Path(bench) / MANIFEST
    if not path.is_file():
        raise ReleaseTamperedError(f"{path} does not exist; pass the folder written by `fashionrq build` as BENCH.")
    return sha256_file(path)


def manifest_files(bench: str | Path) -> dict[str, str]:
    """The ``{relative path: sha256}`` table of BENCH/manifest.json (key ``files``)."""
    path = Path(bench) / MANIFEST
    release_hash(bench)
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
        entries = manifest["files"]
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        raise ReleaseTamperedError(
            f"{path} is not a release manifest (no JSON object with a 'files' table); rebuild the release."
        ) from None
    if isinstance(entries, list):
        entries = {entry.get("path"): entry for entry in entries if isinstance(entry, dict)}
    table = {}
    for name, value in entries.items() if isinstance(entries, dict) else ():
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
    manifest = json.loads((Path(bench) / MANIFEST).read_text(encoding="utf-8"))
    if manifest.get(DIGEST) == manifest_digest(manifest):
        return []
    return sorted(key for key in manifest if key not in ("files", DIGEST))


def enclosing_release(path: str | Path) -> Path | None:
    """The release folder (manifest.json beside public/) that ``path`` is, or lies in; None if none."""
    path = Path(path).resolve()
    for folder in (path, *path.parents):
        if (folder / MANIFEST).is_file() and (folder / "public").is_dir():
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
    from fashionrq.errors import InputError
    from fashionrq.io import refuse_existing

    path = Path(path)
    refuse_in_release(path, what)
    if path.exists() and not path.is_dir():
        raise InputError(f"--out {path} is an existing file; name a folder for the {what}.")
    if path.is_dir() and any(path.iterdir()):
        refuse_existing(path, force, what)
    return path


def check_file_output(path: str | Path | None, force: bool = False, what: str = "output file") -> Path | None:
    """Refuse a file output that lies in a release (always), names a folder, or exists (unless ``force``)."""
    from fashionrq.errors import InputError
    from fashionrq.io import refuse_existing

    if path is None:
        return None
    path = Path(path)
    refuse_in_release(path, what)
    if path.is_dir():
        raise InputError(f"--out {path} is a folder; name a file for the {what}.")
    refuse_existing(path, force, what)
    return path
