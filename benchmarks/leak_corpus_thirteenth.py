"""A thirteenth independent leak corpus: critiques written in languages other than English.

Multilingual feedback models (Qwen answers in Chinese more often than not) write their critiques in the student's
language, and they state a value the way a teacher of that language would: `0,75` with a decimal comma,
`1.440` or `1 440` with local group separators, "zweihundertvier", "двести четыре", "二百零四", "にひゃくよん",
"tres cuartos", "四分之三", "4分の3", "根号2", "квадратный корень из 2", French intervals `]2 ; 5]`, German points
`(3 | -2)`, Russian `ctg x`, "选 C", "C şıkkı", "90 градусов", "32 348 $". This corpus measures a guard on such
text.

Method. Each MATH-500 answer string is parsed (by this module's own small parser, with sympy for values) into a
shape: integer, fraction, decimal, mixed number, a numeric LaTeX expression (radicals, multiples of pi, complex
numbers), a symbolic expression or equation, interval, ordered pair / tuple, set or list, matrix / vector, choice
letter, text answer, quantity with a unit, base-n numeral. Each shape is rendered per language by hand-written
functions (number words for cardinals, negatives, fractions, mixed numbers and decimals; roots and pi in words;
locale digits with decimal comma and group separators; local notations for intervals, pairs, sets, matrices,
choices, units and money; LaTeX inside native sentences). A rendering fills the value slot of a critique frame
written in that language, in one of five registers (a teacher's comment, a grader's note, a tutoring chat, a forum
reply, an LLM reply with Markdown); frames also quote the problem's own numbers and the attempt's wrong value.

Languages: Chinese (zh, simplified), Spanish (es), French (fr), German (de, with Swiss `1’440` as a variant),
Russian (ru), Portuguese (pt, Brazilian), Japanese (ja), Italian (it), Korean (ko), Turkish (tr).

Families:

- "rendering" (leak, written out): the answer itself in the language's notations (style "<lang>/<notation>").
- "approximation" (leak): a decimal of 4-7 significant digits of an irrational or non-terminating answer, in the
  locale's format ("≈ 1,732", "约等于 1.732"), style "<lang>/approx".
- "clean" (no leak): critiques in the same languages quoting the attempt's wrong value (a mutation of the answer
  of its own shape: off by one, sign, doubled, reciprocal, digits reversed, another bracket, swapped coordinates,
  a changed matrix entry, another word or letter) and the problem's own numbers. Every clean text is checked by
  `holds_answer`, which looks for every rendering of the answer this module can write (all languages and styles),
  the answer's value in any number token (read with either separator convention, fractions, percents), its
  decimal approximation, and its number words in all ten languages; doubtful texts are redrawn. For composite
  answers (intervals, pairs, tuples, sets, matrices) the whole structure is what is checked, since a wrong
  attempt naturally shares some entries with it.

Independence. Written without reading the guard or its tests: of this repository only `benchmarks/leak_corpus.py`
was read, for the source of `load_problems`, `ANSWER_TYPES`, `answer_type`, `occurrences` and `stated` (the only
names imported), and the first 95 lines of `tests/benchmarks/test_leak_corpus_ninth.py` for test conventions.
Nothing under `trl_mulferl/`, `tests/feedback/`, `docs/`, `benchmarks/leak_guard.py`, `benchmarks/leak_guard.json`,
`benchmarks/README.md`, `CHANGELOG.md` or any other corpus module was opened, and no guard or redaction function was
run. Number words are this module's own (no packages).

Schema: `corpus(problems, seed)` returns dicts with exactly the keys family, split ("held_out"), index,
answer_type, style, frame ("language:register:template"), text, leak, written_out, parts (the substrings of text
stating the answer; [] for clean), context (text with each stated part replaced by `\\ldots`), wrong (the quoted
wrong value as written, or None) and wrong_how (the mutation, or None). It is a pure function of the rows and seed.
"""

import random
import re
import sys
from fractions import Fraction
from functools import cache
from pathlib import Path

import sympy as sp


sys.path.insert(0, str(Path(__file__).resolve().parent))
from leak_corpus import ANSWER_TYPES, answer_type, load_problems, stated  # noqa: E402


__all__ = ["ANSWER_TYPES", "SEED", "corpus", "holds_answer", "load_problems", "stated", "words"]

SEED = 0  # the corpus's seed, which the benchmark reports

LANGS = ("zh", "es", "fr", "de", "ru", "pt", "ja", "it", "ko", "tr")
COMMA_DECIMAL = {"es", "fr", "de", "ru", "pt", "it", "tr"}
GROUP = {"zh": ",", "ja": ",", "ko": ",", "es": ".", "de": ".", "pt": ".", "it": ".", "tr": ".", "fr": "\u202f"}
GROUP["ru"] = " "

# --- number words ------------------------------------------------------------------------------------------------

ES_UNITS = (
    "cero uno dos tres cuatro cinco seis siete ocho nueve diez once doce trece catorce quince dieciséis diecisiete "
    "dieciocho diecinueve veinte veintiuno veintidós veintitrés veinticuatro veinticinco veintiséis veintisiete "
    "veintiocho veintinueve"
).split()
ES_TENS = {3: "treinta", 4: "cuarenta", 5: "cincuenta", 6: "sesenta", 7: "setenta", 8: "ochenta", 9: "noventa"}
ES_HUNDREDS = "_ ciento doscientos trescientos cuatrocientos quinientos seiscientos setecientos ochocientos".split()
ES_HUNDREDS.append("novecientos")


def _es_below_1000(n: int) -> str:
    if n < 30:
        return ES_UNITS[n]
    if n < 100:
        t, u = divmod(n, 10)
        return ES_TENS[t] + (f" y {ES_UNITS[u]}" if u else "")
    if n == 100:
        return "cien"
    h, r = divmod(n, 100)
    return ES_HUNDREDS[h] + (" " + _es_below_1000(r) if r else "")


def _es_apocope(words: str) -> str:
    if words.endswith("veintiuno"):
        return words[:-9] + "veintiún"
    return words[:-3] + "un" if words.endswith("uno") else words


def es_int(n: int) -> str | None:
    if n < 0:
        inner = es_int(-n)
        return inner and "menos " + inner
    if n < 1000:
        return _es_below_1000(n)
    if n < 10**6:
        th, r = divmod(n, 1000)
        head = "mil" if th == 1 else _es_apocope(_es_below_1000(th)) + " mil"
        return head + (" " + _es_below_1000(r) if r else "")
    if n < 10**9:
        m, r = divmod(n, 10**6)
        head = "un millón" if m == 1 else _es_apocope(es_int(m)) + " millones"
        return head + (" " + es_int(r) if r else "")
    return None


PT_UNITS = (
    "zero um dois três quatro cinco seis sete oito nove dez onze doze treze quatorze quinze dezesseis dezessete "
    "dezoito dezenove"
).split()
PT_TENS = {2: "vinte", 3: "trinta", 4: "quarenta", 5: "cinquenta", 6: "sessenta", 7: "setenta", 8: "oitenta"}
PT_TENS[9] = "noventa"
PT_HUNDREDS = "_ cento duzentos trezentos quatrocentos quinhentos seiscentos setecentos oitocentos novecentos".split()


def _pt_below_1000(n: int) -> str:
    if n < 20:
        return PT_UNITS[n]
    if n < 100:
        t, u = divmod(n, 10)
        return PT_TENS[t] + (f" e {PT_UNITS[u]}" if u else "")
    if n == 100:
        return "cem"
    h, r = divmod(n, 100)
    return PT_HUNDREDS[h] + (" e " + _pt_below_1000(r) if r else "")


def pt_int(n: int) -> str | None:
    if n < 0:
        inner = pt_int(-n)
        return inner and "menos " + inner
    if n < 1000:
        return _pt_below_1000(n)
    if n < 10**6:
        th, r = divmod(n, 1000)
        head = "mil" if th == 1 else _pt_below_1000(th) + " mil"
        if not r:
            return head
        return head + (" e " if r < 100 or r % 100 == 0 else " ") + _pt_below_1000(r)
    if n < 10**9:
        m, r = divmod(n, 10**6)
        head = "um milhão" if m == 1 else pt_int(m) + " milhões"
        if not r:
            return head
        return head + (" e " if r < 100 or (r < 1000 and r % 100 == 0) else " ") + pt_int(r)
    return None


FR_UNITS = (
    "zéro un deux trois quatre cinq six sept huit neuf dix onze douze treize quatorze quinze seize dix-sept "
    "dix-huit dix-neuf"
).split()
FR_TENS = {2: "vingt", 3: "trente", 4: "quarante", 5: "cinquante", 6: "soixante"}


def _fr_below_100(n: int) -> str:
    if n < 20:
        return FR_UNITS[n]
    if n < 70:
        t, u = divmod(n, 10)
        return FR_TENS[t] + ("" if u == 0 else " et un" if u == 1 else "-" + FR_UNITS[u])
    if n < 80:
        return "soixante et onze" if n == 71 else "soixante-" + FR_UNITS[n - 60]
    return "quatre-vingts" if n == 80 else "quatre-vingt-" + FR_UNITS[n - 80]


def _fr_below_1000(n: int) -> str:
    h, r = divmod(n, 100)
    if not h:
        return _fr_below_100(r)
    head = "cent" if h == 1 else FR_UNITS[h] + " cent"
    if not r:
        return head + ("s" if h > 1 else "")
    return head + " " + _fr_below_100(r)


def fr_int(n: int) -> str | None:
    if n < 0:
        inner = fr_int(-n)
        return inner and "moins " + inner
    if n < 1000:
        return _fr_below_1000(n)
    if n < 10**6:
        th, r = divmod(n, 1000)
        head = "mille" if th == 1 else _fr_below_1000(th).removesuffix("s") + " mille"
        if th > 1 and not _fr_below_1000(th).endswith(("cents", "vingts")):
            head = _fr_below_1000(th) + " mille"
        return head + (" " + _fr_below_1000(r) if r else "")
    if n < 10**9:
        m, r = divmod(n, 10**6)
        head = "un million" if m == 1 else fr_int(m) + " millions"
        return head + (" " + fr_int(r) if r else "")
    return None


IT_UNITS = (
    "zero uno due tre quattro cinque sei sette otto nove dieci undici dodici tredici quattordici quindici sedici "
    "diciassette diciotto diciannove"
).split()
IT_TENS = {2: "venti", 3: "trenta", 4: "quaranta", 5: "cinquanta", 6: "sessanta", 7: "settanta", 8: "ottanta"}
IT_TENS[9] = "novanta"


def _it_below_1000(n: int) -> str:
    h, r = divmod(n, 100)
    if r < 20:
        tail = IT_UNITS[r] if r else ""
    else:
        t, u = divmod(r, 10)
        tens = IT_TENS[t][:-1] if u in (1, 8) else IT_TENS[t]
        tail = tens + (IT_UNITS[u] if u else "")
    if not h:
        return tail or "zero"
    head = "cento" if h == 1 else IT_UNITS[h] + "cento"
    if tail.startswith("ott"):
        head = head[:-1]
    return head + tail


def it_int(n: int) -> str | None:
    if n < 0:
        inner = it_int(-n)
        return inner and "meno " + inner
    if n < 1000:
        words = _it_below_1000(n)
    elif n < 10**6:
        th, r = divmod(n, 1000)
        words = ("mille" if th == 1 else _it_below_1000(th) + "mila") + (_it_below_1000(r) if r else "")
    elif n < 10**9:
        m, r = divmod(n, 10**6)
        words = ("un milione" if m == 1 else it_int(m) + " milioni") + (" " + it_int(r) if r else "")
    else:
        return None
    if words.endswith("tre") and words != "tre":
        words = words[:-3] + "tré"
    return words


DE_UNITS = (
    "null eins zwei drei vier fünf sechs sieben acht neun zehn elf zwölf dreizehn vierzehn fünfzehn sechzehn "
    "siebzehn achtzehn neunzehn"
).split()
DE_TENS = {2: "zwanzig", 3: "dreißig", 4: "vierzig", 5: "fünfzig", 6: "sechzig", 7: "siebzig", 8: "achtzig"}
DE_TENS[9] = "neunzig"


def _de_below_1000(n: int) -> str:
    h, r = divmod(n, 100)
    if r < 20:
        tail = DE_UNITS[r] if r else ""
    else:
        t, u = divmod(r, 10)
        tail = (("ein" if u == 1 else DE_UNITS[u]) + "und" if u else "") + DE_TENS[t]
    if not h:
        return tail or "null"
    return ("ein" if h == 1 else DE_UNITS[h]) + "hundert" + tail


def de_int(n: int) -> str | None:
    if n < 0:
        inner = de_int(-n)
        return inner and "minus " + inner
    if n < 1000:
        return _de_below_1000(n)
    if n < 10**6:
        th, r = divmod(n, 1000)
        head = _de_below_1000(th)
        head = head[:-1] if head.endswith("eins") else head
        return ("ein" if th == 1 else head) + "tausend" + (_de_below_1000(r) if r else "")
    if n < 10**9:
        m, r = divmod(n, 10**6)
        head = "eine Million" if m == 1 else de_int(m) + " Millionen"
        return head + (" " + de_int(r) if r else "")
    return None


