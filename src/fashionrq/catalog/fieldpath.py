"""Column references that reach into nested values, for catalogs that keep a field inside a list or an object.

A mapping names a column by its name (``title``); when no column has that exact name, the reference is read as a
path: a column, then steps ``.key`` (a key of an object), ``[2]`` or ``.2`` (an element of a list, ``[-1]`` the
last), ``[key=value]`` (the first object of a list whose ``key`` is ``value``; with a number for ``key``, the first
list whose element at that position is ``value``; in any case, ``*`` for any characters, ``|`` between
alternatives) and ``[*]`` (every element; the steps after it apply to each). A
text cell holding JSON (a CSV column of JSON objects), or a Python list or dict, is read as such first.

    item_name[language_tag=en_US].value     ABO-style listings: the US English name
    item_name[language_tag=en_*].value      the first English one, of any country (``*``: any characters)
    color[*].value                          every colour of a list of colour objects
    images[0]                               the first of a list of photos
    categories[0=Clothing, Shoes & Jewelry][-1]   the last part of the category path that starts so

Numbered columns, as Shopify and WooCommerce exports hold a product's options, are read with ``{n}`` for the number:
``Option{n} Value[Option{n} Name=Color|Colour]`` is the ``Option{n} Value`` beside the first ``Option{n} Name``
that reads ``Color`` or ``Colour`` (in any case); without brackets (``Color {n}``), every value of the numbered
columns, as a list. A list of references (``["Variant Compare At Price", "Variant Price"]``) reads the first that
holds a value.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fnmatch import fnmatchcase

from fashionrq.catalog.schema import clean_string, json_text
from fashionrq.errors import InputError

_STEP = re.compile(r"\.([^.\[\]]+)|\[([^\[\]]*)\]")
_ALL = ("all", None)
_NUMBERED = re.compile(r"(?P<values>[^\[\]]*\{n\}[^\[\]]*)(?:\[(?P<names>[^\[\]=]*\{n\}[^\[\]=]*)=(?P<wanted>[^\[\]]+)\])?")
#: The numbers ``{n}`` is tried with.
_NUMBERS = range(100)


@dataclass(frozen=True)
class FieldPath:
    """A reference to one column, or to a value nested inside one."""

    column: str
    steps: tuple[tuple[str, object], ...] = ()

    @classmethod
    def parse(cls, reference: str, columns: list[str], where: str) -> FieldPath:
        """The reference to ``reference`` among ``columns``: the column of that name, else a path whose first key is
        a column. ``where`` names the mapping entry (``m.toml maps name to``) in the message that refuses a
        malformed path."""
        if reference in columns or not any(c in reference for c in ".["):
            return cls(reference)
        head = re.match(r"[^.\[\]]+", reference)
        rest = reference[head.end():] if head else reference
        steps, position = [], 0
        for match in _STEP.finditer(rest):
            if match.start() != position:
                break
            steps.append(_step(match.group(1), match.group(2)))
            position = match.end()
        if head is None or position != len(rest) or any(step is None for step in steps):
            raise InputError(f"{where} {reference!r}, which is neither a column nor a path such as "
                             "'item_name[language_tag=en_US].value', 'color[*].value' or 'images[0]'; fix the reference.")
        return cls(head.group(0), tuple(steps))

    @property
    def is_path(self) -> bool:
        return bool(self.steps)

    @property
    def needs(self) -> tuple[str, ...]:
        """The columns this reference reads."""
        return (self.column,)

    def get(self, record: dict) -> object:
        """The value this reference names in ``record``; ``None`` where a step finds nothing."""
        return _walk(record.get(self.column), self.steps)


def _step(key: str | None, bracket: str | None) -> tuple[str, object] | None:
    text = key if key is not None else bracket.strip()
    if key is None and text == "*":
        return _ALL
    if re.fullmatch(r"-?\d+", text):
        return ("index", int(text))
    if key is None:
        name, equals, value = text.partition("=")
        return ("match", (name.strip(), _alternatives(value))) if equals and name.strip() else None
    return ("key", text)


def _alternatives(text: str) -> tuple[str, ...]:
    """The ``|``-separated alternatives of a wanted value (``Color|Colour``, ``en_*``), unquoted and casefolded, as
    they are matched: in any case."""
    return tuple(a.strip().strip("'\"").casefold() for a in text.strip().strip("'\"").split("|"))


def _walk(value: object, steps: tuple[tuple[str, object], ...]) -> object:
    if not steps or value is None:
        return value
    value = json_text(value)
    (kind, arg), rest = steps[0], steps[1:]
    if kind == "all":
        found = [_walk(v, rest) for v in value] if isinstance(value, list) else []
        flat = [x for v in found for x in (v if isinstance(v, list) else [v])]
        return [v for v in flat if v is not None] or None
    if kind == "key":
        return _walk(value.get(arg), rest) if isinstance(value, dict) else None
    if kind == "index" and isinstance(value, dict):  # ".2" on an object: its key "2"
        return _walk(value.get(str(arg)), rest)
    if kind == "index":
        return _walk(value[arg], rest) if isinstance(value, list) and -len(value) <= arg < len(value) else None
    key, wanted = arg
    match = next((v for v in value if _matches(_entry(v, key), wanted)), None) if isinstance(value, list) else None
    return _walk(match, rest)


def _matches(entry: object, wanted: tuple[str, ...]) -> bool:
    """Whether ``entry`` reads, in any case, as one of the ``wanted`` alternatives (casefolded), each of which may
    hold ``*`` for any characters (``en_*`` is every English language tag)."""
    return entry is not None and any(fnmatchcase(str(entry).casefold(), alternative) for alternative in wanted)


def _entry(value: object, key: str) -> object:
    """``value``'s entry ``key``: a key of an object, or a position in a list (``0``, ``-1``); ``None`` if it has none."""
    if isinstance(value, dict):
        return value.get(key)
    if isinstance(value, list) and re.fullmatch(r"-?\d+", key) and -len(value) <= int(key) < len(value):
        return value[int(key)]
    return None


