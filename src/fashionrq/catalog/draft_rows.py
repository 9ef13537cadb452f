"""How the rows of a catalog make its products, as `fashionrq draft-mapping` guesses it: size variants grouped by a
column (``item_group_id``, Shopify's ``Handle``), parent rows named by their variants (WooCommerce's ``Parent``) or
listing them (Magento's ``configurable_variations``), the
columns later rows take from the first or parent row, numbered option pairs (``Option1 Name``/``Option1 Value``) and
the price before a sale."""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass

from fashionrq.catalog.fieldpath import parse_reference
from fashionrq.catalog.guess import (ATTRIBUTE_NAMES, COMPARE_AT_NAMES, GROUP_NAMES, PARENT_NAMES, Guesser, norm, norms,
                                     present_texts, toml_literal)
from fashionrq.catalog.schema import clean_string, is_placeholder, json_text, to_text
from fashionrq.catalog.variants import parent_name, rows_by_parent_name

#: The name column of numbered option pairs ("Option1 Name" beside "Option1 Value", "Attribute 1 name").
_OPTION_NAME = re.compile(r"(?P<head>.*?)(?P<n>\d+)(?P<tail>\s*)name", re.IGNORECASE)
#: A variant's name that ends in its option values, after a dash (WooCommerce: "Nike Men T-shirt - Black, M") or a
#: comma (Amazon: "Nike Men T-shirt, Black, M"): a colour of at most 24 characters and a size of at most 12, so that a
#: comma inside a name ("Tie, Cufflink and Pocket Square Combo Set, Black") is not taken for one.
_OPTION_SUFFIXES = (re.compile(r" - [^,-]{1,24}(?:, [^,]{1,12})?$"), re.compile(r", [^,]{1,24}(?:, [^,]{1,12})?$"))


def variants_section(guesser: Guesser, found: dict) -> list[str]:
    colour = next((found[n][0] for n in ("base_colour", "colours") if n in found), None)
    colour = colour[0] if isinstance(colour, list) else colour  # the per-row colour, not the product's fallback
    link = _ParentLink.find(guesser) or _ChildrenLink.find(guesser)
    if link is not None:
        return link.lines(guesser, found, colour)
    group = guesser.column(GROUP_NAMES)
    if group is None:
        return _repeated_ids(guesser, found)
    values = present_texts(guesser.values(group))
    if len(set(values)) == len(values):
        return []
    key = ", ".join(f'"{c}"' for c in (group, colour) if c)
    lines = ["", "[variants]   # rows of one product (sizes) share these; the first row of each is kept", f"key = [{key}]"]
    fill = _first_row_columns(guesser, group)
    if fill:
        lines += ["# the columns only a product's first row fills (later rows take them from it); CHECK",
                  f"fill = [{', '.join(json.dumps(c) for c in fill)}]"]
    return lines


def _repeated_ids(guesser: Guesser, found: dict) -> list[str]:
    """A ``[variants]`` key of the id column when some of its ids repeat (a scrape that fetched a product again):
    the first record of each id is kept, the others listed."""
    column = found.get("item_id", (None,))[0]
    if not isinstance(column, str) or column not in guesser.columns:
        return []
    ids = Counter(to_text(v) for v in guesser.values(column, every_record=True))
    repeats = sum(n - 1 for n in ids.values() if n > 1)
    if not repeats:
        return []
    return ["", f"[variants]   # CHECK: {repeats:,} record{'s repeat' if repeats != 1 else ' repeats'} an earlier record's {column}; the first of each is kept, "
            "the others listed", f"key = [{json.dumps(column)}]"]


def _fills(guesser: Guesser, pairs: list[tuple[dict, dict]], column: str) -> bool:
    """Whether ``column`` is one the first row of each (first, later) pair fills and the later row leaves empty: the
    first fills it in a tenth of the pairs or more (and three), and the later row is empty in nine of ten of those."""
    filled = [(first, later) for first, later in pairs if not is_placeholder(first.get(column, ""))]
    return len(filled) >= max(3, len(pairs) / 10) and sum(is_placeholder(later.get(column, "")) for _, later in filled) >= 0.9 * len(filled)


