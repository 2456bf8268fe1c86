"""Code-switched critiques: English feedback whose numbers and math words are in another language.

Method. Multilingual feedback models and bilingual tutors write mostly in English but switch into another language
for the values and the mathematical words around them ("you wrote trois quarts, but it should be deux tiers").
For every MATH-500 row this module parses the reference answer (LaTeX) into a small tree (integers, decimals,
fractions, roots, pi, variables, sums, products, powers, signs, plus-or-minus), or into a structure built of such
trees (equation, tuple, vector, matrix, set, interval, units and money, base-n numeral, lettered choice, text
answer), and renders it in one of eleven languages chosen per critique and used consistently within it: Spanish,
French, German, Portuguese, Italian, Russian (Cyrillic), Chinese, Japanese, Hinglish (Hindi in Latin script),
Turkish and Korean. Every value is computed from the parsed answer by number-word tables and grammar rules of
that language (cardinals, fractions such as "dos tercios", "drei Viertel", "三分之二", "dörtte üç", decimals with
the language's decimal comma or word, signs, roots, pi, conjunctions, infinity, union, units, money, choice
phrases, translated text answers); nothing is typed by hand. Styles: "<lang>-words" (every number in words),
"<lang>-digits" (numbers in digits, signs, operations and units in the language: "14 sobre 3", "3 Wurzel aus 13",
"menos 5"; kept only where it differs from plain English notation), "ko-native" (native Korean numerals 1-99), and
for the approximation family "<lang>-approx-digits", "<lang>-approx-words", "<lang>-approx-percent".
The critique frames are English with phrases of the same language ("la respuesta es", "die Antwort ist",
"答案是：", "sahi jawab hai:"); every critique quotes the attempt's wrong value (a mutation of the answer of the
same shape, in the same language and style) and, where the frame has room, numbers of the problem or
intermediate quantities of the reference solution (all differing in value from the answer).

Families. "rendering": the reference answer is written out in the language (part: the exact rendering, e.g.
"cuarenta y dos", "trois quarts", "十四分之三", "(quince, menos veintinueve)", "noventa grados"). "approximation":
for answers whose value is irrational or a non-terminating decimal, a rounded decimal (3 or more significant digits,
with the language's separator, in digits or words; a decimal comma never has exactly three decimals) or a rounded
percentage (part: e.g. "4,47", "quatro vírgula quatro sete", "16,7 por ciento"). "clean": the same frames and
languages without the answer: the wrong value, problem numbers and intermediate values only. There is no
"arithmetic" family. Forms that would be ambiguous in an English sentence (a value rendered as an English word such
as Turkish "on", Hinglish "do", Spanish "once", or a one-syllable Sino-Korean numeral) are produced neither as
leaks nor as clean texts.

Checker. `holds_answer(text, answer)` finds the answer in a text: every rendering of the answer in every language
and style above (and the bare number of a unit answer), every rounded decimal and percentage of it that this
module renders, and, by value (fractions and sympy), any number written in digits (decimal point or comma,
"a/b", percentages) that equals the answer or rounds it. Each leak's text holds the answer and its context does
not; each clean text does not; a draw that fails is redrawn.

Independence. Written without knowledge of the guard. From the project I read only `tests/conftest.py` (for the
`shared_data` fixture) and, in `benchmarks/leak_corpus.py`, the source of `load_problems`, `ANSWER_TYPES`,
`answer_type`, `occurrences`, `stated` and their helpers `_strip` and `_top_level_split`; this module imports
only `answer_type` and `occurrences`, its tests also `load_problems`, `ANSWER_TYPES` and `stated`. I did not open
`trl_mulferl/`, `tests/feedback/`, the guard's benchmark and tests, `docs/`, the READMEs, the changelog, or any
other leak corpus module or its tests. Data: MATH-500's 500 rows.
"""

import random
import re
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from functools import lru_cache

import sympy
from leak_corpus import answer_type, occurrences


SEED = 0

LANGUAGES = ("es", "fr", "de", "pt", "it", "ru", "zh", "ja", "hi", "tr", "ko")
COMMA_DECIMAL = {"es", "fr", "de", "pt", "it", "ru", "tr"}
FUSED = {"zh", "ja"}
RENDERING_LEAKS_PER_ROW = 6
APPROXIMATION_LEAKS_PER_ROW = 3
CLEAN_PER_ROW = 7
DRAWS_PER_CASE = 30

# ---------------------------------------------------------------------------------------------------------------
# Cardinal numbers.

ES_SMALL = (
    "cero uno dos tres cuatro cinco seis siete ocho nueve diez once doce trece catorce quince dieciséis diecisiete"
    " dieciocho diecinueve veinte veintiuno veintidós veintitrés veinticuatro veinticinco veintiséis veintisiete"
    " veintiocho veintinueve"
).split()
ES_TENS = ["", "", "", "treinta", "cuarenta", "cincuenta", "sesenta", "setenta", "ochenta", "noventa"]
ES_HUNDREDS = [
    "",
    "ciento",
    "doscientos",
    "trescientos",
    "cuatrocientos",
    "quinientos",
    "seiscientos",
    "setecientos",
    "ochocientos",
    "novecientos",
]


