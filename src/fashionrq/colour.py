"""Named colours and their sRGB, sRGB -> CIELAB (D65) and the CIE76 colour difference."""

from __future__ import annotations

import re

import numpy as np

from fashionrq.ieee import cbrt, power

#: ~90 named colours -> a representative sRGB triple (0-255). Covers every Myntra ``baseColour`` value
#: plus common query spellings. ``None`` marks names with no single colour (see :data:`NON_RESOLVABLE_COLOURS`).
COLOURS: dict[str, tuple[int, int, int] | None] = {
    # Myntra baseColour values (all 46 in the bundled catalog)
    "black": (0, 0, 0),
    "white": (255, 255, 255),
    "blue": (0, 87, 183),
    "brown": (121, 72, 38),
    "grey": (128, 128, 128),
    "red": (204, 0, 0),
    "green": (0, 128, 0),
    "pink": (255, 160, 190),
    "navy blue": (0, 0, 128),
    "purple": (112, 41, 150),
    "silver": (192, 192, 192),
    "yellow": (255, 221, 0),
    "beige": (225, 205, 165),
    "gold": (212, 175, 55),
    "maroon": (128, 0, 32),
    "orange": (255, 128, 0),
    "olive": (107, 112, 40),
    "multi": None,
    "cream": (255, 248, 220),
    "steel": (122, 130, 138),
    "charcoal": (54, 69, 79),
    "peach": (255, 203, 164),
    "off white": (250, 247, 238),
    "skin": (233, 196, 166),
    "lavender": (190, 170, 225),
    "grey melange": (178, 178, 178),
    "khaki": (195, 176, 145),
    "magenta": (202, 31, 123),
    "teal": (0, 128, 128),
    "tan": (210, 180, 140),
    "mustard": (225, 173, 1),
    "bronze": (205, 127, 50),
    "copper": (184, 115, 51),
    "turquoise blue": (0, 199, 210),
    "rust": (183, 65, 14),
    "burgundy": (128, 0, 48),
    "metallic": None,
    "coffee brown": (75, 54, 33),
    "mauve": (184, 134, 160),
    "rose": (227, 88, 120),
    "nude": (227, 188, 154),
    "sea green": (46, 139, 87),
    "mushroom brown": (168, 148, 128),
    "taupe": (139, 122, 108),
    "lime green": (50, 205, 50),
    "fluorescent green": (57, 255, 20),
    # Further names and spellings seen in queries
    "navy": (0, 0, 128),
    "gray": (128, 128, 128),
    "light grey": (200, 200, 200),
    "dark grey": (80, 80, 80),
    "charcoal grey": (54, 69, 79),
    "anthracite": (56, 62, 66),  # a resale store's (Vestiaire Collective's) names for a near-black and a raw white
    "ecru": (240, 234, 214),
    "light blue": (150, 200, 240),
    "sky blue": (135, 206, 235),
    "dark blue": (0, 40, 110),
    "royal blue": (65, 105, 225),
    "denim blue": (21, 96, 189),
    "indigo": (63, 0, 133),
    "turquoise": (64, 224, 208),
    "aqua": (0, 200, 200),
    "cyan": (0, 255, 255),
    "mint": (170, 240, 209),
    "mint green": (152, 230, 180),
    "olive green": (107, 112, 40),
    "dark green": (0, 90, 40),
    "bottle green": (0, 106, 78),
    "emerald": (0, 155, 119),
    "army green": (75, 83, 32),
    "light green": (144, 238, 144),
    "neon green": (57, 255, 20),
    "lime": (191, 255, 0),
    "violet": (143, 0, 255),
    "lilac": (200, 162, 200),
    "plum": (142, 69, 133),
    "wine": (114, 47, 55),
    "crimson": (220, 20, 60),
    "scarlet": (255, 36, 0),
    "coral": (255, 127, 80),
    "salmon": (250, 128, 114),
    "baby pink": (244, 194, 194),
    "hot pink": (255, 105, 180),
    "fuchsia": (255, 0, 255),
    "ivory": (255, 255, 240),
    "camel": (193, 154, 107),
    "chocolate": (90, 50, 20),
    "chocolate brown": (90, 50, 20),
    "dark brown": (92, 64, 51),
    "light brown": (181, 135, 90),
    "mustard yellow": (225, 173, 1),
    "lemon yellow": (255, 244, 79),
    "champagne": (247, 231, 206),
    "gunmetal": (83, 86, 92),
    "multicolour": None,
    "multicolor": None,
    "multicoloured": None,
    "assorted": None,
    "transparent": None,
}