def _candidates(guesser: Guesser) -> list[str]:
    """The columns worth filling: those the draft maps, and numbered option names and values."""
    pairs = Pairs.find(guesser)
    numbered = set(parse_reference(pairs.names, guesser.columns, "draft").needs + parse_reference(pairs.values, guesser.columns, "draft").needs) if pairs else set()
    return [c for c in guesser.columns if c in guesser.used or c in numbered]


def _first_row_columns(guesser: Guesser, group: str) -> list[str]:
    """The columns a product's later rows leave empty while its first row fills them (Shopify writes the title,
    vendor and option names on a product's first row only), numbered ones as one ``Option{n} Name``."""
    products: dict[str, list[dict]] = {}
    for record in guesser.records:
        key = to_text(record.get(group))
        if key:
            products.setdefault(key, []).append(record)
    pairs = [(rows[0], later) for rows in products.values() for later in rows[1:]]
    if not pairs:
        return []
    return _templated([c for c in _candidates(guesser) if c != group and _fills(guesser, pairs, c)], guesser.columns)


@dataclass(frozen=True)
class _ParentLink:
    """A column in which variant rows name their parent row (WooCommerce's ``Parent``, Amazon's ``parent_sku``), and
    the ``parent_id`` entries that name a row there: a column, or ``id:{ID}`` for WooCommerce's ``id:44``."""

    column: str
    names: tuple[str, ...]

    @classmethod
    def find(cls, guesser: Guesser) -> _ParentLink | None:
        for column in guesser.columns:
            if not any(n in PARENT_NAMES for n in norms(column)):
                continue
            links = present_texts([record.get(column) for record in guesser.records])
            if not links:
                continue
            found = []
            for other in (c for c in guesser.columns if c != column):
                values = set(present_texts([record.get(other) for record in guesser.records]))
                for form, named in ((other, values), (f"id:{{{other}}}", {f"id:{v}" for v in values})):
                    count = sum(link in named for link in links)
                    if count >= len(links) / 20:
                        found.append((count, form))
            found.sort(key=lambda f: -f[0])
            if sum(count for count, _ in found[:2]) >= 0.8 * len(links):
                return cls(column, tuple(form for _, form in found[:2]))
        return None

    def parents(self, guesser: Guesser) -> list[tuple[dict, dict]]:
        """(parent row, variant row) for each variant row of the sample whose parent is in the sample, found as
        ingest finds it (:func:`fashionrq.catalog.variants.rows_by_parent_name`)."""
        parent_ids = tuple((before, parse_reference(column, guesser.columns, "draft"), after)
                           for before, column, after in map(parent_name, self.names))
        rows = rows_by_parent_name([(str(i), record) for i, record in enumerate(guesser.records)], parent_ids)
        links = ((clean_string(to_text(record.get(self.column))), record) for record in guesser.records)
        return [(rows[link][1], record) for link, record in links if link in rows]

    def lines(self, guesser: Guesser, found: dict, colour: str | None) -> list[str]:
        guesser.used.add(self.column)
        pairs = self.parents(guesser)
        fill = _templated([c for c in _candidates(guesser) if c != self.column and _fills(guesser, pairs, c)], guesser.columns)
        lines = _linked_section("a variant row names its parent row, which is left out", [f'parent = "{self.column}"', f"parent_id = {_toml_list(self.names)}"],
                                (self.column, colour), "one item per parent and colour", fill, "leaves empty")
        if "name" in found and colour is not None:
            lines += _option_suffix(guesser, [variant for _, variant in pairs], found["name"][0], colour)
        return lines