RU_UNITS = (
    "ноль один два три четыре пять шесть семь восемь девять десять одиннадцать двенадцать тринадцать "
    "четырнадцать пятнадцать шестнадцать семнадцать восемнадцать девятнадцать"
).split()
RU_TENS = {2: "двадцать", 3: "тридцать", 4: "сорок", 5: "пятьдесят", 6: "шестьдесят", 7: "семьдесят"}
RU_TENS.update({8: "восемьдесят", 9: "девяносто"})
RU_HUNDREDS = "_ сто двести триста четыреста пятьсот шестьсот семьсот восемьсот девятьсот".split()
RU_GEN_UNITS = (
    "нуля одного двух трёх четырёх пяти шести семи восьми девяти десяти одиннадцати двенадцати тринадцати "
    "четырнадцати пятнадцати шестнадцати семнадцати восемнадцати девятнадцати"
).split()
RU_GEN_TENS = {2: "двадцати", 3: "тридцати", 4: "сорока", 5: "пятидесяти", 6: "шестидесяти", 7: "семидесяти"}
RU_GEN_TENS.update({8: "восьмидесяти", 9: "девяноста"})
RU_GEN_HUNDREDS = "_ ста двухсот трёхсот четырёхсот пятисот шестисот семисот восьмисот девятисот".split()
RU_ORD = {
    1: "перв",
    2: "втор",
    3: "треть",
    4: "четвёрт",
    5: "пят",
    6: "шест",
    7: "седьм",
    8: "восьм",
    9: "девят",
    10: "десят",
}
RU_ORD.update({n: RU_UNITS[n][:-1] for n in range(11, 20)})
RU_ORD.update({20: "двадцат", 30: "тридцат", 40: "сороков", 50: "пятидесят", 60: "шестидесят", 70: "семидесят"})
RU_ORD.update({80: "восьмидесят", 90: "девяност", 100: "сот", 200: "двухсот", 300: "трёхсот", 400: "четырёхсот"})
RU_ORD.update({500: "пятисот", 600: "шестисот", 700: "семисот", 800: "восьмисот", 900: "девятисот"})
RU_ORD.update({1000: "тысячн", 10000: "десятитысячн"})


def ru_plural(n: int, one: str, few: str, many: str) -> str:
    n = abs(n)
    if n % 10 == 1 and n % 100 != 11:
        return one
    if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14:
        return few
    return many


