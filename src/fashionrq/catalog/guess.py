"""How `fashionrq draft-mapping` reads a catalog it has never seen: the names columns that hold each canonical field
usually have, the sampled records with the column lookups the guesses share, and the TOML spellings the draft
writes."""

from __future__ import annotations

import json
import re
import unicodedata
from collections import Counter
from collections.abc import Callable

from fashionrq.catalog.clean import SPEC_KEYS, keyed_feature
from fashionrq.catalog.fieldpath import parse_reference
from fashionrq.catalog.mapping import FieldCleanup
from fashionrq.catalog.prices import CURRENCY_CODES
from fashionrq.catalog.report import percent
from fashionrq.catalog.schema import is_placeholder, json_text, to_text

#: Column names (lower case, letters and digits only) that usually hold each canonical field, best first; the
#: French, German, Spanish, Italian and Portuguese names of the common ones after the English.
FIELD_NAMES: dict[str, tuple[str, ...]] = {
    "item_id": ("id", "itemid", "sku", "variantsku", "asin", "articleid", "productid", "styleid", "variantid", "uniqid", "uid",
                "productcode", "articlenumber", "stylecode", "itemcode", "code", "reference", "referenz", "artikelnummer",
                "referencia", "codigo"),
    "name": ("title", "name", "productname", "productdisplayname", "itemname", "producttitle", "prodname",
             "titre", "nom", "nomduproduit", "titel", "produktname", "bezeichnung", "titulo", "nombre", "titolo", "nome", "designation"),
    "brand": ("brand", "brandname", "brands", "vendor", "manufacturer", "designer", "maker", "store", "marque", "marke", "marca",
              "hersteller", "marka", "merk", "companyname", "company"),
    "gender": ("gender", "sex", "targetgender", "googleshoppinggender", "department", "indexgroupname", "indexname",
               "idealfor", "genre", "sexe", "geschlecht", "genero", "sesso"),
    "age_group": ("agegroup", "agesegment", "targetage", "agerange", "googleshoppingagegroup"),
    "article_type": ("articletype", "producttype", "producttypename", "itemtype", "typeprefix", "type", "productcategory",
                     "category", "categoryname", "categories", "breadcrumbs", "breadcrumb", "categorybreadcrumb", "categorie", "kategorie", "categoria",
                     "typ", "tipo", "produkttyp"),
    "master_category": ("mastercategory", "maincategory", "topcategory", "categorylevel1", "garmentgroupname", "division",
                        "category"),
    "sub_category": ("subcategory", "productgroupname", "productgroup", "categorylevel2", "subclass", "subcategoria",
                     "souscategorie", "unterkategorie", "sottocategoria"),
    "base_colour": ("basecolour", "basecolor", "colour", "color", "colourname", "colorname", "colourgroupname", "maincolor",
                    "couleur", "farbe", "colore", "cor"),
    "colours": ("colours", "colors", "colournames", "colornames", "colourlist", "colorlist", "couleurs", "farben", "colores",
                "colori", "cores"),
    "season": ("season", "seasonname"),
    "year": ("year", "modelyear", "releaseyear", "launchyear"),
    "usage": ("usage", "occasion"),
    "price": ("price", "listprice", "listingprice", "actualprice", "retailprice", "mrp", "originalprice", "regularprice",
              "variantprice", "pricing", "prices", "prix", "preis", "precio", "prezzo", "preco", "fiyat", "cena", "harga", "gia"),
    "discounted_price": ("discountedprice", "saleprice", "salesprice", "sellingprice", "discountprice", "offerprice", "specialprice",
                         "finalprice", "currentprice"),
    "description": ("description", "bodyhtml", "productdescription", "longdescription", "detaildesc", "desc", "bulletpoint",
                    "bulletpoints", "beschreibung", "descripcion", "descrizione", "descricao"),
    "image_path": ("imagepath", "image", "imagelink", "imageurl", "imagesrc", "images", "img", "imagefile", "mainimage", "baseimage",
                   "photo", "picture", "imurl", "imgurl", "imageurls", "mediaurl", "mediaurlimage", "bild", "imagen", "immagine", "imagem"),
    "attributes": ("attributes", "articleattributes", "details", "specs", "specifications"),
}
#: Attribute columns worth keeping, by the attribute name relevance and queries know.
ATTRIBUTE_NAMES: dict[str, tuple[str, ...]] = {
    "Fabric": ("fabric", "material", "materials"), "Pattern": ("pattern", "graphicalappearancename", "print"),
    "Sleeve Length": ("sleevelength", "sleeve", "sleevetype"), "Neck": ("neck", "neckline", "necktype", "collar"),
    "Fit": ("fit", "fittype"), "Occasion": ("occasion",),
}
#: Columns that group the rows of one product.
GROUP_NAMES = ("itemgroupid", "groupid", "parentasin", "parentid", "parentsku", "productgroupid", "modelid", "styleno",
               "handle")