@dataclass(frozen=True)
class NumberedColumns:
    """Numbered columns read as one field (``Option{n} Value[Option{n} Name=Color|Colour]``; module docstring)."""

    values: tuple[str, ...]
    names: tuple[str, ...] = ()
    wanted: frozenset[str] = frozenset()

    @classmethod
    def parse(cls, reference: str, columns: list[str], where: str) -> NumberedColumns:
        """The numbered columns ``reference`` names among ``columns`` (the first number alone when none is there,
        for the caller to refuse as a missing column)."""
        match = _NUMBERED.fullmatch(reference)
        if match is None:
            raise InputError(f"{where} {reference!r}, which is no reference to numbered columns such as "
                             "'Option{n} Value[Option{n} Name=Color|Colour]' or 'Color {n}'; fix the reference.")
        templates = [t for t in (match.group("values"), match.group("names")) if t is not None]
        numbered = [tuple(t.replace("{n}", str(n)) for t in templates) for n in _NUMBERS]
        present = [each for each in numbered if all(c in columns for c in each)] or [numbered[1]]
        values, *names = zip(*present)  # the value columns, then the name columns beside them
        if not names:
            return cls(values)
        wanted = frozenset(_alternatives(match.group("wanted")))
        return cls(values, names[0], wanted)

    @property
    def column(self) -> str:
        return self.values[0]

    @property
    def is_path(self) -> bool:
        return True

    @property
    def needs(self) -> tuple[str, ...]:
        return self.values + self.names

    def get(self, record: dict) -> object:
        if not self.names:
            found = [record.get(c) for c in self.values if clean_string(record.get(c)) is not None]
            return found or None
        for value, name in zip(self.values, self.names, strict=True):
            text = clean_string(record.get(name))
            if text is not None and text.casefold() in self.wanted:
                return record.get(value)
        return None


@dataclass(frozen=True)
class FirstOf:
    """Several references read in turn: the first value present (not empty, not a placeholder such as ``N/A``)."""

    references: tuple[FieldPath | NumberedColumns, ...]
    texts: tuple[str, ...] = ()  # each reference as the mapping writes it

    @property
    def column(self) -> str:
        return self.references[0].column

    @property
    def is_path(self) -> bool:
        return True

    @property
    def needs(self) -> tuple[str, ...]:
        return tuple(c for ref in self.references for c in ref.needs)

    def get(self, record: dict) -> object:
        return self.first(record)[0]

    def first(self, record: dict, skip=None) -> tuple[object, str | None]:
        """The first value present (and not one ``skip`` passes over), and the reference (as the mapping writes it)
        it was read from."""
        for ref, text in zip(self.references, self.texts, strict=True):
            value = ref.get(record)
            if value is not None and clean_string(value) is not None and not (skip and skip(value)):
                return value, text
        return None, None


Reference = FieldPath | NumberedColumns | FirstOf


def parse_reference(reference: str | list[str], columns: list[str], where: str) -> Reference:
    """The reference a mapping gives for a field: a column, a path into one, numbered columns (``{n}``), or a list of
    these read in turn."""
    if isinstance(reference, list):
        return FirstOf(tuple(parse_reference(r, columns, where) for r in reference), tuple(reference))
    if reference not in columns and "{n}" in reference:
        return NumberedColumns.parse(reference, columns, where)
    return FieldPath.parse(reference, columns, where)