@dataclass(frozen=True)
class _ChildrenLink:
    """A column in which a parent row lists its variant rows (Magento's ``configurable_variations``:
    ``sku=T-S-Black,color=Black|sku=...``): the key of each entry that names a variant, and the column that holds
    that name in the variant's row."""

    column: str
    key: str
    names: str

    @classmethod
    def find(cls, guesser: Guesser) -> _ChildrenLink | None:
        for column in guesser.columns:
            rows = [(record, v) for record in guesser.records if isinstance(v := json_text(record.get(column)), list) and v
                    and all(isinstance(e, dict) for e in v)]
            if len(rows) < 3:
                continue
            values = {other: present_texts(guesser.values(other)) for other in guesser.columns if other != column}
            # a column that names rows tells them apart (no time every photo shares)
            naming = {other: set(texts) for other, texts in values.items() if texts and len(set(texts)) >= 0.9 * len(texts)}
            for key, _ in Counter(k for _, entries in rows for e in entries for k in e).most_common(3):
                for other, names in naming.items():
                    # entries that name another row: Shopify's images[*].product_id names the row itself
                    listed = [text for record, entries in rows for e in entries
                              if (text := to_text(e.get(key))) and text != to_text(record.get(other))]
                    if listed and sum(name in names for name in listed) >= 0.5 * len(listed):
                        return cls(column, key, other)
        return None

    def parents(self, guesser: Guesser) -> list[tuple[dict, dict]]:
        """(parent row, variant row) for each listed variant of the sample whose row is in the sample."""
        rows = {to_text(record.get(self.names)): record for record in guesser.records}
        return [(record, rows[name]) for record in guesser.records for entries in [json_text(record.get(self.column))]
                if isinstance(entries, list) for e in entries if isinstance(e, dict) and (name := to_text(e.get(self.key))) in rows]

    def lines(self, guesser: Guesser, found: dict, colour: str | None) -> list[str]:
        guesser.used.add(self.column)
        pairs = self.parents(guesser)
        fill = [c for c in _candidates(guesser) if c != self.column and (_fills(guesser, pairs, c) or _lacks_keys(pairs, c))]
        lines = _linked_section("a parent row lists its variant rows, and is left out", [f'children = "{self.column}[*].{self.key}"',
                                                                       f"variant_id = {_toml_list([self.names])}"],
                                (self.names, colour), f"one item per parent (its {self.names}) and colour", fill,
                                "leaves empty (or whose keys it lacks)")
        name = found.get("name", (None,))[0]
        if isinstance(name, str) and pairs and sum((to_text(v.get(name)) or "").startswith(f"{to_text(p.get(name))}-")
                                                   for p, v in pairs) >= len(pairs) / 2:
            lines += [f'take = ["{name}"]   # the parent\'s name: a variant\'s ends in its options ("Tee-XS-Black")']
        return lines


def _linked_section(link: str, link_lines: list[str], key: tuple[str | None, ...], key_note: str, fill: list[str],
                    fill_note: str) -> list[str]:
    """The ``[variants]`` section of a catalog whose parent rows are left out: the link, the key and the fill."""
    lines = ["", f"[variants]   # {link}: the variants are the items", *link_lines,
             f"key = {_toml_list([c for c in key if c])}   # {key_note}; the first row of each is kept"]
    if fill:
        lines += [f"# the columns a variant row {fill_note} and takes from its parent row; CHECK", f"fill = {_toml_list(fill)}"]
    return lines


def _toml_list(columns) -> str:
    return f"[{', '.join(json.dumps(c) for c in columns)}]"


def _lacks_keys(pairs: list[tuple[dict, dict]], column: str) -> bool:
    """Whether ``column`` holds key/value pairs in parent and variant rows alike, the parent's with keys the variant's
    lacks in half of the pairs or more (Magento's ``additional_attributes``: brand and material on the parent)."""
    both = [(json_text(p.get(column)), json_text(v.get(column))) for p, v in pairs]
    both = [(a, b) for a, b in both if isinstance(a, dict) and isinstance(b, dict)]
    return len(both) >= max(3, len(pairs) / 2) and sum(bool(a.keys() - b.keys()) for a, b in both) >= len(both) / 2