def _russian(stem: str, soft: bool = False, stressed: bool = False) -> tuple[str, ...]:
    """A Russian colour adjective's four forms (masculine, feminine, neuter, plural): ``черн`` -> ``черный``, ``черная``,
    ``черное``, ``черные``; ``soft``: ``синий``, ``синяя``, ``синее``, ``синие``; ``stressed``: ``голубой``."""
    endings = ("ий", "яя", "ее", "ие") if soft else ("ой" if stressed else "ый", "ая", "ое", "ые")
    return tuple(stem + ending for ending in endings)


_RUSSIAN = {"black": ("черн", "чёрн"), "white": ("бел",), "grey": ("сер",), "red": ("красн",), "green": ("зелен", "зелён"),
            "brown": ("коричнев",), "beige": ("бежев",), "pink": ("розов",), "yellow": ("желт", "жёлт"),
            "purple": ("фиолетов",), "orange": ("оранжев",), "maroon": ("бордов",)}

def _forms(*stems: str) -> tuple[str, ...]:
    """A Spanish or Portuguese colour adjective's four forms: ``negr`` -> ``negro``, ``negra``, ``negros``, ``negras``."""
    return tuple(stem + ending for stem in stems for ending in ("o", "a", "os", "as"))


def _italian(*stems: str) -> tuple[str, ...]:
    """An Italian colour adjective's four forms: ``ner`` -> ``nero``, ``nera``, ``neri``, ``nere``."""
    return tuple(stem + ending for stem in stems for ending in ("o", "a", "i", "e"))


_GERMAN_BASES = {"schwarz": "black", "weiß": "white", "weiss": "white", "grau": "grey", "blau": "blue", "rot": "red",
                 "grün": "green", "gruen": "green", "braun": "brown", "gelb": "yellow", "beige": "beige"}


def _german_compounds() -> dict[str, str]:
    """German colours written as one word: ``dunkel-`` and ``hell-`` before blue, grey, green and brown (``dunkelblau``:
    dark blue), and ``-meliert`` (mottled) after any base colour (``graumeliert``: grey melange; ``blaumeliert``: blue)."""
    shaded = {base: english for base, english in _GERMAN_BASES.items() if english in ("blue", "grey", "green", "brown")}
    return {**{f"{shade}{base}": f"{english_shade} {english}" for base, english in shaded.items()
               for shade, english_shade in (("dunkel", "dark"), ("hell", "light"))},
            **{f"{base}meliert": "grey melange" if english == "grey" else english for base, english in _GERMAN_BASES.items()}}


