"""Release integrity: re-hash every file listed in BENCH/manifest.json and find extra or missing ones."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from fashionrq.io import sha256_file
from fashionrq.protocol.errors import ReleaseTamperedError, examples

MANIFEST = "manifest.json"


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

    @property
    def ok(self) -> bool:
        return not (self.changed or self.missing or self.extra)

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
        return f"{self.bench} fails verification: " + "; ".join(parts) + "; restore the release as built or rebuild it."

    def to_dict(self) -> dict:
        return {"bench": self.bench, "release": self.release, "checked": self.checked, "ok": self.ok,
                "changed": self.changed, "missing": self.missing, "extra": self.extra}


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
        if not path.is_file():
            report.missing.append(name)
        elif sha256_file(path) != table[name]:
            report.changed.append(name)
        report.checked += 1
    scan = root / under if under else root
    if scan.is_dir():
        for path in sorted(scan.rglob("*")):
            name = path.relative_to(root).as_posix()
            if path.is_file() and name != MANIFEST and name not in listed:
                report.extra.append(name)
    if strict and not report.ok:
        raise ReleaseTamperedError(report.sentence())
    return report


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