def _es_below_1000(n: int) -> str:
    if n < 30:
        return ES_SMALL[n]
    if n < 100:
        return ES_TENS[n // 10] + (f" y {ES_SMALL[n % 10]}" if n % 10 else "")
    if n == 100:
        return "cien"
    return ES_HUNDREDS[n // 100] + (f" {_es_below_1000(n % 100)}" if n % 100 else "")


def _es_apocope(words: str) -> str:
    """Spanish drops the "o" of "uno" before a noun ("mil", "millones"): "veintiún mil"."""
    if words.endswith("veintiuno"):
        return words[: -len("veintiuno")] + "veintiún"
    return words[:-3] + "un" if words.endswith("uno") else words


def es_cardinal(n: int) -> str:
    if n < 1000:
        return _es_below_1000(n)
    if n < 10**6:
        thousands, rest = divmod(n, 1000)
        head = "mil" if thousands == 1 else _es_apocope(_es_below_1000(thousands)) + " mil"
        return head + (f" {_es_below_1000(rest)}" if rest else "")
    millions, rest = divmod(n, 10**6)
    head = "un millón" if millions == 1 else _es_apocope(es_cardinal(millions)) + " millones"
    return head + (f" {es_cardinal(rest)}" if rest else "")


FR_SMALL = (
    "zéro un deux trois quatre cinq six sept huit neuf dix onze douze treize quatorze quinze seize dix-sept"
    " dix-huit dix-neuf"
).split()
FR_TENS = ["", "", "vingt", "trente", "quarante", "cinquante", "soixante", "soixante", "quatre-vingt", "quatre-vingt"]


def _fr_below_100(n: int, final: bool) -> str:
    if n < 20:
        return FR_SMALL[n]
    tens, unit = divmod(n, 10)
    if tens in (7, 9):
        return FR_TENS[tens] + (" et " if n == 71 else "-") + FR_SMALL[10 + unit]
    if tens == 8:
        return "quatre-vingt" + ("s" if final else "") if unit == 0 else f"quatre-vingt-{FR_SMALL[unit]}"
    return FR_TENS[tens] + ("" if unit == 0 else " et un" if unit == 1 else f"-{FR_SMALL[unit]}")


def _fr_below_1000(n: int, final: bool = True) -> str:
    hundreds, rest = divmod(n, 100)
    if not hundreds:
        return _fr_below_100(rest, final)
    head = "cent" if hundreds == 1 else FR_SMALL[hundreds] + " cent" + ("s" if not rest and final else "")
    return head + (f" {_fr_below_100(rest, final)}" if rest else "")


def fr_cardinal(n: int) -> str:
    if n < 1000:
        return _fr_below_1000(n)
    for scale, name in ((10**9, "milliard"), (10**6, "million")):
        if n >= scale:
            count, rest = divmod(n, scale)
            head = f"{fr_cardinal(count)} {name}" + ("s" if count > 1 else "")
            return head + (f" {fr_cardinal(rest)}" if rest else "")
    thousands, rest = divmod(n, 1000)
    head = "mille" if thousands == 1 else _fr_below_1000(thousands, final=False) + " mille"
    return head + (f" {_fr_below_1000(rest)}" if rest else "")


DE_SMALL = (
    "null eins zwei drei vier fünf sechs sieben acht neun zehn elf zwölf dreizehn vierzehn fünfzehn sechzehn"
    " siebzehn achtzehn neunzehn"
).split()
DE_TENS = ["", "", "zwanzig", "dreißig", "vierzig", "fünfzig", "sechzig", "siebzig", "achtzig", "neunzig"]


def _de_below_1000(n: int) -> str:
    hundreds, rest = divmod(n, 100)
    head = "" if not hundreds else ("" if hundreds == 1 else DE_SMALL[hundreds]) + "hundert"
    if rest == 0:
        return head
    if rest < 20:
        return head + DE_SMALL[rest]
    tens, unit = divmod(rest, 10)
    return head + ("" if not unit else ("ein" if unit == 1 else DE_SMALL[unit]) + "und") + DE_TENS[tens]


def de_cardinal(n: int) -> str:
    if n == 0:
        return "null"
    for scale, singular, plural in ((10**9, "Milliarde", "Milliarden"), (10**6, "Million", "Millionen")):
        if n >= scale:
            count, rest = divmod(n, scale)
            head = f"eine {singular}" if count == 1 else f"{de_cardinal(count)} {plural}"
            return head + (f" {de_cardinal(rest)}" if rest else "")
    thousands, rest = divmod(n, 1000)
    head = ""
    if thousands:
        count = _de_below_1000(thousands)
        head = ("" if thousands == 1 else count[:-1] if count.endswith("eins") else count) + "tausend"
    return head + (_de_below_1000(rest) if rest else "")


PT_SMALL = (
    "zero um dois três quatro cinco seis sete oito nove dez onze doze treze catorze quinze dezesseis dezessete"
    " dezoito dezenove"
).split()
PT_TENS = ["", "", "vinte", "trinta", "quarenta", "cinquenta", "sessenta", "setenta", "oitenta", "noventa"]
PT_HUNDREDS = [
    "",
    "cento",
    "duzentos",
    "trezentos",
    "quatrocentos",
    "quinhentos",
    "seiscentos",
    "setecentos",
    "oitocentos",
    "novecentos",
]


def _pt_below_1000(n: int) -> str:
    if n < 20:
        return PT_SMALL[n]
    if n < 100:
        return PT_TENS[n // 10] + (f" e {PT_SMALL[n % 10]}" if n % 10 else "")
    if n == 100:
        return "cem"
    return PT_HUNDREDS[n // 100] + (f" e {_pt_below_1000(n % 100)}" if n % 100 else "")


def pt_cardinal(n: int) -> str:
    if n < 1000:
        return _pt_below_1000(n)
    for scale, singular, plural in ((10**9, "bilhão", "bilhões"), (10**6, "milhão", "milhões")):
        if n >= scale:
            count, rest = divmod(n, scale)
            head = f"um {singular}" if count == 1 else f"{pt_cardinal(count)} {plural}"
            return head + (f" {pt_cardinal(rest)}" if rest else "")
    thousands, rest = divmod(n, 1000)
    head = "mil" if thousands == 1 else _pt_below_1000(thousands) + " mil"
    if not rest:
        return head
    return head + (" e " if rest < 100 or rest % 100 == 0 else " ") + _pt_below_1000(rest)


IT_SMALL = (
    "zero uno due tre quattro cinque sei sette otto nove dieci undici dodici tredici quattordici quindici sedici"
    " diciassette diciotto diciannove"
).split()
IT_TENS = ["", "", "venti", "trenta", "quaranta", "cinquanta", "sessanta", "settanta", "ottanta", "novanta"]


def _it_below_1000(n: int) -> str:
    hundreds, rest = divmod(n, 100)
    head = "" if not hundreds else ("" if hundreds == 1 else IT_SMALL[hundreds]) + "cento"
    if head and (rest == 8 or rest // 10 == 8):
        head = head[:-1]
    if rest < 20:
        return head + (IT_SMALL[rest] if rest or not head else "")
    tens, unit = divmod(rest, 10)
    word = IT_TENS[tens]
    if unit in (1, 8):
        word = word[:-1]
    return head + word + (IT_SMALL[unit] if unit else "")


def it_cardinal(n: int) -> str:
    for scale, singular, plural in ((10**9, "miliardo", "miliardi"), (10**6, "milione", "milioni")):
        if n >= scale:
            count, rest = divmod(n, scale)
            head = f"un {singular}" if count == 1 else f"{it_cardinal(count)} {plural}"
            return head + (f" {it_cardinal(rest)}" if rest else "")
    thousands, rest = divmod(n, 1000)
    if thousands:
        words = ("mille" if thousands == 1 else _it_below_1000(thousands) + "mila") + (
            _it_below_1000(rest) if rest else ""
        )
    else:
        words = _it_below_1000(rest)
    return words[:-3] + "tré" if n > 10 and words.endswith("tre") else words


RU_ONES = ["", "один", "два", "три", "четыре", "пять", "шесть", "семь", "восемь", "девять"]
RU_TEENS = [
    "десять",
    "одиннадцать",
    "двенадцать",
    "тринадцать",
    "четырнадцать",
    "пятнадцать",
    "шестнадцать",
    "семнадцать",
    "восемнадцать",
    "девятнадцать",
]
RU_TENS = ["", "", "двадцать", "тридцать", "сорок", "пятьдесят", "шестьдесят", "семьдесят", "восемьдесят", "девяносто"]
RU_HUNDREDS = ["", "сто", "двести", "триста", "четыреста", "пятьсот", "шестьсот", "семьсот", "восемьсот", "девятьсот"]
RU_GENITIVE_ONES = ["", "одного", "двух", "трёх", "четырёх", "пяти", "шести", "семи", "восьми", "девяти"]
RU_GENITIVE_TEENS = [
    "десяти",
    "одиннадцати",
    "двенадцати",
    "тринадцати",
    "четырнадцати",
    "пятнадцати",
    "шестнадцати",
    "семнадцати",
    "восемнадцати",
    "девятнадцати",
]
RU_GENITIVE_TENS = [
    "",
    "",
    "двадцати",
    "тридцати",
    "сорока",
    "пятидесяти",
    "шестидесяти",
    "семидесяти",
    "восьмидесяти",
    "девяноста",
]
RU_GENITIVE_HUNDREDS = [
    "",
    "ста",
    "двухсот",
    "трёхсот",
    "четырёхсот",
    "пятисот",
    "шестисот",
    "семисот",
    "восьмисот",
    "девятисот",
]


def ru_plural(n: int, forms: tuple[str, str, str]) -> str:
    """The noun form after the number n: 1 (21, 31 ...), 2-4 (22-24 ...), or 5+ (and 11-14)."""
    if 11 <= n % 100 <= 14:
        return forms[2]
    return forms[0] if n % 10 == 1 else forms[1] if 2 <= n % 10 <= 4 else forms[2]


def _ru_below_1000(n: int, feminine: bool, tables: tuple[list, list, list, list]) -> list[str]:
    ones, teens, tens, hundreds = tables
    words = [hundreds[n // 100]] if n >= 100 else []
    rest = n % 100
    if 10 <= rest < 20:
        return [*words, teens[rest - 10]]
    if rest >= 20:
        words.append(tens[rest // 10])
    unit = rest % 10
    if unit:
        words.append({1: "одна", 2: "две"}.get(unit, ones[unit]) if feminine and ones is RU_ONES else ones[unit])
    return words


def ru_cardinal(n: int, feminine: bool = False) -> str:
    if n == 0:
        return "ноль"
    tables = (RU_ONES, RU_TEENS, RU_TENS, RU_HUNDREDS)
    words = []
    for scale, forms, scale_feminine in (
        (10**9, ("миллиард", "миллиарда", "миллиардов"), False),
        (10**6, ("миллион", "миллиона", "миллионов"), False),
        (1000, ("тысяча", "тысячи", "тысяч"), True),
    ):
        count, n = divmod(n, scale)
        if count:
            words += _ru_below_1000(count, scale_feminine, tables) + [ru_plural(count, forms)]
    return " ".join(words + _ru_below_1000(n, feminine, tables))


def ru_genitive(n: int) -> str | None:
    """The genitive case ("корень из пяти"), for 1 to 999."""
    if not 0 < n < 1000:
        return None
    tables = (RU_GENITIVE_ONES, RU_GENITIVE_TEENS, RU_GENITIVE_TENS, RU_GENITIVE_HUNDREDS)
    return " ".join(_ru_below_1000(n, False, tables))


CJK_DIGITS = {"zh": "零一二三四五六七八九", "ja": "零一二三四五六七八九", "ko": "영일이삼사오육칠팔구"}
CJK_UNITS = {
    "zh": ("千", "百", "十", "万", "亿"),
    "ja": ("千", "百", "十", "万", "億"),
    "ko": ("천", "백", "십", "만", "억"),
}


def _cjk_below_10000(n: int, lang: str, leading: bool) -> str:
    digits, (thousand, hundred, ten, _, _) = CJK_DIGITS[lang], CJK_UNITS[lang]
    out, zero_pending = "", False
    for value, unit in ((1000, thousand), (100, hundred), (10, ten), (1, "")):
        digit = n // value % 10
        if digit:
            if zero_pending and out and lang == "zh":
                out += "零"
            omit_one = digit == 1 and unit and (lang != "zh" or unit == ten and not out and leading)
            out += ("" if omit_one else digits[digit]) + unit
            zero_pending = False
        elif out:
            zero_pending = True
    return out


def cjk_cardinal(n: int, lang: str) -> str:
    if n == 0:
        return CJK_DIGITS[lang][0]
    groups = []
    while n:
        n, group = divmod(n, 10000)
        groups.append(group)
    _, _, _, ten_thousand, hundred_million = CJK_UNITS[lang]
    scale_names = ("", ten_thousand, hundred_million)
    pieces = []
    for position in reversed(range(len(groups))):
        group = groups[position]
        if not group:
            continue
        words = _cjk_below_10000(group, lang, leading=not pieces)
        if lang == "zh" and pieces and (group < 1000 or groups[position + 1] == 0):
            words = "零" + words
        if lang == "ko" and position == 1 and group == 1:
            words = ""
        pieces.append(words + scale_names[position])
    return (" " if lang == "ko" else "").join(pieces)


KO_NATIVE_ONES = ["", "하나", "둘", "셋", "넷", "다섯", "여섯", "일곱", "여덟", "아홉"]
KO_NATIVE_TENS = ["", "열", "스물", "서른", "마흔", "쉰", "예순", "일흔", "여든", "아흔"]

HI_SMALL = (
    "shunya ek do teen chaar paanch chhah saat aath nau das gyaarah baarah terah chaudah pandrah solah satrah"
    " athaarah unnees bees ikkees baaees teis chaubees pachchees chhabbees sattaaees atthaaees untees tees iktees"
    " battees taintees chauntees paintees chhattees saintees adhtees untaalees chaalees iktaalees bayaalees"
    " taintaalees chavaalees paintaalees chhiyaalees saintaalees adtaalees unchaas pachaas ikyaavan baavan tirpan"
    " chauvan pachpan chhappan sattaavan atthaavan unsath saath iksath baasath tirsath chaunsath painsath"
    " chhiyaasath sadsath adsath unhattar sattar ikhattar bahattar tihattar chauhattar pachhattar chhihattar"
    " satattar athhattar unaasi assi ikyaasi bayaasi tiraasi chauraasi pachaasi chhiyaasi sataasi athaasi"
    " navaasi nabbe ikyaanve baanve tiraanve chauraanve pachaanve chhiyaanve sattaanve atthaanve ninyaanve"
).split()


def hi_cardinal(n: int) -> str:
    """Hindi numerals in Latin script, with the Indian scales sau, hazaar, lakh, crore."""
    if n < 100:
        return HI_SMALL[n]
    words = []
    for scale, name in ((10**7, "crore"), (10**5, "lakh"), (1000, "hazaar"), (100, "sau")):
        count, n = divmod(n, scale)
        if count:
            words.append(f"{hi_cardinal(count)} {name}")
    return " ".join(words + ([HI_SMALL[n]] if n else []))


TR_ONES = ["", "bir", "iki", "üç", "dört", "beş", "altı", "yedi", "sekiz", "dokuz"]
TR_TENS = ["", "on", "yirmi", "otuz", "kırk", "elli", "altmış", "yetmiş", "seksen", "doksan"]


def _tr_below_1000(n: int) -> list[str]:
    hundreds, rest = divmod(n, 100)
    words = [] if not hundreds else ["yüz"] if hundreds == 1 else [TR_ONES[hundreds], "yüz"]
    return words + [word for word in (TR_TENS[rest // 10], TR_ONES[rest % 10]) if word]


def tr_cardinal(n: int) -> str:
    if n == 0:
        return "sıfır"
    words = []
    for scale, name in ((10**9, "milyar"), (10**6, "milyon"), (1000, "bin")):
        count, n = divmod(n, scale)
        if count:
            words += ([] if scale == 1000 and count == 1 else _tr_below_1000(count)) + [name]
    return " ".join(words + _tr_below_1000(n))


def cardinal(n: int, lang: str, feminine: bool = False) -> str:
    """The number n >= 0 in words of the language."""
    if lang == "ru":
        return ru_cardinal(n, feminine)
    if lang in CJK_DIGITS:
        return cjk_cardinal(n, lang)
    return {
        "es": es_cardinal,
        "fr": fr_cardinal,
        "de": de_cardinal,
        "pt": pt_cardinal,
        "it": it_cardinal,
        "hi": hi_cardinal,
        "tr": tr_cardinal,
    }[lang](n)


def tr_locative(word: str) -> str:
    """Turkish "-de/-da/-te/-ta" after a number ("dörtte", "üçte", "3'te"); digits take an apostrophe."""
    spoken = word
    trailing_digits = re.search(r"\d+$", word)
    if trailing_digits:
        spoken = tr_cardinal(int(trailing_digits.group()))
    vowels = [char for char in spoken.lower() if char in "aıoueiöü"]
    vowel = "a" if vowels and vowels[-1] in "aıou" else "e"
    consonant = "t" if spoken[-1] in "fstkçşhp" else "d"
    return word + ("'" if not word[-1].isalpha() or trailing_digits else "") + consonant + vowel


# ---------------------------------------------------------------------------------------------------------------
# Words around numbers, per language.

LEXICON = {
    "es": {
        "plus": "más",
        "minus": "menos",
        "neg": "menos",
        "over": "sobre",
        "root": "raíz de",
        "pi": "pi",
        "conj": "y",
        "eq": "igual a",
        "infinity": "infinito",
        "union": "unión",
        "pm": "más o menos",
        "sep": "coma",
        "about": "aproximadamente",
        "percent": "{} por ciento",
        "base": "{d} en base {b}",
        "choice": "opción {L}",
        "cot": "cotangente de",
        "tan": "tangente de",
        "mixed": "y",
    },
    "fr": {
        "plus": "plus",
        "minus": "moins",
        "neg": "moins",
        "over": "sur",
        "root": "racine de",
        "pi": "pi",
        "conj": "et",
        "eq": "égal à",
        "infinity": "infini",
        "union": "union",
        "pm": "plus ou moins",
        "sep": "virgule",
        "about": "environ",
        "percent": "{} %",
        "base": "{d} en base {b}",
        "choice": "réponse {L}",
        "cot": "cotangente de",
        "tan": "tangente de",
        "mixed": "et",
    },
    "de": {
        "plus": "plus",
        "minus": "minus",
        "neg": "minus",
        "over": "durch",
        "root": "Wurzel aus",
        "pi": "pi",
        "conj": "und",
        "eq": "gleich",
        "infinity": "unendlich",
        "union": "vereinigt mit",
        "pm": "plus minus",
        "sep": "Komma",
        "about": "ungefähr",
        "percent": "{} Prozent",
        "base": "{d} zur Basis {b}",
        "choice": "Antwort {L}",
        "cot": "Kotangens von",
        "tan": "Tangens von",
        "mixed": "und",
    },
    "pt": {
        "plus": "mais",
        "minus": "menos",
        "neg": "menos",
        "over": "sobre",
        "root": "raiz de",
        "pi": "pi",
        "conj": "e",
        "eq": "igual a",
        "infinity": "infinito",
        "union": "união",
        "pm": "mais ou menos",
        "sep": "vírgula",
        "about": "aproximadamente",
        "percent": "{} por cento",
        "base": "{d} na base {b}",
        "choice": "alternativa {L}",
        "cot": "cotangente de",
        "tan": "tangente de",
        "mixed": "e",
    },
    "it": {
        "plus": "più",
        "minus": "meno",
        "neg": "meno",
        "over": "fratto",
        "root": "radice di",
        "pi": "pi greco",
        "conj": "e",
        "eq": "uguale a",
        "infinity": "infinito",
        "union": "unione",
        "pm": "più o meno",
        "sep": "virgola",
        "about": "circa",
        "percent": "{} per cento",
        "base": "{d} in base {b}",
        "choice": "risposta {L}",
        "cot": "cotangente di",
        "tan": "tangente di",
        "mixed": "e",
    },
    "ru": {
        "plus": "плюс",
        "minus": "минус",
        "neg": "минус",
        "over": "делить на",
        "root": "корень из",
        "pi": "пи",
        "conj": "и",
        "eq": "равно",
        "infinity": "бесконечность",
        "union": "объединение",
        "pm": "плюс-минус",
        "sep": "запятая",
        "about": "примерно",
        "percent": "{} процента",
        "base": "{d} по основанию {b}",
        "choice": "вариант {L}",
        "cot": "котангенс",
        "tan": "тангенс",
        "mixed": "целая",
    },
    "zh": {
        "plus": "加",
        "minus": "减",
        "neg": "负",
        "over": "分之",
        "root": "根号",
        "pi": "π",
        "conj": "和",
        "eq": "等于",
        "infinity": "无穷",
        "union": "并",
        "pm": "正负",
        "sep": "点",
        "about": "约",
        "percent": "百分之{}",
        "base": "{b}进制的{d}",
        "choice": "选{L}",
        "cot": "余切",
        "tan": "正切",
        "mixed": "又",
    },
    "ja": {
        "plus": "プラス",
        "minus": "マイナス",
        "neg": "マイナス",
        "over": "分の",
        "root": "ルート",
        "pi": "パイ",
        "conj": "と",
        "eq": "イコール",
        "infinity": "無限大",
        "union": "和集合",
        "pm": "プラスマイナス",
        "sep": "点",
        "about": "約",
        "percent": "{}パーセント",
        "base": "{b}進法の{d}",
        "choice": "選択肢{L}",
        "cot": "コタンジェント",
        "tan": "タンジェント",
        "mixed": "と",
    },
    "hi": {
        "plus": "plus",
        "minus": "minus",
        "neg": "minus",
        "over": "bata",
        "root": "root",
        "pi": "pi",
        "conj": "aur",
        "eq": "barabar",
        "infinity": "anant",
        "union": "union",
        "pm": "plus minus",
        "sep": "point",
        "about": "lagbhag",
        "percent": "{} pratishat",
        "base": "base {b} mein {d}",
        "choice": "{L} wala option",
        "cot": "cot",
        "tan": "tan",
        "mixed": "aur",
    },
    "tr": {
        "plus": "artı",
        "minus": "eksi",
        "neg": "eksi",
        "over": "bölü",
        "root": "kök",
        "pi": "pi",
        "conj": "ve",
        "eq": "eşittir",
        "infinity": "sonsuz",
        "union": "birleşim",
        "pm": "artı eksi",
        "sep": "virgül",
        "about": "yaklaşık",
        "percent": "yüzde {}",
        "base": "{b} tabanında {d}",
        "choice": "{L} şıkkı",
        "cot": "kotanjant",
        "tan": "tanjant",
        "mixed": "tam",
    },
    "ko": {
        "plus": "더하기",
        "minus": "빼기",
        "neg": "마이너스",
        "over": "분의",
        "root": "루트",
        "pi": "파이",
        "conj": "와",
        "eq": "이퀄",
        "infinity": "무한대",
        "union": "합집합",
        "pm": "플러스마이너스",
        "sep": "점",
        "about": "약",
        "percent": "{}퍼센트",
        "base": "{b}진법 {d}",
        "choice": "{L}번",
        "cot": "코탄젠트",
        "tan": "탄젠트",
        "mixed": "과",
    },
}

# Ordinal denominators 2-10: (singular, plural); the numerator 1 takes ONE_BEFORE_NOUN.
ORDINAL_FRACTIONS = {
    "es": [
        ("medio", "medios"),
        ("tercio", "tercios"),
        ("cuarto", "cuartos"),
        ("quinto", "quintos"),
        ("sexto", "sextos"),
        ("séptimo", "séptimos"),
        ("octavo", "octavos"),
        ("noveno", "novenos"),
        ("décimo", "décimos"),
    ],
    "fr": [
        ("demi", "demis"),
        ("tiers", "tiers"),
        ("quart", "quarts"),
        ("cinquième", "cinquièmes"),
        ("sixième", "sixièmes"),
        ("septième", "septièmes"),
        ("huitième", "huitièmes"),
        ("neuvième", "neuvièmes"),
        ("dixième", "dixièmes"),
    ],
    "de": [
        ("Halb", "Halbe"),
        ("Drittel", "Drittel"),
        ("Viertel", "Viertel"),
        ("Fünftel", "Fünftel"),
        ("Sechstel", "Sechstel"),
        ("Siebtel", "Siebtel"),
        ("Achtel", "Achtel"),
        ("Neuntel", "Neuntel"),
        ("Zehntel", "Zehntel"),
    ],
    "pt": [
        ("meio", "meios"),
        ("terço", "terços"),
        ("quarto", "quartos"),
        ("quinto", "quintos"),
        ("sexto", "sextos"),
        ("sétimo", "sétimos"),
        ("oitavo", "oitavos"),
        ("nono", "nonos"),
        ("décimo", "décimos"),
    ],
    "it": [
        ("mezzo", "mezzi"),
        ("terzo", "terzi"),
        ("quarto", "quarti"),
        ("quinto", "quinti"),
        ("sesto", "sesti"),
        ("settimo", "settimi"),
        ("ottavo", "ottavi"),
        ("nono", "noni"),
        ("decimo", "decimi"),
    ],
    "ru": [
        ("вторая", "вторых"),
        ("третья", "третьих"),
        ("четвёртая", "четвёртых"),
        ("пятая", "пятых"),
        ("шестая", "шестых"),
        ("седьмая", "седьмых"),
        ("восьмая", "восьмых"),
        ("девятая", "девятых"),
        ("десятая", "десятых"),
    ],
}
ONE_BEFORE_NOUN = {"es": "un", "fr": "un", "de": "ein", "pt": "um", "it": "un", "ru": "одна"}
HI_NAMED_FRACTIONS = {
    (1, 2): "aadha",
    (1, 3): "ek tihaai",
    (2, 3): "do tihaai",
    (1, 4): "ek chauthaai",
    (3, 4): "teen chauthaai",
}
RU_DECIMAL_PLACES = {1: ("десятая", "десятых"), 2: ("сотая", "сотых"), 3: ("тысячная", "тысячных")}

# Units: (singular, plural) words after the number, or a suffix fused to it (CJK), or Russian's three forms.
UNITS = {
    "degree": {
        "es": ("grado", "grados"),
        "fr": ("degré", "degrés"),
        "de": ("Grad", "Grad"),
        "pt": ("grau", "graus"),
        "it": ("grado", "gradi"),
        "ru": ("градус", "градуса", "градусов"),
        "zh": "度",
        "ja": "度",
        "ko": "도",
        "hi": ("degree", "degree"),
        "tr": ("derece", "derece"),
    },
    "dollar": {
        "es": ("dólar", "dólares"),
        "fr": ("dollar", "dollars"),
        "de": ("Dollar", "Dollar"),
        "pt": ("dólar", "dólares"),
        "it": ("dollaro", "dollari"),
        "ru": ("доллар", "доллара", "долларов"),
        "zh": "美元",
        "ja": "ドル",
        "ko": "달러",
        "hi": ("dollar", "dollar"),
        "tr": ("dolar", "dolar"),
    },
    "cent": {
        "es": ("centavo", "centavos"),
        "fr": ("centime", "centimes"),
        "de": ("Cent", "Cent"),
        "pt": ("centavo", "centavos"),
        "it": ("centesimo", "centesimi"),
        "ru": ("цент", "цента", "центов"),
        "zh": "美分",
        "ja": "セント",
        "ko": "센트",
        "hi": ("cent", "cent"),
        "tr": ("sent", "sent"),
    },
    "square inch": {
        "es": ("pulgada cuadrada", "pulgadas cuadradas"),
        "fr": ("pouce carré", "pouces carrés"),
        "de": ("Quadratzoll", "Quadratzoll"),
        "pt": ("polegada quadrada", "polegadas quadradas"),
        "it": ("pollice quadrato", "pollici quadrati"),
        "ru": ("квадратный дюйм", "квадратных дюйма", "квадратных дюймов"),
        "zh": "平方英寸",
        "ja": "平方インチ",
        "ko": "제곱인치",
        "hi": ("square inch", "square inch"),
        "tr": ("inç kare", "inç kare"),
    },
    "square cm": {
        "es": ("centímetro cuadrado", "centímetros cuadrados"),
        "fr": ("centimètre carré", "centimètres carrés"),
        "de": ("Quadratzentimeter", "Quadratzentimeter"),
        "pt": ("centímetro quadrado", "centímetros quadrados"),
        "it": ("centimetro quadrato", "centimetri quadrati"),
        "ru": ("квадратный сантиметр", "квадратных сантиметра", "квадратных сантиметров"),
        "zh": "平方厘米",
        "ja": "平方センチ",
        "ko": "제곱센티미터",
        "hi": ("square centimetre", "square centimetre"),
        "tr": ("santimetre kare", "santimetre kare"),
    },
}
MONEY_WITH_CENTS = {"es": "{d} con {c}", "pt": "{d} e {c}", "it": "{d} e {c}", "fr": "{d} et {c}"}

TEXT_ANSWERS = {
    "even": {
        "es": "función par",
        "fr": "fonction paire",
        "de": "gerade",
        "pt": "função par",
        "it": "funzione pari",
        "ru": "чётная",
        "zh": "偶函数",
        "ja": "偶関数",
        "ko": "짝함수",
        "hi": "sam function",
        "tr": "çift fonksiyon",
    },
    "odd": {
        "es": "función impar",
        "fr": "fonction impaire",
        "de": "ungerade",
        "pt": "função ímpar",
        "it": "funzione dispari",
        "ru": "нечётная",
        "zh": "奇函数",
        "ja": "奇関数",
        "ko": "홀함수",
        "hi": "visham function",
        "tr": "tek fonksiyon",
    },
    "neither": {
        "es": "ni par ni impar",
        "fr": "ni paire ni impaire",
        "de": "weder gerade noch ungerade",
        "pt": "nem par nem ímpar",
        "it": "né pari né dispari",
        "ru": "ни чётная, ни нечётная",
        "zh": "非奇非偶",
        "ja": "奇でも偶でもない",
        "ko": "짝도 홀도 아님",
        "hi": "na sam na visham",
        "tr": "ne tek ne çift",
    },
    "east": {
        "es": "este",
        "fr": "est",
        "de": "Osten",
        "pt": "leste",
        "it": "est",
        "ru": "восток",
        "zh": "东",
        "ja": "東",
        "ko": "동쪽",
        "hi": "poorab",
        "tr": "doğu",
    },
    "west": {
        "es": "oeste",
        "fr": "ouest",
        "de": "Westen",
        "pt": "oeste",
        "it": "ovest",
        "ru": "запад",
        "zh": "西",
        "ja": "西",
        "ko": "서쪽",
        "hi": "paschim",
        "tr": "batı",
    },
    "north": {
        "es": "norte",
        "fr": "nord",
        "de": "Norden",
        "pt": "norte",
        "it": "nord",
        "ru": "север",
        "zh": "北",
        "ja": "北",
        "ko": "북쪽",
        "hi": "uttar",
        "tr": "kuzey",
    },
    "south": {
        "es": "sur",
        "fr": "sud",
        "de": "Süden",
        "pt": "sul",
        "it": "sud",
        "ru": "юг",
        "zh": "南",
        "ja": "南",
        "ko": "남쪽",
        "hi": "dakshin",
        "tr": "güney",
    },
    "ellipse": {
        "es": "elipse",
        "fr": "ellipse",
        "de": "Ellipse",
        "pt": "elipse",
        "it": "ellisse",
        "ru": "эллипс",
        "zh": "椭圆",
        "ja": "楕円",
        "ko": "타원",
        "hi": "deerghvritt",
        "tr": "elips",
    },
    "parabola": {
        "es": "parábola",
        "fr": "parabole",
        "de": "Parabel",
        "pt": "parábola",
        "it": "parabola",
        "ru": "парабола",
        "zh": "抛物线",
        "ja": "放物線",
        "ko": "포물선",
        "hi": "parvalay",
        "tr": "parabol",
    },
    "hyperbola": {
        "es": "hipérbola",
        "fr": "hyperbole",
        "de": "Hyperbel",
        "pt": "hipérbole",
        "it": "iperbole",
        "ru": "гипербола",
        "zh": "双曲线",
        "ja": "双曲線",
        "ko": "쌍곡선",
        "hi": "atiparvalay",
        "tr": "hiperbol",
    },
    "circle": {
        "es": "circunferencia",
        "fr": "cercle",
        "de": "Kreis",
        "pt": "circunferência",
        "it": "circonferenza",
        "ru": "окружность",
        "zh": "圆",
        "ja": "円",
        "ko": "원",
        "hi": "vritt",
        "tr": "çember",
    },
}
NAMES = {
    "Evelyn": {"ru": "Эвелин", "zh": "伊芙琳", "ja": "エヴリン", "ko": "에블린"},
    "Briana": {"ru": "Бриана", "zh": "布丽安娜", "ja": "ブリアナ", "ko": "브리아나"},
    "Carla": {"ru": "Карла", "zh": "卡拉", "ja": "カーラ", "ko": "칼라"},
    "Debra": {"ru": "Дебра", "zh": "黛布拉", "ja": "デブラ", "ko": "데브라"},
    "Angela": {"ru": "Анджела", "zh": "安吉拉", "ja": "アンジェラ", "ko": "안젤라"},
    "Navin": {"ru": "Навин", "zh": "纳文", "ja": "ナヴィン", "ko": "나빈"},
    "Luka": {"ru": "Лука", "zh": "卢卡", "ja": "ルカ", "ko": "루카"},
    "Ian": {"ru": "Иан", "zh": "伊恩", "ja": "イアン", "ko": "이안"},
}
TEXT_ALTERNATIVES = {
    "even": ("odd", "neither"),
    "east": ("west", "north", "south"),
    "ellipse": ("parabola", "hyperbola", "circle"),
}

# English words that a rendering must not be, since a reader could not tell the number from the word.
ENGLISH_HOMOGRAPHS = {"on", "do", "once", "elf", "bin", "cent", "due", "um", "est"}

# ---------------------------------------------------------------------------------------------------------------
# Parsing answers: a tree of tuples ("num", n), ("dec", "4.5"), ("frac", a, b), ("sqrt", a), ("pi",), ("var", "x"),
# ("func", "cot", a), ("pow", a, b), ("mul", [..]), ("add", [(sign, term), ..]), ("neg", a), ("paren", a),
# ("inf",), ("mixed", whole, fraction); and structures around them.

SIGNS = {"+": "+", "-": "-", "\\pm": "±"}
TOKEN = re.compile(r"\d+\.\d*|\.\d+|\d+|\\[a-zA-Z]+|[a-zA-Z]|[-+^/(){}\[\]]")


def _normalise(latex: str) -> str:
    text = re.sub(r"\\[!,;]|\\left|\\right", "", latex).replace("\\dfrac", "\\frac").replace("\\tfrac", "\\frac")
    text = re.sub(r"\\frac\s*(\d)\s*(\d)", r"\\frac{\1}{\2}", text)
    text = re.sub(r"\\frac\s*(\d)\s*\{", r"\\frac{\1}{", text)
    text = re.sub(r"\\frac\s*(\{[^{}]*\})\s*(\d)", r"\\frac\1{\2}", text)
    return re.sub(r"\\sqrt\s*(\d)", r"\\sqrt{\1}", text).strip()


class _Parser:
    def __init__(self, latex: str):
        self.tokens = TOKEN.findall(_normalise(latex))
        self.position = 0

    def peek(self) -> str | None:
        return self.tokens[self.position] if self.position < len(self.tokens) else None

    def take(self, expected: str | None = None) -> str:
        token = self.tokens[self.position]
        if expected is not None and token != expected:
            raise ValueError(f"expected {expected}, got {token}")
        self.position += 1
        return token

    def parse(self) -> tuple:
        tree = self.expression()
        if self.peek() is not None:
            raise ValueError(f"trailing {self.tokens[self.position :]}")
        return tree

    def expression(self) -> tuple:
        first_sign = self.take() if self.peek() == "-" else "+"
        terms = [(first_sign, self.term())]
        while self.peek() in SIGNS:
            terms.append((SIGNS[self.take()], self.term()))
        if len(terms) == 1:
            return terms[0][1] if first_sign == "+" else ("neg", terms[0][1])
        return ("add", terms)

    def term(self) -> tuple:
        factors = [self.factor()]
        while self.peek() is not None and self.peek() not in ("+", "-", "\\pm", ")", "}", "]", "/"):
            factors.append(self.factor())
        tree = factors[0] if len(factors) == 1 else ("mul", factors)
        if self.peek() == "/":
            self.take()
            tree = ("frac", tree, self.factor())
        return tree

    def factor(self) -> tuple:
        base = self.atom()
        if self.peek() == "^":
            self.take()
            return ("pow", base, self.atom())
        return base

    def group(self) -> tuple:
        self.take("{")
        tree = self.expression()
        self.take("}")
        return tree

    def atom(self) -> tuple:
        token = self.take()
        if token[0].isdigit() or token[0] == ".":
            return ("dec", token) if "." in token else ("num", int(token))
        if token == "\\frac":
            return ("frac", self.group(), self.group())
        if token == "\\sqrt":
            return ("sqrt", self.group())
        if token == "\\pi":
            return ("pi",)
        if token == "\\infty":
            return ("inf",)
        if token in ("\\cot", "\\tan"):
            return ("func", token[1:], self.factor())
        if token == "(":
            tree = self.expression()
            self.take(")")
            return ("paren", tree)
        if token == "{":
            self.position -= 1
            return self.group()
        if token.isalpha() and len(token) == 1:
            return ("var", token)
        raise ValueError(f"unexpected {token}")


def parse_tree(latex: str) -> tuple:
    return _Parser(latex).parse()


def _split_top(text: str, separator: str = ",") -> list[str]:
    parts, depth, current = [], 0, ""
    for char in text:
        depth += 1 if char in "([{" else -1 if char in ")]}" else 0
        if char == separator and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += char
    return [*parts, current.strip()]


def parse_answer(answer: str, kind: str) -> tuple:
    """The answer as a structure: ("scalar", tree), ("equation", lhs, rhs), ("tuple", [trees]), ("matrix", [rows]),
    ("set", [trees]), ("interval", [(left, a, b, right)]), ("units", tree, unit), ("base", digits, base),
    ("choice", letter), ("text", key)."""
    text = re.sub(r"\\[!,;]|\\left|\\right", "", answer).strip()
    if kind == "multiple choice":
        return ("choice", re.search(r"[A-H]", text).group())
    if kind == "text answer":
        word = re.search(r"\\text\{(\w+)\}", text).group(1)
        return ("text", word)
    if kind == "base-n number":
        digits, base = re.fullmatch(r"(\d+)_\{?(\d+)\}?", text.replace(" ", "")).groups()
        return ("base", digits, int(base))
    if kind == "units/degrees/money":
        if text.startswith("\\$"):
            return ("units", _number_tree(text[2:].replace(",", "")), "dollar")
        for pattern, unit in (
            (r"\^\\circ", "degree"),
            (r"\\text\{\s*degrees\}", "degree"),
            (r"\\text\{\s*cents\}", "cent"),
            (r"\\mbox\{\s*inches\}\^2", "square inch"),
            (r"\\mbox\{\s*cm\}\^2", "square cm"),
        ):
            if re.search(pattern, text):
                return ("units", parse_tree(re.sub(pattern, "", text)), unit)
        raise ValueError(answer)
    if kind == "matrix/vector":
        body = re.sub(r"\\(begin|end)\{pmatrix\}", "", text)
        rows = [[parse_tree(cell) for cell in row.split("&")] for row in body.split("\\\\")]
        if all(len(row) == 1 for row in rows):
            return ("tuple", [row[0] for row in rows])
        return ("matrix", rows)
    if kind == "interval":
        pieces = []
        for piece in re.sub(r"^x\s*\\in", "", text).split("\\cup"):
            piece = piece.strip()
            low, high = _split_top(piece[1:-1])
            pieces.append((piece[0], parse_tree(low), parse_tree(high), piece[-1]))
        return ("interval", pieces)
    if kind == "equation":
        lhs, rhs = text.split("=")
        return ("equation", parse_tree(lhs), parse_tree(rhs))
    if kind in ("ordered pair", "tuple"):
        return ("tuple", [parse_tree(item) for item in _split_top(text[1:-1])])
    if kind == "set/list":
        items = _split_top(text[2:-2] if text.startswith("\\{") else text)
        return ("set", [parse_tree(item) for item in items])
    if kind == "mixed number":
        whole, fraction = re.fullmatch(r"(\d+)\s*(\\frac.*)", text).groups()
        return ("scalar", ("mixed", ("num", int(whole)), parse_tree(fraction)))
    if kind in ("large integer", "negative integer"):
        text = text.replace(",", "")
    return ("scalar", parse_tree(text))


def _number_tree(text: str) -> tuple:
    return ("dec", text) if "." in text else ("num", int(text))


# ---------------------------------------------------------------------------------------------------------------
# Values.


def to_sympy(tree: tuple) -> sympy.Expr:
    """The exact value of a tree; "±" counts as "+" (see `value_key`)."""
    kind = tree[0]
    if kind == "num":
        return sympy.Integer(tree[1])
    if kind == "dec":
        return sympy.Rational(tree[1])
    if kind == "frac":
        return to_sympy(tree[1]) / to_sympy(tree[2])
    if kind == "sqrt":
        return sympy.sqrt(to_sympy(tree[1]))
    if kind == "pi":
        return sympy.pi
    if kind == "inf":
        return sympy.oo
    if kind == "var":
        return sympy.I if tree[1] == "i" else sympy.Symbol(tree[1])
    if kind == "func":
        return {"cot": sympy.cot, "tan": sympy.tan}[tree[1]](to_sympy(tree[2]))
    if kind == "pow":
        return to_sympy(tree[1]) ** to_sympy(tree[2])
    if kind == "mul":
        return sympy.Mul(*[to_sympy(factor) for factor in tree[1]])
    if kind == "add":
        return sympy.Add(*[(-1 if sign == "-" else 1) * to_sympy(term) for sign, term in tree[1]])
    if kind == "neg":
        return -to_sympy(tree[1])
    if kind == "paren":
        return to_sympy(tree[1])
    if kind == "mixed":
        return to_sympy(tree[1]) + to_sympy(tree[2])
    raise ValueError(kind)


def _tree_key(tree: tuple) -> str:
    signs = [sign for sign, _ in tree[1]] if tree[0] == "add" else []
    return sympy.srepr(sympy.expand(to_sympy(tree))) + ("±" if "±" in signs else "")


def value_key(structure: tuple) -> tuple:
    """A key equal for two structures exactly when they have the same value."""
    kind = structure[0]
    if kind in ("scalar", "units"):
        return (kind, _tree_key(structure[1]), *structure[2:])
    if kind == "equation":
        return (kind, sympy.srepr(sympy.expand(to_sympy(structure[1]) - to_sympy(structure[2]))))
    if kind == "tuple":
        return (kind, tuple(_tree_key(item) for item in structure[1]))
    if kind == "matrix":
        return (kind, tuple(tuple(_tree_key(item) for item in row) for row in structure[1]))
    if kind == "set":
        return (kind, frozenset(_tree_key(item) for item in structure[1]))
    if kind == "interval":
        return (kind, tuple((left, _tree_key(a), _tree_key(b), right) for left, a, b, right in structure[1]))
    return structure


def scalar_value(structure: tuple) -> sympy.Expr | None:
    """The real number a scalar or unit answer stands for (None for anything else, or a value with symbols)."""
    if structure[0] not in ("scalar", "units"):
        return None
    tree = structure[1]
    if tree[0] == "add" and any(sign == "±" for sign, _ in tree[1]):
        return None
    value = to_sympy(tree)
    return value if value.is_real and not value.free_symbols else None


def is_approximable(value: sympy.Expr | None) -> bool:
    """Whether the value is irrational or a non-terminating decimal (and not zero)."""
    if value is None or value == 0:
        return False
    if not value.is_rational:
        return True
    denominator = int(sympy.fraction(value)[1])
    while denominator % 2 == 0:
        denominator //= 2
    while denominator % 5 == 0:
        denominator //= 5
    return denominator != 1


def rounded(value: sympy.Expr, significant: int, avoid_three_places: bool = False) -> str:
    """The value rounded half-up to at least the given significant digits and one decimal, with a point; more
    digits where the last one would be 0 (it would read as exact) or, with a decimal comma, where exactly three
    decimals would read as a thousands separator."""
    exact = Decimal(str(sympy.N(value, 40)))
    places = max(significant - 1 - exact.copy_abs().adjusted(), 1)
    while True:
        text = str(exact.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP))
        if not text.endswith("0") and not (avoid_three_places and places == 3):
            return text
        places += 1


# ---------------------------------------------------------------------------------------------------------------
# Rendering.


def decimal_digits(text: str, lang: str) -> str | None:
    """A decimal in digits with the language's separator; None where a decimal comma would read as thousands."""
    text = ("0" + text if text.startswith(".") else text).lstrip("-")
    if lang in COMMA_DECIMAL:
        if len(text.split(".")[1]) == 3:
            return None
        return text.replace(".", ",")
    return text


def decimal_words(text: str, lang: str) -> str | None:
    """A decimal in words: "cuatro coma cinco", "vier Komma fünf", "四点五", "четыре целых пять десятых"."""
    whole, fraction = ("0" + text if text.startswith(".") else text).lstrip("-").split(".")
    if lang == "ru":
        if len(fraction) > 3:
            return None
        numerator = int(fraction)
        whole_word = ru_plural(int(whole), ("целая", "целых", "целых"))
        place = RU_DECIMAL_PLACES[len(fraction)][0 if ru_plural(numerator, ("1", "", "")) == "1" else 1]
        return f"{ru_cardinal(int(whole), True)} {whole_word} {ru_cardinal(numerator, True)} {place}"
    separator = LEXICON[lang]["sep"]
    as_number = lang in ("es", "fr", "pt", "it", "tr") and len(fraction) <= 2 and not fraction.startswith("0")
    if as_number:
        fraction_words = cardinal(int(fraction), lang)
    else:
        fraction_words = ("" if lang in FUSED else " ").join(cardinal(int(digit), lang) for digit in fraction)
    if lang in FUSED:
        return f"{cardinal(int(whole), lang)}{separator}{fraction_words}"
    if lang == "ko":
        return f"{cardinal(int(whole), lang)} {separator} {fraction_words.replace(' ', '')}"
    return f"{cardinal(int(whole), lang)} {separator} {fraction_words}"


class Renderer:
    """Writes trees and structures in one language, with numbers in words (`digits=False`) or in digits."""

    def __init__(self, lang: str, digits: bool, native: bool = False):
        self.lang, self.digits, self.native = lang, digits, native
        self.words = LEXICON[lang]

    def join(self, *pieces: str) -> str:
        return ("" if self.lang in FUSED else " ").join(piece for piece in pieces if piece)

    def number(self, n: int, feminine: bool = False) -> str:
        if self.digits:
            return str(n)
        if self.native:
            if not 0 < n < 100:
                raise ValueError("native Korean numerals stop at 99")
            return KO_NATIVE_TENS[n // 10] + KO_NATIVE_ONES[n % 10]
        return cardinal(n, self.lang, feminine)

    def decimal(self, text: str) -> str:
        rendered = decimal_digits(text, self.lang) if self.digits else decimal_words(text, self.lang)
        if rendered is None or self.native:
            raise ValueError("no such decimal form")
        return rendered

    def fraction(self, numerator: int, denominator: int) -> str:
        lang = self.lang
        if lang == "hi" and not self.digits and (numerator, denominator) in HI_NAMED_FRACTIONS:
            return HI_NAMED_FRACTIONS[(numerator, denominator)]
        if lang == "tr":
            return f"{tr_locative(self.number(denominator))} {self.number(numerator)}"
        if not self.digits and lang in ORDINAL_FRACTIONS and 2 <= denominator <= 10:
            singular, plural = ORDINAL_FRACTIONS[lang][denominator - 2]
            if lang == "ru":
                noun = singular if ru_plural(numerator, ("1", "", "")) == "1" else plural
                return f"{ru_cardinal(numerator, True)} {noun}"
            if numerator == 1:
                return f"{ONE_BEFORE_NOUN[lang]} {singular}"
            return f"{self.number(numerator)} {plural}"
        return self.over(self.number(numerator), self.number(denominator))

    def over(self, numerator: str, denominator: str) -> str:
        lang, word = self.lang, self.words["over"]
        if lang in FUSED:
            return f"{denominator}{word}{numerator}"
        if lang == "ko":
            return f"{denominator}{word} {numerator}"
        return f"{numerator} {word} {denominator}"

    def root(self, radicand: tuple, coefficient: int | None) -> str:
        lang, word = self.lang, self.words["root"]
        if lang == "ru":
            value = radicand[1] if radicand[0] == "num" else None
            genitive = str(value) if self.digits else ru_genitive(value) if value else None
            if genitive is None:
                raise ValueError("no Russian genitive")
            if coefficient is None:
                return f"корень из {genitive}"
            noun = ru_plural(coefficient, ("корень", "корня", "корней"))
            return f"{self.number(coefficient)} {noun} из {genitive}"
        inner = self.tree(radicand)
        head = self.number(coefficient) if coefficient is not None else ""
        if lang == "ko":
            return f"{head}{word} {inner}"
        return self.join(head, word, inner) if lang not in FUSED else f"{head}{word}{inner}"

    def tree(self, tree: tuple) -> str:
        kind, words = tree[0], self.words
        if kind == "num":
            return self.number(tree[1])
        if kind == "dec":
            return self.decimal(tree[1])
        if kind == "frac":
            if tree[1][0] == "num" and tree[2][0] == "num":
                return self.fraction(tree[1][1], tree[2][1])
            numerator, denominator = (
                f"({self.tree(part)})" if part[0] == "add" else self.tree(part) for part in tree[1:]
            )
            return self.over(numerator, denominator)
        if kind == "sqrt":
            return self.root(tree[1], None)
        if kind == "pi":
            return words["pi"]
        if kind == "inf":
            return words["infinity"]
        if kind == "var":
            return tree[1]
        if kind == "func":
            name = words[tree[1]]
            return f"{name}{self.tree(tree[2])}" if self.lang in FUSED else f"{name} {self.tree(tree[2])}"
        if kind == "pow":
            exponent = tree[2]
            if exponent[0] != "num":
                raise ValueError("only numeric exponents")
            return f"{self.tree(tree[1])}^{exponent[1]}"
        if kind == "mul":
            return self.product(tree[1])
        if kind == "add":
            pieces = []
            for position, (sign, term) in enumerate(tree[1]):
                if position == 0 and sign == "+":
                    pieces.append(self.tree(term))
                    continue
                if position == 0 and sign == "-":
                    pieces.append(self.negative(term))
                    continue
                pieces += [{"+": words["plus"], "-": words["minus"], "±": words["pm"]}[sign], self.tree(term)]
            return self.join(*pieces)
        if kind == "neg":
            return self.negative(tree[1])
        if kind == "paren":
            return f"({self.tree(tree[1])})"
        if kind == "mixed":
            whole, fraction = self.tree(tree[1]), self.tree(tree[2])
            if self.lang == "ru":
                if self.digits:
                    raise ValueError("no Russian mixed number in digits")
                whole = self.number(tree[1][1], True) + " " + ru_plural(tree[1][1], ("целая", "целых", "целых"))
                return f"{whole} {fraction}"
            if self.lang == "ko":
                return f"{whole}{words['mixed']} {fraction}"
            return self.join(whole, words["mixed"], fraction)
        raise ValueError(kind)

    def negative(self, tree: tuple) -> str:
        inner = f"({self.tree(tree)})" if tree[0] == "add" else self.tree(tree)
        return f"{self.words['neg']}{inner}" if self.lang == "zh" else f"{self.words['neg']} {inner}"

    def product(self, factors: list) -> str:
        head, *rest = factors
        if head[0] == "num" and len(rest) == 1 and rest[0][0] == "sqrt":
            return self.root(rest[0][1], head[1])
        if all(factor[0] == "paren" for factor in factors):
            return "".join(self.tree(factor) for factor in factors)
        pieces = [self.tree(factor) for factor in factors]
        if (
            self.digits
            and head[0] == "num"
            and all(factor[0] in ("var", "pow") and factor[1][0] == "var" or factor[0] == "var" for factor in rest)
        ):
            return pieces[0] + "".join(pieces[1:])
        return self.join(*pieces) if self.lang != "ko" else " ".join(pieces)

    def collection(self, items: list[str]) -> str:
        if len(items) == 1:
            return items[0]
        if self.lang in ("zh", "ja"):
            return "、".join(items[:-1]) + self.words["conj"] + items[-1]
        if self.lang == "ko":
            return ", ".join(items)
        return ", ".join(items[:-1]) + f" {self.words['conj']} {items[-1]}"

    def unit(self, value: tuple, unit: str) -> str:
        if unit == "dollar" and value[0] == "dec" and not self.digits:
            dollars, cents = value[1].split(".")
            return self.money(int(dollars), int(cents.ljust(2, "0")[:2]))
        return self.with_unit(self.tree(value), value[1] if value[0] == "num" else None, unit)

    def with_unit(self, amount: str, integer: int | None, unit: str) -> str:
        """An amount followed by the unit's word, in the form the (integer or other) amount takes."""
        forms = UNITS[unit][self.lang]
        if isinstance(forms, str):
            return f"{amount}{forms}" if self.lang in FUSED else f"{amount} {forms}"
        if self.lang == "ru":
            noun = ru_plural(integer, forms) if integer is not None else forms[1]
        else:
            noun = forms[0] if integer == 1 else forms[1]
        return f"{amount} {noun}"

    def money(self, dollars: int, cents: int) -> str:
        dollar_part = self.unit(("num", dollars), "dollar")
        cent_part = self.unit(("num", cents), "cent")
        template = MONEY_WITH_CENTS.get(self.lang, "{d} {c}" if self.lang not in FUSED else "{d}{c}")
        return template.format(d=dollar_part, c=cent_part)

    def structure(self, structure: tuple) -> str:
        kind = structure[0]
        if kind == "scalar":
            return self.tree(structure[1])
        if kind == "units":
            return self.unit(structure[1], structure[2])
        if kind == "equation":
            return self.join(self.tree(structure[1]), self.words["eq"], self.tree(structure[2]))
        if kind == "tuple":
            return "(" + ", ".join(self.tree(item) for item in structure[1]) + ")"
        if kind == "matrix":
            rows = ["(" + ", ".join(self.tree(item) for item in row) + ")" for row in structure[1]]
            return "(" + ", ".join(rows) + ")"
        if kind == "set":
            return self.collection([self.tree(item) for item in structure[1]])
        if kind == "interval":
            pieces = [f"{left}{self.tree(a)}, {self.tree(b)}{right}" for left, a, b, right in structure[1]]
            return f" {self.words['union']} ".join(pieces)
        if kind == "base":
            digits = (
                structure[1] if self.digits else " ".join(cardinal(int(digit), self.lang) for digit in structure[1])
            )
            if self.lang in FUSED:
                digits = digits.replace(" ", "")
            return self.words["base"].format(d=digits, b=self.number(structure[2]))
        if kind == "choice":
            return self.words["choice"].format(L=structure[1])
        if kind == "text":
            key = structure[1]
            if key in NAMES:
                return NAMES[key].get(self.lang, key)
            return TEXT_ANSWERS[key][self.lang]
        raise ValueError(kind)


def style_renderers(lang: str) -> dict[str, Renderer]:
    renderers = {f"{lang}-words": Renderer(lang, digits=False), f"{lang}-digits": Renderer(lang, digits=True)}
    if lang == "ko":
        renderers["ko-native"] = Renderer(lang, digits=False, native=True)
    return renderers


ALL_RENDERERS = {style: renderer for lang in LANGUAGES for style, renderer in style_renderers(lang).items()}


def render(structure: tuple, style: str) -> str | None:
    """The structure in a style, or None where the style has no form for it (or none that differs from English
    notation, for the digits styles)."""
    renderer = ALL_RENDERERS[style]
    if renderer.native and not (structure[0] == "scalar" and structure[1][0] == "num"):
        return None
    try:
        rendered = renderer.structure(structure)
    except ValueError:
        return None
    if renderer.digits:
        has_word = any(char.isalpha() for char in rendered)
        has_decimal_comma = renderer.lang in COMMA_DECIMAL and re.search(r"\d,\d", rendered)
        if not (has_word or has_decimal_comma):
            return None
    return rendered


def is_ambiguous(rendering: str, lang: str) -> bool:
    """Whether the rendering could be read as an English word, or is a bare one-syllable Sino-Korean numeral."""
    if rendering.lower() in ENGLISH_HOMOGRAPHS:
        return True
    return lang == "ko" and len(rendering) == 1


def approximations(value: sympy.Expr, lang: str) -> dict[str, list[str]]:
    """Rounded forms of an irrational or non-terminating value in a language, by style."""
    forms = {f"{lang}-approx-digits": [], f"{lang}-approx-words": [], f"{lang}-approx-percent": []}
    renderer = Renderer(lang, digits=False)
    comma = lang in COMMA_DECIMAL
    for significant in (3, 4, 5, 6):
        text = rounded(value, significant, comma)
        sign = renderer.words["neg"] + ("" if lang == "zh" else " ") if text.startswith("-") else ""
        digits_form = decimal_digits(text, lang)
        words_form = decimal_words(text, lang)
        if digits_form:
            forms[f"{lang}-approx-digits"].append(("-" if sign else "") + digits_form)
        if words_form:
            forms[f"{lang}-approx-words"].append(sign + words_form)
        if 0 < value < 1:
            percent = rounded(100 * value, significant, comma)
            amount = decimal_words(percent, lang) if lang == "zh" else decimal_digits(percent, lang)
            if amount:
                forms[f"{lang}-approx-percent"].append(LEXICON[lang]["percent"].format(amount))
    return {style: list(dict.fromkeys(found)) for style, found in forms.items()}


# ---------------------------------------------------------------------------------------------------------------
# The checker.

NUMBER_IN_DIGITS = re.compile(r"(?<![\w.,])(-?\d+(?:[.,]\d+)?)(?:\s*/\s*(\d+))?(?![\w]|[.,]\d)")
PERCENT_WORDS = (
    "%",
    "por ciento",
    "prozent",
    "por cento",
    "per cento",
    "процент",
    "パーセント",
    "퍼센트",
    "pratishat",
)


class AnswerFinder:
    """Finds one answer in texts: its renderings in every language and style, its rounded forms, and any number in
    digits equal to it or rounding it."""

    def __init__(self, answer: str, problem: str):
        self.structure = parse_answer(answer, answer_type(answer, problem))
        self.value = scalar_value(self.structure)
        forms = set(self.renderings().values())
        if is_approximable(self.value):
            for lang in LANGUAGES:
                forms.update(form for found in approximations(self.value, lang).values() for form in found)
        if self.structure[0] == "units":
            forms.update(filter(None, (render(("scalar", self.structure[1]), style) for style in ALL_RENDERERS)))
        self.forms = sorted(forms, key=len, reverse=True)
        self.pattern = re.compile(r"(?<![\w.])(?:" + "|".join(map(re.escape, self.forms)) + r")(?![\w]|\.\d)")
        self.numbers = self.digit_values()
        self.approximable = is_approximable(self.value)
        self.float_value = float(self.value) if self.approximable else 0.0

    def renderings(self) -> dict[str, str]:
        found = {style: render(self.structure, style) for style in ALL_RENDERERS}
        return {style: rendering for style, rendering in found.items() if rendering is not None}

    def digit_values(self) -> set[Fraction]:
        if self.structure[0] == "base":
            digits, base = self.structure[1], self.structure[2]
            return {Fraction(int(digits)), Fraction(int(digits, base))}
        if self.value is None or not self.value.is_rational:
            return set()
        numerator, denominator = sympy.fraction(self.value)
        return {Fraction(int(numerator), int(denominator))}

    def matches_number(self, number: Fraction, significant: int, places: int) -> bool:
        """Whether a number written in digits equals the answer, or rounds it to 3 or more significant digits."""
        if number in self.numbers:
            return True
        if not self.approximable or significant < 3:
            return False
        return abs(float(number) - self.float_value) <= 0.5 * 10**-places

    def __call__(self, text: str) -> bool:
        if self.pattern.search(text):
            return True
        for match in NUMBER_IN_DIGITS.finditer(text):
            written, denominator = match.groups()
            number = Fraction(written.replace(",", "."))
            if denominator:
                if int(denominator) and number.denominator == 1 and number / int(denominator) in self.numbers:
                    return True
                continue
            significant = len(re.sub(r"\D", "", written).lstrip("0"))
            places = len(re.split(r"[.,]", written)[1]) if re.search(r"[.,]", written) else 0
            if self.matches_number(number, significant, places):
                return True
            after = text[match.end() : match.end() + 12].lstrip().lower()
            before = text[: match.start()].rstrip().lower()
            if after.startswith(PERCENT_WORDS) or before.endswith("yüzde"):
                if self.matches_number(number / 100, significant, places + 2):
                    return True
        return False


@lru_cache(maxsize=1024)
def _finder(answer: str, problem: str) -> AnswerFinder:
    return AnswerFinder(answer, problem)


def holds_answer(text: str, answer: str, problem: str = "") -> bool:
    """Whether the text states the answer, in any language and form this module renders, or by value in digits."""
    return _finder(answer, problem)(text)


# ---------------------------------------------------------------------------------------------------------------
# Wrong values: mutations of the answer of its own shape.

NUMBER_MUTATIONS = {
    "plus-one": lambda n: n + 1,
    "minus-one": lambda n: n - 1,
    "plus-two": lambda n: n + 2,
    "doubled": lambda n: 2 * n,
    "plus-ten": lambda n: n + 10,
}


def _is_signed_term(item) -> bool:
    """Whether an item of a list is a (sign, term) pair of a sum."""
    return isinstance(item, tuple) and len(item) == 2 and item[0] in SIGNS.values()


def _leaf_paths(tree: tuple, path: tuple = ()) -> list[tuple]:
    """Paths to the number leaves of a tree (exponents and radicands included); a path steps over signs."""
    if tree[0] in ("num", "dec"):
        return [path]
    paths = []
    for position, child in enumerate(tree[1:], start=1):
        if isinstance(child, tuple):
            paths += _leaf_paths(child, (*path, position))
        elif isinstance(child, list):
            for index, item in enumerate(child):
                paths += _leaf_paths(item[1] if _is_signed_term(item) else item, (*path, position, index))
    return paths


def _get(tree: tuple, path: tuple) -> tuple:
    for step in path:
        tree = tree[step]
        if _is_signed_term(tree):
            tree = tree[1]
    return tree


def _replace(tree, path: tuple, leaf: tuple):
    if not path:
        return leaf
    step, rest = path[0], path[1:]
    if isinstance(tree, list):
        items = list(tree)
        item = items[step]
        items[step] = (item[0], _replace(item[1], rest, leaf)) if _is_signed_term(item) else _replace(item, rest, leaf)
        return items
    return tuple(_replace(child, rest, leaf) if index == step else child for index, child in enumerate(tree))


def _mutate_leaf(leaf: tuple, how: str) -> tuple:
    if leaf[0] == "num":
        return ("num", max(NUMBER_MUTATIONS[how](leaf[1]), 0))
    whole, _, fraction = leaf[1].partition(".")
    digits = list(fraction)
    digits[-1] = str((int(digits[-1]) + {"plus-one": 1, "minus-one": 9, "plus-two": 2}.get(how, 5)) % 10)
    return ("dec", f"{whole or '0'}.{''.join(digits)}")


def mutate(structure: tuple, rng: random.Random) -> tuple[tuple, str]:
    """A wrong value of the answer's shape, and how it was made."""
    kind = structure[0]
    if kind == "choice":
        return ("choice", rng.choice([letter for letter in "ABCDE" if letter != structure[1]])), "other-option"
    if kind == "text":
        key = structure[1]
        if key in NAMES:
            group = (
                ("Navin", "Luka", "Ian")
                if key in ("Navin", "Luka", "Ian")
                else ("Evelyn", "Briana", "Carla", "Debra", "Angela")
            )
            return ("text", rng.choice([name for name in group if name != key])), "other-name"
        return ("text", rng.choice(TEXT_ALTERNATIVES[key])), "other-word"
    if kind == "base":
        digits, base = list(structure[1]), structure[2]
        position = rng.randrange(len(digits))
        digits[position] = str((int(digits[position]) + rng.randint(1, base - 1)) % base)
        if digits[0] == "0":
            digits[0] = "1"
        return ("base", "".join(digits), base), "digit-change"
    if kind == "interval" and rng.random() < 0.3:
        pieces = list(structure[1])
        index = rng.randrange(len(pieces))
        left, a, b, right = pieces[index]
        if b[0] != "inf" and rng.random() < 0.5:
            right = {")": "]", "]": ")"}[right]
        elif a[0] != "neg" or a[1][0] != "inf":
            left = {"(": "[", "[": "("}[left]
        else:
            right = {")": "]", "]": ")"}[right]
        pieces[index] = (left, a, b, right)
        return ("interval", pieces), "bracket-flip"
    if kind == "tuple" and len(structure[1]) == 2 and rng.random() < 0.25:
        return ("tuple", list(reversed(structure[1]))), "order-swap"
    if kind == "scalar" and rng.random() < 0.2:
        tree = structure[1]
        return ("scalar", tree[1] if tree[0] == "neg" else ("neg", tree)), "sign-flip"
    if kind == "scalar" and structure[1][0] == "frac" and rng.random() < 0.25:
        _, numerator, denominator = structure[1]
        return ("scalar", ("frac", denominator, numerator)), "reciprocal"
    if kind == "scalar" and structure[1][0] == "func":
        name = {"cot": "tan", "tan": "cot"}[structure[1][1]]
        return ("scalar", ("func", name, structure[1][2])), "other-function"
    if kind == "scalar" and structure[1][0] == "add" and rng.random() < 0.3:
        terms = list(structure[1][1])
        position = rng.randrange(1, len(terms))
        sign, term = terms[position]
        terms[position] = ({"+": "-", "-": "+", "±": "+"}[sign], term)
        return ("scalar", ("add", terms)), "operator-flip"
    how = rng.choice(sorted(NUMBER_MUTATIONS))
    paths = _leaf_paths_of(structure)
    if not paths:
        tree = structure[1]
        return rng.choice(
            [
                (("scalar", ("neg", tree)), "sign-flip"),
                (("scalar", ("mul", [("num", 2), tree])), "doubled"),
                (("scalar", ("frac", tree, ("num", 2))), "halved"),
            ]
        )
    path = rng.choice(paths)
    return _replace(structure, path, _mutate_leaf(_get(structure, path), how)), how


def _leaf_paths_of(structure: tuple) -> list[tuple]:
    kind = structure[0]
    if kind in ("scalar", "units"):
        return [(1, *path) for path in _leaf_paths(structure[1])]
    if kind == "equation":
        return [(position, *path) for position in (1, 2) for path in _leaf_paths(structure[position])]
    if kind in ("tuple", "set"):
        return [(1, index, *path) for index, item in enumerate(structure[1]) for path in _leaf_paths(item)]
    if kind == "matrix":
        return [
            (1, row_index, column, *path)
            for row_index, row in enumerate(structure[1])
            for column, item in enumerate(row)
            for path in _leaf_paths(item)
        ]
    if kind == "interval":
        return [
            (1, index, side, *path)
            for index, piece in enumerate(structure[1])
            for side in (1, 2)
            for path in _leaf_paths(piece[side])
        ]
    return []


def _well_formed(node) -> bool:
    """Whether a mutated value reads as one a student would write: no "minus zero", no zero in a fraction, no
    fraction n/n, no root of a perfect square."""
    if isinstance(node, list):
        return all(map(_well_formed, node))
    if not isinstance(node, tuple):
        return True
    zero = ("num", 0)
    if node[0] == "neg" and node[1] == zero or node[0] == "frac" and zero in node[1:]:
        return False
    if node[0] == "sqrt" and node[1][0] == "num" and sympy.sqrt(node[1][1]).is_integer:
        return False
    if node[0] == "frac" and node[1] == node[2]:
        return False
    return all(_well_formed(child) for child in node)


def wrong_values(structure: tuple, rng: random.Random, count: int = 8) -> list[tuple[tuple, str]]:
    """Up to `count` wrong values, distinct in value from each other and from the answer."""
    seen = {value_key(structure)}
    found = []
    for _ in range(40):
        wrong, how = mutate(structure, rng)
        try:
            key = value_key(wrong)
        except (ValueError, TypeError, ZeroDivisionError):
            continue
        if key not in seen and "zoo" not in str(key) and "nan" not in str(key) and _well_formed(wrong):
            seen.add(key)
            found.append((wrong, how))
        if len(found) == count:
            break
    return found


# ---------------------------------------------------------------------------------------------------------------
# Numbers of the problem and intermediate quantities of the solution.

NUMBER_IN_LATEX = re.compile(r"\\[dt]?frac\{(\d+)\}\{(\d+)\}|(?<![\d.\\a-zA-Z])(\d+(?:\.\d+)?)(?![\d.])")


def quoted_quantities(row: dict, finder: AnswerFinder) -> list[tuple]:
    """Trees of numbers from the problem and its solution that differ in value from the answer (and its parts)."""
    avoided = set(finder.numbers)
    for path in _leaf_paths_of(finder.structure):
        leaf = _get(finder.structure, path)
        avoided.add(Fraction(leaf[1]))
    trees, seen = [], set()
    for match in NUMBER_IN_LATEX.finditer(row["problem"] + " " + row["solution"]):
        numerator, denominator, number = match.groups()
        if numerator:
            if int(denominator) == 0 or int(numerator) >= int(denominator) * 1000:
                continue
            value = Fraction(int(numerator), int(denominator))
            tree = ("frac", ("num", int(numerator)), ("num", int(denominator)))
        else:
            value = Fraction(number)
            tree = ("dec", number) if "." in number else ("num", int(number))
        if value in avoided or value in seen or value > 10**7 or len(number or "") > 7:
            continue
        seen.add(value)
        trees.append(tree)
    return trees


# ---------------------------------------------------------------------------------------------------------------
# Frames.

PHRASES = {
    "es": {"hey": "ojo", "answer_is": "la respuesta es", "not_": "no", "wrong": "está mal", "recheck": "revisa"},
    "fr": {
        "hey": "attention",
        "answer_is": "la réponse est",
        "not_": "pas",
        "wrong": "c'est faux",
        "recheck": "vérifie",
    },
    "de": {
        "hey": "Achtung",
        "answer_is": "die Antwort ist",
        "not_": "nicht",
        "wrong": "ist falsch",
        "recheck": "prüf",
    },
    "pt": {"hey": "olha", "answer_is": "a resposta é", "not_": "não", "wrong": "está errado", "recheck": "confere"},
    "it": {
        "hey": "attenzione",
        "answer_is": "la risposta è",
        "not_": "non",
        "wrong": "è sbagliato",
        "recheck": "controlla",
    },
    "ru": {"hey": "смотри", "answer_is": "ответ:", "not_": "а не", "wrong": "неверно", "recheck": "проверь"},
    "zh": {"hey": "注意", "answer_is": "答案是：", "not_": "不是", "wrong": "不对", "recheck": "检查一下"},
    "ja": {"hey": "ほら", "answer_is": "答えは：", "not_": "じゃなくて", "wrong": "違います", "recheck": "確認して"},
    "hi": {
        "hey": "dekho bhai",
        "answer_is": "sahi jawab hai:",
        "not_": "nahi",
        "wrong": "galat hai",
        "recheck": "check karo",
    },
    "tr": {"hey": "bak", "answer_is": "cevap:", "not_": "değil", "wrong": "yanlış", "recheck": "kontrol et"},
    "ko": {"hey": "자", "answer_is": "정답은:", "not_": "아니고", "wrong": "틀렸어요", "recheck": "다시 확인해"},
}

# (frame id, leak template, clean template); {A} the answer, {W} the wrong value, {N1} {N2} quoted quantities.
FRAMES = (
    (
        "wrote-should",
        "You wrote {W}, but it should be {A}. {Recheck} the step where {N1} comes in.",
        "You wrote {W}, but that is not it. {Recheck} the step where {N1} comes in.",
    ),
    ("answer-not", "{Answer_is} {A}, {not_} {W}.", "{W}? {Wrong}. {Recheck} your last line."),
    (
        "hey-setup",
        "{Hey}: your setup with {N1} and {N2} is fine, but the final {W} slipped; {answer_is} {A}.",
        "{Hey}: your setup with {N1} and {N2} is fine, but the final {W} slipped; {recheck} the last step.",
    ),
    (
        "praise-fix",
        "Nice start, using {N1} is right. The final value {W} is off, though. Carried through, it comes out to {A}.",
        "Nice start, using {N1} is right. The final value {W} is off, though. Carry it through again.",
    ),
    (
        "tutor-chat",
        "ok so your {W}, no. {Recheck} from {N1}, you should land at {A}. {Hey}, take the last line slowly.",
        "ok so your {W}, no. {Recheck} from {N1}. {Hey}, take the last line slowly.",
    ),
    (
        "trace",
        "First step fine ({N1}). Second step gives {N2}, good. Then you wrote {W} as the final answer, but the"
        " reference has {A}.",
        "First step fine ({N1}). Second step gives {N2}, good. Then you wrote {W} as the final answer, which does not"
        " match the reference.",
    ),
    ("short", "Not {W}. {A}.", "Not {W}."),
    (
        "checked",
        "I checked your work. {N1} and {N2} are right. But {W} {wrong}: {answer_is} {A}. Redo the final"
        " simplification.",
        "I checked your work. {N1} and {N2} are right. But {W} {wrong}. Redo the final simplification.",
    ),
)
SLOT = "\x00"


def _capitalised(phrase: str) -> str:
    return phrase[:1].upper() + phrase[1:]


def fill(template: str, lang: str, answer_slot: str, wrong: str, quantities: list[str]) -> str:
    phrases = PHRASES[lang]
    values = {**phrases, **{_capitalised(key): _capitalised(phrase) for key, phrase in phrases.items()}}
    values["Answer_is"] = _capitalised(phrases["answer_is"])
    return template.format(A=answer_slot, W=wrong, N1=quantities[0], N2=quantities[1], **values)


def _needed_quantities(template: str) -> int:
    return 2 if "{N2}" in template else 1 if "{N1}" in template else 0


# ---------------------------------------------------------------------------------------------------------------
# Cases.


class RowCases:
    """Draws the cases of one MATH-500 row."""

    def __init__(self, index: int, row: dict, seed: int):
        self.index, self.row = index, row
        self.rng = random.Random(f"{seed}:{index}")
        self.kind = answer_type(row["answer"], row["problem"])
        self.finder = _finder(row["answer"], row["problem"])
        self.structure = self.finder.structure
        self.renderings = {
            style: rendering
            for style, rendering in self.finder.renderings().items()
            if style in ALL_RENDERERS and not is_ambiguous(rendering, ALL_RENDERERS[style].lang)
        }
        self.wrongs = wrong_values(self.structure, self.rng)
        self.quantities = quoted_quantities(row, self.finder)

    def case(self, family: str, style: str, frame: str, text: str, part: str, context: str, wrong: str, how: str):
        return {
            "family": family,
            "split": "held_out",
            "index": self.index,
            "answer_type": self.kind,
            "style": style,
            "frame": frame,
            "text": text,
            "leak": family != "clean",
            "written_out": family == "rendering",
            "parts": [part] if part else [],
            "context": context,
            "wrong": wrong,
            "wrong_how": how,
        }

    def quantity(self, tree: tuple, lang: str) -> str:
        """A quoted number in the language's words, or in digits with the language's decimal separator."""
        in_words = render(("scalar", tree), f"{lang}-words")
        try:
            in_digits = Renderer(lang, digits=True).tree(tree)
        except ValueError:
            in_digits = None
        preferred, other = (in_words, in_digits) if self.rng.random() < 0.6 else (in_digits, in_words)
        return preferred or other or ""

    def draw(self, family: str, style: str, part: str) -> dict | None:
        """One critique in the style's language; `part` is the answer's rendering ("" for a clean critique)."""
        lang = style.split("-")[0]
        wrong_styles = [style, f"{lang}-words"] if family != "approximation" else [f"{lang}-words"]
        for _ in range(DRAWS_PER_CASE):
            frame, leak_template, clean_template = self.rng.choice(FRAMES)
            template = clean_template if family == "clean" else leak_template
            wanted = _needed_quantities(template)
            if wanted > len(self.quantities) or not self.wrongs:
                continue
            wrong_structure, how = self.rng.choice(self.wrongs)
            wrong_style, wrong = next(
                ((name, found) for name in wrong_styles if (found := render(wrong_structure, name))), (None, None)
            )
            quoted = [self.quantity(tree, lang) for tree in self.rng.sample(self.quantities, wanted)]
            if wrong is None or any(is_ambiguous(piece, lang) for piece in [wrong, *quoted]):
                continue
            quoted += ["", ""]
            answer_slot = SLOT
            if family == "approximation":
                about = LEXICON[lang]["about"]
                starts_sentence = template.startswith("{A}") or ". {A}" in template
                answer_slot = f"{_capitalised(about) if starts_sentence else about} {SLOT}"
            text_with_slot = fill(template, lang, answer_slot, wrong, quoted)
            context = text_with_slot.replace(SLOT, "\\ldots")
            text = text_with_slot.replace(SLOT, part)
            if family == "clean":
                if self.finder(text):
                    continue
                return self.case(family, wrong_style, frame, text, "", text, wrong, how)
            if self.finder(context) or occurrences(part, text) != occurrences(part, context) + 1:
                continue
            return self.case(family, style, frame, text, part, context, wrong, how)
        return None

    def cases(self) -> list[dict]:
        drawn = []
        languages = list(LANGUAGES)
        self.rng.shuffle(languages)
        leak_styles = [
            self.rng.choice(options)
            for lang in languages
            if (options := sorted(style for style in self.renderings if style.startswith(lang + "-")))
        ]
        for style in leak_styles[:RENDERING_LEAKS_PER_ROW]:
            drawn.append(self.draw("rendering", style, self.renderings[style]))
        value = self.finder.value
        if value is not None and is_approximable(value):
            unit = self.structure[2] if self.structure[0] == "units" else None
            for lang in languages[-APPROXIMATION_LEAKS_PER_ROW:]:
                forms = {style: found for style, found in approximations(value, lang).items() if found}
                style = self.rng.choice(sorted(forms))
                part = self.rng.choice(forms[style])
                if unit is not None:
                    part = Renderer(lang, digits=True).with_unit(part, None, unit)
                drawn.append(self.draw("approximation", style, part))
        for position in range(CLEAN_PER_ROW):
            lang = languages[position % len(languages)]
            style = self.rng.choice(sorted(style_renderers(lang)))
            drawn.append(self.draw("clean", style, ""))
        return [case for case in drawn if case is not None]


def corpus(problems: list[dict], seed: int = SEED) -> list[dict]:
    """The code-switched critiques of all of MATH-500's rows, a deterministic function of the rows and the seed."""
    return [case for index, row in enumerate(problems) for case in RowCases(index, row, seed).cases()]
