"""The photos of a mapped catalog: each item's mapped ``image_path`` resolved inside the catalog's folder (or the folder
and through the index of image ids that the mapping's ``[photos]`` names), and, with
``--images DIR``, the photos a folder holds under the items' ids (``DIR/010/0108775015.jpg``, as H&M keeps them);
every photo not found, refused or found by id counted in the ingest report."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa

from fashionrq.catalog.files import read_bytes
from fashionrq.catalog.mapping import PhotoSource
from fashionrq.catalog.records import SUFFIXES, read_records
from fashionrq.catalog.report import IngestReport
from fashionrq.catalog.schema import WEB_ADDRESS, clean_string
from fashionrq.errors import InputError

#: The file endings of the photos a folder is searched for (in any case).
PHOTO_SUFFIXES = (".jpg", ".jpeg", ".png", ".webp")


@dataclass(frozen=True)
class PhotoFolder:
    """The photo files in or below ``folder``, by the name before their ending: the first in path order when two share
    a name (``a/1.jpg`` before ``b/1.jpg``, ``1.jpeg`` before ``1.jpg``). A name of digits is found by an id
    written with more or fewer leading zeros (a spreadsheet drops them: ``108775015`` finds ``0108775015.jpg``). A
    link to a file outside the folder is passed over and counted, so that a release never publishes (or hard-links)
    a file from elsewhere. Each photo is kept by its resolved path."""

    folder: Path
    by_name: dict[str, Path]
    shared_names: int
    links_out: int = 0

    @classmethod
    def scan(cls, folder: Path) -> PhotoFolder:
        files = []
        for root, dirs, names in os.walk(folder):
            dirs.sort()
            files += [Path(root, name) for name in names if Path(name).suffix.lower() in PHOTO_SUFFIXES and not name.startswith(".")]
        inside = folder.resolve()
        by_name, shared, links_out = {}, 0, 0
        for file in sorted(files, key=lambda f: f.relative_to(folder).as_posix()):
            key, resolved = _key(file.stem), file.resolve()
            if inside not in resolved.parents:
                links_out += 1
            elif key in by_name:
                shared += 1
            else:
                by_name[key] = resolved
        return cls(folder, by_name, shared, links_out)

    def photo_of(self, item_id: str) -> Path | None:
        return self.by_name.get(_key(item_id))


def _key(name: str) -> str:
    """The name a photo and an item id are matched by: a name of digits without its leading zeros."""
    return (name.lstrip("0") or "0") if name.isdigit() else name


def read_index(source: PhotoSource, report: IngestReport) -> dict[str, str]:
    """The file of each image id that the photo index of ``source`` lists (the first row of an id that repeats, the
    rows passed over counted in a note of ``report``); an index without the named columns is refused in one
    sentence."""
    fmt = SUFFIXES.get(Path(source.index.name.lower().removesuffix(".gz")).suffix)
    if fmt not in ("csv", "tsv", "jsonl", "json", "parquet"):
        raise InputError(f"photo index {source.index} is, by its name, no CSV, TSV, JSON (lines) or Parquet file; give [photos] "
                         "index the table of image ids and paths (images.csv.gz).")
    if not read_bytes(source.index).strip():
        raise InputError(f"photo index {source.index} is empty; give [photos] index the table of image ids and paths.")
    records, columns = read_records(source.index, fmt, IngestReport(source=str(source.index), layout="photo index"))
    missing = [c for c in (source.id_column, source.path_column) if c not in columns]
    if missing:
        raise InputError(f"photo index {source.index} has no column {missing[0]!r} (columns: {', '.join(columns)[:300]}); name its "
                         "columns of image ids and of paths with id = and path = in the mapping's [photos].")
    index, empty = {}, 0
    for _, record in records:
        image_id, file = clean_string(record.get(source.id_column)), clean_string(record.get(source.path_column))
        if image_id is None or file is None:
            empty += 1
        else:
            index.setdefault(image_id, file)
    if repeated := len(records) - empty - len(index):
        report.notes.append(f"{repeated:,} row{'s' * (repeated != 1)} of the photo index {source.index.name} "
                            f"repeat{'s' * (repeated == 1)} an earlier row's image id; the first is read")
    if empty:
        report.notes.append(f"{empty:,} row{'s' * (empty != 1)} of the photo index {source.index.name} "
                            f"{'has' if empty == 1 else 'have'} no image id or no path and {'was' if empty == 1 else 'were'} passed over")
    return index


@dataclass
class Photos:
    """Each item's ``image_path`` resolved against ``folder`` (the catalog's, or the one ``[photos]`` names; links
    followed), through ``index`` when the catalog names image ids. A path that leaves the folder is refused, so that a
    release never publishes (or hard-links) a file from elsewhere (with ``from_root``, for a folder the mapping
    names, one written from the root, ``/1/5/15970.jpg`` as Magento writes them, is read from the folder); a web
    address (which is never downloaded), an id the index does not list or a file that is not there is nulled and
    counted. An item with no photo after that takes the one ``by_id`` holds under its id, if any."""

    folder: Path  # resolved
    report: IngestReport
    by_id: PhotoFolder | None = None
    index: dict[str, str] | None = None
    from_root: bool = False
    found_by_id: int = field(default=0, init=False)
    items: int = field(default=0, init=False)
    #: The items that took the photo ``by_id`` holds under their id.
    found_ids: set[str] = field(default_factory=set, init=False)

    @classmethod
    def of(cls, source: PhotoSource, catalog_folder: Path, images: Path | None, report: IngestReport) -> Photos:
        """The photos of a mapped catalog in ``catalog_folder``, found as its ``[photos]`` (``source``) says and, for
        the items it gives none, in ``images`` by id."""
        return cls((source.folder or catalog_folder).resolve(), report, PhotoFolder.scan(images) if images is not None else None,
                   read_index(source, report) if source.index else None, from_root=source.folder is not None)

    def resolve(self, where: str, item: dict) -> dict:
        self.items += 1
        path, nulled = self._mapped(where, item)
        if nulled:
            self.report.null_value(nulled, item["item_id"])
        if path is None and self.by_id is not None and (photo := self.by_id.photo_of(item["item_id"])):
            self.found_by_id += 1
            self.found_ids.add(item["item_id"])
            path = str(photo)
        return {**item, "image_path": path}

    def _mapped(self, where: str, item: dict) -> tuple[str | None, str | None]:
        """The item's photo as its catalog names it (a resolved path) or None, and why a path it names was nulled."""
        text = item["image_path"]
        if text is not None and self.index is not None:
            text = self.index.get(text)
            if text is None:
                return None, "image_not_in_index"
        if text is None:
            return None, None
        if WEB_ADDRESS.match(text):
            return None, "image_url"
        root = self.folder
        try:
            photo = (root / text).resolve()
            if root not in photo.parents and text.startswith("/") and self.from_root:
                photo = (root / text.lstrip("/")).resolve()
            there = photo.is_file()
        except (OSError, ValueError):  # a name too long for the file system, or a NUL in it: no file name at all
            return None, "image_path_not_a_file_name"
        if root not in photo.parents:
            raise InputError(f"{where} (id {item['item_id'][:80]}): image_path {text[:80]!r} lies outside {str(root)[:200]}, "
                             "the folder photos are read from; keep the photos in or below that folder.")
        if not there:
            return None, "missing_image_file"
        return str(photo), None

    def note(self, first_id: str | None) -> None:
        """Say in the report what became of the photos; refuse a ``--images`` folder that holds no item's photo."""
        nulled = self.report.values_nulled
        if urls := len(nulled.get("image_url", ())):
            self.report.notes.append(
                f"{urls:,} image_path values are web addresses, which fashionrq does not download, so {self._fate('image_url', urls)}; "
                "to use the photos, save them in or below the catalog's folder and map their relative paths, or name them "
                "by item id and pass their folder with --images")
        if missing := len(nulled.get("missing_image_file", ())):
            self.report.notes.append(f"{missing:,} image_path values name no file in or below {self.folder}; "
                                     f"{self._fate('missing_image_file', missing)}")
        if unlisted := len(nulled.get("image_not_in_index", ())):
            self.report.notes.append(f"{unlisted:,} image ids are not in the photo index ({len(self.index):,} ids); "
                                     f"{self._fate('image_not_in_index', unlisted)}")
        if unnamed := len(nulled.get("image_path_not_a_file_name", ())):
            self.report.notes.append(f"{unnamed:,} image_path values cannot be file names (too long, or holding a NUL); "
                                     f"{self._fate('image_path_not_a_file_name', unnamed)}: map the column that holds the "
                                     "photos' paths")
        if inside := len(nulled.get("image_bytes", ())):
            self.report.notes.append(
                f"{inside:,} photos are stored inside the catalog as bytes (an image column of a Hugging Face dataset), "
                f"which fashionrq does not read, so {self._fate('image_bytes', inside)}; to use them, save each as a file in or "
                "below the catalog's folder and map the files' relative paths")
        if self.by_id is not None:
            note_found_by_id(self.report, self.by_id, self.found_by_id, self.items, first_id)

    def _fate(self, reason: str, count: int) -> str:
        """What became of the ``count`` items whose photo was nulled for ``reason``: none, or some, found by id."""
        found = len(self.found_ids.intersection(self.report.values_nulled[reason]))
        if not found:
            return "those items have no photo"
        if found == count:
            return f"each of those items took the photo {self.by_id.folder} holds under its id"
        return f"{found:,} of those items took the photo {self.by_id.folder} holds under their id; the rest ({count - found:,}) have no photo"


