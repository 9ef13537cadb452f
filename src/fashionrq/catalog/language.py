"""Whether a catalog's names are written in a language other than English, as ingest finds them (docs/catalog.md,
"The ingest report": the cross-lingual notes), recorded on its items table like its price tiers (schema metadata,
and a frame's ``attrs``), so that a release's queries, and the parser that reads them back, say its own product
types as written: an English ending fits an English product noun (``T-Shirt``: "t-shirts"), never ``Hemd`` or
``Kalung`` ("hemds", "kalungs"). A table without the record (every English catalog) has English names."""

from __future__ import annotations

import re
from collections import Counter
from typing import TYPE_CHECKING

import pyarrow as pa

from fashionrq.catalog.schema import OTHER_LANGUAGE_GENDERS, texts_script
from fashionrq.colour import OTHER_LANGUAGE_COLOURS

if TYPE_CHECKING:  # a frame is only ever handed in
    import pandas as pd

#: The words that open a detail, colour or store phrase after a product's type in the Latin-script languages other
#: than English (German ``Shirt mit V-Neck``, Spanish ``Vestido de fiesta``, French ``Chaussures en cuir``, Italian,
#: Portuguese, Dutch, Polish ``Buty dla dzieci``, Indonesian ``Tas untuk kerja``).
OTHER_LANGUAGE_PREPOSITIONS = frozenset({"mit", "ohne", "für", "im", "aus", "con", "sin", "para", "com", "sem", "avec",
                                         "sans", "pour", "en", "de", "senza", "per", "met", "zonder", "voor", "dla",
                                         "untuk", "dengan"})
#: Their other small words, which join words rather than open a phrase: ``und``, ``et``, ``dan``, and Turkish's
#: ``ve``, ``ile``, ``için`` (``için`` follows its noun: ``Kadın için``).
OTHER_LANGUAGE_JOINERS = frozenset({"und", "et", "ve", "ile", "için", "dan"})
#: Of the prepositions, those English names say too (a brand's ``De Moza``, a size's ``AUS 10``): no sign of a language.
_SAID_IN_ENGLISH_NAMES = frozenset({"en", "de", "im", "aus"})
#: Words that mark a name as written in a Latin-script language other than English: its gender and colour words
#: (``Masculino``, ``Preta``, ``Damen``, ``Schwarz``) and the small words names use (``para``, ``com``, ``für``, ``mit``).
OTHER_LANGUAGE_WORDS = (frozenset(OTHER_LANGUAGE_GENDERS)
                        | frozenset(w for w in OTHER_LANGUAGE_COLOURS if texts_script([w])[0] == "LATIN")
                        | (OTHER_LANGUAGE_PREPOSITIONS - _SAID_IN_ENGLISH_NAMES) | OTHER_LANGUAGE_JOINERS)
#: Schema-metadata key of an items table whose names are in another language, and its value.
LANGUAGE_KEY, OTHER_LANGUAGE = b"fashionrq.names_language", b"other"
#: The same record in a pandas frame's ``attrs`` (set by :func:`fashionrq.hierarchy.attributes.items_frame`).
FRAME_KEY = LANGUAGE_KEY.decode()


def with_other_language_names(table: pa.Table) -> pa.Table:
    """``table`` recorded as a catalog whose names are in a language other than English."""
    return table.replace_schema_metadata({**(table.schema.metadata or {}), LANGUAGE_KEY: OTHER_LANGUAGE})


def names_in_english(items: pa.Table | pd.DataFrame) -> bool:
    """Whether the names of ``items`` (a table, or a frame from :func:`~fashionrq.hierarchy.attributes.items_frame`)
    are English: no record says otherwise."""
    if isinstance(items, pa.Table):
        return (items.schema.metadata or {}).get(LANGUAGE_KEY) != OTHER_LANGUAGE
    return items.attrs.get(FRAME_KEY) != OTHER_LANGUAGE.decode()


def language_attrs(items: pa.Table | pd.DataFrame) -> dict[str, str]:
    """The record a frame of ``items`` carries in its ``attrs``: none for English names."""
    return {} if names_in_english(items) else {FRAME_KEY: OTHER_LANGUAGE.decode()}


#: A word: letters between neither letters nor the dot of a host name or a file's extension (``vestiairecollective.com``
#: says no Portuguese ``com``).
_WORD = re.compile(r"(?<![^\W\d_])(?<![^\W\d_]\.)[^\W\d_]+(?![^\W\d_])(?!\.[^\W\d_])")
#: Letters only Vietnamese writes (``thời``, ``trắng``): a word with one is a word of another language.
_VIETNAMESE = re.compile("[ăắằẳẵặấầẩẫậđếềểễệốồổỗộơớờởỡợưứừửữựạảẹẻẽịỉọỏụủỳỵỷỹ]")


def other_language_names(names: list[str | None]) -> tuple[float, list[str]]:
    """The share of ``names`` that say a word of :data:`OTHER_LANGUAGE_WORDS` or a Vietnamese word, and the three
    such words said most."""
    said = [[w for w in _WORD.findall(name.lower()) if w in OTHER_LANGUAGE_WORDS or _VIETNAMESE.search(w)]
            for name in names if name]
    words = Counter(w for ws in said for w in ws)
    return (sum(bool(ws) for ws in said) / len(said) if said else 0.0), [w for w, _ in words.most_common(3)]
