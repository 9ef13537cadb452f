"""Column references that reach into nested values, for catalogs that keep a field inside a list or an object.

A mapping names a column by its name (``title``); when no column has that exact name, the reference is read as a
path: a column, then steps ``.key`` (a key of an object), ``[2]`` or ``.2`` (an element of a list, ``[-1]`` the
last), ``[key=value]`` (the first object of a list whose ``key`` is ``value``) and ``[*]`` (every element; the
steps after it apply to each). A text cell holding JSON (a CSV column of JSON objects) is read as JSON first.

    item_name[language_tag=en_US].value     ABO-style listings: the English name
    color[*].value                          every colour of a list of colour objects
    images[0]                               the first of a list of photos
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from fashionrq.catalog.schema import json_text
from fashionrq.errors import InputError

_STEP = re.compile(r"\.([^.\[\]]+)|\[([^\[\]]*)\]")
_ALL = ("all", None)


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
        return ("match", (name.strip(), value.strip().strip("'\""))) if equals and name.strip() else None
    return ("key", text)


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
    match = next((v for v in value if isinstance(v, dict) and str(v.get(key)) == wanted), None) if isinstance(value, list) else None
    return _walk(match, rest)