#: The price before a sale, beside a column of the price paid (Shopify's "Variant Compare At Price").
COMPARE_AT_NAMES = ("variantcompareatprice", "compareatprice", "wasprice", "waspricedata")  # AJIO's wasPriceData
#: Columns in which a variant row names its parent row (WooCommerce's Parent, Amazon's parent_sku).
PARENT_NAMES = ("parent", "parentsku", "parentid", "parentitemsku", "parentasin")
#: Words that say how a row is built (WooCommerce's Type: simple, variable, variation; Magento's product_type: simple,
#: configurable), never a product's type.
_ROW_KINDS = frozenset({"simple", "variable", "variation", "grouped", "external", "virtual", "downloadable", "parent", "child",
                        "configurable", "bundle", "product", "sku", "rule"})  # BigCommerce's Item Type: Product, SKU, Rule


def norm(column: str) -> str:
    """A column's name in lower-case letters and digits, its accents dropped (``Catégorie``: ``categorie``)."""
    return re.sub(r"[^a-z0-9]", "", unicodedata.normalize("NFKD", column.lower()).encode("ascii", "ignore").decode())


#: Words a column name may add around the name of the field it holds (Amazon's item_sku, standard_price,
#: department_name, material_type, main_image_url), tried after the whole name.
NAME_PREFIXES = ("item", "product", "main", "standard", "variant", "default", "primary")
NAME_SUFFIXES = ("name", "type", "value", "text", *(code.lower() for code in CURRENCY_CODES))  # price_eur: price


def norms(column: str) -> tuple[str, ...]:
    """The names ``column`` is known by, best first: all of it, without a note in brackets (``Color
    (product.metafields.shopify.color-pattern)``, ``Price (EUR)``), then without a word a column name adds around a
    field's name (``item_sku``: ``sku``; ``department_name``: ``department``)."""
    short = norm(re.sub(r"\s*\([^()]*\)\s*$", "", column)) or norm(column)
    stripped = [short.removeprefix(p) for p in NAME_PREFIXES if short.startswith(p) and len(short) > len(p) + 2]
    stripped += [short.removesuffix(s) for s in NAME_SUFFIXES if short.endswith(s) and len(short) > len(s) + 2]
    words = re.findall(r"[a-z0-9]+", re.sub(r"([a-z])([A-Z])", r"\1 \2", column).lower())
    swapped = ["".join(reversed(words))] if len(words) == 2 else []  # PRICE_RETAIL: retailprice
    return tuple(dict.fromkeys([norm(column), short, *stripped, *swapped]))


def _plain_key(key: object) -> bool:
    """Whether a path can name ``key`` (a text without ``.``, ``[`` or ``]``)."""
    return isinstance(key, str) and not re.search(r"[.\[\]]", key)


def present_texts(values: list[object]) -> list[str]:
    """The values as texts, without the empty ones."""
    return [t for t in (to_text(v) for v in values) if t]


def _filled(value: object) -> bool:
    """Whether ``value`` says something: a text that is not blank, a non-empty list or object, any number."""
    return bool(text.strip()) if (text := to_text(value)) is not None else False


def toml_literal(pattern: str) -> str:
    """A regular expression as a TOML literal string (backslashes as they are), or a basic string (JSON's escapes,
    which TOML shares) when it holds a single quote."""
    return json.dumps(pattern) if "'" in pattern else f"'{pattern}'"


def toml_key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else '"' + key.replace('"', '\\"') + '"'


def toml_reference(reference: str | list[str]) -> str:
    return json.dumps(reference) if isinstance(reference, list) else f'"{reference}"'


