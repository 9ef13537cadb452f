"""The records of an XML product feed: a Google Merchant Center RSS 2.0 feed (``<item>``), its Atom variant
(``<entry>``), or a plain export (``<products><product>…``), each record a dict of its child elements by local name
(``g:price`` → ``price``), repeated elements as lists and elements with children as nested dicts, so that a mapping's
column names and paths (``shipping.price``, ``additional_image_link[0]``) read it as they read JSON. Parsed with the
standard library's expat, streamed, without fetching or expanding anything a DOCTYPE declares (docs/catalog.md,
"XML feeds")."""

from __future__ import annotations

import io
from collections import Counter
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from xml.etree import ElementTree
from xml.parsers import expat

from fashionrq.catalog.files import read_bytes
from fashionrq.catalog.report import IngestReport
from fashionrq.errors import InputError

#: The record element of a feed whose root element has this local name (RSS 2.0 and Atom).
FEED_RECORDS = {"rss": "item", "feed": "entry"}
#: A key path inside a record (``("shipping", "price")``).
KeyPath = tuple[str, ...]


def xml_records(path: Path, report: IngestReport, record: str | None = None) -> tuple[list[tuple[str, dict]], list[str]]:
    """Every record of the XML feed ``path`` (the elements named ``record``, else the feed's repeated product element)
    as ``(where, fields)``, and the field names in order of first appearance (records counted in ``report``)."""
    data = read_bytes(path)
    if not data.strip():
        raise InputError(f"{path} is empty; pass a feed with at least one product element.")
    _refuse_entity_declarations(path, data)
    root = _root_name(path, data)
    name = record or FEED_RECORDS.get(root) or _record_name(path, data, root)
    entries, repeated, number = [], set(), 0
    for number, (element, prefixes) in enumerate(_outermost(path, data, name), start=1):
        report.rows_read += 1
        where = f"{path.name} record {number}"
        fields = _fields(element, _split(element.tag)[0], prefixes, (), repeated)
        if fields:
            entries.append((where, fields))
        else:
            report.reject(where, f"a <{name}> element with no child elements or attributes holds no fields")
    if number == 0:
        raise InputError(f"{path} has no <{name}> element{' (record in the mapping file)' if record else ''}; "
                         f"{_name_the_record(path, data)}")
    records = [(where, _as_lists(fields, repeated, ())) for where, fields in entries]
    columns = list(dict.fromkeys(key for _, fields in records for key in fields))
    if name != FEED_RECORDS.get(root):
        report.notes.append(f"products read from the <{name}> elements of {path.name}")
    return records, columns


@cache
def _split(tag: str) -> tuple[str, str]:
    """``(namespace, local name)`` of an ElementTree tag ``{uri}local`` (namespace ``""`` for none)."""
    namespace, _, local = tag[1:].rpartition("}") if tag.startswith("{") else ("", "", tag)
    return namespace, local


def _local(tag: str) -> str:
    return _split(tag)[1]


def _parse_error(path: Path, err: ElementTree.ParseError) -> InputError:
    line, column = err.position  # expat counts columns from 0
    reason = expat.ErrorString(err.code)
    return InputError(f"{path} is not well-formed XML (line {line}, column {column + 1}: {reason}); fix the file there "
                      "(often an & written for &amp; or a tag left open), or export the feed again.")


class _Root(Exception):
    """The root element started: the DOCTYPE, if any, is behind."""


def _refuse_entity_declarations(path: Path, data: bytes) -> None:
    """Refuse a DOCTYPE that declares entities (an "entity bomb" expands a few lines into gigabytes; a product feed
    never needs one), before anything is expanded: only the prolog is read."""
    parser = expat.ParserCreate()

    def entity(name, *_):
        raise InputError(f"{path} declares the entity {name!r} in its DOCTYPE, which fashionrq does not expand; "
                         "remove the DOCTYPE (a product feed needs none) and write the text itself.")

    def root(*_):
        raise _Root

    parser.EntityDeclHandler = entity
    parser.StartElementHandler = root
    try:
        parser.Parse(data, True)
    except (_Root, expat.ExpatError):  # a parse error is reported with its place by the reading itself
        pass