def with_photos_by_id(table: pa.Table, folder: PhotoFolder, report: IngestReport) -> pa.Table:
    """An items table whose items without a photo take the one ``folder`` holds under their id, said in ``report``."""
    ids, paths = table.column("item_id").to_pylist(), table.column("image_path").to_pylist()
    found = [None if path is not None else folder.photo_of(item_id) for item_id, path in zip(ids, paths, strict=True)]
    filled = [str(photo) if photo is not None else path for photo, path in zip(found, paths, strict=True)]
    note_found_by_id(report, folder, sum(photo is not None for photo in found), len(ids), ids[0] if ids else None)
    column = table.schema.get_field_index("image_path")
    return table.set_column(column, table.schema.field(column), pa.array(filled, pa.string()))


def note_found_by_id(report: IngestReport, folder: PhotoFolder, found: int, items: int, first_id: str | None) -> None:
    """Say for how many of ``items`` items a photo was found by id in ``folder``; refuse a folder that holds no photo,
    or none named by an item id."""
    if not folder.by_name:
        raise InputError(f"image folder {folder.folder} holds no photo ({', '.join(PHOTO_SUFFIXES)} files, in it or below); "
                         "pass the folder that holds the catalog's photos, or leave --images out.")
    if not found and items:
        example = next(iter(folder.by_name.values())).relative_to(folder.folder.resolve())
        raise InputError(f"image folder {folder.folder} holds {len(folder.by_name):,} photos, but none is named by an item "
                         f"id (first: {example}; item ids read like {first_id!r}); name each photo <item_id>.jpg, or map the "
                         "column that holds each item's photo path to image_path.")
    shared = f"; {folder.shared_names:,} files share a name with an earlier one and were passed over" if folder.shared_names else ""
    shared += f"; {folder.links_out:,} links to files outside the folder were passed over" if folder.links_out else ""
    report.notes.append(f"photos found by item id in {folder.folder} for {found:,} of {items:,} items "
                        f"(the folder holds {len(folder.by_name):,}){shared}")