#: Colour names of Latin-script languages other than English (Spanish, Portuguese, French, German, Italian, Dutch,
#: Polish, Turkish, with their gendered and plural forms; Indonesian and Malay) -> the English colour of
#: :data:`COLOURS`. A word that is an English colour name of its own (French ``rose``, ``violet``; ``orange``,
#: ``beige``) is not here.
_LATIN_LANGUAGE_COLOURS: dict[str, str] = {
    **dict.fromkeys(("negro", "negra", "negros", "negras", "preto", "preta", "pretos", "pretas", "noir", "noire", "noirs",
                     "schwarz", "nero", "nera", "neri", "nere", "zwart", "czarny", "czarna", "czarne", "siyah"), "black"),
    **dict.fromkeys((*_forms("blanc", "branc"), *_italian("bianc"), "blanc", "blanche", "blancs", "weiß", "weiss", "wit", "biały",
                     "biała", "białe", "beyaz"), "white"),
    **dict.fromkeys(("gris", "cinza", "cinzento", "cinzenta", "grau", "grigio", "grigia", "grigi", "grigie", "grijs", "szary",
                     "szara", "szare", "gri"), "grey"),
    **dict.fromkeys(("azul marino", "azul marinho", "marino", "marinho", "bleu marine", "marineblau", "blu navy", "blu scuro",
                     "granatowy", "granatowa", "granatowe", "donkerblauw", "lacivert"), "navy"),
    **dict.fromkeys(("azul", "azules", "bleu", "bleue", "bleus", "blau", "blu", "blauw", "niebieski", "niebieska",
                     "niebieskie", "mavi"), "blue"),
    **dict.fromkeys(("azul claro", "azul celeste", "celeste", "bleu clair", "azzurro", "azzurra", "lichtblauw",
                     "açık mavi"), "light blue"),
    **dict.fromkeys((*_forms("roj", "vermelh"), *_italian("ross"), "rouge", "rouges", "rot", "rood", "czerwony", "czerwona",
                     "czerwone", "kırmızı"), "red"),
    **dict.fromkeys(("verde", "verdes", "vert", "verte", "verts", "grün", "gruen", "verdi", "groen", "zielony", "zielona",
                     "zielone", "yeşil"), "green"),
    **dict.fromkeys(("verde oliva", "oliva", "oliv"), "olive"),
    **dict.fromkeys(("marrón", "marron", "marrom", "marrones", "braun", "marrone", "bruin", "brązowy", "brązowa", "brązowe",
                     "kahverengi", "castanho", "castanha"), "brown"),
    **dict.fromkeys(("bege", "bej"), "beige"),
    **dict.fromkeys(("rosa", "rosas", "rosado", "rosada", "rosé", "różowy", "różowa", "różowe", "roze", "pembe"), "pink"),
    **dict.fromkeys((*_forms("amarill", "amarel"), *_italian("giall"), "jaune", "jaunes", "gelb", "geel", "żółty", "żółta", "żółte",
                     "sarı"), "yellow"),
    **dict.fromkeys(("morado", "morada", "roxo", "roxa", "lila", "viola", "paars", "fioletowy", "fioletowa", "fioletowe",
                     "mor"), "purple"),
    **dict.fromkeys(("naranja", "laranja", "arancione", "oranje", "pomarańczowy", "pomarańczowa", "turuncu"), "orange"),
    **dict.fromkeys(("caqui", "cáqui", "kaki", "haki"), "khaki"),
    **dict.fromkeys(("marfil", "marfim", "ivoire", "avorio", "elfenbein"), "ivory"),
    **dict.fromkeys(("crema", "creme", "crème", "krem"), "cream"),
    **dict.fromkeys(("crudo", "cruda", "crudos", "crudas"), "ecru"),  # an El Corte Inglés scrape's "Jersey de hombre crudo"
    **dict.fromkeys(("mostaza", "mostarda", "moutarde", "senf", "senape"), "mustard"),
    **dict.fromkeys((*_forms("dorad", "dourad"), "doré", "dorée", "oro", "dorato", "dorata", "złoty", "złota",
                     "altın"), "gold"),
    **dict.fromkeys((*_forms("platead", "pratead"), *_italian("argentat"), "silber", "argenté", "argentée", "argento", "zilver",
                     "srebrny", "srebrna", "gümüş"), "silver"),
    **dict.fromkeys(("bordô", "burdeos", "bordeaux", "bordo", "vinho", "vino", "granate"), "burgundy"),
    **dict.fromkeys(("turquesa", "türkis", "turchese", "turkuaz"), "turquoise"),
    **dict.fromkeys(("multicolore", "mehrfarbig", "bunt", "mischfarben", "colorido", "colorida", "multicolorido", "wielokolorowy",
                     "çok renkli"), "multi"),
    # Indonesian and Malay (a Tokopedia scrape's names say "hitam" more than twice as often as "black")
    "hitam": "black", "putih": "white", **dict.fromkeys(("abu-abu", "abu", "kelabu"), "grey"), "merah": "red",
    "biru": "blue", **dict.fromkeys(("biru dongker", "dongker", "biru navy"), "navy"), "hijau": "green", "kuning": "yellow",
    **dict.fromkeys(("coklat", "cokelat"), "brown"), "ungu": "purple", **dict.fromkeys(("oranye", "jingga", "oren"), "orange"),
    **dict.fromkeys(("merah muda", "merah jambu"), "pink"), "emas": "gold", "perak": "silver", "krem": "cream",
    # Vietnamese (a Shopee scrape's "Áo thun ... 2 màu Trắng Đen"; xanh alone is blue or green, so only with its kind)
    "đen": "black", "trắng": "white", "đỏ": "red", **dict.fromkeys(("xanh dương", "xanh da trời", "xanh biển"), "blue"),
    **dict.fromkeys(("xanh lá", "xanh lá cây", "xanh rêu"), "green"), "xanh navy": "navy", "vàng": "yellow", "hồng": "pink",
    "tím": "purple", "nâu": "brown", "xám": "grey", "màu cam": "orange", "kem": "cream", "bạc": "silver",
    # German shades a shop names on their own (an About You scrape's)
    **dict.fromkeys(("anthrazit", "graphit"), "charcoal"), **dict.fromkeys(("marine", "nachtblau"), "navy"),
    "dunkelrot": "maroon", "weinrot": "wine", "burgunder": "burgundy", "petrol": "teal", "rostrot": "rust",
    **dict.fromkeys(("naturweiß", "naturweiss", "wollweiß", "wollweiss"), "off white"), "champagner": "champagne",
    "flieder": "lilac", "senf": "mustard", "koralle": "coral", "grasgrün": "green", "tannengrün": "dark green",
    "tanne": "dark green", "enzian": "royal blue", **dict.fromkeys(("schlamm", "schlammfarben"), "taupe"),
    **_german_compounds(),
}
#: Colour names a catalog writes in a script other than Latin (Korean loanwords and native words, Japanese katakana
#: and kanji, Chinese, Russian adjectives in their four forms) -> the English colour of :data:`COLOURS`: queries are
#: English, and a store that lists ``블랙 | black`` names one colour.
_OTHER_SCRIPT_COLOURS: dict[str, str] = {
    **dict.fromkeys(("블랙", "검정", "검정색", "검은색", "ブラック", "黒", "黑色", "黑"), "black"),
    **dict.fromkeys(("화이트", "흰색", "하얀색", "ホワイト", "白", "白色"), "white"),
    **dict.fromkeys(("그레이", "회색", "グレー", "灰色"), "grey"),
    **dict.fromkeys(("네이비", "ネイビー", "紺", "藏青色", "藏青", "темно-синий", "тёмно-синий"), "navy"),
    **dict.fromkeys(("블루", "파랑", "파란색", "ブルー", "青", "蓝色", "藍色", *_russian("син", soft=True)), "blue"),
    **dict.fromkeys(("스카이블루", "소라", "サックス", "天蓝色", *_russian("голуб", stressed=True)), "light blue"),
    **dict.fromkeys(("레드", "빨강", "빨간색", "レッド", "赤", "红色", "紅色"), "red"),
    **dict.fromkeys(("그린", "초록", "초록색", "グリーン", "緑", "绿色", "綠色"), "green"),
    **dict.fromkeys(("브라운", "갈색", "ブラウン", "茶色", "棕色", "咖啡色"), "brown"),
    **dict.fromkeys(("베이지", "ベージュ", "米色"), "beige"),
    **dict.fromkeys(("핑크", "분홍", "분홍색", "ピンク", "粉色", "粉红色", "粉紅色"), "pink"),
    **dict.fromkeys(("옐로우", "옐로", "노랑", "노란색", "イエロー", "黄色"), "yellow"),
    **dict.fromkeys(("퍼플", "보라", "보라색", "パープル", "紫", "紫色"), "purple"),
    **dict.fromkeys(("오렌지", "주황", "주황색", "オレンジ", "橙色"), "orange"),
    **dict.fromkeys(("카키", "カーキ", "卡其色", "хаки"), "khaki"),
    **dict.fromkeys(("아이보리", "アイボリー"), "ivory"),
    **dict.fromkeys(("크림", "クリーム"), "cream"),
    **dict.fromkeys(("차콜", "チャコール"), "charcoal"),
    **dict.fromkeys(("실버", "シルバー", "银色", "銀色"), "silver"),
    **dict.fromkeys(("골드", "ゴールド", "金色"), "gold"),
    **dict.fromkeys(("올리브", "オリーブ"), "olive"),
    **dict.fromkeys(("민트", "ミント"), "mint"),
    **dict.fromkeys(("와인", "ワイン"), "wine"),
    **dict.fromkeys(("버건디", "バーガンディ"), "burgundy"),
    **dict.fromkeys(("라벤더", "ラベンダー"), "lavender"),
    **dict.fromkeys(("멀티", "マルチ"), "multi"),
    **{form: colour for colour, stems in _RUSSIAN.items() for stem in stems for form in _russian(stem)},
}
#: Colour names of other languages, in any script, -> the English colour of :data:`COLOURS` (ingest reads them so,
#: counted under ``repaired.colour_in_english``).
OTHER_LANGUAGE_COLOURS: dict[str, str] = {**_LATIN_LANGUAGE_COLOURS, **_OTHER_SCRIPT_COLOURS}
#: A German colour written as one word whose last part is a base colour (``rauchgrau``, ``basaltgrau``: grey;
#: ``taubenblau``, ``enzianblau``: blue; ``pastellgrün``: green); ``rot`` only after a word of its own (``orangerot``,
#: ``kirschrot``), as English words end in it too (``carrot``, ``parrot``).
_GERMAN_COMPOUND = re.compile(r"[a-zäöüß]{3,}(schwarz|weiß|weiss|grau|blau|grün|gruen|braun|gelb|beige)"
                              r"|(orange|kirsch|feuer|signal|tomaten|blut|purpur|himbeer|erdbeer)(rot)")