def _events(path: Path, data: bytes) -> Iterator[tuple[str, object]]:
    """iterparse's start, end and namespace events, a parse error one sentence with its line and column."""
    try:
        yield from ElementTree.iterparse(io.BytesIO(data), events=("start", "end", "start-ns"))
    except ElementTree.ParseError as err:
        raise _parse_error(path, err) from None


def _root_name(path: Path, data: bytes) -> str:
    return next(_local(element.tag) for event, element in _events(path, data) if event == "start")


def _outermost(path: Path, data: bytes, name: str) -> Iterator[tuple[ElementTree.Element, dict[str, str]]]:
    """Each element of local name ``name`` that is not inside another one, complete, with the namespace prefixes
    declared so far (uri → prefix); each is cleared once read, so the feed is never held as a tree."""
    prefixes: dict[str, str] = {}
    inside = 0
    for event, item in _events(path, data):
        if event == "start-ns":
            prefix, uri = item
            prefixes.setdefault(uri, prefix)
        elif event == "start" and (inside or _local(item.tag) == name):
            inside += 1
        elif event == "end" and inside:
            inside -= 1
            if not inside:
                yield item, prefixes
                item.clear()


def _keys(children: list[ElementTree.Element], own: str, prefixes: dict[str, str]) -> list[str]:
    """The key of each child: its local name, or ``prefix:local`` (``g:title``) for a child outside the record's
    own namespace whose local name a child of another namespace also has."""
    names = [_split(child.tag) for child in children]
    namespaces: dict[str, set[str]] = {}
    for namespace, local in names:
        namespaces.setdefault(local, set()).add(namespace)
    return [local if namespace == own or len(namespaces[local]) == 1 else _qualified(namespace, local, prefixes)
            for namespace, local in names]


def _qualified(namespace: str, local: str, prefixes: dict[str, str]) -> str:
    """``g:title``; ``{uri}title`` for a namespace declared without a prefix."""
    prefix = prefixes.get(namespace)
    return f"{prefix}:{local}" if prefix else f"{{{namespace}}}{local}"


def _fields(element: ElementTree.Element, own: str, prefixes: dict[str, str], at: KeyPath, repeated: set[KeyPath]) -> dict:
    """The child elements of ``element`` by key, a repeated one as a list (its key path added to ``repeated``); the
    record element's own attributes too, under names no child takes (``<product id="7">``)."""
    children = list(element)
    grouped: dict[str, list] = {}
    for key, child in zip(_keys(children, own, prefixes), children, strict=True):
        grouped.setdefault(key, []).append(_value(child, own, prefixes, (*at, key), repeated))
    repeated.update((*at, key) for key, values in grouped.items() if len(values) > 1)
    fields = {key: values[0] if len(values) == 1 else values for key, values in grouped.items()}
    if not at:
        fields |= {_local(name): value for name, value in element.attrib.items() if _local(name) not in fields}
    return fields


def _value(element: ElementTree.Element, own: str, prefixes: dict[str, str], at: KeyPath, repeated: set[KeyPath]) -> str | dict:
    """An element's text (trimmed), or for an element with children the dict of them; mixed content (text around
    child elements, as inline markup ``Soft <b>cotton</b> tee`` in a description) is its whole text."""
    if len(element) == 0:
        return (element.text or "").strip()
    if (element.text or "").strip() or any((child.tail or "").strip() for child in element):
        return "".join(element.itertext()).strip()
    return _fields(element, own, prefixes, at, repeated)