def _option_suffix(guesser: Guesser, variants: list[dict], name: str, colour: str) -> list[str]:
    """``[clean.name]`` removing the options at the end of variants' names, when half of them or more end in their
    own colour (and a size) after a dash or a comma; nothing otherwise."""
    name_ref, colour_ref = (parse_reference(r, guesser.columns, "draft") for r in (name, colour))
    rows = [(to_text(name_ref.get(v)) or "", to_text(colour_ref.get(v)) or "") for v in variants]
    for suffix in _OPTION_SUFFIXES:
        named = [text for text, own in rows if own and (found := suffix.search(text)) and found.group(0).lstrip(" -,").startswith(own)]
        if rows and len(named) >= len(rows) / 2:
            return ["", f"[clean.name]   # a variant's name ends in its options: {named[0]!r} -> {suffix.sub('', named[0])!r}; CHECK",
                    f"remove = [{toml_literal(suffix.pattern)}]"]
    return []


#: Names of a column of the price before a sale (a scrape's ``price_original``, India's ``mrp``).
_BEFORE_SALE_NAMES = frozenset({"originalprice", "mrp", "listprice", "regularprice", "retailprice", "wasprice"})


def _price_paid_beside(guesser: Guesser, before: str) -> str | None:
    """An unused column of prices (its name says ``price``; a number or an amount in nine records in ten or more) that
    holds more of them than ``before``, a column of the price before a sale that is empty in a tenth of the records or
    more (a Tokopedia scrape's ``price_number`` beside ``price_original``, which only discounted products have)."""
    filled = len(present_texts(guesser.values(before)))
    if filled > 0.9 * len(guesser.records):
        return None
    for column in guesser.columns:
        if column in guesser.used or column == before or "price" not in norm(column) or any(n in _BEFORE_SALE_NAMES for n in norms(column)):
            continue
        texts = present_texts(guesser.values(column))
        if len(texts) >= 0.9 * len(guesser.records) and len(texts) > filled and all(re.search(r"\d", t) for t in texts):
            guesser.used.add(column)
            return column
    return None


def options_and_sales(guesser: Guesser, found: dict) -> None:
    """The colour from numbered name/value pairs (``Option1 Name`` = ``Color`` beside ``Option1 Value``), before any
    product-level colour column; the price before a sale (``Variant Compare At Price``) before the price paid, and
    the price paid after a column of the price before a sale that only some records fill."""
    pairs = Pairs.find(guesser)
    option = pairs.reference("Color|Colour") if pairs else None
    if option is not None and any(present_texts(guesser.values(option))):
        guesser.used.update(parse_reference(option, guesser.columns, "draft").needs)
        product_colour = found.pop("base_colour", found.pop("colours", None))
        reference = [option, product_colour[0]] if product_colour else option
        found["colours"] = (reference, "the option named Color" + (", else the product's colour" if product_colour else ""))
    if "base_colour" not in found and "colours" not in found and (named := _named_option(guesser, "color", "colour")) is not None:
        found["colours"] = (named, "the values of the option named so")  # Shopify's products.json: options[name=Color].values
    compare_at = guesser.column(COMPARE_AT_NAMES)
    if compare_at is None and "price" in found and isinstance(found["price"][0], str) and "." in found["price"][0]:
        # the price inside a list of variant objects (variants[0].price): the compare-at price beside it
        objects, _, _ = found["price"][0].rpartition(".")
        keys = {k for v in guesser.values(objects) if isinstance(v, dict) for k in v if present_texts([v[k]])}
        compare_at = next((f"{objects}.{k}" for k in sorted(keys) if norm(k) in COMPARE_AT_NAMES), None)
    if compare_at is not None and "price" in found and isinstance(found["price"][0], str):
        paid = found["price"][0]
        key = paid.rpartition(".")[2] if "." in paid else None  # price.value beside wasPriceData.value (AJIO's objects)
        if key and compare_at in guesser.columns and any(isinstance(v, dict) and key in v for v in guesser.decoded(compare_at)):
            compare_at = f"{compare_at}.{key}"
        found["price"] = ([compare_at, paid], "the price before a sale, else the price")
        found.setdefault("discounted_price", (paid, "the price paid"))
    before = found.get("price", (None,))[0]
    if (isinstance(before, str) and "discounted_price" not in found and any(n in _BEFORE_SALE_NAMES for n in norms(before))
            and (paid := _price_paid_beside(guesser, before)) is not None):
        found["price"] = ([before, paid], "the price before a sale, else the price paid")
        found["discounted_price"] = (paid, "the price paid")