def english_colour(text: str) -> str | None:
    """The English colour of :data:`COLOURS` that a colour name of another language says (``Черная``, ``Preta``,
    ``dunkelblau``), or of a German compound's last part (``rauchgrau``: grey); ``None`` for any other text."""
    key = text.strip().casefold()
    if (english := OTHER_LANGUAGE_COLOURS.get(key)) is not None:
        return english
    compound = _GERMAN_COMPOUND.fullmatch(key)
    return None if compound is None else _GERMAN_BASES[compound.group(1) or compound.group(3)]

#: sRGB (linear) -> CIE XYZ, D65 white point (IEC 61966-2-1).
_RGB_TO_XYZ = np.array(
    [
        [0.4124564, 0.3575761, 0.1804375],
        [0.2126729, 0.7151522, 0.0721750],
        [0.0193339, 0.1191920, 0.9503041],
    ]
)
#: D65 reference white (Y = 1).
_WHITE_D65 = np.array([0.95047, 1.0, 1.08883])


def _linearise(c: np.ndarray) -> np.ndarray:
    """sRGB companding undone: channel values in [0, 1] to linear light."""
    return np.where(c <= 0.04045, c / 12.92, power((c + 0.055) / 1.055, 2.4))


_LINEAR = _linearise(np.arange(256, dtype=np.float64) / 255.0)


