"""Raw cell values to canonical ones, one row at a time, counting every placeholder and nulled value."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

from fashionrq.catalog.prices import DEFAULT_PRICE_FORMAT, PriceFormat
from fashionrq.catalog.report import IngestReport
from fashionrq.catalog.schema import (
    AGE_SCALE,
    clean_string,
    is_placeholder,
    json_text,
    normalise_age_group,
    normalise_gender,
    parse_price,
    parse_year,
)
from fashionrq.errors import InputError

#: The gender of an item for children that a catalog calls a man's or a woman's.
CHILD_GENDERS = {"Men": "Boys", "Women": "Girls"}
CHILD_AGE_GROUPS = frozenset({"baby", "toddler", "kids"})
_BAD_ID_CHARACTER = re.compile(r"[\s\x00-\x1f\x7f]")
#: Trademark signs, which a shopper never types (``UGG®``, ``SoftWalk®``, ``Gore-Tex™``).
_TRADEMARK_SIGNS = re.compile(r"\s*[®™©]")


def check_item_id(item_id: str, where: str) -> str:
    """Refuse an id that TREC run and qrels files cannot hold (whitespace or control characters)."""
    bad = _BAD_ID_CHARACTER.search(item_id)
    if bad:
        raise InputError(
            f"{where}: item id {item_id!r} contains {'whitespace' if bad.group().isspace() else 'a control character'} "
            f"({bad.group()!r}), which run and qrels files cannot hold; remove it from the ids, or map another id column."
        )
    return item_id


def split_list(text: str, separator: str | None) -> list[str]:
    """A list field given as one string, split on ``separator``; with none set, on ``|`` where the text holds one,
    else on commas (a Vinted scrape's ``NOIR, BLANC``: two colours)."""
    return text.split(separator or ("|" if "|" in text else ","))


@dataclass
class RowCleaner:
    """Cleans the values of the row of ``item_id``; placeholders and nulled values are recorded in ``report``."""

    report: IngestReport
    item_id: str
    prices: PriceFormat = DEFAULT_PRICE_FORMAT

    def text(self, field: str, value: object) -> str | None:
        """Trimmed text, or ``None`` (a placeholder such as ``Unknown`` or ``N/A`` is counted under ``field``); HTML
        entities that scraped exports leave in names and categories (``Tops, Tees &amp; Blouses``) are decoded and
        counted under ``repaired.html_entities``; trademark signs outside a description (``UGG®``) are taken out and
        counted under ``repaired.trademark_signs_<field>``."""
        if is_placeholder(value, field):
            self.report.placeholder(field, value)
            return None
        text = clean_string(value)
        if text is not None and "&" in text and (decoded := html.unescape(text)) != text:
            self.report.repair("html_entities", self.item_id)
            text = decoded
        if text is not None and field != "description" and (plain := _TRADEMARK_SIGNS.sub("", text).strip()) != text:
            self.report.repair(f"trademark_signs_{field}", self.item_id)
            text = plain or None
        return text

    def price(self, field: str, value: object) -> float | None:
        """A finite price above the placeholder limit, or ``None``; placeholders, unparsable, non-finite and
        other-currency prices are counted, and a range read as one of its ends or an amount read past the words
        around it (``Now 40.00``) is counted as repaired."""
        price, why, repair = parse_price(value, self.prices)
        if why is not None:
            self.report.null_value(f"{why}_{field}", self.item_id)
        elif price is None:
            self.text(field, value)
        elif repair is not None:
            self.report.repair(f"{repair}_{field}", self.item_id)
        return price

    def age_group(self, value: object) -> str | None:
        """The age segment (baby, toddler, kids, adult) of an age group such as ``Adults-Men`` or ``infant``; a value
        that names none (``Women > Clothing``, a gender's column read whole) is null, counted under
        ``values_nulled.unknown_age_group``."""
        age = normalise_age_group(self.text("age_group", value))
        if age is not None and age not in AGE_SCALE:
            self.report.null_value("unknown_age_group", self.item_id)
            return None
        return age

    def gender(self, value: object, age_group: str | None) -> str | None:
        """Men, Women, Boys, Girls or Unisex; ``Men`` or ``Women`` with a child's ``age_group`` (Google's ``male`` +
        ``kids``, Myntra's mislabelled kidswear) as ``Boys`` or ``Girls``, counted under ``repaired.gender_from_age_group``."""
        gender = normalise_gender(self.text("gender", value))
        if gender in CHILD_GENDERS and age_group in CHILD_AGE_GROUPS:
            self.report.repair("gender_from_age_group", self.item_id)
            return CHILD_GENDERS[gender]
        return gender

    def year(self, value: object) -> int | None:
        """A plausible year, or ``None``; unparsable and implausible years are counted."""
        year, why = parse_year(value)
        if why is not None:
            self.report.null_value(f"{why}_year", self.item_id)
        elif year is None:
            self.text("year", value)
        return year

    def values(self, field: str, value: object, separator: str | None) -> list[str]:
        """A list field given as a list, or as one string split as :func:`split_list` says; placeholder entries dropped."""
        if isinstance(value, list | tuple):
            entries = list(value)
        else:
            text = self.text(field, value)
            entries = split_list(text, separator) if text else []
        return [v for v in (self.text(field, entry) for entry in entries) if v is not None]

    def attributes(self, value: object) -> dict[str, str]:
        """A key -> value map (Parquet map or struct, JSON object text, a list of ``"Key: Value"`` texts as
        marketplaces list features, a list of ``{"key": ..., "value": ...}`` objects as crawls write
        specifications, or a list of one-key objects ``[{"Fabric": "Cotton"}, {"Fit": "Slim"}]``) as text values;
        placeholders dropped, a listed feature without a key counted."""
        value = json_text(value)
        if value is None or is_placeholder(value):
            return {}
        if isinstance(value, list | tuple) and all(isinstance(entry, str) for entry in value):
            value = self._listed_features(map(keyed_feature, value))
        elif isinstance(value, list | tuple) and all(isinstance(entry, dict) and "value" in entry for entry in value):
            value = self._listed_features(map(_key_and_value, value))
        elif isinstance(value, list | tuple) and all(isinstance(entry, dict) and len(entry) == 1 for entry in value):
            value = self._listed_features(next(iter(entry.items())) for entry in value)
        if not isinstance(value, dict):
            self.report.null_value("attributes_not_a_map", self.item_id)
            return {}
        out = {}
        for key, entry in value.items():
            name = clean_string(key)
            text = self.text(f"attributes.{name}", entry) if name is not None else None
            if text is not None:
                out[name] = text
        return out

    def _listed_features(self, pairs) -> dict[str, str]:
        """The ``(key, value)`` pairs of a feature list (``None`` for an entry without a key) as ``{"Fabric": "Cotton"}``
        (the first of a repeated key), each entry without a key counted under ``values_nulled.feature_without_key``."""
        out: dict[str, object] = {}
        for pair in pairs:
            if pair is None:
                self.report.null_value("feature_without_key", self.item_id)
            else:
                out.setdefault(*pair)
        return out


def keyed_feature(entry: str) -> tuple[str, str] | None:
    """``("Fabric", "Cotton")`` of a listed feature ``"Fabric: Cotton"``; ``None`` for one without a key, and for a web
    address (``https://…``: a list of photos is no list of features)."""
    key, colon, rest = entry.partition(":")
    return (key.strip(), rest.strip()) if colon and key.strip() and len(key.strip()) <= 40 and not rest.startswith("//") else None


#: The keys a specification object names its attribute by (``{"key": "Fabric", "value": "Cotton"}``).
SPEC_KEYS = ("key", "name", "label", "attribute")


def _key_and_value(entry: dict) -> tuple[str, object] | None:
    """``("Fabric", "Cotton")`` of ``{"key": "Fabric", "value": "Cotton"}``; ``None`` for an object without a key."""
    key = next((clean_string(entry[k]) for k in SPEC_KEYS if clean_string(entry.get(k)) is not None), None)
    return (key, entry["value"]) if key is not None else None


def first_duplicate(ids) -> str | None:
    """The first id (in order of first appearance) that an Arrow array of ids holds more than once, or None."""
    import pyarrow.compute as pc

    if len(pc.unique(ids)) == len(ids):
        return None
    counts = pc.value_counts(ids)
    return counts.filter(pc.greater(counts.field("counts"), 1))[0]["values"].as_py()