def _named_option(guesser: Guesser, *names: str) -> str | None:
    """``options[name=Color].values``: the values of the option named one of ``names`` (in any case) in a column of
    option objects (``[{"name": "Color", "values": ["Black"]}, {"name": "Size", ...}]``), when a third of the
    sampled records or more have it."""
    for column in guesser.columns:
        lists = [v for v in guesser.decoded(column) if isinstance(v, list) and v and all(isinstance(e, dict) and {"name", "values"} <= set(e) for e in v)]
        spellings = Counter(to_text(e["name"]) for v in lists for e in v if (to_text(e["name"]) or "").lower() in names)
        if spellings and sum(spellings.values()) >= len(guesser.records) / 3:
            guesser.used.add(column)
            return f"{column}[name={spellings.most_common(1)[0][0]}].values"
    return None


@dataclass(frozen=True)
class Pairs:
    """Numbered name/value column pairs, as Shopify (``Option1 Name``, ``Option1 Value``) and WooCommerce
    (``Attribute 1 name``, ``Attribute 1 value(s)``) write a product's options: their ``{n}`` templates."""

    names: str
    values: str

    @classmethod
    def find(cls, guesser: Guesser) -> Pairs | None:
        for column in guesser.columns:
            match = _OPTION_NAME.fullmatch(column)
            if match is None:
                continue
            head, number = match["head"], match["n"]
            value = next((c for c in guesser.columns if c.lower().startswith(f"{head}{number}{match['tail']}value".lower())), None)
            if value is not None:
                return cls(f"{head}{{n}}{column[len(head) + len(number):]}", f"{head}{{n}}{value[len(head) + len(number):]}")
        return None

    def reference(self, wanted: str) -> str:
        return f"{self.values}[{self.names}={wanted}]"

    def attributes(self, guesser: Guesser, taken: set[str]) -> list[tuple[str, str]]:
        """``(attribute key, reference)`` for each option name in the sample that names an attribute relevance and
        queries know (``Fabric``, ``Material``, ``Pattern``), except the keys in ``taken``."""
        names = Counter(t for value in guesser.values(self.names) for t in present_texts(value if isinstance(value, list) else [value]))
        out = []
        for key, aliases in ATTRIBUTE_NAMES.items():
            spelling = next((name for name, _ in names.most_common() if norm(name) in aliases), None)
            if spelling is not None and key not in taken:
                out.append((key, self.reference(spelling)))
                taken.add(key)
        return out


def _numbered_template(column: str, columns: list[str]) -> str:
    """``Attribute {n} name`` for ``Attribute 3 name`` when other numbers of it are columns too; else the column."""
    match = re.fullmatch(r"(.*?)(\d+)(\D*)", column)
    if match is None:
        return column
    siblings = [c for c in columns if re.fullmatch(re.escape(match[1]) + r"\d+" + re.escape(match[3]), c)]
    return f"{match[1]}{{n}}{match[3]}" if len(siblings) > 1 else column


def _templated(columns: list[str], all_columns: list[str]) -> list[str]:
    """``columns`` with numbered ones written once as their ``{n}`` template, in first-seen order."""
    return list(dict.fromkeys(_numbered_template(c, all_columns) for c in columns))