class Guesser:
    """Picks a column (or a path into one) for each field from the sampled records."""

    def __init__(self, records: list[dict], columns: list[str], every_record: list[dict] | None = None) -> None:
        self.records = records
        self.every_record = records if every_record is None else every_record  # for a guess the sample is too small for
        self.columns = columns
        self.used: set[str] = set()
        self.cleanups: dict[str, FieldCleanup] = {}  # what the draft's [clean.<field>] sections do, by field
        known = [norms(c) for c in columns]
        self._by_norm: dict[str, str] = {}  # each name to its column, a column's whole name before a name it is known by less well
        for rank in reversed(range(max(map(len, known), default=0))):
            self._by_norm.update({names[rank]: c for c, names in zip(columns, known, strict=True) if rank < len(names)})
        self._decoded: dict[str, list[object]] = {}

    def keep(self, reference: str | list[str], wanted: Callable[[object], bool]) -> None:
        """Read only the records whose value of ``reference`` ``wanted`` keeps from now on (those a ``[skip]`` the
        draft writes does not leave out)."""
        ref = parse_reference(reference, self.columns, "draft")
        self.records = [r for r in self.records if wanted(ref.get(r))]
        self.every_record = [r for r in self.every_record if wanted(ref.get(r))]

    def values(self, reference: str | list[str], every_record: bool = False) -> list[object]:
        """The present values ``reference`` (a column, a path into one, numbered columns, or a list of these) names
        in the sampled records (or in every record)."""
        ref = parse_reference(reference, self.columns, "draft")
        return [v for v in map(ref.get, self.every_record if every_record else self.records) if v is not None and not is_placeholder(v)]

    def where_missing(self, reference: str | list[str], other: str | list[str]) -> list[object]:
        """The values of ``other`` in every record in which ``reference`` holds no value."""
        ref, wanted = (parse_reference(r, self.columns, "draft") for r in (reference, other))
        return [v for record in self.every_record if (t := ref.get(record)) is None or is_placeholder(t) if (v := wanted.get(record)) is not None]

    def both(self, reference: str | list[str], other: str | list[str]) -> list[tuple[object, object]]:
        """The values of ``reference`` and ``other`` in each sampled record that holds both."""
        ref, wanted = (parse_reference(r, self.columns, "draft") for r in (reference, other))
        return [(a, b) for a, b in ((ref.get(r), wanted.get(r)) for r in self.records)
                if a is not None and b is not None and not is_placeholder(a) and not is_placeholder(b)]

    def cleaned_counts(self, field: str, texts: list[str]) -> Counter:
        """How many of ``texts`` read as each value once the draft's ``[clean.<field>]``, if any, has cleaned them (a
        text it leaves empty is not counted)."""
        cleanup = self.cleanups.get(field)
        return Counter(t for t in (cleanup.apply(t)[0] if cleanup else t for t in texts) if t)

    def decoded(self, column: str) -> list[object]:
        """The present values of ``column`` with JSON (and Ruby-hash) text decoded, read once per column."""
        if column not in self._decoded:
            self._decoded[column] = [json_text(v) for v in self.values(column)]
        return self._decoded[column]

    def column(self, names: tuple[str, ...], reads: Callable[[str], bool] | None = None) -> str | None:
        """The first unused column with a value known by one of ``names`` (best first); with ``reads``, the one whose
        values it reads most often, the first on a tie (H&M's ``index_group_name``, "Ladieswear", before its
        ``department_name``, "Jersey Basic", for the gender)."""
        found = [c for c in dict.fromkeys(self._by_norm.get(name) for name in names)
                 if c is not None and c not in self.used and self.values(c) and not self.row_kinds(c)]
        if not found:
            return None
        column = found[0] if reads is None else max(found, key=lambda c: (self._share_read(c, reads), -found.index(c)))
        self.used.add(column)
        return column

    def _share_read(self, column: str, reads: Callable[[str], bool]) -> float:
        texts = present_texts(self.values(column))
        return sum(map(reads, texts)) / len(texts) if texts else 0.0

    def every_column(self, names: tuple[str, ...]) -> list[str]:
        """Every unused column with a value that :meth:`column` would find for ``names``, best first (``fabric_type``
        and ``material_type`` both for the fabric)."""
        found = []
        while (column := self.column(names)) is not None:
            found.append(column)
        return found

    def row_kinds(self, column: str) -> bool:
        """Whether ``column`` says how rows are built (``simple``, ``variable``, ``variation``), not what they sell."""
        texts = present_texts(self.values(column))
        return bool(texts) and sum(all(w.strip().lower() in _ROW_KINDS for w in t.split(",")) for t in texts) >= 0.9 * len(texts)

    def constant(self, reference: str) -> bool:
        """Whether ``reference`` holds one value in every sampled record that has one (two or more: BigCommerce's
        ``Product Type`` ``P`` on every product row, empty on its variant rows)."""
        values = [json.dumps(v, sort_keys=True, default=str) for v in self.values(reference)]
        return len(values) > 1 and len(set(values)) == 1

    def keyed_features(self) -> str | None:
        """An unused column of lists of texts, a quarter or more of which hold a ``"Key: Value"`` one (``["Fabric: Cotton",
        "Machine wash"]``), or ``None``."""
        for column in self.columns:
            if column in self.used:
                continue
            lists = [v for v in self.decoded(column) if isinstance(v, list) and v]
            entries = [e for v in lists for e in v]
            if not lists or not all(isinstance(e, str) for e in entries):
                continue
            if sum(any(keyed_feature(e) for e in v) for v in lists) >= len(lists) / 4:
                self.used.add(column)
                return column
        return None

    def specifications(self, column: str) -> tuple[str, str, Counter] | None:
        """``(path, key field, keys)`` when ``column`` holds a list of ``{"key": ..., "value": ...}`` objects (or an
        object with one such list, as Flipkart's ``{"product_specification"=>[...]}``): the path to the list, the
        field its objects name their key by, and how many records name each key; ``None`` otherwise."""
        lists, path = [], column
        for value in self.decoded(column):
            if isinstance(value, dict) and len(value) == 1 and isinstance(next(iter(value.values())), list):
                path, value = f"{column}.{next(iter(value))}", next(iter(value.values()))
            if isinstance(value, list) and value and all(isinstance(e, dict) and "value" in e for e in value):
                lists.append(value)
        field = next((k for k in SPEC_KEYS if any(k in e for v in lists for e in v)), None)
        if field is None or len(lists) < len(self.records) / 2:
            return None
        return path, field, Counter(str(e[field]) for v in lists for e in v if field in e)

    def one_key_lists(self, column: str) -> Counter | None:
        """How many records name each key, when most of ``column``'s values are lists of one-key objects (``[{"Product
        Details": "..."}, {"Brand": "Topshop"}]``, as a scrape writes a product's details); ``None`` otherwise."""
        lists = [v for v in self.decoded(column) if isinstance(v, list) and v and all(isinstance(e, dict) and len(e) == 1 for e in v)]
        if len(lists) < len(self.records) / 2:
            return None
        return Counter(k for v in lists for k in dict.fromkeys(next(iter(e)) for e in v if _filled(next(iter(e.values()))))
                       if _plain_key(k))

    def key_inside(self, names: tuple[str, ...], share: float = 0.25) -> tuple[str, str] | None:
        """``(column.key, why)`` for the first object column (``style``, ``details``) one of whose keys is named like
        a field (``{"Color:": " Black", "Size:": " M"}``) in ``share`` of its objects or more, or of a column of lists
        of one-key objects (``[{"Brand": "Topshop"}]``: ``column[*].Brand``); ``None`` if there is none. A key counts
        only where it holds a value (a Tokopedia scrape's ``labelGroups`` objects name a ``type`` that is empty in
        every record: read as the type, it had left no item)."""
        for column in self.columns:
            objects = [v for v in self.decoded(column) if isinstance(v, dict)]
            keys = Counter(k for v in objects for k in v if _plain_key(k) and _filled(v[k]))
            key = next((k for k, _ in keys.most_common() if norm(k) in names), None)
            if key is not None and keys[key] >= share * len(objects):  # Magento: a brand on product rows, not on variants
                self.used.add(column)
                return f"{column}.{key}", f"the {key!r} of the {column!r} objects"
            listed = self.one_key_lists(column)
            key = next((k for k, n in listed.most_common() if norm(k) in names and n >= len(self.records) / 3), None) if listed else None
            if key is not None:
                self.used.add(column)
                return f"{column}[*].{key}", f"the {key!r} entries of the {column!r} lists"
            lists = [v for v in self.decoded(column) if isinstance(v, list) and v and all(isinstance(e, dict) for e in v)]
            keys = Counter(k for v in lists for k in dict.fromkeys(k for e in v for k in e if _filled(e[k])) if _plain_key(k))
            key = next((k for k, n in keys.most_common() if norm(k) in names and n >= len(self.records) / 2), None) if not listed else None
            if key is not None:  # [{"sku": "...", "colour": "Black", "size": "M"}, ...]: each variant's, the first one's
                self.used.add(column)
                return f"{column}[0].{key}", f"the {key!r} of the first of the {column!r} objects"
            specs = self.specifications(column)
            key = next((k for k, n in specs[2].most_common() if norm(k) in names and n >= len(self.records) / 3), None) if specs else None
            if key is not None:
                self.used.add(column)
                return f"{specs[0]}[{specs[1]}={key}].value", f"the {key!r} entry of the {column!r} specifications"
        return None

    @staticmethod
    def _rooted_path(column: str, values: list[object]) -> tuple[str, str]:
        """For a list of category paths (``[["Sports & Outdoors", ...], ["Clothing, Shoes & Jewelry", "Women", ...]]``),
        the last entry of the path that starts with the root most records have a path under."""
        roots = Counter(root for value in values if isinstance(value, list)
                        for root in {str(path[0]) for path in value if isinstance(path, list) and path})
        root = next((r for r, _ in roots.most_common() if not re.search(r"[\[\]]", r)), None)
        if root is None:
            return f"{column}[0][-1]", "a list of category paths: the last entry of the first"
        return f"{column}[0={root}][-1]", f"a list of category paths: the last entry of the one under {root!r}"

    def reference(self, column: str, many: bool = False, last: bool = False) -> tuple[str, str]:
        """``(reference, why)``: the column itself, or a path to its text inside nested values; ``last``: of a list
        of texts (a category list such as ``["Women", "Clothing", "Tops"]``), the last."""
        values = self.decoded(column)
        first = values[0] if values else None
        if last and isinstance(first, list) and first and all(isinstance(v, str) for v in first):
            return f"{column}[-1]", "a list of categories: the last, the most specific"
        if last and isinstance(first, list) and first and all(isinstance(v, list) for v in first):
            return self._rooted_path(column, values)
        if isinstance(first, dict):
            key = next((k for k in ("value", "amount", "name", "en", "text") if k in first), None)
            return (f"{column}.{key}", f"objects: their {key!r}") if key else (column, "")
        if not isinstance(first, list) or not first or not isinstance(first[0], dict):
            return column, ""
        tagged = [{str(v.get("language_tag")) for v in value if isinstance(v, dict) and "language_tag" in v}
                  for value in values if isinstance(value, list)]
        tags = Counter(tag for record in tagged for tag in record)
        if tags:
            tag, why = _language_tag(tagged, tags)
            return f"{column}[language_tag={tag}].value", f"language-tagged values: {why}"
        key = next((k for k in ("value", "name", "text") if k in first[0]), None)
        if key is None:
            return column, ""
        if last and any(isinstance(v, list) and len(v) > 1 for v in values):  # breadcrumbs: [{"name": "Women"}, ..., {"name": "Tops"}]
            return f"{column}[-1].{key}", f"a list of category objects: the last {key!r}, the most specific"
        return (f"{column}[*].{key}", f"a list of objects: every {key!r}") if many else (f"{column}[0].{key}", f"a list of objects: the first {key!r}")


def _language_tag(tagged: list[set[str]], tags: Counter) -> tuple[str, str]:
    """The language tag to read, and why: the English one that every tagged record has (``en_US`` first), else
    ``en_*`` (the first English value, of any country) when records differ in their English tag (ABO's ``en_US``,
    ``en_GB``, ``en_IN``), else the commonest English tag, else the commonest tag."""
    english = [t for t in ["en_US", *sorted(tags)] if t.startswith("en")]
    everywhere = next((t for t in english if tags[t] == len(tagged)), None)
    if everywhere is not None:
        return everywhere, f"the {everywhere} one"
    any_english = sum(any(t.startswith("en") for t in record) for record in tagged)
    if english and any_english > max(tags[t] for t in english):
        return "en_*", f"the first English one (en_US, en_GB, ...: {percent(any_english / len(tagged))} of the records have one)"
    tag = max(english, key=lambda t: tags[t]) if english else tags.most_common(1)[0][0]
    return tag, f"the {tag} one ({percent(tags[tag] / len(tagged))} of the records have one)"