def _ru_below_1000(n: int, feminine: bool = False) -> list[str]:
    h, r = divmod(n, 100)
    words = [RU_HUNDREDS[h]] if h else []
    if r >= 20:
        words.append(RU_TENS[r // 10])
        r %= 10
    if r:
        words.append({1: "одна", 2: "две"}.get(r, RU_UNITS[r]) if feminine else RU_UNITS[r])
    return words


def ru_int(n: int, feminine: bool = False) -> str | None:
    if n < 0:
        inner = ru_int(-n, feminine)
        return inner and "минус " + inner
    if n == 0:
        return "ноль"
    if n >= 10**9:
        return None
    m, rest = divmod(n, 10**6)
    th, r = divmod(rest, 1000)
    words = []
    if m:
        words += _ru_below_1000(m) + [ru_plural(m, "миллион", "миллиона", "миллионов")]
    if th:
        words += ([] if th == 1 else _ru_below_1000(th, True)) + [ru_plural(th, "тысяча", "тысячи", "тысяч")]
    words += _ru_below_1000(r, feminine)
    return " ".join(words)


def ru_genitive(n: int) -> str | None:
    if not 0 <= n < 1000:
        return None
    h, r = divmod(n, 100)
    words = [RU_GEN_HUNDREDS[h]] if h else []
    if r >= 20:
        words.append(RU_GEN_TENS[r // 10])
        r %= 10
    if r or not words:
        words.append(RU_GEN_UNITS[r])
    return " ".join(words)


TR_UNITS = "sıfır bir iki üç dört beş altı yedi sekiz dokuz".split()
TR_TENS = "_ on yirmi otuz kırk elli altmış yetmiş seksen doksan".split()


def _tr_below_1000(n: int) -> list[str]:
    h, r = divmod(n, 100)
    words = ([] if h == 0 else ["yüz"] if h == 1 else [TR_UNITS[h], "yüz"]) + ([TR_TENS[r // 10]] if r >= 10 else [])
    return words + ([TR_UNITS[r % 10]] if r % 10 else [])


def tr_int(n: int) -> str | None:
    if n < 0:
        inner = tr_int(-n)
        return inner and "eksi " + inner
    if n == 0:
        return "sıfır"
    if n >= 10**9:
        return None
    m, rest = divmod(n, 10**6)
    th, r = divmod(rest, 1000)
    words = (_tr_below_1000(m) + ["milyon"] if m else []) + (
        (["bin"] if th == 1 else _tr_below_1000(th) + ["bin"]) if th else []
    )
    return " ".join(words + _tr_below_1000(r))


TR_LOCATIVE = {"bir": "de", "iki": "de", "üç": "te", "dört": "te", "beş": "te", "altı": "da", "yedi": "de"}
TR_LOCATIVE.update({"sekiz": "de", "dokuz": "da", "on": "da", "yirmi": "de", "otuz": "da", "kırk": "ta"})
TR_LOCATIVE.update({"elli": "de", "altmış": "ta", "yetmiş": "te", "seksen": "de", "doksan": "da", "yüz": "de"})
TR_LOCATIVE.update({"bin": "de", "milyon": "da"})

ZH_DIGITS = "零一二三四五六七八九"


def _zh_section(n: int) -> str:
    out, pending = "", False
    for power, unit in ((1000, "千"), (100, "百"), (10, "十"), (1, "")):
        d = n // power % 10
        if d:
            out += ("零" if pending else "") + ZH_DIGITS[d] + unit
            pending = False
        elif out:
            pending = True
    return out


def zh_int(n: int) -> str | None:
    if n < 0:
        return "负" + zh_int(-n)
    if n == 0:
        return "零"
    if n >= 10**16:
        return None
    sections = [(n // 10**12 % 10**4, "万亿"), (n // 10**8 % 10**4, "亿"), (n // 10**4 % 10**4, "万"), (n % 10**4, "")]
    out, gap = "", False
    for value, unit in sections:
        if not value:
            gap = bool(out)
            continue
        if out and (gap or value < 1000):
            out += "零"
        out += _zh_section(value) + unit
        gap = False
    return out[1:] if out.startswith("一十") else out


def _ja_section(n: int) -> str:
    out = ""
    for power, unit in ((1000, "千"), (100, "百"), (10, "十"), (1, "")):
        d = n // power % 10
        if d:
            out += ("" if d == 1 and unit else ZH_DIGITS[d]) + unit
    return out


def ja_int(n: int) -> str | None:
    if n < 0:
        return "マイナス" + ja_int(-n)
    if n == 0:
        return "零"
    if n >= 10**12:
        return None
    sections = ((n // 10**8 % 10**4, "億"), (n // 10**4 % 10**4, "万"), (n % 10**4, ""))
    out = ""
    for value, unit in sections:
        if value:
            out += ("一" if out and value // 1000 == 1 else "") + _ja_section(value) + unit
    return out


JA_KANA_ONES = "_ いち に さん よん ご ろく なな はち きゅう".split()
JA_KANA_TENS = "_ じゅう にじゅう さんじゅう よんじゅう ごじゅう ろくじゅう ななじゅう はちじゅう きゅうじゅう".split()
JA_KANA_HUNDREDS = (
    "_ ひゃく にひゃく さんびゃく よんひゃく ごひゃく ろっぴゃく ななひゃく はっぴゃく きゅうひゃく".split()
)
JA_KANA_THOUSANDS = "_ せん にせん さんぜん よんせん ごせん ろくせん ななせん はっせん きゅうせん".split()


def ja_kana(n: int) -> str | None:
    if n < 0:
        inner = ja_kana(-n)
        return inner and "マイナス" + inner
    if not 0 < n < 10000:
        return None
    th, h, t, u = n // 1000, n // 100 % 10, n // 10 % 10, n % 10
    parts = (JA_KANA_THOUSANDS[th], JA_KANA_HUNDREDS[h], JA_KANA_TENS[t], JA_KANA_ONES[u])
    return "".join(p for p in parts if p != "_")


KO_DIGITS = "영 일 이 삼 사 오 육 칠 팔 구".split()


def _ko_section(n: int) -> str:
    out = ""
    for power, unit in ((1000, "천"), (100, "백"), (10, "십"), (1, "")):
        d = n // power % 10
        if d:
            out += ("" if d == 1 and unit else KO_DIGITS[d]) + unit
    return out


def ko_int(n: int) -> str | None:
    if n < 0:
        inner = ko_int(-n)
        return inner and "마이너스 " + inner
    if n == 0:
        return "영"
    if n >= 10**12:
        return None
    groups = []
    for value, unit in ((n // 10**8 % 10**4, "억"), (n // 10**4 % 10**4, "만"), (n % 10**4, "")):
        if value:
            groups.append(("" if value == 1 and unit == "만" else _ko_section(value)) + unit)
    return " ".join(groups)


INT_WORDS = {"es": es_int, "pt": pt_int, "fr": fr_int, "it": it_int, "de": de_int, "ru": ru_int, "tr": tr_int}
INT_WORDS.update({"zh": zh_int, "ja": ja_int, "ko": ko_int})


def words(lang: str, n: int) -> str | None:
    """The cardinal `n` in words in `lang` (None where this module does not write it)."""
    return INT_WORDS[lang](n)


# --- fractions, decimals, mixed numbers in words -----------------------------------------------------------------

ES_DENOM = {2: "medio", 3: "tercio", 4: "cuarto", 5: "quinto", 6: "sexto", 7: "séptimo", 8: "octavo", 9: "noveno"}
ES_DENOM.update({10: "décimo", 100: "centésimo", 1000: "milésimo"})
PT_DENOM = {2: "meio", 3: "terço", 4: "quarto", 5: "quinto", 6: "sexto", 7: "sétimo", 8: "oitavo", 9: "nono"}
PT_DENOM.update({10: "décimo", 100: "centésimo", 1000: "milésimo"})
IT_DENOM = {2: "mezz", 3: "terz", 4: "quart", 5: "quint", 6: "sest", 7: "settim", 8: "ottav", 9: "non", 10: "decim"}
FR_DENOM = {2: "demi", 3: "tiers", 4: "quart"}


def _fr_ordinal(n: int) -> str:
    w = fr_int(n)
    if w.endswith("cinq"):
        return w + "uième"
    if w.endswith("neuf"):
        return w[:-1] + "vième"
    w = w.removesuffix("s") if w.endswith(("cents", "vingts")) else w
    return (w[:-1] if w.endswith("e") else w) + "ième"


def _it_ordinal_stem(n: int) -> str:
    if n in IT_DENOM:
        return IT_DENOM[n]
    w = it_int(n).replace("tré", "tre")
    return (w if w.endswith("sei") or w.endswith("tre") else w[:-1]) + "esim"


def _de_denominator(n: int) -> str:
    if n in (100, 1000):
        return {100: "Hundertstel", 1000: "Tausendstel"}[n]
    if n == 3:
        return "Drittel"
    if n == 7:
        return "Siebtel"
    if n == 8:
        return "Achtel"
    w = de_int(n)
    if w is None or " " in w:
        return None
    w = w.removeprefix("ein") if w.startswith(("einhundert", "eintausend")) else w
    return (w + ("tel" if n < 20 else "stel")).capitalize()


def _ru_fraction(p: int, q: int) -> str | None:
    if q > 1000 and q != 10000:
        return None
    if q in RU_ORD:
        head, stem = "", RU_ORD[q]
    else:
        last = q % 10 or q % 100 or q % 1000
        if last not in RU_ORD:
            last = q % 10
        head, stem = ru_int(q - last) + " ", RU_ORD[last]
    if p % 10 == 1 and p % 100 != 11:
        ending = "я" if stem.endswith("ь") else "ая"
    else:
        ending = "их" if stem.endswith("ь") else "ых"
    return f"{ru_int(p, feminine=True)} {head}{stem}{ending}"


def fraction_words(lang: str, value: Fraction) -> str | None:
    """A fraction in words as a teacher of `lang` writes it ("tres cuartos", "drei Viertel", "四分之三")."""
    sign, value = ("-" if value < 0 else ""), abs(value)
    p, q = value.numerator, value.denominator
    if q == 1:
        return words(lang, int(value) * (-1 if sign else 1))
    if lang == "zh":
        return ("负" if sign else "") + zh_int(q) + "分之" + zh_int(p)
    if lang == "ja":
        return ("マイナス" if sign else "") + ja_int(q) + "分の" + ja_int(p)
    if lang == "ko":
        return ("마이너스 " if sign else "") + ko_int(q) + "분의 " + ko_int(p)
    neg = {"es": "menos ", "pt": "menos ", "fr": "moins ", "it": "meno ", "de": "minus ", "ru": "минус "}
    neg["tr"] = "eksi "
    prefix = neg[lang] if sign else ""
    if lang == "es":
        if q not in ES_DENOM:
            return prefix + f"{es_int(p)} sobre {es_int(q)}"
        if q == 2:
            return prefix + ("un medio" if p == 1 else f"{es_int(p)} medios")
        return prefix + ("un " + ES_DENOM[q] if p == 1 else f"{_es_apocope(es_int(p))} {ES_DENOM[q]}s")
    if lang == "pt":
        if q not in PT_DENOM:
            return prefix + ("um" if p == 1 else pt_int(p)) + f" {pt_int(q)} avos"
        return prefix + ("um " + PT_DENOM[q] if p == 1 else f"{pt_int(p)} {PT_DENOM[q]}s")
    if lang == "fr":
        name = FR_DENOM.get(q) or _fr_ordinal(q)
        plural = p > 1 and not name.endswith("s")
        return prefix + ("un" if p == 1 else fr_int(p)) + " " + name + ("s" if plural else "")
    if lang == "it":
        stem = _it_ordinal_stem(q)
        return prefix + ("un " + stem + "o" if p == 1 else f"{it_int(p)} {stem}i")
    if lang == "de":
        name = _de_denominator(q)
        if name is None:
            return None
        if q == 2:
            return prefix + ("ein Halb" if p == 1 else f"{de_int(p)} Halbe")
        return prefix + ("ein" if p == 1 else de_int(p)) + " " + name
    if lang == "ru":
        inner = _ru_fraction(p, q)
        return inner and prefix + inner
    if lang == "tr":
        qw, pw = tr_int(q), tr_int(p)
        last = qw.split()[-1]
        return prefix + f"{qw}{TR_LOCATIVE[last]} {pw}"
    return None


def mixed_words(lang: str, whole: int, frac: Fraction) -> str | None:
    """A mixed number in words ("uno y cuatro quintos", "hundertsiebenunddreißigeinhalb", "一又五分之四")."""
    fw = fraction_words(lang, frac)
    if fw is None:
        return None
    if frac == Fraction(1, 2):
        half = {"de": de_int(whole) + "einhalb", "ru": ru_int(whole) + " с половиной", "tr": tr_int(whole) + " buçuk"}
        half.update(
            {"es": es_int(whole) + " y medio", "pt": pt_int(whole) + " e meio", "it": it_int(whole) + " e mezzo"}
        )
        half["fr"] = fr_int(whole) + " et demi"
        if lang in half:
            return half[lang]
    if lang == "zh":
        return zh_int(whole) + "又" + fw
    if lang == "ja":
        return f"{whole}と{frac.denominator}分の{frac.numerator}"
    if lang == "ko":
        return ko_int(whole) + "과 " + fw if whole % 10 in (0, 1, 3, 6, 7, 8) else None
    joiner = {"es": " y ", "pt": " e ", "fr": " et ", "it": " e ", "de": " und ", "tr": " tam "}
    if lang == "ru":
        return ru_int(whole, feminine=True) + " " + ru_plural(whole, "целая", "целых", "целых") + " " + fw
    first = words(lang, whole)
    return first + joiner[lang] + fw


def decimal_words(lang: str, text: str) -> str | None:
    """A terminating decimal in words ("tres coma veintiuno", "drei Komma zwei eins", "三点二一")."""
    sign = text.startswith("-")
    whole, _, digits = text.lstrip("-").partition(".")
    whole = int(whole or 0)
    if not digits or len(digits) > 3 or digits.startswith("0"):
        return None
    neg = {"es": "menos ", "pt": "menos ", "fr": "moins ", "it": "meno ", "de": "minus ", "ru": "минус "}
    neg.update({"tr": "eksi ", "zh": "负", "ko": "마이너스 ", "ja": "マイナス"})
    prefix = neg[lang] if sign else ""
    if lang == "zh":
        return prefix + zh_int(whole) + "点" + "".join(ZH_DIGITS[int(d)] for d in digits)
    if lang == "ko":
        return prefix + ko_int(whole) + "점" + "".join(KO_DIGITS[int(d)] for d in digits)
    if lang == "de":
        return prefix + de_int(whole) + " Komma " + " ".join(DE_UNITS[int(d)] for d in digits)
    if lang == "ru":
        frac = _ru_fraction(int(digits), 10 ** len(digits))
        return prefix + f"{ru_int(whole, True)} {ru_plural(whole, 'целая', 'целых', 'целых')} {frac}"
    comma = {"es": " coma ", "pt": " vírgula ", "fr": " virgule ", "it": " virgola ", "tr": " virgül "}
    if lang in comma:
        return prefix + words(lang, whole) + comma[lang] + words(lang, int(digits))
    return None


# --- locale digits ---------------------------------------------------------------------------------------------


def group_int(n: int, sep: str) -> str:
    text = str(abs(n))
    if sep:
        chunks = []
        while text:
            chunks.insert(0, text[-3:])
            text = text[:-3]
        text = sep.join(chunks)
    return ("-" if n < 0 else "") + text


def fmt_number(lang: str, text: str, variant: int = 0) -> str:
    """A plain decimal string ("-1440.5") in `lang`'s digits; variant 1 uses another usual separator."""
    sign = "-" if text.startswith("-") else ""
    whole, _, digits = text.lstrip("-").partition(".")
    sep = GROUP[lang]
    if variant == 1:
        sep = {"de": "’", "fr": " ", "ru": "\u202f", "es": " ", "zh": "", "ja": "", "ko": ""}.get(lang, "")
    whole_text = group_int(int(whole or 0), sep if len(whole) > 4 or (len(whole) == 4 and lang != "es") else "")
    point = "." if (lang not in COMMA_DECIMAL or (lang == "de" and variant == 1)) else ","
    minus = "−" if (variant == 1 and lang in ("fr", "de", "ru")) else "-"
    return (minus if sign else "") + whole_text + (point + digits if digits else "")


# --- parsing answers ---------------------------------------------------------------------------------------------


def _clean(latex: str) -> str:
    text = re.sub(r"\\[!,;]|\\left|\\right|\\displaystyle", "", latex)
    text = text.replace("\\dfrac", "\\frac").replace("\\tfrac", "\\frac")
    return re.sub(r"\s+", " ", text).strip()


def _braced(text: str, i: int) -> tuple[str, int]:
    """The argument at text[i]: a {group} or one character."""
    while i < len(text) and text[i] == " ":
        i += 1
    if text[i] != "{":
        return text[i], i + 1
    depth = 0
    for j in range(i, len(text)):
        depth += {"{": 1, "}": -1}.get(text[j], 0)
        if depth == 0:
            return text[i + 1 : j], j + 1
    raise ValueError(text)


def _split_top(text: str, sep: str = ",") -> list[str]:
    parts, depth, cur = [], 0, ""
    for ch in text:
        depth += 1 if ch in "([{" else -1 if ch in ")]}" else 0
        if ch == sep and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    return [*parts, cur.strip()]


def latex_to_python(latex: str) -> str:
    """A python/sympy expression string for the numeric or symbolic LaTeX of MATH-500 answers."""
    text = _clean(latex)
    out, i = "", 0
    while i < len(text):
        if text.startswith("\\frac", i):
            a, i = _braced(text, i + 5)
            b, i = _braced(text, i)
            out += f"(({latex_to_python(a)})/({latex_to_python(b)}))"
        elif text.startswith("\\sqrt", i):
            a, i = _braced(text, i + 5)
            out += f"sqrt({latex_to_python(a)})"
        elif text.startswith("\\pi", i):
            out += " pi "
            i += 3
        elif text.startswith("\\cot", i):
            out += " cot"
            i += 4
        elif text[i] == "^":
            a, i = _braced(text, i + 1)
            out += f"**({latex_to_python(a)})"
        elif text[i] in "{}":
            out += "(" if text[i] == "{" else ")"
            i += 1
        else:
            out += text[i]
            i += 1
    return out


@cache
def sympy_of(latex: str):
    from sympy.parsing.sympy_parser import (
        convert_xor,
        implicit_multiplication_application,
        parse_expr,
        standard_transformations,
    )

    transformations = (*standard_transformations, implicit_multiplication_application, convert_xor)
    local = {"I": sp.I, "i": sp.I, "pi": sp.pi, "sqrt": sp.sqrt, "cot": sp.cot, "E": sp.Symbol("E")}
    try:
        return parse_expr(latex_to_python(latex), local_dict=local, transformations=transformations)
    except Exception:  # noqa: BLE001 - an answer the small parser cannot read is treated symbolically
        return None


def numeric_value(latex: str):
    """The exact sympy number of a numeric LaTeX answer, or None."""
    value = sympy_of(latex)
    if value is None or value.free_symbols:
        return None
    return sp.Rational(str(value)) if value.is_Float else value


UNIT_PATTERNS = (
    (r"\^\s*\\circ$", "degree"),
    (r"\\text\{\s*degrees\}$", "degree"),
    (r"\\text\{\s*cents\}$", "cent"),
    (r"\\mbox\{\s*inches\}\^2$", "sq_inch"),
    (r"\\mbox\{\s*cm\}\^2$", "sq_cm"),
)


@cache
def parse(latex: str, atype: str) -> tuple:
    """The answer's shape: (kind, ...) with kind int, frac, dec, mixed, num, sym, interval, seq, set, matrix,
    choice, text, units, base."""
    text = _clean(latex)
    if atype in ("small integer", "negative integer", "large integer"):
        return ("int", int(text.replace(",", "").replace(" ", "")))
    if atype == "decimal":
        return (
            "dec",
            ("-" if text.startswith("-") else "")
            + ("0" if text.lstrip("-").startswith(".") else "")
            + text.lstrip("-"),
        )
    if atype == "fraction":
        return ("frac", Fraction(str(numeric_value(text))))
    if atype == "mixed number":
        whole, rest = re.fullmatch(r"(\d+)\s*(\\frac.*)", text).groups()
        return ("mixed", int(whole), Fraction(str(numeric_value(rest))))
    if atype == "multiple choice":
        return ("choice", re.search(r"[A-H]", text).group())
    if atype == "text answer":
        return ("text", re.fullmatch(r"\\text\{\s*(.*?)\s*\}", text).group(1))
    if atype == "base-n number":
        digits, base = re.fullmatch(r"(\d+)_\{?(\d+)\}?", text.replace(" ", "")).groups()
        return ("base", digits, int(base))
    if atype == "units/degrees/money":
        if "\\$" in text:
            return ("units", text.replace("\\$", "").replace(",", "").strip(), "dollar")
        for pattern, unit in UNIT_PATTERNS:
            if re.search(pattern, text):
                return ("units", re.sub(pattern, "", text).strip(), unit)
        return ("sym", text)
    if atype == "matrix/vector":
        body = re.search(r"\\begin\{[pb]matrix\}(.*)\\end", text).group(1)
        return ("matrix", tuple(tuple(c.strip() for c in row.split("&")) for row in body.split("\\\\")))
    if atype == "interval":
        return ("interval", text)
    if atype in ("ordered pair", "tuple"):
        return ("seq", tuple(_split_top(text.strip()[1:-1])))
    if atype == "set/list":
        inner = text[2:-2] if text.startswith("\\{") else text
        items = []
        for item in _split_top(inner):
            if "\\pm" in item:
                a, b = item.split("\\pm")
                items += [f"{a.strip()} + {b.strip()}", f"{a.strip()} - {b.strip()}"]
            else:
                items.append(item)
        return ("set", tuple(items), text)
    if atype in ("radical", "multiple of pi", "complex number") and numeric_value(text) is not None:
        return ("num", text)
    return ("sym", text)


# --- plain and local LaTeX of a component ------------------------------------------------------------------------

SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


def to_plain(latex: str, lang: str = "zh", minus: str = "-") -> str:
    """Unicode plain text of a LaTeX component (3/4, 3√13, π/6, x⁵ − x⁴, ∞), with `lang`'s decimal separator."""
    text = _clean(latex)
    text = text.replace("\\pi", "π").replace("\\infty", "∞").replace("\\cup", "∪").replace("\\cdot", "·")
    text = re.sub(r"\^\{?(\d+)\}?", lambda m: m.group(1).translate(SUPERSCRIPT), text)
    text = re.sub(r"(\d)\s+(?=[π\\a-zA-Z])", r"\1", text)

    def frac(match):
        a, b = match.group(1).strip(), match.group(2).strip()
        a = a if re.fullmatch(r"[\w√π.²³⁴⁵⁶⁷⁸⁹]+", a) else f"({a})"
        b = b if re.fullmatch(r"[\w√π.²³⁴⁵⁶⁷⁸⁹]+", b) else f"({b})"
        return f"{a}/{b}"

    for _ in range(3):
        text = re.sub(
            r"\\sqrt\{([^{}]+)\}", lambda m: "√" + (m.group(1) if m.group(1).isalnum() else f"({m.group(1)})"), text
        )
        text = re.sub(r"\\sqrt(\w)", r"√\1", text)
        text = re.sub(r"\\frac\{([^{}]+)\}\{([^{}]+)\}", frac, text)
        text = re.sub(r"\\frac\s*(\w)\s*\{([^{}]+)\}", frac, text)
        text = re.sub(r"\\frac\s*\{([^{}]+)\}\s*(\w)", frac, text)
        text = re.sub(r"\\frac\s*(\w)\s*(\w)", frac, text)
    text = text.replace("\\le", "≤").replace("\\ge", "≥").replace("\\in", "∈").replace("\\cot", "cot")
    text = re.sub(r"\s*\\\s*", " ", text)
    text = re.sub(r"(?<=[\w)²³⁴⁵⁶⁷⁸π])\s*([-+])\s*", r" \1 ", text)
    if lang in COMMA_DECIMAL:
        text = re.sub(r"(\d)\.(\d)", r"\1,\2", text)
    if lang == "ru":
        text = text.replace("cot", "ctg")
    if minus != "-":
        text = text.replace("-", minus)
    return re.sub(r"\s+", " ", text).strip()


def to_local_latex(latex: str, lang: str) -> str:
    """The LaTeX as written in `lang`: decimal comma as `{,}`, Russian `\\operatorname{ctg}`."""
    text = _clean(latex)
    if lang in COMMA_DECIMAL:
        text = re.sub(r"(\d)\.(\d)", r"\1{,}\2", text)
    if lang == "ru":
        text = text.replace("\\cot", "\\operatorname{ctg}")
    return text


# --- numeric LaTeX in words (radicals, pi) -----------------------------------------------------------------------


def _match_radical(value) -> tuple[int, int, int, int] | None:
    """value = s * k * sqrt(n) / m with integers; (s, k, n, m) or None."""
    s = -1 if value.is_negative else 1
    value = abs(value)
    num, den = sp.fraction(sp.together(value))
    if not (den.is_Integer and num.is_Mul or num.is_Pow):
        return None
    k, rest = num.as_coeff_Mul()
    if not (rest.is_Pow and rest.exp == sp.Rational(1, 2) and rest.base.is_Integer):
        return None
    return s, int(k), int(rest.base), int(den)


def _match_pi(value) -> tuple[Fraction, bool] | None:
    """value = c * pi (True) or c / pi (False)."""
    c = sp.cancel(value / sp.pi)
    if c.is_Rational:
        return Fraction(int(c.p), int(c.q)), True
    c = sp.cancel(value * sp.pi)
    if c.is_Rational:
        return Fraction(int(c.p), int(c.q)), False
    return None


def _root(lang: str, n: int, k: int) -> str | None:
    """k times the square root of n, in words."""
    nw = words(lang, n)
    if lang == "zh":
        return ("" if k == 1 else zh_int(k) + "倍") + "根号" + zh_int(n)
    if lang == "ja":
        return ("" if k == 1 else str(k)) + "ルート" + str(n)
    if lang == "ko":
        return ("" if k == 1 else str(k)) + "루트 " + str(n)
    if lang == "ru":
        gen = ru_genitive(n)
        if gen is None:
            return None
        if k == 1:
            return f"квадратный корень из {gen}"
        return f"{ru_int(k)} {ru_plural(k, 'корень', 'корня', 'корней')} из {gen}"
    forms = {
        "es": ("la raíz cuadrada de {n}", "{k} veces la raíz cuadrada de {n}"),
        "pt": ("a raiz quadrada de {n}", "{k} vezes a raiz quadrada de {n}"),
        "fr": ("racine carrée de {n}", "{k} racine de {n}"),
        "it": ("la radice quadrata di {n}", "{k} radice di {n}"),
        "de": ("die Wurzel aus {n}", "{k}mal die Wurzel aus {n}"),
        "tr": ("karekök {n}", "{k} kök {n}"),
    }
    one, many = forms[lang]
    kw = words(lang, k)
    if lang == "pt":
        kw = re.sub(r"\bum$", "uma", re.sub(r"\bdois$", "duas", re.sub(r"entos\b", "entas", kw)))
    return (one if k == 1 else many).format(n=nw, k=kw)


@cache
def numeric_words(lang: str, latex: str) -> str | None:
    """Radicals and multiples of pi in words where the shape is simple (k√n/m, cπ, c/π); None otherwise."""
    value = numeric_value(latex)
    if value is None or value.is_Rational or not value.is_real:
        return None
    radical = _match_radical(value)
    neg = {"es": "menos ", "pt": "menos ", "fr": "moins ", "it": "meno ", "de": "minus ", "ru": "минус "}
    neg.update({"tr": "eksi ", "zh": "负", "ko": "마이너스 ", "ja": "マイナス"})
    if radical:
        s, k, n, m = radical
        root = _root(lang, n, k)
        if root is None:
            return None
        prefix = neg[lang] if s < 0 else ""
        if m == 1:
            return prefix + root
        if lang == "zh":
            return prefix + zh_int(m) + "分之" + root
        if lang == "ja":
            return prefix + f"{m}分の" + root
        if lang == "ko":
            return prefix + f"{m}분의 " + root
        over = {"es": " entre ", "pt": " sobre ", "fr": " sur ", "it": " fratto ", "de": " durch ", "ru": " на "}
        over["tr"] = " bölü "
        if lang == "ru":
            return prefix + root + " на " + words(lang, m)
        return prefix + root.removeprefix("la ").removeprefix("a ").removeprefix("die ") + over[lang] + words(lang, m)
    pi = _match_pi(value)
    if pi is None:
        return None
    c, times = pi
    s, c = (-1 if c < 0 else 1), abs(c)
    prefix = neg[lang] if s < 0 else ""
    pi_word = {"zh": "π", "ja": "π", "ko": "파이", "ru": "пи", "de": "Pi"}.get(lang, "pi")
    p, q = c.numerator, c.denominator
    if not times:
        if q != 1:
            return None
        if lang in ("zh", "ja", "ko"):
            return None
        over = {"es": "sobre", "pt": "sobre", "fr": "sur", "it": "fratto", "de": "durch", "ru": "на", "tr": "bölü"}
        return prefix + f"{words(lang, p)} {over[lang]} {pi_word}"
    if lang == "zh":
        return prefix + (zh_int(q) + "分之" if q > 1 else "") + (zh_int(p) if p > 1 else "") + "π"
    if lang == "ja":
        return prefix + (f"{q}分の" if q > 1 else "") + (str(p) if p > 1 else "") + "π"
    if lang == "ko":
        return prefix + (f"{q}분의 " if q > 1 else "") + (ko_int(p) if p > 1 else "") + "파이"
    head = "" if p == 1 else words(lang, p) + " "
    if q == 1:
        return prefix + head + pi_word
    over = {"es": "entre", "pt": "sobre", "fr": "sur", "it": "fratto", "de": "durch", "ru": "на", "tr": "bölü"}
    return prefix + f"{head}{pi_word} {over[lang]} {words(lang, q)}"


# --- translations ----------------------------------------------------------------------------------------------

TEXT_WORDS = {
    "east": {"zh": "东", "ja": "東", "ko": "동쪽", "es": "este", "pt": "leste", "fr": "est", "it": "est"},
    "even": {"zh": "偶函数", "ja": "偶関数", "ko": "우함수", "es": "par", "pt": "par", "fr": "paire", "it": "pari"},
    "ellipse": {"zh": "椭圆", "ja": "楕円", "ko": "타원", "es": "elipse", "pt": "elipse", "fr": "ellipse"},
    "Evelyn": {"zh": "伊芙琳", "ja": "エヴリン", "ko": "에블린", "ru": "Эвелин"},
    "Navin": {"zh": "纳文", "ja": "ナヴィン", "ko": "나빈", "ru": "Навин"},
}
TEXT_WORDS["east"].update({"de": "Osten", "ru": "восток", "tr": "doğu"})
TEXT_WORDS["even"].update({"de": "gerade", "ru": "чётная", "tr": "çift"})
TEXT_WORDS["ellipse"].update({"it": "ellisse", "de": "Ellipse", "ru": "эллипс", "tr": "elips"})
TEXT_SENTENCES = {
    "east": {
        "zh": "她最后面向{t}方",
        "ja": "最後は{t}を向いています",
        "ko": "마지막에는 {t}을 향합니다",
        "es": "al final mira hacia el {t}",
        "pt": "no final ela está virada para o {t}",
        "fr": "elle finit tournée vers l'{t}",
        "it": "alla fine guarda verso {t}",
        "de": "am Ende schaut sie nach {t}",
        "ru": "в конце она смотрит на {t}",
        "tr": "sonunda {t} yönüne bakıyor",
    },
    "even": {
        "zh": "这个复合函数是{t}",
        "ja": "この合成関数は{t}です",
        "ko": "이 합성함수는 {t}입니다",
        "es": "la función compuesta es {t}",
        "pt": "a função composta é {t}",
        "fr": "la fonction composée est {t}",
        "it": "la funzione composta è {t}",
        "de": "die verkettete Funktion ist {t}",
        "ru": "эта композиция — {t} функция",
        "tr": "bileşke fonksiyon {t} fonksiyondur",
    },
    "ellipse": {
        "zh": "这条曲线是{t}",
        "ja": "このグラフは{t}です",
        "ko": "이 그래프는 {t}입니다",
        "es": "la gráfica es una {t}",
        "pt": "o gráfico é uma {t}",
        "fr": "la courbe est une {t}",
        "it": "il grafico è un'{t}",
        "de": "der Graph ist eine {t}",
        "ru": "это {t}",
        "tr": "grafik bir {t}",
    },
}
TEXT_WRONG = {"east": ("west", "north", "south"), "even": ("odd", "neither"), "ellipse": ("hyperbola", "parabola")}
TEXT_WRONG.update({"Evelyn": ("Alice", "Debby", "Carla"), "Navin": ("Luka", "Ian")})
WRONG_WORDS = {
    "west": {"zh": "西", "ja": "西", "ko": "서쪽", "es": "oeste", "pt": "oeste", "fr": "ouest", "it": "ovest"},
    "north": {"zh": "北", "ja": "北", "ko": "북쪽", "es": "norte", "pt": "norte", "fr": "nord", "it": "nord"},
    "south": {"zh": "南", "ja": "南", "ko": "남쪽", "es": "sur", "pt": "sul", "fr": "sud", "it": "sud"},
    "odd": {
        "zh": "奇函数",
        "ja": "奇関数",
        "ko": "기함수",
        "es": "impar",
        "pt": "ímpar",
        "fr": "impaire",
        "it": "dispari",
    },
    "neither": {"zh": "非奇非偶函数", "ja": "偶関数でも奇関数でもない関数", "ko": "홀함수도 짝함수도 아닌 함수"},
    "hyperbola": {
        "zh": "双曲线",
        "ja": "双曲線",
        "ko": "쌍곡선",
        "es": "hipérbola",
        "pt": "hipérbole",
        "fr": "hyperbole",
    },
    "parabola": {"zh": "抛物线", "ja": "放物線", "ko": "포물선", "es": "parábola", "pt": "parábola", "fr": "parabole"},
}
WRONG_WORDS["west"].update({"de": "Westen", "ru": "запад", "tr": "batı"})
WRONG_WORDS["north"].update({"de": "Norden", "ru": "север", "tr": "kuzey"})
WRONG_WORDS["south"].update({"de": "Süden", "ru": "юг", "tr": "güney"})
WRONG_WORDS["odd"].update({"de": "ungerade", "ru": "нечётная", "tr": "tek"})
WRONG_WORDS["neither"].update({"es": "ni par ni impar", "pt": "nem par nem ímpar", "fr": "ni paire ni impaire"})
WRONG_WORDS["neither"].update({"it": "né pari né dispari", "de": "weder gerade noch ungerade", "tr": "ne tek ne çift"})
WRONG_WORDS["neither"]["ru"] = "ни чётная, ни нечётная"
WRONG_WORDS["hyperbola"].update({"it": "iperbole", "de": "Hyperbel", "ru": "гипербола", "tr": "hiperbol"})
WRONG_WORDS["parabola"].update({"it": "parabola", "de": "Parabel", "ru": "парабола", "tr": "parabol"})

UNIT_WORDS = {
    "degree": {
        "zh": "{v}度",
        "ja": "{v}度",
        "ko": "{v}도",
        "es": "{v} grados",
        "pt": "{v} graus",
        "fr": "{v} degrés",
        "it": "{v} gradi",
        "de": "{v} Grad",
        "tr": "{v} derece",
    },
    "cent": {
        "zh": "{v}美分",
        "ja": "{v}セント",
        "ko": "{v}센트",
        "es": "{v} centavos",
        "pt": "{v} centavos",
        "fr": "{v} cents",
        "it": "{v} centesimi",
        "de": "{v} Cent",
        "ru": "{v} цента",
        "tr": "{v} sent",
    },
    "dollar": {
        "zh": "{v}美元",
        "ja": "{v}ドル",
        "ko": "{v}달러",
        "es": "{v} dólares",
        "pt": "US$ {v}",
        "fr": "{v} $",
        "it": "{v} dollari",
        "de": "{v} Dollar",
        "tr": "{v} dolar",
    },
    "sq_inch": {
        "zh": "{v}平方英寸",
        "ja": "{v}平方インチ",
        "ko": "{v}제곱인치",
        "es": "{v} pulgadas cuadradas",
        "pt": "{v} polegadas quadradas",
        "fr": "{v} pouces carrés",
        "it": "{v} pollici quadrati",
        "de": "{v} Quadratzoll",
        "tr": "{v} inç kare",
    },
    "sq_cm": {
        "zh": "{v}平方厘米",
        "ja": "{v}平方センチメートル",
        "ko": "{v}제곱센티미터",
        "es": "{v} centímetros cuadrados",
        "pt": "{v} centímetros quadrados",
        "fr": "{v} centimètres carrés",
        "it": "{v} centimetri quadrati",
        "de": "{v} Quadratzentimeter",
        "tr": "{v} santimetrekare",
    },
}
UNIT_SYMBOL = {"degree": "{v}°", "cent": "{v} ¢", "dollar": "${v}", "sq_inch": "{v} in²", "sq_cm": "{v} cm²"}


def _ru_unit(unit: str, value: str) -> str:
    n = int(re.sub(r"\D", "", value)) if re.fullmatch(r"[\d \u202f]+", value) else None
    forms = {
        "degree": ("градус", "градуса", "градусов", "градуса"),
        "dollar": ("доллар", "доллара", "долларов", "доллара"),
        "cent": ("цент", "цента", "центов", "цента"),
        "sq_inch": ("квадратный дюйм", "квадратных дюйма", "квадратных дюймов", "квадратного дюйма"),
        "sq_cm": ("квадратный сантиметр", "квадратных сантиметра", "квадратных сантиметров", "квадратного сантиметра"),
    }[unit]
    return f"{value} " + (ru_plural(n, *forms[:3]) if n is not None else forms[3])


BASE_FRAMES = {
    "zh": "{b}进制的 {d}",
    "ja": "{b}進数で {d}",
    "ko": "{b}진법으로 {d}",
    "es": "{d} en base {b}",
    "pt": "{d} na base {b}",
    "fr": "{d} en base {b}",
    "it": "{d} in base {b}",
    "de": "{d} im {b}er-System",
    "ru": "{d} в системе счисления с основанием {b}",
    "tr": "{b} tabanında {d}",
}
CHOICE_FORMS = {
    "zh": ("选 {c}", "选项 ({c})"),
    "ja": ("選択肢 ({c})", "{c} の選択肢"),
    "ko": ("({c})번", "보기 ({c})"),
    "es": ("la opción ({c})", "el inciso {c}"),
    "pt": ("a alternativa {c}", "a opção ({c})"),
    "fr": ("la réponse ({c})", "la proposition {c}"),
    "it": ("la risposta ({c})", "l'opzione {c}"),
    "de": ("Antwort ({c})", "Option {c}"),
    "ru": ("вариант ({c})", "ответ {c}"),
    "tr": ("{c} şıkkı", "({c}) seçeneği"),
}
QUOTES = {"zh": "“{}”", "ja": "「{}」", "ko": "‘{}’", "ru": "«{}»", "fr": "« {} »", "de": "„{}“", "es": "«{}»"}
QUOTES.update({"pt": "“{}”", "it": "«{}»", "tr": "“{}”"})
PAIR_SEP = {"fr": " ; ", "ru": "; ", "de": " | ", "es": "; ", "pt": "; ", "it": "; ", "tr": "; "}
NEG = {"es": "menos ", "pt": "menos ", "fr": "moins ", "it": "meno ", "de": "minus ", "ru": "минус "}
NEG.update({"tr": "eksi ", "zh": "负", "ko": "마이너스 ", "ja": "マイナス"})
AND = {"zh": "和", "ja": "と", "ko": "그리고", "es": "y", "pt": "e", "fr": "et", "it": "e", "de": "und", "ru": "и"}
AND["tr"] = "ve"


# --- renderings --------------------------------------------------------------------------------------------------


def _scalar_forms(lang: str, latex: str) -> list[tuple[str, str]]:
    """(notation, text) renderings of a scalar LaTeX component in `lang`."""
    text = _clean(latex)
    forms = [("latex", f"${to_local_latex(text, lang)}$"), ("plain", to_plain(text, lang))]
    value = numeric_value(text)
    if value is not None and value.is_Rational:
        f = Fraction(int(value.p), int(value.q))
        if f.denominator == 1:
            forms.append(("digits", fmt_number(lang, str(f.numerator))))
            forms.append(("digits-alt", fmt_number(lang, str(f.numerator), 1)))
            w = words(lang, f.numerator)
            if w:
                forms.append(("words", w))
            if lang == "ja" and ja_kana(f.numerator):
                forms.append(("kana", ja_kana(f.numerator)))
        else:
            fw = fraction_words(lang, f)
            if fw:
                forms.append(("words", fw))
            if re.fullmatch(r"-?\d*\.\d+", text):
                forms.append(
                    (
                        "digits",
                        fmt_number(lang, text if not text.lstrip("-").startswith(".") else text.replace(".", "0.", 1)),
                    )
                )
                dw = decimal_words(lang, text.replace(".", "0.", 1) if text.lstrip("-").startswith(".") else text)
                if dw:
                    forms.append(("words-decimal", dw))
    elif value is not None:
        nw = numeric_words(lang, text)
        if nw:
            forms.append(("words", nw))
    return forms


def _seq_text(lang: str, items: list[str], open_: str, close: str) -> str:
    sep = PAIR_SEP.get(lang, ", ")
    return open_ + sep.join(items) + close


def renderings(lang: str, shape: tuple) -> list[tuple[str, str]]:
    """(notation, text) for the answer `shape` as written in `lang`."""
    return list(_renderings(lang, shape))


@cache
def _renderings(lang: str, shape: tuple) -> tuple[tuple[str, str], ...]:
    kind = shape[0]
    out: list[tuple[str, str]] = []
    if kind == "int":
        n = shape[1]
        out = [("digits", fmt_number(lang, str(n))), ("latex", f"${n}$")]
        if abs(n) >= 1000:
            out.append(("digits-alt", fmt_number(lang, str(n), 1)))
        w = words(lang, n)
        if w and not (lang == "ko" and abs(n) < 10):
            out.append(("words", w))
        if lang == "ja" and ja_kana(n):
            out.append(("kana", ja_kana(n)))
        if lang == "zh" and w:
            out.append(("words+digits", f"{w}（{n}）"))
        return out
    if kind == "frac":
        f = shape[1]
        p, q = f.numerator, f.denominator
        sign = "-" if f < 0 else ""
        out = [
            ("latex", f"${sign}\\frac{{{abs(p)}}}{{{q}}}$"),
            ("plain", f"{sign}{abs(p)}/{q}"),
        ]
        fw = fraction_words(lang, f)
        if fw:
            out.append(("words", fw))
        if lang == "ja":
            out.append(("local", f"{sign and 'マイナス'}{q}分の{abs(p)}"))
        if lang == "ko":
            out.append(("local", f"{sign and '-'}{q}분의 {abs(p)}"))
        if lang == "zh":
            out.append(("local", f"{sign and '负'}{q}分之{abs(p)}"))
        if lang in ("de", "fr", "ru") and q in (2, 4, 5, 8, 10, 20, 25, 40, 50, 100):
            out.append(("decimal", fmt_number(lang, str(float(f)))))
        return out
    if kind == "dec":
        text = shape[1]
        out = [("digits", fmt_number(lang, text)), ("latex", f"${to_local_latex(text, lang)}$")]
        if lang in COMMA_DECIMAL:
            out.append(("mixed-en", text))
        dw = decimal_words(lang, text)
        if dw:
            out.append(("words", dw))
        digits = text.lstrip("-").split(".")[1]
        if digits.startswith("000"):
            mantissa = text.lstrip("-0.").lstrip("0") or "0"
            exp = -(len(digits) - len(digits.lstrip("0")) + 1)
            m = mantissa[0] + ("." + mantissa[1:] if len(mantissa) > 1 else "")
            dot = "·" if lang in ("de", "ru", "fr") else "×"
            out.append(
                ("scientific", f"{fmt_number(lang, m)}{dot}10{str(exp).replace('-', '⁻').translate(SUPERSCRIPT)}")
            )
        return out
    if kind == "mixed":
        whole, frac = shape[1], shape[2]
        out = [
            ("latex", f"${whole}\\frac{{{frac.numerator}}}{{{frac.denominator}}}$"),
            ("plain", f"{whole} {frac.numerator}/{frac.denominator}"),
        ]
        mw = mixed_words(lang, whole, frac)
        if mw:
            out.append(("words", mw))
        if lang in COMMA_DECIMAL and frac.denominator in (2, 4, 5):
            out.append(("decimal", fmt_number(lang, str(whole + frac.numerator / frac.denominator))))
        return out
    if kind == "num":
        text = shape[1]
        out = [("latex", f"${to_local_latex(text, lang)}$"), ("plain", to_plain(text, lang))]
        nw = numeric_words(lang, text)
        if nw:
            out.append(("words", nw))
        if lang == "zh" and "\\sqrt" in text and not re.search(r"\\sqrt\{?\d+\}?\s*\+|\+", text):
            out.append(("local", to_plain(text, lang).replace("√", "根号")))
        if lang in ("de", "ru", "fr") and re.search(r"\d\\(sqrt|pi)", text.replace(" ", "")):
            out.append(("local-dot", re.sub(r"(\d)(√|π)", r"\1·\2", to_plain(text, lang))))
        return out
    if kind == "sym":
        text = shape[1]
        out = [("latex", f"${to_local_latex(text, lang)}$"), ("plain", to_plain(text, lang))]
        if lang in ("de", "ru", "fr") and re.search(r"\d[a-z]", to_plain(text, lang)):
            out.append(("local-dot", re.sub(r"(\d)([a-z])", r"\1·\2", to_plain(text, lang))))
        return out
    if kind == "interval":
        text = shape[1]
        plain = to_plain(text, lang)
        out = [("latex", f"${to_local_latex(text, lang)}$"), ("plain", plain)]
        if lang in ("fr", "de", "ru", "es", "pt", "it", "tr") or lang == "zh":
            local = _local_interval(text, lang)
            if local:
                out.append(("local", local))
        ineq = _inequality(text, lang)
        if ineq:
            out.append(("inequality", ineq))
        return out
    if kind == "seq":
        items = shape[1]
        plains = [to_plain(c, lang) for c in items]
        out = [
            ("latex", "$(" + ", ".join(to_local_latex(c, lang) for c in items) + ")$"),
            ("plain", "(" + ", ".join(plains) + ")"),
        ]
        if lang in PAIR_SEP:
            out.append(("local", _seq_text(lang, plains, "(", ")")))
        if len(items) == 2 and lang in ("zh", "ja", "ko"):
            out.append(
                ("named", f"x = {plains[0]}，y = {plains[1]}" if lang == "zh" else f"x = {plains[0]}, y = {plains[1]}")
            )
        if len(items) == 2 and lang in ("de", "ru", "fr", "it", "pt", "tr"):
            out.append(("named", f"x = {plains[0]} {AND[lang]} y = {plains[1]}"))
        return out
    if kind == "set":
        items, text = shape[1], shape[2]
        plains = [to_plain(c, lang) for c in items]
        out = [("latex", f"${to_local_latex(text, lang)}$"), ("plain", to_plain(text, lang))]
        sep = "; " if lang in COMMA_DECIMAL else ", "
        out.append(("braces", "{" + sep.join(plains) + "}"))
        if lang == "zh":
            out.append(("roots", "，".join(f"x{'₁₂₃'[k]} = {p}" for k, p in enumerate(plains))))
        elif lang in AND:
            out.append(("prose", ", ".join(plains[:-1]) + f" {AND[lang]} " + plains[-1]))
        return out
    if kind == "matrix":
        rows = shape[1]
        env = "pmatrix"
        body = " \\\\ ".join(" & ".join(to_local_latex(c, lang) for c in row) for row in rows)
        out = [("latex", f"$\\begin{{{env}}} {body} \\end{{{env}}}$")]
        if all(len(row) == 1 for row in rows):
            entries = [to_plain(row[0], lang) for row in rows]
            sep = "; " if lang in COMMA_DECIMAL else ", "
            out.append(("plain", "(" + sep.join(entries) + ")"))
            if lang in ("zh", "ja"):
                out.append(("transpose", "(" + ", ".join(entries) + ")ᵀ"))
        else:
            out.append(("plain", "[" + "; ".join(" ".join(to_plain(c, lang) for c in row) for row in rows) + "]"))
        return out
    if kind == "choice":
        c = shape[1]
        return [("letter", form.format(c=c)) for form in CHOICE_FORMS[lang]] + [("bare", f"({c})")]
    if kind == "text":
        word = shape[1]
        local = TEXT_WORDS.get(word, {}).get(lang, word)
        out = [("word", local)]
        sentence = TEXT_SENTENCES.get(word, {}).get(lang)
        if sentence:
            out.append(("sentence", sentence.format(t=local)))
        if local != word:
            out.append(("english", word))
        return out
    if kind == "units":
        value, unit = shape[1], shape[2]
        digits = _unit_value(lang, value)
        out = []
        template = UNIT_WORDS[unit].get(lang)
        out.append(("unit-words", _ru_unit(unit, digits) if lang == "ru" else template.format(v=digits)))
        if unit == "degree":
            out.append(("symbol", f"{digits}°"))
            out.append(("latex", f"${to_local_latex(value, lang)}^\\circ$"))
        elif unit == "dollar":
            out.append(("symbol", f"${digits}" if lang in ("zh", "ja", "ko") else f"{digits} $"))
        else:
            out.append(("symbol", UNIT_SYMBOL[unit].format(v=digits)))
        return out
    if kind == "base":
        digits, base = shape[1], shape[2]
        return [
            ("latex", f"${digits}_{{{base}}}$"),
            ("subscript", f"({digits})" + str(base).translate(str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉"))),
            ("local", BASE_FRAMES[lang].format(d=digits, b=base)),
        ]
    return out


def _unit_value(lang: str, value: str) -> str:
    if re.fullmatch(r"\d+(\.\d+)?", value):
        return fmt_number(lang, value)
    return to_plain(value, lang)


def _interval_pieces(text: str) -> list[tuple[str, str, str, str]] | None:
    text = text.replace("x \\in", "").replace("x\\in", "").strip()
    pieces = []
    for piece in text.split("\\cup"):
        piece = piece.strip()
        if not piece or piece[0] not in "([" or piece[-1] not in ")]":
            return None
        a, b = _split_top(piece[1:-1])
        pieces.append((piece[0], a, b, piece[-1]))
    return pieces


def _local_interval(text: str, lang: str) -> str | None:
    """French/German-style reversed brackets with semicolons, Russian semicolons, Chinese plain."""
    pieces = _interval_pieces(text)
    if not pieces:
        return None
    out = []
    for open_, a, b, close in pieces:
        pa, pb = (
            to_plain(a, lang, "−" if lang in ("fr", "de") else "-"),
            to_plain(b, lang, "−" if lang in ("fr", "de") else "-"),
        )
        if lang in ("fr", "de"):
            o = "]" if open_ == "(" else "["
            c = "[" if close == ")" else "]"
            out.append(f"{o}{pa} ; {pb}{c}" if lang == "fr" else f"{o}{pa}; {pb}{c}")
        elif lang in COMMA_DECIMAL:
            out.append(f"{open_}{pa}; {pb}{close}")
        else:
            out.append(f"{open_}{pa}, {pb}{close}")
    return " ∪ ".join(out)


def _inequality(text: str, lang: str) -> str | None:
    pieces = _interval_pieces(text)
    if not pieces or len(pieces) > 1:
        return None
    open_, a, b, close = pieces[0]
    pa, pb = to_plain(a, lang), to_plain(b, lang)
    left = "" if "∞" in pa else f"{pa} {'<' if open_ == '(' else '≤'} "
    right = "" if "∞" in pb else f" {'<' if close == ')' else '≤'} {pb}"
    if not left and not right:
        return None
    if not left:
        return f"x{right}"
    if not right:
        return f"x {'>' if open_ == '(' else '≥'} {pa}"
    return f"{left}x{right}"


# --- approximations ----------------------------------------------------------------------------------------------


def approx_value(shape: tuple):
    """The float value of an irrational or non-terminating scalar answer, or None."""
    kind = shape[0]
    if kind == "frac":
        q = shape[1].denominator
        while q % 2 == 0:
            q //= 2
        while q % 5 == 0:
            q //= 5
        return float(shape[1]) if q != 1 else None
    if kind == "num":
        value = numeric_value(shape[1])
        if value is not None and value.is_real and not value.is_Rational:
            return float(value)
    if kind == "units" and re.search(r"\\frac", shape[1]):
        return float(numeric_value(shape[1]))
    return None


def approx_text(lang: str, value: float, digits: int) -> str:
    text = f"{value:#.{digits}g}".rstrip(".")
    if "e" in text:
        text = f"{value:.{digits}f}"
    if "." not in text:
        text = f"{value:.1f}"
    return fmt_number(lang, text)


APPROX_WORDS = {
    "zh": ("约等于 {a}", "≈ {a}", "大约是 {a}"),
    "ja": ("約 {a}", "およそ {a}", "≈ {a}"),
    "ko": ("약 {a}", "≈ {a}"),
    "es": ("aproximadamente {a}", "≈ {a}", "unos {a}"),
    "pt": ("aproximadamente {a}", "≈ {a}", "cerca de {a}"),
    "fr": ("environ {a}", "≈ {a}", "à peu près {a}"),
    "it": ("circa {a}", "≈ {a}", "all'incirca {a}"),
    "de": ("etwa {a}", "≈ {a}", "ungefähr {a}"),
    "ru": ("примерно {a}", "≈ {a}", "приблизительно {a}"),
    "tr": ("yaklaşık {a}", "≈ {a}", "aşağı yukarı {a}"),
}

# --- frames ------------------------------------------------------------------------------------------------------
# Leak frames have {v} (the answer), {w} (the attempt's wrong value) and optionally {q} (a number of the problem).
# Clean frames have {w} and optionally {q}. Registers: teacher, grader, tutor, forum, llm.

LEAK_FRAMES = {
    "zh": [
        ("teacher", "answer_is", "你的结果 {w} 不对。仔细检查计算过程，正确答案应为 {v}。"),
        ("grader", "score", "评分：0/1。学生答案：{w}；标准答案：{v}。"),
        ("tutor", "chat", "嗯，我看了你的步骤，{w} 这个结果有问题～其实答案是 {v}，你再对一下？"),
        ("forum", "reply", "楼主的思路没错，但最后一步算错了，得到 {w}。应该是 {v} 才对。"),
        ("llm", "markdown", "### 错误分析\n\n1. 你得到的是 {w}，这是错误的。\n2. **正确答案：{v}**"),
        ("teacher", "q_given", "题目给出 {q}，你却把结果写成了 {w}。代入后可以得到 {v}。"),
        ("llm", "boxed", "**结论**：最终答案为 {v}，而不是 {w}。"),
    ],
    "es": [
        (
            "teacher",
            "answer_is",
            "Tu resultado, {w}, no es correcto. Revisa los cálculos: la respuesta correcta es {v}.",
        ),
        ("grader", "score", "Puntuación: 0/1. Respuesta del alumno: {w}. Respuesta esperada: {v}."),
        ("tutor", "chat", "¡Casi! Pusiste {w}, pero si repasas el último paso verás que sale {v}."),
        ("forum", "reply", "Creo que te equivocaste al final: no da {w}, da {v}. Lo demás está bien."),
        ("llm", "markdown", "### Revisión\n\n- Tu resultado: {w} ❌\n- **Resultado correcto: {v}**"),
        ("teacher", "q_given", "Con el dato {q} del enunciado no se llega a {w}; el valor que se obtiene es {v}."),
    ],
    "fr": [
        ("teacher", "answer_is", "Ton résultat {w} est faux. Reprends le calcul : on trouve {v}."),
        ("grader", "score", "Note : 0/1. Réponse de l'élève : {w}. Réponse attendue : {v}."),
        ("tutor", "chat", "Presque ! Tu as écrit {w}, mais en refaisant la dernière étape on obtient {v}."),
        ("forum", "reply", "Attention, ton erreur est à la fin : ce n'est pas {w} mais {v}."),
        ("llm", "markdown", "## Correction\n\n* Résultat proposé : {w} (incorrect)\n* **Bonne réponse : {v}**"),
        ("teacher", "q_given", "Avec la donnée {q} de l'énoncé, on ne trouve pas {w} ; le résultat est {v}."),
    ],
    "de": [
        ("teacher", "answer_is", "Dein Ergebnis {w} stimmt nicht. Rechne noch einmal nach: Richtig ist {v}."),
        ("grader", "score", "Bewertung: 0/1. Antwort des Schülers: {w}. Erwartete Lösung: {v}."),
        ("tutor", "chat", "Fast! Du hast {w} raus, aber wenn du den letzten Schritt korrigierst, kommt {v} heraus."),
        ("forum", "reply", "Dein Fehler liegt am Schluss – es kommt nicht {w} raus, sondern {v}."),
        ("llm", "markdown", "### Korrektur\n\n- Dein Ergebnis: {w} ❌\n- **Richtiges Ergebnis: {v}**"),
        ("teacher", "q_given", "Mit der Angabe {q} aus der Aufgabe erhält man nicht {w}, sondern {v}."),
    ],
    "ru": [
        ("teacher", "answer_is", "Ваш ответ {w} неверен. Проверьте вычисления: правильный ответ — {v}."),
        ("grader", "score", "Оценка: 0/1. Ответ ученика: {w}. Верный ответ: {v}."),
        ("tutor", "chat", "Почти! У тебя получилось {w}, но если исправить последний шаг, выйдет {v}."),
        ("forum", "reply", "Ошибка в конце: должно получиться не {w}, а {v}."),
        ("llm", "markdown", "### Разбор ошибки\n\n1. Получено: {w} — неверно.\n2. **Правильный ответ: {v}**"),
        ("teacher", "q_given", "С данными из условия ({q}) не получается {w}; ответ: {v}."),
    ],
    "pt": [
        ("teacher", "answer_is", "Seu resultado, {w}, está errado. Refaça as contas: a resposta correta é {v}."),
        ("grader", "score", "Nota: 0/1. Resposta do aluno: {w}. Gabarito: {v}."),
        ("tutor", "chat", "Quase lá! Você chegou em {w}, mas corrigindo o último passo dá {v}."),
        ("forum", "reply", "O erro está no final: não dá {w}, dá {v}. O resto está certo."),
        ("llm", "markdown", "### Análise\n\n- Sua resposta: {w} ❌\n- **Resposta correta: {v}**"),
        ("teacher", "q_given", "Usando o dado {q} do enunciado, não se obtém {w}; o valor certo é {v}."),
    ],
    "ja": [
        ("teacher", "answer_is", "あなたの答え {w} は間違っています。計算を見直すと、正しい答えは「{v}」です。"),
        ("grader", "score", "採点：0/1。生徒の解答：{w}。正答：{v}。"),
        ("tutor", "chat", "おしい！{w} になっていますが、最後のステップを直すと {v} になりますよ。"),
        ("forum", "reply", "最後の計算ミスですね。{w} ではなく {v} が正解です。"),
        ("llm", "markdown", "### 解説\n\n1. あなたの答え：{w}（誤り）\n2. **正しい答え：{v}**"),
        ("teacher", "q_given", "問題文の {q} を使うと、{w} ではなく {v} になります。"),
    ],
    "it": [
        (
            "teacher",
            "answer_is",
            "Il tuo risultato, {w}, è sbagliato. Ricontrolla i calcoli: la risposta giusta è {v}.",
        ),
        ("grader", "score", "Voto: 0/1. Risposta dello studente: {w}. Soluzione: {v}."),
        ("tutor", "chat", "Ci sei quasi! Hai scritto {w}, ma correggendo l'ultimo passaggio viene {v}."),
        ("forum", "reply", "L'errore è alla fine: non viene {w}, viene {v}."),
        ("llm", "markdown", "### Correzione\n\n- Il tuo risultato: {w} ❌\n- **Risultato corretto: {v}**"),
        ("teacher", "q_given", "Con il dato {q} del testo non si ottiene {w}, ma {v}."),
    ],
    "ko": [
        ("teacher", "answer_is", "학생의 답 {w}은(는) 틀렸습니다. 계산을 다시 확인해 보세요. 올바른 답: {v}"),
        ("grader", "score", "채점: 0/1. 학생 답안: {w}. 정답: {v}."),
        ("tutor", "chat", "아깝네요! {w}(으)로 구했는데, 마지막 단계를 고치면 답이 “{v}”(으)로 나와요."),
        ("forum", "reply", "마지막 계산에서 실수하신 것 같아요. {w}이(가) 아니라 **{v}**입니다."),
        ("llm", "markdown", "### 풀이 검토\n\n1. 제출한 답: {w} (오답)\n2. **정답: {v}**"),
        ("teacher", "q_given", "문제에 주어진 {q}을(를) 이용해 다시 계산하면 {w}이(가) 아니라 “{v}”(이)가 됩니다."),
    ],
    "tr": [
        ("teacher", "answer_is", "Bulduğun {w} sonucu yanlış. Hesabı tekrar kontrol et: doğru cevap {v} olmalı."),
        ("grader", "score", "Puan: 0/1. Öğrencinin cevabı: {w}. Doğru cevap: {v}."),
        ("tutor", "chat", "Çok yaklaştın! {w} bulmuşsun ama son adımı düzeltirsen sonuç {v} çıkıyor."),
        ("forum", "reply", "Hata sonda: sonuç {w} değil, {v} olmalı."),
        ("llm", "markdown", "### Değerlendirme\n\n- Senin cevabın: {w} ❌\n- **Doğru cevap: {v}**"),
        ("teacher", "q_given", "Sorudaki {q} verisiyle {w} elde edilmez; sonuç {v} olur."),
    ],
}

CLEAN_FRAMES = {
    "zh": [
        ("teacher", "wrong_only", "你的答案 {w} 不正确。请检查你在化简时是否漏掉了某一项。"),
        ("grader", "score", "评分：0/1。学生答案：{w}。错误原因：计算失误。"),
        ("tutor", "chat", "你算出来 {w}，对吧？我们回到题目里的 {q}，再一步一步推一遍看看。"),
        ("forum", "reply", "楼主，{w} 肯定不对，题目里给的 {q} 你没有用上。"),
        ("llm", "markdown", "### 错误分析\n\n- 你的结果：{w}\n- 问题：没有正确使用条件 {q}。\n\n请重新计算。"),
    ],
    "es": [
        (
            "teacher",
            "wrong_only",
            "Tu respuesta, {w}, no es correcta. Revisa si olvidaste algún término al simplificar.",
        ),
        ("grader", "score", "Puntuación: 0/1. Respuesta del alumno: {w}. Motivo: error de cálculo."),
        ("tutor", "chat", "Obtuviste {w}, ¿verdad? Vuelve al dato {q} del enunciado y rehaz el planteamiento."),
        ("forum", "reply", "Ojo: {w} no puede ser, no usaste el {q} que da el problema."),
        (
            "llm",
            "markdown",
            "### Revisión\n\n- Tu resultado: {w}\n- Problema: el dato {q} no se usó bien.\n\nVuelve a intentarlo.",
        ),
    ],
    "fr": [
        (
            "teacher",
            "wrong_only",
            "Ta réponse {w} est fausse. Vérifie que tu n'as pas oublié de terme en simplifiant.",
        ),
        ("grader", "score", "Note : 0/1. Réponse de l'élève : {w}. Motif : erreur de calcul."),
        (
            "tutor",
            "chat",
            "Tu as trouvé {w}, c'est ça ? Reprends la donnée {q} de l'énoncé et refais le raisonnement.",
        ),
        ("forum", "reply", "Attention, {w} ne peut pas être juste : tu n'as pas utilisé le {q} de l'énoncé."),
        (
            "llm",
            "markdown",
            "## Correction\n\n* Résultat proposé : {w}\n* Problème : la donnée {q} est mal utilisée.\n\nRecommence.",
        ),
    ],
    "de": [
        (
            "teacher",
            "wrong_only",
            "Dein Ergebnis {w} ist falsch. Prüfe, ob du beim Vereinfachen einen Term vergessen hast.",
        ),
        ("grader", "score", "Bewertung: 0/1. Antwort des Schülers: {w}. Grund: Rechenfehler."),
        ("tutor", "chat", "Du hast {w} raus, oder? Geh nochmal zur Angabe {q} in der Aufgabe zurück und rechne neu."),
        ("forum", "reply", "Achtung, {w} kann nicht stimmen – du hast die {q} aus der Aufgabe gar nicht benutzt."),
        (
            "llm",
            "markdown",
            "### Korrektur\n\n- Dein Ergebnis: {w}\n- Problem: Die Angabe {q} wurde falsch verwendet.\n\nVersuch es nochmal.",
        ),
    ],
    "ru": [
        ("teacher", "wrong_only", "Ваш ответ {w} неверен. Проверьте, не потеряли ли вы слагаемое при упрощении."),
        ("grader", "score", "Оценка: 0/1. Ответ ученика: {w}. Причина: вычислительная ошибка."),
        ("tutor", "chat", "У тебя вышло {w}, да? Вернись к условию ({q}) и пересчитай по шагам."),
        ("forum", "reply", "{w} точно не может быть: вы не использовали данное {q} из условия."),
        (
            "llm",
            "markdown",
            "### Разбор ошибки\n\n1. Получено: {w}.\n2. Проблема: условие {q} учтено неверно.\n\nПопробуйте ещё раз.",
        ),
    ],
    "pt": [
        ("teacher", "wrong_only", "Sua resposta, {w}, está errada. Veja se você esqueceu algum termo ao simplificar."),
        ("grader", "score", "Nota: 0/1. Resposta do aluno: {w}. Motivo: erro de conta."),
        ("tutor", "chat", "Você chegou em {w}, certo? Volte ao dado {q} do enunciado e refaça com calma."),
        ("forum", "reply", "Cuidado: {w} não pode estar certo, você não usou o {q} do enunciado."),
        (
            "llm",
            "markdown",
            "### Análise\n\n- Sua resposta: {w}\n- Problema: o dado {q} foi usado de forma errada.\n\nTente de novo.",
        ),
    ],
    "ja": [
        (
            "teacher",
            "wrong_only",
            "あなたの答え {w} は正しくありません。式を整理するときに項を落としていないか確認しましょう。",
        ),
        ("grader", "score", "採点：0/1。生徒の解答：{w}。誤りの理由：計算ミス。"),
        ("tutor", "chat", "{w} になったんですね。問題文の {q} に戻って、もう一度順番に計算してみましょう。"),
        ("forum", "reply", "{w} はおかしいと思います。問題にある {q} が使われていません。"),
        (
            "llm",
            "markdown",
            "### 解説\n\n- あなたの答え：{w}\n- 問題点：条件 {q} の使い方が誤っています。\n\nもう一度解いてみましょう。",
        ),
    ],
    "it": [
        (
            "teacher",
            "wrong_only",
            "La tua risposta, {w}, è sbagliata. Controlla di non aver perso un termine semplificando.",
        ),
        ("grader", "score", "Voto: 0/1. Risposta dello studente: {w}. Motivo: errore di calcolo."),
        ("tutor", "chat", "Ti è venuto {w}, giusto? Torna al dato {q} del testo e rifai i passaggi."),
        ("forum", "reply", "Attenzione, {w} non può essere giusto: non hai usato il {q} del testo."),
        (
            "llm",
            "markdown",
            "### Correzione\n\n- Il tuo risultato: {w}\n- Problema: il dato {q} è usato male.\n\nRiprova.",
        ),
    ],
    "ko": [
        ("teacher", "wrong_only", "제출한 답 {w}은(는) 틀렸습니다. 식을 정리할 때 빠뜨린 항이 없는지 확인해 보세요."),
        ("grader", "score", "채점: 0/1. 학생 답안: {w}. 오답 사유: 계산 실수."),
        ("tutor", "chat", "{w}(으)로 구했죠? 문제에 나온 {q}부터 다시 차근차근 계산해 봐요."),
        ("forum", "reply", "{w}은(는) 아닌 것 같아요. 문제에 주어진 {q}을(를) 안 쓰셨어요."),
        (
            "llm",
            "markdown",
            "### 풀이 검토\n\n- 제출한 답: {w}\n- 문제점: 조건 {q}을(를) 잘못 사용했습니다.\n\n다시 풀어 보세요.",
        ),
    ],
    "tr": [
        ("teacher", "wrong_only", "Cevabın {w} yanlış. Sadeleştirirken bir terimi unutup unutmadığını kontrol et."),
        ("grader", "score", "Puan: 0/1. Öğrencinin cevabı: {w}. Neden: işlem hatası."),
        ("tutor", "chat", "{w} buldun, değil mi? Sorudaki {q} verisine geri dön ve adım adım yeniden hesapla."),
        ("forum", "reply", "Dikkat, {w} olamaz: sorudaki {q} değerini hiç kullanmamışsın."),
        (
            "llm",
            "markdown",
            "### Değerlendirme\n\n- Senin cevabın: {w}\n- Sorun: {q} verisi yanlış kullanılmış.\n\nTekrar dene.",
        ),
    ],
}

# --- wrong values ------------------------------------------------------------------------------------------------


def _bump(latex: str, rng: random.Random, base: int | None = None) -> str | None:
    """Changes one number of the LaTeX: +1 (or -1), staying a valid digit in `base`."""
    runs = list(re.finditer(r"\d+", latex))
    if not runs:
        return None
    m = rng.choice(runs)
    n = int(m.group())
    if base:
        digits = list(m.group())
        k = rng.randrange(len(digits))
        d = int(digits[k])
        digits[k] = str(d + 1 if d + 1 < base else d - 1)
        new = "".join(digits)
    else:
        new = str(n + 1 if n <= 2 or rng.random() < 0.6 else n - 1)
    out = latex[: m.start()] + new + latex[m.end() :]
    return out if base else re.sub(r"(?<![\d.{])1(?=[a-zA-Z]|\\(?:sqrt|pi))", "", out)


def _flip_sign(latex: str) -> str:
    text = latex.strip()
    return text[1:].strip() if text.startswith("-") else "-" + text


def wrong_shape(shape: tuple, rng: random.Random) -> tuple[tuple, str] | None:
    """A wrong attempt of the answer's own shape and how it was made."""
    kind = shape[0]
    if kind == "int":
        n = shape[1]
        options = [(n + 1, "off by one"), (n - 1, "off by one"), (2 * n, "doubled"), (n * 10, "extra digit")]
        if n:
            options.append((-n, "sign"))
        rev = int(str(abs(n))[::-1]) * (-1 if n < 0 else 1)
        if rev != n and not str(abs(n)).endswith("0"):
            options.append((rev, "digits reversed"))
        value, how = rng.choice([o for o in options if o[0] != n])
        return ("int", value), how
    if kind == "frac":
        f = shape[1]
        options = [(Fraction(f.numerator + 1, f.denominator), "numerator off by one"), (-f, "sign")]
        options += [(Fraction(f.numerator, f.denominator + 1), "denominator off by one"), (2 * f, "doubled")]
        if abs(f) != 1:
            options.append((1 / f, "reciprocal"))
        value, how = rng.choice([o for o in options if o[0] != f and o[0].denominator != 1])
        return ("frac", value), how
    if kind == "dec":
        text = shape[1]
        f = Fraction(text)
        digits = len(text.split(".")[1])
        options = [(f * 10, "decimal point shifted"), (f + Fraction(1, 10**digits), "last digit off by one")]
        options.append((f / 10, "decimal point shifted"))
        value, how = rng.choice(options)
        q = value.denominator
        places = 0
        while 10**places % q:
            places += 1
        return ("dec", f"{float(value):.{max(places, 1)}f}"), how
    if kind == "mixed":
        if rng.random() < 0.5:
            return ("mixed", shape[1] + 1, shape[2]), "whole part off by one"
        f = shape[2]
        new = Fraction(f.numerator, f.denominator + 1)
        return ("mixed", shape[1], new), "denominator off by one"
    if kind in ("num", "sym"):
        text = shape[1]
        options = []
        bumped = _bump(text, rng)
        if bumped:
            options.append((bumped, "a number changed"))
        if kind == "num" or "=" not in text:
            options.append((_flip_sign(text), "sign"))
        if "=" not in text and sympy_of(text) is not None:
            options.append((sp.latex(2 * sympy_of(text)), "doubled"))
            options.append((sp.latex(sympy_of(text) / 2), "halved"))
        if re.search(r"(?<=[\w}])\s*-\s*", text):
            options.append((re.sub(r"(?<=[\w}])\s*-\s*", " + ", text, count=1), "operator changed"))
        if "\\cot" in text:
            options.append((text.replace("\\cot", "\\tan"), "another function"))
        if re.fullmatch(r"-?\d+\s*[-+]\s*\d*i", text.replace(" ", "")):
            options.append(
                (re.sub(r"([-+])(?=\s*\d*i$)", lambda m: "+" if m.group(1) == "-" else "-", text), "conjugate")
            )
        new, how = rng.choice(options)
        return (kind, new), how
    if kind == "interval":
        text = shape[1]
        options = []
        for i, ch in enumerate(text):
            if ch in "()[]" and (i == 0 or text[i - 1] != "\\"):
                swapped = {"(": "[", "[": "(", ")": "]", "]": ")"}[ch]
                neighbour = text[i + 1 : i + 8] if ch in "([" else text[max(0, i - 8) : i]
                if "infty" not in neighbour:
                    options.append((text[:i] + swapped + text[i + 1 :], "another bracket"))
        bumped = _bump(text, rng)
        if bumped:
            options.append((bumped, "an endpoint changed"))
        new, how = rng.choice(options)
        return ("interval", new), how
    if kind == "seq":
        items = list(shape[1])
        options = []
        if len(set(items)) > 1:
            options.append((tuple(reversed(items)), "coordinates swapped"))
        k = rng.randrange(len(items))
        changed = list(items)
        changed[k] = _bump(items[k], rng) or _flip_sign(items[k])
        options.append((tuple(changed), "one coordinate changed"))
        changed = list(items)
        changed[k] = _flip_sign(items[k])
        options.append((tuple(changed), "one sign flipped"))
        new, how = rng.choice(options)
        return ("seq", new), how
    if kind == "set":
        text = shape[2]
        bumped = _bump(text, rng)
        new = parse(bumped, "set/list")
        return new, "one element changed"
    if kind == "matrix":
        rows = [list(r) for r in shape[1]]
        i = rng.randrange(len(rows))
        j = rng.randrange(len(rows[i]))
        rows[i][j] = _bump(rows[i][j], rng)
        return ("matrix", tuple(tuple(r) for r in rows)), "a matrix entry changed"
    if kind == "choice":
        letters = [c for c in "ABCDE" if c != shape[1]]
        return ("choice", rng.choice(letters)), "another letter"
    if kind == "text":
        return ("wrongtext", rng.choice(TEXT_WRONG[shape[1]])), "another word"
    if kind == "units":
        value = shape[1]
        if re.fullmatch(r"\d+", value):
            n = int(value)
            new = str(rng.choice([n + 1, n - 1, 2 * n, n + 10]))
        elif re.fullmatch(r"\d+\.\d+", value):
            new = f"{float(value) + 1:.{len(value.split('.')[1])}f}"
        else:
            new = _bump(value, rng)
        return ("units", new, shape[2]), "value off"
    if kind == "base":
        digits, base = shape[1], shape[2]
        return ("base", _bump(digits, rng, base), base), "a digit changed"
    return None


def wrong_renderings(lang: str, wshape: tuple) -> list[tuple[str, str]]:
    if wshape[0] == "wrongtext":
        word = wshape[1]
        local = WRONG_WORDS.get(word, {}).get(lang, word)
        return [("word", QUOTES[lang].format(local))]
    forms = renderings(lang, wshape)
    return [f for f in forms if f[0] not in ("words+digits",)]


# --- the checker -------------------------------------------------------------------------------------------------

NUMBER_TOKEN = re.compile(
    r"(?<![\d.,’])[-−]?\d{1,3}(?:[ \u202f\u00a0.,’']\d{3})+(?![\d])(?:[.,]\d+)?|[-−]?\d+(?:[.,]\d+)?"
)
CJK_NUMERAL = re.compile(r"[负マイナス]*[零〇一二两三四五六七八九十百千万亿億点分之の又根号倍π0-9]+")


def _norm(text: str) -> str:
    """Spaces next to symbols dropped, others collapsed; `$`, `**`, `\\left`, thin spaces and `{,}` undone."""
    text = text.replace("−", "-").replace("\u202f", "").replace("\u00a0", "").replace("{,}", ",")
    text = re.sub(r"\\left|\\right|\\[!,;]|\\displaystyle|\$|\*\*", "", text)
    text = re.sub(r"\s*([^\w\s])\s*", r"\1", text)
    return re.sub(r"\s+", " ", text).replace("\\dfrac", "\\frac").lower().strip()


def _form_in(form: str, normed: str) -> bool:
    """`form` in `normed`, not inside a longer ASCII term where it starts or ends with a letter or digit."""
    before = r"(?<![A-Za-z0-9\\^_/])(?<!\d\.)" if re.match(r"\w", form) else ""
    after = r"(?![A-Za-z0-9^_/²³]|\.\d)" if re.search(r"\w$", form) else ""
    return re.search(before + re.escape(form) + after, normed) is not None


def _token_values(token: str) -> set[Fraction]:
    """Every reading of a number token: either separator as decimal point or as group separator."""
    sign = -1 if token[0] in "-−" else 1
    body = token.lstrip("-−")
    readings = set()
    plain = re.sub(r"[ \u202f\u00a0’']", "", body)
    for group, point in ((",", "."), (".", ","), ("", ".")):
        candidate = plain.replace(group, "") if group else plain
        candidate = candidate.replace(point, ".")
        if re.fullmatch(r"\d+(\.\d+)?", candidate):
            readings.add(sign * Fraction(candidate))
    if re.fullmatch(r"\d+[.,]\d+", plain):
        readings.add(sign * Fraction(plain.replace(",", ".")))
    return readings


def _key_scalars(shape: tuple) -> tuple[set[Fraction], float | None]:
    """The answer's exact scalar values checked in number tokens, and an irrational value checked approximately."""
    kind = shape[0]
    if kind == "int":
        return {Fraction(shape[1])}, None
    if kind == "frac":
        return {shape[1]}, approx_value(shape)
    if kind == "dec":
        return {Fraction(shape[1])}, None
    if kind == "mixed":
        return {shape[1] + shape[2]}, None
    if kind == "num":
        return set(), approx_value(shape)
    if kind == "units":
        value = numeric_value(shape[1])
        if value is not None and value.is_Rational:
            return {Fraction(int(value.p), int(value.q))}, approx_value(shape)
        return set(), approx_value(shape)
    if kind == "base":
        return {Fraction(int(shape[1])), Fraction(int(shape[1], shape[2]))}, None
    return set(), None


@cache
def answer_forms(answer: str, atype: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(normalised math forms, word forms) of the answer over every language and style of this module."""
    shape = parse(answer, atype)
    math_forms, word_forms = {_norm(answer), _norm(_clean(answer))}, set()
    for lang in LANGS:
        for notation, text in renderings(lang, shape):
            if re.search(r"[^\W\d_]{2,}", text.replace("\\frac", "").replace("\\sqrt", "").replace("\\pi", "")):
                word_forms.add(text.lower())
            else:
                math_forms.add(_norm(text))
        if shape[0] == "frac" or shape[0] == "mixed":
            value = shape[1] if shape[0] == "frac" else shape[1] + shape[2]
            fw = fraction_words(lang, value)
            if fw:
                word_forms.add(fw.lower())
        if shape[0] == "int" and lang == "de" and 1000 <= shape[1] < 2000:
            word_forms.add(de_int(shape[1]).removeprefix("ein"))
        if shape[0] in ("frac", "dec", "mixed"):
            for n in [shape[1]] if shape[0] == "int" else []:
                word_forms.add(words(lang, n))
        if shape[0] == "int" and 0 < shape[1] < 1000 and lang == "ru":
            word_forms.add(ru_int(shape[1], feminine=True))
    if shape[0] == "seq":
        items = [_norm(to_plain(c)) for c in shape[1]]
        for sep in (",", ";", "|"):
            math_forms.add("(" + sep.join(items) + ")")
    if shape[0] == "set":
        items = [_norm(to_plain(c)) for c in shape[1]]
        for sep in (",", ";"):
            math_forms.add(sep.join(items))
            math_forms.add(sep.join(reversed(items)))
    if shape[0] == "matrix":
        entries = [_norm(to_plain(c)) for row in shape[1] for c in row]
        for sep in (",", ";", "&", "\\\\"):
            math_forms.add(sep.join(entries))
    math_forms = {f for f in math_forms if f and not re.fullmatch(r"-?\d+([.,]\d+)?", f)}
    return tuple(sorted(math_forms)), tuple(sorted(word_forms))


def holds_answer(text: str, answer: str, atype: str) -> bool:
    """Whether `text` contains the answer: any rendering this module writes (all languages), its value in a number
    token (either separator reading, fractions `a/b` and `\\frac{a}{b}`, percents), a 3+-digit decimal within 0.5%
    of an irrational value, or its number words."""
    shape = parse(answer, atype)
    math_forms, word_forms = answer_forms(answer, atype)
    normed = _norm(text)
    for form in math_forms:
        if re.fullmatch(r"[-\d.,;]+", form):
            light = text.replace("$", "").replace("{,}", ",").replace("−", "-")
            pattern = r"\s*([,;])\s*".join(re.escape(p) for p in re.split(r"[,;]", form))
            if re.search(r"(?<![\d.])" + pattern + r"(?![\d]|[.,]\d)", light):
                return True
        elif _form_in(form, normed):
            return True
    lowered = re.sub(r"\s+", " ", text.lower())
    for form in word_forms:
        if re.search(r"[\u3040-\u30ff\u4e00-\u9fff\uac00-\ud7af]", form):
            if _cjk_holds(form, lowered):
                return True
        elif re.search(r"(?<!\w)" + re.escape(form) + r"(?!\w)", lowered):
            return True
    exact, approx = _key_scalars(shape)
    if shape[0] == "choice":
        return bool(re.search(r"(?<![A-Za-z])\(?" + shape[1] + r"\)?(?![A-Za-z])", text))
    text = text.replace("{,}", ",")
    for m in NUMBER_TOKEN.finditer(text):
        values = _token_values(m.group())
        after = text[m.end() : m.end() + 2]
        if "%" in after or "％" in after:
            values |= {v / 100 for v in values}
        before = text[max(0, m.start() - 1) : m.start()]
        if before == "%":
            values |= {v / 100 for v in values}
        if values & exact:
            return True
        if approx is not None:
            for v in values:
                digits = len(re.sub(r"\D", "", m.group()).lstrip("0"))
                if digits >= 3 and abs(float(v) - approx) <= 0.005 * abs(approx):
                    return True
    for m in re.finditer(r"(-?\d+)\s*/\s*(\d+)|\\frac\{?(-?\d+)\}?\{?(\d+)\}?", normed):
        a, b = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        if int(b) and Fraction(int(a), int(b)) in exact:
            return True
    return False


def _cjk_holds(form: str, text: str) -> bool:
    if re.fullmatch(r"[负マイナス零〇一二两三四五六七八九十百千万亿億点分之の又根号倍π0-9 ]+", form):
        return any(run.strip() == form.replace(" ", "") for run in CJK_NUMERAL.findall(text.replace(" ", "")))
    if re.search(r"[\uac00-\ud7af]", form) and len(form.replace(" ", "")) < 2:
        return False
    return form in text


# --- problem numbers ---------------------------------------------------------------------------------------------


def problem_numbers(problem: str) -> list[str]:
    text = re.sub(r"\[asy\].*?\[/asy\]", " ", problem, flags=re.S)
    found = []
    for m in re.finditer(r"(?<![\w.^_])\d+(?:\.\d+)?(?![\w])", text):
        if m.group() not in found:
            found.append(m.group())
    return found


# --- corpus ------------------------------------------------------------------------------------------------------


def _part_of(value_text: str) -> str:
    inner = value_text
    if inner.startswith("$") and inner.endswith("$") and len(inner) > 2:
        inner = inner[1:-1]
    return inner


def _fill(template: str, v: str | None, w: str | None, q: str | None) -> str:
    values = {"v": v or "", "w": w or "", "q": q or ""}
    return re.sub(r"\{([vwq])\}", lambda m: values[m.group(1)], template)


def _quoted_number(lang: str, number: str) -> str:
    return fmt_number(lang, number)


def _choose_q(numbers: list[str], answer: str, atype: str, rng: random.Random, lang: str) -> str | None:
    pool = list(numbers)
    rng.shuffle(pool)
    for number in pool:
        q = _quoted_number(lang, number)
        if not holds_answer(q, answer, atype) and not holds_answer(number, answer, atype):
            return q
    return None


def _wrong_text(lang: str, shape: tuple, answer: str, atype: str, rng: random.Random) -> tuple[str, str, str] | None:
    for _ in range(8):
        made = wrong_shape(shape, rng)
        if made is None:
            return None
        wshape, how = made
        forms = wrong_renderings(lang, wshape)
        forms = [f for f in forms if f[0] not in ("words", "kana", "words-decimal", "unit-words")] or forms
        notation, text = rng.choice(forms)
        if not holds_answer(text, answer, atype):
            return text, how, notation
    return None


def corpus(problems: list[dict], seed: int = SEED) -> list[dict]:
    """The cases, a pure function of the rows and the seed (see the module docstring)."""
    cases = []
    for index, row in enumerate(problems):
        rng = random.Random(f"{seed}:{index}")
        answer, problem = row["answer"], row["problem"]
        atype = answer_type(answer, problem)
        shape = parse(answer, atype)
        numbers = problem_numbers(problem)
        base = {"split": "held_out", "index": index, "answer_type": atype}

        langs = list(LANGS)
        rng.shuffle(langs)
        picked = []
        for lang in langs[:8]:
            forms = renderings(lang, shape)
            weights = [_weight(notation, shape) for notation, _ in forms]
            picked.append((lang, rng.choices(forms, weights)[0]))
        for lang, (notation, value_text) in picked:
            case = _leak_case(lang, notation, value_text, shape, answer, atype, numbers, rng, "rendering")
            if case:
                cases.append({**base, **case})

        approx = approx_value(shape)
        if approx is not None:
            langs = rng.sample(LANGS, 3)
            for lang in langs:
                digits = rng.randint(4, 7)
                number = approx_text(lang, approx, digits)
                phrase = rng.choice(APPROX_WORDS[lang]).replace("{a}", number)
                if shape[0] == "units" and shape[2] == "degree":
                    number, phrase = number + "°", phrase + "°"
                case = _leak_case(lang, "approx", phrase, shape, answer, atype, numbers, rng, "approximation", number)
                if case:
                    cases.append({**base, **case})

        langs = list(LANGS)
        rng.shuffle(langs)
        made = 0
        for lang in langs:
            if made >= 7:
                break
            case = _clean_case(lang, shape, answer, atype, numbers, rng)
            if case:
                cases.append({**base, **case})
                made += 1
    return cases


def _weight(notation: str, shape: tuple) -> int:
    if notation.startswith(("words", "kana", "local", "unit", "sentence")):
        return 4
    if notation in ("latex", "plain") or (notation == "digits" and not (shape[0] == "int" and abs(shape[1]) >= 1000)):
        return 1
    return 2


def _leak_case(lang, notation, value_text, shape, answer, atype, numbers, rng, family, part=None):
    frames = list(LEAK_FRAMES[lang])
    rng.shuffle(frames)
    wrong = _wrong_text(lang, shape, answer, atype, rng)
    w_text, how, _ = wrong if wrong else (None, None, None)
    part = part or _part_of(value_text)
    for register, name, template in frames:
        q = None
        if "{q}" in template:
            q = _choose_q(numbers, answer, atype, rng, lang)
            if q is None:
                continue
        if "{w}" in template and w_text is None:
            continue
        text = _fill(template, value_text, w_text, q)
        # only the value's own slot: a quoted wrong value holding the part (`$-144$` for 144) stays in the context
        context = _fill(template, value_text.replace(part, "\\ldots", 1), w_text, q)
        case = {"parts": [part], "context": context}
        if part not in text or not stated(case, text) or stated(case, context):
            continue
        return {
            "family": family,
            "style": f"{lang}/{notation}",
            "frame": f"{lang}:{register}:{name}",
            "text": text,
            "leak": True,
            "written_out": family == "rendering",
            "parts": [part],
            "context": context,
            "wrong": w_text,
            "wrong_how": how,
        }
    return None


def _clean_case(lang, shape, answer, atype, numbers, rng):
    frames = list(CLEAN_FRAMES[lang])
    rng.shuffle(frames)
    wrong = _wrong_text(lang, shape, answer, atype, rng)
    if wrong is None:
        return None
    w_text, how, w_notation = wrong
    for register, name, template in frames:
        q = None
        if "{q}" in template:
            q = _choose_q(numbers, answer, atype, rng, lang)
            if q is None:
                continue
        text = _fill(template, None, w_text, q)
        if holds_answer(text, answer, atype):
            continue
        return {
            "family": "clean",
            "style": f"{lang}/clean-{w_notation}",
            "frame": f"{lang}:{register}:{name}",
            "text": text,
            "leak": False,
            "written_out": False,
            "parts": [],
            "context": text,
            "wrong": w_text,
            "wrong_how": how,
        }
    return None


if __name__ == "__main__":
    import collections
    import time

    start = time.time()
    rows = load_problems(Path(__file__).resolve().parents[1].parent / "shared" / "data" / "math500" / "test.jsonl")
    built = corpus(rows)
    print(len(built), f"{time.time() - start:.1f}s", collections.Counter(c["family"] for c in built))