def srgb_to_lab(rgb) -> np.ndarray:
    """CIELAB (L*, a*, b*) of sRGB colours given as 0-255 triples; accepts shape (3,) or (n, 3)."""
    rgb = np.asarray(rgb)
    if rgb.dtype == np.uint8:  # images: one table look-up per pixel instead of a power per channel
        linear = _LINEAR[rgb]
    else:
        linear = _linearise(rgb.astype(np.float64) / 255.0)
    r, g, b = linear[..., 0], linear[..., 1], linear[..., 2]
    # each product and sum written out, in this order: a matrix product's order (and fused multiply-adds) is the
    # BLAS kernel's, which differs between CPUs
    xyz = np.stack([(m[0] * r + m[1] * g + m[2] * b) / white for m, white in zip(_RGB_TO_XYZ, _WHITE_D65, strict=True)], axis=-1)
    eps, kappa = 216 / 24389, 24389 / 27
    f = np.where(xyz > eps, cbrt(xyz), (kappa * xyz + 16) / 116)
    fx, fy, fz = f[..., 0], f[..., 1], f[..., 2]
    return np.stack([116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)], axis=-1)


def lab_distance(a, b) -> np.ndarray:
    """CIE76 ΔE between CIELAB colours (over the last axis), its three squares summed in order: the same bits on
    every CPU (``np.linalg.norm``'s reduction order is its kernel's)."""
    d = np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)
    return np.sqrt(d[..., 0] * d[..., 0] + d[..., 1] * d[..., 1] + d[..., 2] * d[..., 2])


def delta_e76(rgb_a, rgb_b) -> float:
    """CIE76 ΔE: Euclidean distance between two sRGB colours in CIELAB."""
    return float(lab_distance(srgb_to_lab(rgb_a), srgb_to_lab(rgb_b)))