def _as_lists(fields: dict, repeated: set[KeyPath], at: KeyPath) -> dict:
    """``fields`` (changed in place) with each key that repeats in some record a list in every record, so that
    ``x[0]`` reads the first of one value as of several; only the keys on the way to a repeated one are visited."""
    for here in {path[:len(at) + 1] for path in repeated if len(path) > len(at) and path[:len(at)] == at}:
        key = here[-1]
        if key not in fields:
            continue
        values = fields[key] if isinstance(fields[key], list) else [fields[key]]
        values = [_as_lists(v, repeated, here) if isinstance(v, dict) else v for v in values]
        fields[key] = values if here in repeated else values[0]
    return fields


def _levels(path: Path, data: bytes) -> tuple[Counter, Counter]:
    """The elements with children, by local name and count: those directly under the root (or, when the root has one
    child, under that wrapper), and those anywhere below the root."""
    stack: list[str] = []
    root_children = 0
    level: dict[int, Counter] = {1: Counter(), 2: Counter()}
    everywhere: Counter = Counter()
    for event, element in _events(path, data):
        if event == "start":
            stack.append(_local(element.tag))
            root_children += len(stack) == 2
        elif event == "end":
            name, depth = stack.pop(), len(stack)
            if depth and len(element):
                everywhere[name] += 1
                if depth == 1 or (depth == 2 and root_children == 1):
                    level[depth][name] += 1
            element.clear()
    return level[2] if root_children == 1 else level[1], everywhere


def _record_name(path: Path, data: bytes, root: str) -> str:
    """The one element that repeats under the root (or under its single wrapper); none, or several, is refused with
    the ``record`` line to set."""
    level, _ = _levels(path, data)
    repeated = [name for name, count in level.most_common() if count > 1]
    if len(repeated) == 1:
        return repeated[0]
    if repeated:
        raise InputError(f"{path} repeats more than one element where products are expected ({_listed(level, repeated)}); "
                         f"name the product element in the mapping file, e.g. record = \"{repeated[0]}\".")
    raise InputError(f"{path} has no element that repeats under its root <{root}> to read as products; "
                     f"{_name_the_record(path, data)}")


def product_element(path: Path) -> tuple[str, str, bool]:
    """The product element of the feed ``path`` for a first mapping: its local name, why, and whether ingest finds
    it without a ``record`` line. Where ingest would refuse (several elements repeat under the root, or none does),
    the one that repeats most, below the root or else anywhere."""
    data = read_bytes(path)
    _refuse_entity_declarations(path, data)
    root = _root_name(path, data)
    if root in FEED_RECORDS:
        return FEED_RECORDS[root], f"the products of {'an RSS 2.0' if root == 'rss' else 'an Atom'} feed", True
    level, everywhere = _levels(path, data)
    repeated = [name for name, count in level.most_common() if count > 1]
    if len(repeated) == 1:
        return repeated[0], f"the element that repeats under <{root}> ({level[repeated[0]]:,} times)", True
    counts = level if repeated else everywhere
    repeated = repeated or [name for name, count in everywhere.most_common() if count > 1]
    if not repeated:
        raise InputError(f"{path} has no element that repeats to read as products; {_name_the_record(path, data)}")
    return repeated[0], f"the element that repeats most ({_listed(counts, repeated)})", False


def _listed(counts: Counter, names: list[str]) -> str:
    return ", ".join(f"<{name}> {counts[name]:,} times" for name in names[:5])


def _name_the_record(path: Path, data: bytes) -> str:
    """The fix for a feed whose product element is not found: the ``record`` line, with the elements that repeat."""
    _, everywhere = _levels(path, data)
    common = [(name, count) for name, count in everywhere.most_common(3) if count > 1]
    if not common:
        return "a feed lists its products as repeated elements with fields inside, such as <item> or <product>."
    return (f"name the product element in the mapping file, e.g. record = \"{common[0][0]}\" (elements that repeat: "
            f"{_listed(everywhere, [name for name, _ in common])}).")
