"""Critiques in other languages than English, as the guard reads them. `language` tells which one a critique is
written in (by its script, or by its commonest words); `_normalised` then reads its number words (French, Spanish,
Portuguese, German and Italian through `text2num`'s `alpha2digit`; Russian, Turkish, Chinese, Japanese and Korean
here) and `language_pieces` writes the rest as the English and the notation the guard reads: a decimal comma and
grouping dots (`4,6667`, `2.220`), a fraction in words ("catorce tercios", "drei Viertel", "三十六分之十一",
"56分の3", "3분의 14", "üçte on dört"), a sign, a root, pi, "times", "over", "and", "or" and an approximation's
word ("environ", "约"). A critique in English is left to the rest of the guard."""

import re
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache

from text_to_num import alpha2digit

from .pieces import first_of_overlapping


ALPHA2DIGIT_LANGUAGES = ("fr", "es", "pt", "de", "it")
COMMA_DECIMAL_LANGUAGES = ("fr", "es", "pt", "de", "it", "ru", "tr")

# The commonest words of each language written in the Latin script (no single letters: "y" and "e" are variables
# too): a critique is in the language whose words it holds most, at least two of them, and more than English ones
# (a word of two, Portuguese and English "do", counts for both)
_COMMON_WORDS = {
    "en": "the is an and or so if in as at not your answer result with of to it you be should this that for "
    "correct wrong but get do",
    "fr": "le la les est une des du et pas tu ton ta réponse résultat avec ce n'est c'est trouve faux juste "
    "calcul l'énoncé donne dernière étape attendue bonne",
    "es": "el la los las es una del no tu respuesta resultado con pero que sale da para correcta correcto cálculo "
    "enunciado último paso esperada revisa",
    "pt": "os as é um uma do da não você resposta resultado com mas que dá correta certo cálculo enunciado "
    "último passo errado seu sua",
    "de": "der die das ist ein eine und nicht du dein deine ergebnis antwort mit aber kommt raus des lösung richtig "
    "falsch fehler schritt aufgabe rechnung erwartete ergibt",
    "it": "il lo la è un una del non tuo tua risposta risultato con ma che viene giusta calcolo testo sbagliato "
    "passaggio soluzione corretta",
    "tr": "ve bir bu için değil cevap sonuç doğru ile olarak olur cevabı sonucu yanlış hesap adım ama çok son",
    "hi": "hai hain nahi nahin karo ka ki ke se mein aur bhai dekho yeh woh jawab sahi galat hoga tha aata aayega",
}
_WORDS_OF = {name: frozenset(words.split()) for name, words in _COMMON_WORDS.items()}
_TURKISH_LETTERS = re.compile("[ığ]")  # dotless i and soft g: no other language the guard reads writes them
_LATIN_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")
_KANA = re.compile(r"[\u3040-\u30ff]")
_HANGUL = re.compile(r"[\uac00-\ud7a3]")
_HAN = re.compile(r"[\u4e00-\u9fff]")
_RUSSIAN_WORD = re.compile(r"(?<![^\W\d_])[\u0400-\u04ff]{2,}(?![^\W\d_])")


def language(text: str) -> str | None:
    """The language `text` is written in, of those the guard reads ("fr", "es", "pt", "de", "it", "tr", "hi" (Hindi in
    the Latin script), "ru", "zh", "ja", "ko"), or `None` for English or a language it does not read."""
    if _KANA.search(text):
        return "ja"
    if len(_HANGUL.findall(text)) >= 2:
        return "ko"
    if len(_HAN.findall(text)) >= 2:
        return "zh"
    if len(_RUSSIAN_WORD.findall(text)) >= 2:  # whole words: Cyrillic letters in Latin words are homoglyphs
        return "ru"
    words = [word.lower() for word in _LATIN_WORD.findall(text)]
    counts = {name: sum(word in common for word in words) for name, common in _WORDS_OF.items()}
    counts["tr"] += sum(bool(_TURKISH_LETTERS.search(word)) for word in words)
    best = max((name for name in counts if name != "en"), key=counts.__getitem__)
    return best if counts[best] >= 2 and counts[best] > counts["en"] else None


# --- numbers in words: Russian, Turkish (a value per word, read as a sum of scales)

_RUSSIAN_NUMBERS = {
    **dict.fromkeys(("ноль", "нуль", "нуля"), 0),
    **dict.fromkeys(("один", "одна", "одно", "одного", "одной", "одну", "одним"), 1),
    **dict.fromkeys(("два", "две", "двух", "двум"), 2),
    **dict.fromkeys(("три", "трёх", "трех", "трём", "трем"), 3),
    **dict.fromkeys(("четыре", "четырёх", "четырех"), 4),
    **dict.fromkeys(("пять", "пяти"), 5),
    **dict.fromkeys(("шесть", "шести"), 6),
    **dict.fromkeys(("семь", "семи"), 7),
    **dict.fromkeys(("восемь", "восьми"), 8),
    **dict.fromkeys(("девять", "девяти"), 9),
    **dict.fromkeys(("десять", "десяти"), 10),
    **dict.fromkeys(("одиннадцать", "одиннадцати"), 11),
    **dict.fromkeys(("двенадцать", "двенадцати"), 12),
    **dict.fromkeys(("тринадцать", "тринадцати"), 13),
    **dict.fromkeys(("четырнадцать", "четырнадцати"), 14),
    **dict.fromkeys(("пятнадцать", "пятнадцати"), 15),
    **dict.fromkeys(("шестнадцать", "шестнадцати"), 16),
    **dict.fromkeys(("семнадцать", "семнадцати"), 17),
    **dict.fromkeys(("восемнадцать", "восемнадцати"), 18),
    **dict.fromkeys(("девятнадцать", "девятнадцати"), 19),
    **dict.fromkeys(("двадцать", "двадцати"), 20),
    **dict.fromkeys(("тридцать", "тридцати"), 30),
    **dict.fromkeys(("сорок", "сорока"), 40),
    **dict.fromkeys(("пятьдесят", "пятидесяти"), 50),
    **dict.fromkeys(("шестьдесят", "шестидесяти"), 60),
    **dict.fromkeys(("семьдесят", "семидесяти"), 70),
    **dict.fromkeys(("восемьдесят", "восьмидесяти"), 80),
    **dict.fromkeys(("девяносто", "девяноста"), 90),
    **dict.fromkeys(("сто", "ста"), 100),
    **dict.fromkeys(("двести", "двухсот"), 200),
    **dict.fromkeys(("триста", "трёхсот", "трехсот"), 300),
    **dict.fromkeys(("четыреста", "четырёхсот", "четырехсот"), 400),
    **dict.fromkeys(("пятьсот", "пятисот"), 500),
    **dict.fromkeys(("шестьсот", "шестисот"), 600),
    **dict.fromkeys(("семьсот", "семисот"), 700),
    **dict.fromkeys(("восемьсот", "восьмисот"), 800),
    **dict.fromkeys(("девятьсот", "девятисот"), 900),
    **dict.fromkeys(("тысяча", "тысячи", "тысяч", "тысячу"), 1000),
    **dict.fromkeys(("миллион", "миллиона", "миллионов"), 1000000),
}
# the ordinals a Russian fraction's denominator ends in ("три пятьдесят шестых": 3/56), in the plural and singular
_RUSSIAN_ORDINALS = {
    **dict.fromkeys(("первая", "первых", "первой"), 1),
    **dict.fromkeys(("вторая", "вторых", "второй"), 2),
    **dict.fromkeys(("третья", "третьих", "третьей"), 3),
    **dict.fromkeys(("четвёртая", "четвертая", "четвёртых", "четвертых", "четверть", "четверти"), 4),
    **{
        f"{stem}{ending}": value
        for stem, value in (
            ("пят", 5), ("шест", 6), ("седьм", 7), ("восьм", 8), ("девят", 9), ("десят", 10), ("одиннадцат", 11),
            ("двенадцат", 12), ("тринадцат", 13), ("четырнадцат", 14), ("пятнадцат", 15), ("шестнадцат", 16),
            ("семнадцат", 17), ("восемнадцат", 18), ("девятнадцат", 19), ("двадцат", 20), ("тридцат", 30),
            ("сороков", 40), ("пятидесят", 50), ("шестидесят", 60), ("семидесят", 70), ("восьмидесят", 80),
            ("девяност", 90), ("сот", 100), ("тысячн", 1000),
        )
        for ending in ("ая", "ых", "ой")
    },
}  # fmt: skip

_TURKISH_NUMBERS = {
    "sıfır": 0, "bir": 1, "iki": 2, "üç": 3, "dört": 4, "beş": 5, "altı": 6, "yedi": 7, "sekiz": 8, "dokuz": 9,
    "on": 10, "yirmi": 20, "otuz": 30, "kırk": 40, "elli": 50, "altmış": 60, "yetmiş": 70, "seksen": 80, "doksan": 90,
    "yüz": 100, "bin": 1000, "milyon": 1000000,
}  # fmt: skip
_TURKISH_ALTERNATIVES = "|".join(sorted(_TURKISH_NUMBERS, key=len, reverse=True))
# words in a row, spaced or written as one ("ikiyüz"); a locative after the last stays ("üçte": of three)
_TURKISH_NUMBER = re.compile(
    rf"(?<!\w)(?P<number>(?:(?:{_TURKISH_ALTERNATIVES})(?:\s+|(?=\w)))*(?:{_TURKISH_ALTERNATIVES}))"
    r"(?:'?(?:te|ta|de|da))?(?!\w)",
    re.IGNORECASE,
)
_TURKISH_WORD = re.compile(_TURKISH_ALTERNATIVES, re.IGNORECASE)
_TURKISH_POINT = re.compile(r"virgül\s*$", re.IGNORECASE)
_WORD_NOT_OPERATION = re.compile(r"\s+(?!(?:artı|eksi|bölü|çarpı|virgül)\b)[^\W\d_]", re.IGNORECASE)

# Hindi in the Latin script (Hinglish): a word for each number to 99, in the spellings transliteration gives it
_HINDI_SPELLINGS = (
    "shunya shoonya sunya|ek|do|teen tin|chaar char|paanch panch|chhah chhe chah che chhe|saat sat|aath ath"
    "|nau nao|das dus|gyaarah gyarah gyara|baarah barah bara|terah tera|chaudah chaudha chauda|pandrah pandra"
    "|solah sola|satrah satra|athaarah atharah attharah atthaarah athara|unnees unnis unees|bees bis"
    "|ikkees ikkis|baaees bais baees baais|teis teyees teyis|chaubees chaubis|pachchees pachees pachis pachchis"
    "|chhabbees chhabbis|sattaees sattais sattaaees|atthaees atthais athais atthaaees|untees untis unatees"
    "|tees tis|ikattees iktees iktis ikatis|battees battis|taintees taintis tetis|chauntees chautis chauntis"
    "|paintees paintis pentis|chhattees chhattis|saintees saintis sentis|adtees adtis artis"
    "|untaalees untalis|chaalees chalis|iktaalees iktalis|bayaalees byalis bayalis"
    "|taintaalees tentalis taintalis|chavaalees chauvaalees chavalis chauvalis|paintaalees pentalis paintalis"
    "|chhiyaalees chhiyalis|saintaalees sentalis saintalis|adtaalees artalis adtalis|unchaas unchas"
    "|pachaas pachas|ikyaavan ikyavan ikavan|baavan bavan|tirpan tirepan|chauvan chauwan|pachpan|chhappan"
    "|sattaavan sattavan|atthaavan athavan atthavan|unsath unsaath|saath sath|iksath iksaath|baasath basath"
    "|tirsath tiresath|chaunsath chausath|painsath pensath|chhiyaasath chhiyasath|sadsath sarsath|adsath arsath"
    "|unhattar|sattar|ikhattar|bahattar|tihattar|chauhattar|pachhattar|chhihattar|satattar sathattar"
    "|athhattar athattar|unaasi unasi|assi assee|ikyaasi ikyasi|bayaasi byasi|tiraasi tirasi|chauraasi chaurasi"
    "|pachaasi pachasi|chhiyaasi chhiyasi|sattaasi sattasi|atthaasi athasi|navaasi navasi nawasi|nabbe"
    "|ikyaanave ikyanave|baanave banave|tiraanave tiranave|chauraanave chauranave|pachaanave pachanave"
    "|chhiyaanave chhiyanave|sattaanave sattanave|atthaanave athanave|ninyaanave ninyanave ninyanve"
)
_HINDI_NUMBERS = {
    **{word: value for value, words in enumerate(_HINDI_SPELLINGS.split("|")) for word in words.split()},
    "sau": 100, "hazaar": 1000, "hazar": 1000, "lakh": 10**5, "laakh": 10**5, "crore": 10**7, "karod": 10**7,
}  # fmt: skip
_HINDI_ALTERNATIVES = "|".join(sorted(_HINDI_NUMBERS, key=len, reverse=True))
_HINDI_NUMBER = re.compile(
    rf"(?<![^\W\d_])(?:(?:{_HINDI_ALTERNATIVES})\s+)*(?:{_HINDI_ALTERNATIVES})(?![^\W\d_])", re.IGNORECASE
)
_HINDI_POINT = re.compile(r"(?:point|dashamlav)\s*$", re.IGNORECASE)
# the spellings of Hindi numbers that are English words too ("do it", "the tin"): a number alone only beside a
# sign, a fraction or another number's words
_HINDI_HOMOGRAPHS = {"do", "tin", "teen", "char", "sat", "che", "bis", "tis", "tees", "bees", "bara", "sola", "ath"}
_HINDI_BESIDE = re.compile(r"minus|plus|bata|root|point|tihaai|tihai|chauthaai|chauthai|sau|hazaar", re.IGNORECASE)
# the word before and after a number, past spaces, brackets and commas (not past digits); or a clause's end after it
_WORD_BEFORE = re.compile(r"([^\W\d_]+)[\s()\[\]{},]*$")
_WORD_AFTER = re.compile(r"[\s()\[\]{},]*(?:([^\W\d_]+)|([.;!?]|$))")
_NEIGHBOUR_REACH = 64  # characters before a word searched for its neighbour: the search stays linear in the text


def _neighbours(text: str, start: int, end: int) -> tuple[list[str], str | None, bool]:
    """The words beside `text[start:end]` (`_WORD_BEFORE`, `_WORD_AFTER`), lowercased, the word after it, and whether
    a clause ends after it: what tells whether a number word that English writes too ("do", "once", "due") is a
    number there ("(do, chaar)", "sahi jawab hai: teen.", "x plus un")."""
    before, after = _WORD_BEFORE.search(text, max(0, start - _NEIGHBOUR_REACH), start), _WORD_AFTER.match(text, end)
    following = after[1].lower() if after and after[1] else None
    beside = [word for word in (before[1].lower() if before else None, following) if word]
    return beside, following, after is not None and after[2] is not None


def _sum_of_scales(values: list[int]) -> int | None:
    """The number that words of `values` say, each scale (100, 1000, a million) multiplying what comes before it:
    [2, 100, 20, 4] is 224, [2, 1000, 2, 100, 20] 2220 (and a lakh, 10^5, and a crore, 10^7, as Hindi counts);
    `None` for words that say no one number ([2, 3])."""
    total, group, last = 0, 0, None
    for value in values:
        if value in (1000, 10**5, 10**6, 10**7):  # a thousand, a lakh, a million, a crore
            total += (group or 1) * value
            group, last = 0, value
            continue
        if value == 100:
            group = (group or 1) * 100 if group < 10 else None
            if group is None:
                return None
        elif last is not None and last != 100 and last < 1000 and (value >= last or last < 10):
            return None  # "two three", "twenty thirty", "five twenty"
        else:
            group += value
        last = value
    return total + group


_RUSSIAN_WHOLES = ("целых", "целая", "целой")  # "ноль целых пятнадцать сотых": 0 and 15/100


def _russian_pieces(text: str) -> list[tuple[int, int, str]]:
    """Russian numbers in words as digits, a fraction ("три пятьдесят шестых") as `3/56` and a whole number with one
    ("ноль целых пятнадцать сотых") as their sum (`3/20`)."""
    words = list(re.finditer(r"[а-яё]+", text, re.IGNORECASE))
    # the words of one number stand apart by spaces only: "два, три" are two
    spoken = [
        (word.group().lower(), index + 1 < len(words) and not text[word.end() : words[index + 1].start()].strip())
        for index, word in enumerate(words)
    ]
    pieces, index = [], 0
    while index < len(words):
        number = _russian_number(spoken, index)
        if number is None:
            index += 1
            continue
        count, value = number
        written = str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
        if any(word in _RUSSIAN_WHOLES for word, _ in spoken[index : index + count]):  # a decimal: 4.67, not 467/100
            places = next((places for places in range(1, 7) if (value * 10**places).denominator == 1), None)
            written = format(Decimal(value.numerator) / value.denominator, "f") if places else written
        pieces.append((words[index].start(), words[index + count - 1].end(), written))
        index += count
    return pieces


def _russian_run(spoken: list[tuple[str, bool]], start: int) -> int:
    """How many number words stand from `spoken[start]`, each after the one before with only a space between."""
    length = 0
    while (
        start + length < len(spoken)
        and spoken[start + length][0] in _RUSSIAN_NUMBERS
        and (length == 0 or spoken[start + length - 1][1])
    ):
        length += 1
    return length


def _russian_number(spoken: list[tuple[str, bool]], start: int) -> tuple[int, Fraction] | None:
    """The longest number in words at `spoken[start]` (a whole number, a fraction, or both joined by "целых"), as
    the count of its words and its value."""
    for split in range(_russian_run(spoken, start), 0, -1):
        value = _sum_of_scales([_RUSSIAN_NUMBERS[word] for word, _ in spoken[start : start + split]])
        if value is None:
            continue
        follows = spoken[start + split - 1][1]
        denominator = _russian_denominator(spoken, start + split) if follows else None
        if denominator is not None:
            return split + denominator[0], Fraction(value, denominator[1])
        if (
            follows
            and start + split < len(spoken)
            and spoken[start + split][0] in _RUSSIAN_WHOLES
            and spoken[start + split][1]
        ):
            rest = _russian_number(spoken, start + split + 1)
            if rest is not None and rest[1].denominator > 1:
                return split + 1 + rest[0], value + rest[1]
        return split, Fraction(value)
    return None


def _russian_denominator(spoken: list[tuple[str, bool]], start: int) -> tuple[int, int] | None:
    """A fraction's denominator at `spoken[start]`: cardinal words then an ordinal ("пятьдесят шестых": 56), as the
    count of its words and its value."""
    position = start + _russian_run(spoken, start)
    if (
        position >= len(spoken)
        or spoken[position][0] not in _RUSSIAN_ORDINALS
        or (position > start and not spoken[position - 1][1])
    ):
        return None
    cardinal = [_RUSSIAN_NUMBERS[word] for word, _ in spoken[start:position]]
    value = _sum_of_scales([*cardinal, _RUSSIAN_ORDINALS[spoken[position][0]]])
    return None if value is None else (position - start + 1, value)


# --- numbers in Chinese, Japanese and Korean characters, and Japanese kana

_CJK_DIGITS = {
    "zh": dict(zip("零〇一二两三四五六七八九", (0, 0, 1, 2, 2, 3, 4, 5, 6, 7, 8, 9), strict=True)),
    "ja": dict(zip("零〇一二三四五六七八九", (0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9), strict=True)),
    "ko": dict(zip("영공일이삼사오육륙칠팔구", (0, 0, 1, 2, 3, 4, 5, 6, 6, 7, 8, 9), strict=True)),
}
_CJK_UNITS = {
    "zh": {"十": 10, "百": 100, "千": 1000, "万": 10**4, "萬": 10**4, "亿": 10**8, "億": 10**8},
    "ja": {"十": 10, "百": 100, "千": 1000, "万": 10**4, "億": 10**8},
    "ko": {"십": 10, "백": 100, "천": 1000, "만": 10**4, "억": 10**8},
}
_KANA_NUMBERS = {
    "さんびゃく": [3, 100], "ろっぴゃく": [6, 100], "はっぴゃく": [8, 100], "さんぜん": [3, 1000], "はっせん": [8, 1000],
    "ひゃく": [100], "せん": [1000], "まん": [10**4], "じゅう": [10], "いち": [1], "に": [2], "さん": [3], "よん": [4],
    "し": [4], "ご": [5], "ろく": [6], "なな": [7], "しち": [7], "はち": [8], "きゅう": [9], "く": [9], "れい": [0],
}  # fmt: skip
_KANA_WORDS = sorted(_KANA_NUMBERS, key=len, reverse=True)
_KANA_NUMBER = re.compile("(?:" + "|".join(_KANA_WORDS) + ")+")
# what may stand beside a single numeral that is a number ("是一。", "三分の", "又二分之一"), not a part of a word ("一下")
_NUMBER_NEIGHBOURS = "分之又倍点根号负約约是为は：:「」『』（）“”加减乘除并和与或"


# Korean's native numbers, to 99 ("열여섯", "스물아홉", "다섯"): of two syllables or more, one alone ("열", "두", "세")
# is a word too
_KOREAN_TENS = {
    "열": 10,
    "스물": 20,
    "스무": 20,
    "서른": 30,
    "마흔": 40,
    "쉰": 50,
    "예순": 60,
    "일흔": 70,
    "여든": 80,
    "아흔": 90,
}
_KOREAN_UNITS = {
    "하나": 1, "한": 1, "둘": 2, "두": 2, "셋": 3, "세": 3, "넷": 4, "네": 4, "다섯": 5, "여섯": 6, "일곱": 7, "여덟": 8,
    "아홉": 9,
}  # fmt: skip
_KOREAN_NATIVE = re.compile(
    rf"(?<![\uac00-\ud7a3])(?P<tens>{'|'.join(_KOREAN_TENS)})?"
    rf"(?P<units>{'|'.join(sorted(_KOREAN_UNITS, key=len, reverse=True))})?(?![\uac00-\ud7a3])"
)
_KOREAN_MATH = "루트|마이너스|더하기|빼기|곱하기|나누기|이퀄|분의|파이"
_ALONE_BEFORE = re.compile(rf"(?:^|[(\[,:]|{_KOREAN_MATH})\s*$")
_ALONE_AFTER = re.compile(rf"\s*(?:[,)\].;]|$|{_KOREAN_MATH}|[a-z](?![\w]))")


def _positional(values: list[int]) -> int | None:
    """The number East Asian numerals write, each digit before the unit it multiplies ([2, 100, 0, 4]: 204; [2,
    1000, 2, 100, 2, 10]: 2220), or `None` where they write none (two digits with no unit between: "一一")."""
    total, section, digit = 0, 0, None
    for value in values:
        if value == 0:  # 零 holds an empty place: 二百零四
            continue
        if value < 10:
            if digit is not None:
                return None
            digit = value
        elif value >= 10**4:
            total += (section + (digit or 0) or 1) * value
            section, digit = 0, None
        else:
            section += (1 if digit is None else digit) * value
            digit = None
    return total + section + (digit or 0)


def _cjk_values(characters: str, name: str) -> list[int]:
    return [_CJK_DIGITS[name].get(character, _CJK_UNITS[name].get(character)) for character in characters]


def _kana_number(kana: str) -> int | None:
    values, position = [], 0
    while position < len(kana):
        word = next(word for word in _KANA_WORDS if kana.startswith(word, position))
        values += _KANA_NUMBERS[word]
        position += len(word)
    return _positional(values) if len(kana) > 1 else None


def _cjk_pieces(text: str, name: str) -> list[tuple[int, int, str]]:
    """Numbers in CJK numerals as digits, with a decimal point ("一点二五", "영점일오"), where they stand as a number:
    more numerals than one, or one beside what `_NUMBER_NEIGHBOURS` holds (Chinese, Japanese) or a fraction's
    "분의" (Korean: "이" is "this" too); kana numbers apart from other kana ("よんじゅうに")."""
    digits, units = _CJK_DIGITS[name], _CJK_UNITS[name]
    point = "점" if name == "ko" else "点"
    digit_characters, numerals = "".join(digits), "".join(digits) + "".join(units)
    number = re.compile(  # "百分之" marks a percent; Korean spaces after 만 and around 점: "만 팔십", "팔 점 일이"
        rf"(?:(?P<sign>负|負|マイナス|마이너스)\s*)?(?!百分之)"
        rf"(?P<numerals>[{numerals}]+(?:(?<=[만억])\s[{numerals}]+)*(?:\s?{point}\s?[{digit_characters}]+)?)"
    )
    pieces = []
    for match in number.finditer(text):
        whole, _, decimals = re.sub(r"\s", "", match["numerals"]).partition(point)
        if len(match["numerals"]) == 1 and not match["sign"]:
            before, after = text[match.start() - 1 : match.start()], text[match.end() : match.end() + 2]
            if name == "ko":
                alone = _ALONE_BEFORE.search(text, 0, match.start()) and _ALONE_AFTER.match(text, match.end())
                if _HANGUL.match(before):
                    continue  # a part of a word: "파이", "일과"
                if not (
                    alone  # "(이, 사)": between brackets and commas, no word of which it could be a part
                    or after.startswith("분의")
                    or text[max(0, match.start() - 3) : match.start()].rstrip().endswith("분의")
                ):
                    continue
            elif any(
                _HAN.match(neighbour) and neighbour not in _NUMBER_NEIGHBOURS for neighbour in (before, after[:1])
            ):
                continue
        value = _positional(_cjk_values(whole, name))
        if value is None:
            continue
        written = f"{value}.{''.join(str(digits[character]) for character in decimals)}" if decimals else str(value)
        # apart from the characters around it, which run on without spaces: "是七（7）" is 7 said twice, not 7(7)
        pieces.append((match.start(), match.end(), f" {'-' if match['sign'] else ''}{written} "))
    if name == "ko":
        for match in _KOREAN_NATIVE.finditer(text):
            tens, units = match["tens"], match["units"]
            if len(match.group()) > 1 and (tens or units):
                value = _KOREAN_TENS.get(tens, 0) + _KOREAN_UNITS.get(units, 0)
                pieces.insert(0, (match.start(), match.end(), f" {value} "))
    if name == "ja":
        for match in _KANA_NUMBER.finditer(text):
            before, after = text[match.start() - 1 : match.start()], text[match.end() : match.end() + 1]
            if any(re.match(r"[\u3040-\u309f]", neighbour) for neighbour in (before, after)):
                continue  # a part of a word: に, さん and し are particles and suffixes too
            value = _kana_number(match.group())
            if value is not None:
                pieces.append((match.start(), match.end(), f" {value} "))
    return first_of_overlapping(pieces)


def _turkish_pieces(text: str) -> list[tuple[int, int, str]]:
    pieces = []
    for match in _TURKISH_NUMBER.finditer(text):
        words = [word.lower() for word in _TURKISH_WORD.findall(match["number"])]
        if "".join(words) != re.sub(r"\s+", "", match["number"].lower()):
            continue  # a longer word that starts like a number ("ondan", "birim")
        if _TURKISH_POINT.search(text, 0, match.start()) and all(_TURKISH_NUMBERS[word] < 10 for word in words):
            pieces.append((*match.span("number"), "".join(str(_TURKISH_NUMBERS[word]) for word in words)))
            continue  # decimals digit by digit
        signed = text[: match.start()].rstrip().lower().endswith("eksi")
        if words == ["bir"] and not signed and _WORD_NOT_OPERATION.match(text, match.end()):
            continue  # "bir" is "a" as well as "one": "bir hata" is a mistake, "eksi bir olur" is -1
        value = _sum_of_scales([_TURKISH_NUMBERS[word] for word in words])
        if value is not None:
            pieces.append((*match.span("number"), str(value)))
    return pieces


def _hindi_pieces(text: str) -> list[tuple[int, int, str]]:
    pieces = []
    for match in _HINDI_NUMBER.finditer(text):
        words = match.group().lower().split()
        values = [_HINDI_NUMBERS[word] for word in words]
        if _HINDI_POINT.search(text, 0, match.start()) and max(values) < 10:  # decimals digit by digit
            pieces.append((*match.span(), "".join(map(str, values))))
            continue
        if words == [words[0]] and words[0] in _HINDI_HOMOGRAPHS:
            beside, _, closing = _neighbours(text, *match.span())
            if not (closing or any(word in _HINDI_NUMBERS or _HINDI_BESIDE.fullmatch(word) for word in beside)):
                continue
        value = _sum_of_scales(values)
        if value is not None:
            pieces.append((*match.span(), str(value)))
    return pieces


def number_word_pieces(text: str, name: str) -> list[tuple[int, int, str]]:
    """The pieces that write the numbers of a critique in `name` (one `language` tells, other than the
    `ALPHA2DIGIT_LANGUAGES`) in digits."""
    if name == "ru":
        return _russian_pieces(text)
    if name == "tr":
        return _turkish_pieces(text)
    if name == "hi":
        return _hindi_pieces(text)
    if name in _CJK_DIGITS:
        return _cjk_pieces(text, name)
    return []


# --- what the numbers are said with: fractions, signs, roots, pi, and the words around them

# a denominator in words after a numerator in digits: "14 tercios", "4 5èmes" (alpha2digit's ordinal), "3 Viertel"
_DENOMINATOR_WORDS = {
    "fr": {"demi": 2, "demis": 2, "tiers": 3, "quart": 4, "quarts": 4},
    "es": {"medio": 2, "medios": 2, "tercio": 3, "tercios": 3, "cuarto": 4, "cuartos": 4},
    "pt": {"meio": 2, "meios": 2, "terço": 3, "terços": 3, "quarto": 4, "quartos": 4},
    "it": {"mezzo": 2, "mezzi": 2, "terzo": 3, "terzi": 3, "quarto": 4, "quarti": 4},
    "hi": {"tihaai": 3, "tihai": 3, "chauthaai": 4, "chauthai": 4},
    "de": {
        "halb": 2, "halbe": 2, "halben": 2, "drittel": 3, "viertel": 4, "fünftel": 5, "sechstel": 6, "siebtel": 7,
        "achtel": 8, "neuntel": 9, "zehntel": 10, "elftel": 11, "zwölftel": 12, "zwanzigstel": 20,
        "hundertstel": 100, "tausendstel": 1000,
    },
}  # fmt: skip
_ONE_ARTICLES = r"un|une|una|um|uma|uno|ein|eine|einen"  # "un tiers", "ein Drittel": one, as the article says it
_ORDINAL_MARK = r"(?:i?èmes?|ᵒˢ?|ᵃˢ?|ºs?|ªs?|\s+avos\b)"

# "加" is "add" as well as "plus", "并" "and also" as well as "union": an operation only between two values
_AFTER_VALUE, _BEFORE_VALUE = r"(?<=[\dA-Za-zπ)\]])\s*", r"\s*(?=[\dA-Za-zπ(√-])"
VALUE_BEFORE_SIGN = r"(?:(?<=[\d)π]\s)|(?<=(?<![^\W\d_])[a-z]\s))"  # "1 mais ou menos" is ±, "é mais ou menos" about
# the words of each language the rest of the guard reads in English; "/" only between two values ("pi sur six",
# not "sur la ligne"), and the East Asian "and" and "or" only between two values too (と and 과 are particles)
_WORDS = {
    "fr": {
        r"moins\s+l'infini|moins\s+infini": "-\\infty ", "ni": "nor", r"plus\s+ou\s+moins": "\\pm ", r"cotangente\s+de": "\\cot",
        r"(?:la\s+)?racine carrée de|(?:la\s+)?racine de": "square root of", "moins": "minus", "fois": "times",
        "sur": "/", "pi": "π", "et": "and", "ou": "or", "environ|à peu près|approximativement": "about",
        r"égale?\s+à": "=", r"l'infini|infini": "\\infty ", r"(?<=\d\s)degrés": "degrees", r"pour\s+(?:cent|100)": "percent",
    },
    "es": {
        r"menos\s+infinito": "-\\infty ", r"más\s+o\s+menos": "\\pm ", "ni": "nor", "centavos?|céntimos?": "cents", r"cotangente\s+de": "\\cot", "dólares": "dollars",
        r"(?:la\s+)?raíz cuadrada de|(?:la\s+)?raíz de": "square root of", "menos": "minus", "veces": "times",
        "entre|sobre": "/", "pi": "π", "y": "and", "o": "or", "uno": "1",
        "aproximadamente|alrededor de|cerca de|unos|unas": "about",
        "más": "plus", r"igual\s+a": "=", "infinito": "\\infty ", "unión": " \\cup ", r"(?<=\d\s)grados": "degrees",
        r"por\s+(?:ciento|100)": "percent",
    },
    "pt": {
        "nem": "nor", r"menos\s+infinito": "-\\infty ", VALUE_BEFORE_SIGN + r"mais\s+ou\s+menos": "\\pm ", r"cotangente\s+de": "\\cot", "dólares": "dollars",
        r"(?:a\s+)?raiz quadrada de|(?:a\s+)?raiz de": "square root of", "menos": "minus", "vezes": "times",
        "sobre": "/", "pi": "π", "e": "and", "ou": "or", "aproximadamente|cerca de|mais ou menos": "about",
        "mais": "plus", r"igual\s+a": "=", "infinito": "\\infty ", "união": " \\cup ", r"(?<=\d\s)graus": "degrees",
        r"por\s+(?:cento|100)": "percent",
    },
    "de": {
        r"minus\s+unendlich": "-\\infty ", "weder": "neither", r"(?<=\w\s)noch(?=\s+\w)": "nor", r"plus\s*-?\s*minus": "\\pm ",
        r"(?:die\s+)?(?:Quadrat)?wurzel\s+aus": "square root of", "minus|negativ": "minus", "mal": "times",
        r"(?:geteilt\s+)?durch": "/", "pi": "π", "und": "and", "oder": "or", "etwa|ungefähr|circa|rund": "about",
        "eins": "1", "gleich": "=", "unendlich": "\\infty ", r"vereinigt\s+mit": " \\cup ", r"(?<=\d\s)Grad": "degrees",
        "Prozent": "percent",
    },
    "it": {
        r"meno\s+infinito": "-\\infty ", "né": "nor", r"più\s+o\s+meno": "\\pm ", r"cotangente\s+di": "\\cot",
        r"(?:la\s+)?radice quadrata di|(?:la\s+)?radice di": "square root of", "meno": "minus", "volte": "times",
        "fratto|diviso": "/", "pi greco|pi": "π", "e": "and", "o": "or", "uno": "1",
        "circa|all'incirca|approssimativamente": "about",
        "più": "plus", r"uguale\s+a": "=", "infinito": "\\infty ", "unione": " \\cup ", r"(?<=\d\s)gradi": "degrees",
        r"per\s+(?:cento|100)": "percent",
    },
    "ru": {
        r"минус\s+бесконечност[ьи]": "-\\infty ", r"плюс[\s-]*минус": "\\pm ", "котангенс": "\\cot ",
        "тангенс": "\\tan ", r"процент(?:а|ов)?": "percent",
        r"(?:квадратный\s+)?корень\s+из|корн(?:я|ей)\s+из": "square root of", "минус": "minus",
        r"\\operatorname\s*\{ctg\}|ctg": "\\cot", r"\\operatorname\s*\{tg\}|tg": "\\tan",
        "на|делённое на|деленное на": "/", "пи": "π", "и": "and", "или": "or",
        "примерно|около|приблизительно": "about",
 "плюс": "plus", "равно": "=", r"бесконечност[ьи]": "\\infty ", "объединение": " \\cup ",
        r"(?:раздел|дел)ить\s+на": "/",
    },
    "tr": {
        r"eksi\s+sonsuz": "-\\infty ", r"artı\s+eksi": "\\pm ", "karekök|kök": "√", "eksi": "minus", "bölü": "/", "pi": "π", "ve": "and", "veya|ya da": "or",
        r"yaklaşık(?:\s+olarak)?|aşağı\s+yukarı": "about",
        "artı": "plus", "çarpı": "times", "eşittir": "=", "sonsuz": "\\infty ", "birleşim": " \\cup ",
        r"(?<=\d\s)derece": "degrees",
    },
    "hi": {
        r"minus\s+anant": "-\\infty ", r"plus\s+minus": "\\pm ", "bata|upon": "/", "aur": "and", "ya": "or", "root": "√", "guna": "times", "anant": "\\infty ",
        "pratishat|pratishath": "percent", "lagbhag|kareeb|qareeb|taqreeban": "about", "aadha|adha": "1/2",
        "dedh|derh": "3/2", "dhaai|dhai": "5/2",
    },
    "zh": {
        "负无穷大|负无穷": "-\\infty ", "负": " minus ", "根号": "√", "倍": " times ", "和|与|及": " and ", "或": " or ",
        "约等于|大约|约为|约": " about ",
        "正负": "\\pm ", rf"{_AFTER_VALUE}加{_BEFORE_VALUE}": " plus ", rf"{_AFTER_VALUE}减{_BEFORE_VALUE}": " minus ",
        rf"{_AFTER_VALUE}(?:乘以|乘){_BEFORE_VALUE}": " times ", rf"{_AFTER_VALUE}除以{_BEFORE_VALUE}": "/",
        rf"{_AFTER_VALUE}并{_BEFORE_VALUE}": " \\cup ", "无穷大|无穷|無限大|无限大": "\\infty ", "和集合": " \\cup ", "余切": "\\cot ", "正切": "\\tan ",
        "等于": "=",
        "、": ", ",
    },
    "ja": {
        r"マイナス\s*無限大": "-\\infty ", "プラスマイナス": "\\pm ", "マイナス": " minus ", "ルート": "√", "倍": " times ", "と": " and ", "または": " or ",
        "約|およそ": " about ", "プラス": " plus ", "パイ": "π", "和集合": " \\cup ", "無限大": "\\infty ", "パーセント": "%",
        "イコール": "=", "ドル": " dollars ", "セント": " cents ", "コタンジェント": "\\cot ", "タンジェント": "\\tan ", "、": ", ",
    },
    "ko": {
        r"마이너스\s*무한대": "-\\infty ", "플러스마이너스": "\\pm ", "마이너스": " minus ", "루트": "√", "그리고|와|과": " and ", "또는": " or ", "약": " about ",
        "파이": "π", "더하기|플러스": " plus ", "빼기": " minus ", "곱하기": " times ", "나누기": "/", "무한대": "\\infty ",
        "합집합": " \\cup ", "퍼센트": "%", "이퀄": "=",
    },
}  # fmt: skip
_ZERO = {"fr": "zéro", "es": "cero", "pt": "zero", "de": "null", "it": "zero"}
_ONE = {"fr": "un|une", "es": "un|una", "pt": "um|uma", "de": "ein|eine", "it": "un|una"}
_OPERATION_WORDS = {
    "fr": "sur|plus|moins|fois", "es": "sobre|entre|más|menos|veces", "pt": "sobre|mais|menos|vezes",
    "de": "durch|plus|minus|mal", "it": "fratto|diviso|più|meno|volte",
}  # fmt: skip
# a choice by its letter: "la proposition E", "el inciso E", "ответ C", "选 E", "C の選択肢", "C şıkkı"
_OPTION = {
    "fr": r"(?:la\s+)?(?:proposition|réponse|option)\s+\(?(?P<letter>[A-E])\)?",
    "es": r"(?:(?:el\s+)?inciso|(?:la\s+)?opción|(?:la\s+)?alternativa)\s+\(?(?P<letter>[A-E])\)?",
    "pt": r"(?:a\s+)?(?:alternativa|opção)\s+\(?(?P<letter>[A-E])\)?",
    "de": r"(?:Antwort|Option|Auswahlmöglichkeit)\s+\(?(?P<letter>[A-E])\)?",
    "it": r"(?:la\s+)?(?:risposta|opzione|alternativa)\s+\(?(?P<letter>[A-E])\)?",
    "ru": r"(?:ответ|вариант)\s+\(?(?P<letter>[A-E])\)?",
    "tr": r"\(?(?P<letter>[A-E])\)?\s+(?:şıkkı|seçeneği)",
    "zh": r"选(?:项)?\s*\(?(?P<letter>[A-E])\)?",
    "ja": r"\(?(?P<letter>[A-E])\)?\s*の選択肢|選択肢\s*\(?(?P<later>[A-E])\)?",
    "ko": r"\(?(?P<letter>[A-E])\)?\s*번",
}
# the words of MATH's text answers (a parity, a direction, a conic), where the language has one no common word
# shares (French "est" is "is", Spanish "este" is "this")
_TEXT_ANSWERS = {
    "fr": {
        "even": "paire?", "odd": "impaire?", "west": "ouest", "north": "nord", "south": "sud", "ellipse": "ellipse",
        "parabola": "parabole", "hyperbola": "hyperbole", "circle": "cercle",
    },
    "es": {
        "even": "par", "odd": "impar", "west": "oeste", "north": "norte", "south": "sur", "ellipse": "elipse",
        "parabola": "parábola", "hyperbola": "hipérbola", "circle": "círculo|circunferencia",
    },
    "pt": {
        "even": "par", "odd": "ímpar", "east": "leste", "west": "oeste", "north": "norte", "south": "sul",
        "ellipse": "elipse", "parabola": "parábola", "hyperbola": "hipérbole", "circle": "círculo|circunferência",
    },
    "de": {
        "even": "gerade", "odd": "ungerade", "east": "osten", "west": "westen", "north": "norden", "south": "süden",
        "ellipse": "ellipse", "parabola": "parabel", "hyperbola": "hyperbel", "circle": "kreis",
    },
    "it": {
        "even": "pari", "odd": "dispari", "east": "est", "west": "ovest", "north": "nord", "south": "sud",
        "ellipse": "ellisse", "parabola": "parabola", "hyperbola": "iperbole", "circle": "cerchio|circonferenza",
    },
    "ru": {
        "even": r"чётн\w*|четн\w*", "odd": r"нечётн\w*|нечетн\w*", "east": r"восток\w*", "west": r"запад\w*",
        "north": r"север\w*", "south": r"юг\w*", "ellipse": r"эллипс\w*", "parabola": r"парабол\w*",
        "hyperbola": r"гипербол\w*", "circle": r"окружност\w*",
    },
    "tr": {
        "even": "çift", "east": "doğu", "west": "batı", "north": "kuzey", "south": "güney", "ellipse": "elips",
        "parabola": "parabol", "hyperbola": "hiperbol", "circle": "çember",
    },
    "zh": {
        "even": "偶函数|偶数", "odd": "奇函数|奇数", "east": "东方?", "west": "西方?", "north": "北方?",
        "south": "南方?", "ellipse": "椭圆", "parabola": "抛物线", "hyperbola": "双曲线",
    },
    "ja": {
        "even": "偶関数|偶数", "odd": "奇関数|奇数", "east": "東", "west": "西", "north": "北", "south": "南",
        "ellipse": "楕円", "parabola": "放物線", "hyperbola": "双曲線",
    },
    "hi": {"even": "sam", "odd": "visham", "east": "poorab|purab", "west": "paschim", "north": "uttar", "south": "dakshin"},
    "ko": {
        "even": "짝함수|우함수|짝수", "odd": "홀함수|기함수|홀수", "east": "동쪽", "west": "서쪽", "north": "북쪽",
        "south": "남쪽", "ellipse": "타원", "parabola": "포물선", "hyperbola": "쌍곡선",
    },
}  # fmt: skip
_BETWEEN_VALUES = {"/", " and ", " or "}
# a value before "/": a digit, π, a bracket, or a word this pass itself reads as one ("pi greco fratto due", "uno
# sobre dieciséis"); after it: a digit, a sign, a root or "pi"
_VALUE_BEFORE = (
    "(?:"
    + "|".join(
        [
            r"(?<=[\dπiи)\]}]\s)",
            *(rf"(?<=(?<!\w){word}\s)" for word in ("pi", "пи", "greco", "uno", "un", "una", "um")),
        ]
    )
    + ")"
)
_VALUE_AFTER = r"(?=\s[-\d(π√]|\s*(?:pi|пи)\b)"
_EAST_ASIAN = ("zh", "ja", "ko")
_SIGN_WORDS = r"(?:menos|moins|meno|minus)\b"


def _word_pattern(name: str, words: str, replacement: str) -> str:
    if name in _EAST_ASIAN:
        before_value = r"\s*(?=[-\d(√]|マイナス|마이너스|负)"
        return rf"(?<=[\d)\]])\s*(?:{words}){before_value}" if replacement in _BETWEEN_VALUES else f"(?:{words})"
    if replacement == "/":
        return rf"{_VALUE_BEFORE}(?:{words}){_VALUE_AFTER}"
    if len(words) == 1:  # "y", "e", "o" are variables too: "and", "or" only between values ("3 y 5", "x = 8 e y = -2")
        return rf"(?<=[\d)\]}}]\s){words}(?=\s+(?:[-\d(√]|{_SIGN_WORDS}|[a-z]\s*=))"
    return rf"(?<![\w\\])(?:{words})(?!\w)"  # `\pi` is TeX's already


_WORD_PATTERNS = {
    name: [(re.compile(_word_pattern(name, words, new), re.IGNORECASE), new) for words, new in table.items()]
    for name, table in _WORDS.items()
}

# a fraction in East Asian order, its denominator first: "36分之11", "56分の3", "3분의 14"; a whole number before it
# ("137又2分之1", "137と2分の1", "137과 2분의 1"); Turkish's "3'te 14" ("üçte on dört" once its words are digits)
_ROOT_NUMERATOR = r"(?P<root>ルート|루트|根号|√)?\s*(?P<numerator>\d+)"
_DENOMINATOR_FIRST = {
    "zh": re.compile(rf"(?:(?P<whole>\d+)\s*又\s*)?(?P<denominator>\d+)\s*分之\s*{_ROOT_NUMERATOR}"),
    "ja": re.compile(rf"(?:(?P<whole>\d+)\s*と\s*)?(?P<denominator>\d+)\s*分の\s*{_ROOT_NUMERATOR}"),
    "ko": re.compile(rf"(?:(?P<whole>\d+)\s*[과와]\s*)?(?P<denominator>\d+)\s*분의\s*{_ROOT_NUMERATOR}"),
    "tr": re.compile(r"(?P<denominator>\d+)\s*'?(?:te|ta|de|da)\s+(?P<numerator>\d+)"),
}
# pi over a number, or a number over pi, in East Asian order: "8分のパイ", "パイ分の20000", "6分之π", "6분의 파이"
_PI_FRACTION = {
    name: re.compile(
        rf"(?P<denominator>\d+)\s*{mark}\s*(?:{pi})(?P<power>\^\d+)?(?!\w)"
        rf"|(?:{pi})\s*{mark}\s*(?P<numerator>\d+)(?!\d|\.\d)"
    )
    for name, mark, pi in (("zh", "分之", "π|圆周率"), ("ja", "分の", "π|パイ"), ("ko", "분의", "π|파이"))
}
_AND_A_HALF = re.compile(r"(?<![\d.])(?P<whole>\d+)\s+(?:et|e|y)\s+(?:demi|meio|medio|mezzo)\b", re.IGNORECASE)
# German's number word and a half in one word: "dreieinhalb", "einhundertsiebenunddreißigeinhalb"; "anderthalb" (1 1/2)
_GERMAN_AND_A_HALF = re.compile(r"(?<!\w)(?:(?P<whole>[^\W\d_]+?)einhalb|anderthalb)(?!\w)", re.IGNORECASE)
_PERCENT_FIRST = re.compile(r"百分之\s*(?P<value>\d+(?:\.\d+)?)")
# a decimal comma, not between a bracket's items (`(3,4]`), with three digits or more after it or a whole part of 0:
# "4,6667", "0,25" ("5,5" may be a list as much as a decimal; the rest of the guard reads it both ways); grouping
# dots, "2.220", never after a whole 0 ("0.125" is a decimal)
_COMMA_DECIMAL = re.compile(r"(?<![\d.,(\[{/])(?P<whole>0|\d+(?=,\d{3}))(?:,(?P<decimals>\d+))(?![\d,/]|\s*[)\]}])")
# a decimal said with a word, its digits read one by one: "teen point do ek" (3 point 21), "iki virgül iki üç" (2
# virgül 23), and the decimals alpha2digit leaves apart ("quatro vírgula quatro sete": 4,4 7)
_DECIMAL_WORD = {
    name: re.compile(rf"(?P<whole>\d+)\s+(?:{words})\s+(?P<decimals>\d+)", re.IGNORECASE)
    for name, words in (("hi", "point|dashamlav"), ("tr", "virgül"))
}
_DECIMALS_APART = re.compile(r"(?<![\d.,])(?P<number>\d+[.,]\d)(?P<apart>(?:\s\d(?![\d.,]))+)")


def _words_for(name: str, meaning: str) -> str:
    return "|".join(words for words, new in _WORDS[name].items() if new.strip() == meaning)


# any decimal comma after the language's "about" or before its "percent", where no list and no grouping stands:
# "yaklaşık 15,56", "33,33 por cento"
_APPROXIMATE = {
    name: re.compile(
        rf"(?:{_words_for(name, 'about')})\s+(?P<about>-?\d+,\d+)(?![\d,])"
        rf"|(?<![\d,])(?P<percent>-?\d+,\d+)(?=\s*(?:%|{_words_for(name, 'percent') or '%'}))",
        re.IGNORECASE,
    )
    for name in COMMA_DECIMAL_LANGUAGES
}
_GROUPING_DOTS = re.compile(r"(?<![\d.,])[1-9]\d{0,2}(?:\.\d{3})+(?![\d,]|\.\d)")


def language_pieces(text: str, name: str | None) -> list[tuple[int, int, str]]:
    """The pieces that write a critique in `name` (after `number_word_pieces` or alpha2digit) as the rest of the
    guard reads English: its decimal commas and grouping, its fractions, and its words for signs, roots, pi,
    products, quotients, "and", "or" and approximations (a locale's conventions in any language are
    `convention_pieces`)."""
    if name is None:
        return []
    pieces = []
    if name in ALPHA2DIGIT_LANGUAGES:
        for match in _DECIMALS_APART.finditer(text):
            pieces.append((*match.span(), match["number"].replace(",", ".") + match["apart"].replace(" ", "")))
    if name in COMMA_DECIMAL_LANGUAGES:
        pieces += [(m.start(), m.end(), m.group().replace(".", "")) for m in _GROUPING_DOTS.finditer(text)]
        pieces += [(m.start(), m.end(), f"{m['whole']}.{m['decimals']}") for m in _COMMA_DECIMAL.finditer(text)]
        for match in _APPROXIMATE[name].finditer(text):
            group = "about" if match["about"] else "percent"
            pieces.append((*match.span(group), match[group].replace(",", ".")))
    if name in _DECIMAL_WORD:
        pieces += [(*m.span(), f"{m['whole']}.{m['decimals']}") for m in _DECIMAL_WORD[name].finditer(text)]
    if name in _DENOMINATOR_WORDS:
        words = "|".join(sorted(_DENOMINATOR_WORDS[name], key=len, reverse=True))
        pattern = re.compile(
            rf"(?<![\d.])(?P<numerator>\d+|{_ONE_ARTICLES})\s+"
            rf"(?:(?P<word>{words})\b|(?P<ordinal>\d+)\s*{_ORDINAL_MARK}"
            r"|(?P<compound>[^\W\d_]+?)s?tel\b)",
            re.IGNORECASE,
        )
        for match in pattern.finditer(text):
            if match["compound"]:  # German's "Vierundsechzigstel": a number word and "-stel"
                spelled = alpha2digit(match["compound"].lower(), "de")
                denominator = int(spelled) if spelled.isdigit() else 0
            else:
                denominator = (
                    _DENOMINATOR_WORDS[name][match["word"].lower()] if match["word"] else int(match["ordinal"])
                )
            numerator = match["numerator"] if match["numerator"].isdigit() else "1"
            if denominator > 1:
                pieces.append((match.start(), match.end(), f"{numerator}/{denominator}"))
    pieces += [(*m.span(), f"{2 * int(m['whole']) + 1}/2") for m in _AND_A_HALF.finditer(text)]
    if name == "de":
        for match in _GERMAN_AND_A_HALF.finditer(text):
            whole = alpha2digit(match["whole"].lower(), "de", threshold=0) if match["whole"] else "1"
            if whole.isdigit():
                pieces.append((*match.span(), f"{2 * int(whole) + 1}/2"))
    if name in _PI_FRACTION:
        for match in _PI_FRACTION[name].finditer(text):
            power = match["power"] or ""
            fraction = f"π{power}/{match['denominator']}" if match["denominator"] else f"{match['numerator']}/π"
            pieces.append((*match.span(), f"({fraction})"))
    if name in _DENOMINATOR_FIRST:
        for match in _DENOMINATOR_FIRST[name].finditer(text):
            if match.groupdict().get("root"):
                pieces.append((*match.span(), f"√{match['numerator']}/{match['denominator']}"))
            elif int(match["denominator"]):
                whole = int(match.groupdict().get("whole") or 0)
                value = whole + Fraction(int(match["numerator"]), int(match["denominator"]))
                pieces.append((*match.span(), f"{value.numerator}/{value.denominator}"))
    if name == "zh":
        pieces += [(m.start(), m.end(), f"{m['value']}%") for m in _PERCENT_FIRST.finditer(text)]
    if name in _OPTION:
        pieces += [(*m.span(), f" option {m['letter'] or m['later']} ") for m in re.finditer(_OPTION[name], text)]
    if name in _ZERO:
        pieces += [(*m.span(), "0") for m in re.finditer(rf"(?<!\w)(?:{_ZERO[name]})(?!\w)", text, re.IGNORECASE)]
    if name in _ONE:  # one as the article says it, where no noun follows: "o valor certo é um.", "un sur seize"
        after_one = rf"(?=\s*(?:[.,;:!?)*\"'»”]|$)|\s+(?:{_OPERATION_WORDS[name]})\b)"
        pieces += [(*m.span(), "1") for m in re.finditer(rf"(?<!\w)(?:{_ONE[name]}){after_one}", text, re.IGNORECASE)]
    before, after = ("", "") if name in _EAST_ASIAN else (r"(?<!\w)", r"(?!\w)")
    for english, words in _TEXT_ANSWERS[name].items():
        pieces += [(*m.span(), f" {english} ") for m in re.finditer(f"{before}(?:{words}){after}", text, re.I)]
    pieces += [(*match.span(), new) for pattern, new in _WORD_PATTERNS[name] for match in pattern.finditer(text)]
    return first_of_overlapping(pieces)


# --- an English critique that says its values in another language ("you wrote cinco, la respuesta es cuatro")

SWITCHED_LANGUAGES = ("es", "pt", "fr", "it", "de", "tr", "hi")  # written in the Latin script: `language` sees English
# a language's words around its numbers: signs, operations, roots, fractions, decimal words, percent, equality,
# infinity, union, degrees; the first line of each names those no English critique writes (a run's anchor too)
_SWITCH_WORDS = {
    "es": ("raíz menos más veces sobre coma infinito unión grados igual medio medios tercio tercios cuarto cuartos "
           "aproximadamente opción inciso dólares cotangente", "cuadrada de la el y o entre por ciento a alrededor cerca"),
    "pt": ("raiz menos vezes sobre vírgula infinito união graus igual meio meios terço terços quarto quartos "
           "aproximadamente alternativa opção dólares cotangente", "quadrada de a e ou mais por cento cerca"),
    "fr": ("racine moins fois sur virgule infini l'infini degrés égal égale tiers demi demis quart quarts environ "
           "approximativement proposition cotangente", "carrée de la et ou pour cent à"),
    "it": ("radice meno volte fratto diviso più virgola infinito unione gradi uguale mezzo mezzi terzo terzi "
           "approssimativamente opzione alternativa cotangente", "quadrata di la e o per cento greco a circa"),
    "de": ("wurzel quadratwurzel negativ durch geteilt komma unendlich vereinigt grad gleich prozent drittel viertel "
           "halbe halben ungefähr etwa auswahlmöglichkeit", "die aus mal und oder mit circa rund"),
    "tr": ("karekök kök eksi bölü artı çarpı eşittir sonsuz birleşim derece virgül yaklaşık şıkkı seçeneği te ta",
           "ve veya ya da olarak"),
    "hi": ("bata guna anant pratishat dashamlav tihaai tihai chauthaai chauthai aadha dedh dhaai lagbhag kareeb "
           "qareeb taqreeban", "aur ya root point"),
}  # fmt: skip
_ANCHORS = {name: frozenset(anchors.split()) for name, (anchors, _) in _SWITCH_WORDS.items()}
_RUN_WORDS = {name: frozenset(f"{anchors} {words}".split()) for name, (anchors, words) in _SWITCH_WORDS.items()}
# number words of these languages that are English words too ("once", "six", "on", "do", "second" as Italian's
# ordinal): inside a run, never its anchor
_ENGLISH_HOMOGRAPHS = {
    "es": {"once", "miles", "un", "una"},
    "pt": {"zero", "um", "uma", "cent"},
    "fr": {"six", "cent", "cents", "million", "un", "une"},
    "it": {"none", "second", "prime", "zero", "due", "un", "una"},
    "de": {"elf", "null", "million", "billion", "ein", "eine"},
    "tr": {"on", "bin"},
    "hi": _HINDI_HOMOGRAPHS,
}
_RUN_TOKEN = re.compile(
    r"(?P<suffix>(?<=\d)['’](?:te|ta|de|da)\b)"
    r"|(?P<word>[^\W\d_]+(?:['’-][^\W\d_]+)*)"
    r"|(?P<glue>\s+|\d+(?:[.,]\d+)*|[-−–+*/^=()\[\]{},√π∞²³'])"
    r"|."
)
_ENGLISH_MATH = frozenset("plus minus times over pi".split())
# cents, which alpha2digit reads as Spanish hundredths ("5,4 centavos" as 5.4 + 1/100): no number word
CENTAVOS = re.compile(r"\bcentavos?\b", re.IGNORECASE)


@lru_cache(maxsize=2**16)
def is_number_word(word: str, name: str) -> bool:
    """Whether the lowercase `word` is a number word of the language `name` (alpha2digit reads it alone, or it is one
    of the language's denominators)."""
    if name == "tr":
        return _TURKISH_NUMBER.fullmatch(word) is not None
    if name == "hi":
        return word in _HINDI_NUMBERS
    if name == "de" and word.endswith("tel") and word not in _DENOMINATOR_WORDS["de"]:  # "vierundsechzigstel"
        word = word.removesuffix("tel").removesuffix("s")
    if CENTAVOS.fullmatch(word):
        return False
    return alpha2digit(word, name, threshold=0) != word or word in _DENOMINATOR_WORDS.get(name, ())


def _run_tokens(text: str, name: str) -> list[tuple[re.Match, str]]:
    """The tokens of `text`, each with its kind in a run of `name`: "anchor" (a number word no English critique
    writes, an operation word of the language), "word" (another of its number or run words), "glue" (space,
    digits, a variable, a bracket, an operator, English "plus", "minus", "pi") or "break" (English, a sentence's
    end). A number word English writes too ("once", "on", "do") is a part of a run only beside another word of it."""
    tokens = []
    for match in _RUN_TOKEN.finditer(text):
        word = match["word"].lower() if match["word"] else None
        if match["suffix"]:  # "5'te 6": Turkish's "of five", six
            kind = "anchor" if name == "tr" else "glue"
        elif word and is_number_word(word, name):
            kind = "homograph" if word in _ENGLISH_HOMOGRAPHS[name] else "anchor"
        elif word in _RUN_WORDS[name]:
            kind = "anchor" if word in _ANCHORS[name] else "word"
        elif match["glue"] or word in _ENGLISH_MATH or (word and len(word) == 1):
            kind = "glue"
        else:
            kind = "break"
        tokens.append((match, kind))
    # "(due, quattro)", "due k" (a coefficient), "... but it should be un.", not "14 sobre 3, once"
    for index, (match, kind) in enumerate(tokens):
        if kind == "homograph":
            beside, following, closing = _neighbours(text, *match.span())
            number = closing or any(
                word in _ENGLISH_MATH or word in _RUN_WORDS[name] or is_number_word(word, name) for word in beside
            )
            tokens[index] = (match, "word" if number or re.fullmatch(r"[b-hj-z]", following or "") else "break")
    return tokens


def switched_runs(text: str) -> list[tuple[int, int, str]]:
    """The runs `(start, end, language)` of an English critique that say values in one of `SWITCHED_LANGUAGES`
    (`_run_tokens`): a run holds an anchor, or, where the critique has a run of the language with one, a number word
    English writes too ("x plus un", where "zéro" stands elsewhere). Where runs of two languages overlap, the one
    with more words of its language is taken."""
    runs = []
    for name in SWITCHED_LANGUAGES:
        segments, words, anchored, start, end = [], 0, False, None, None
        for match, kind in [*_run_tokens(text, name), (None, "break")]:
            if kind == "break":
                if words:
                    segments.append((-words, start - end, start, end, anchored))
                words, anchored, start, end = 0, False, None, None
                continue
            words += kind != "glue"
            anchored = anchored or kind == "anchor"
            if not match.group().isspace() and not (start is None and match.group() == ","):
                start, end = match.start() if start is None else start, match.end()
        if any(anchored for *_, anchored in segments):
            runs += [(words, length, start, end, name) for words, length, start, end, _ in segments]
    taken, kept = set(), []
    for *_, start, end, name in sorted(runs):
        while end > start and text[end - 1] in ", ":
            end -= 1
        if not taken.intersection(range(start, end)):
            kept.append((start, end, name))
            taken.update(range(start, end))
    return sorted(kept)


# a decimal comma of one or two decimals, "using 3,9", outside brackets and lists
_SWITCHED_DECIMAL_COMMA = re.compile(r"(?<![\d.,(\[{/])(?P<whole>\d+),(?P<decimals>\d{1,2})(?![\d,]|\s*[)\]}])")


def switched_decimal_comma_pieces(text: str, runs: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """The decimal commas of an English critique with `runs` of a language that writes them ("using 3,9 is right",
    where "deux" stands elsewhere), outside those runs (which their language reads)."""
    if not any(name in COMMA_DECIMAL_LANGUAGES for *_, name in runs):
        return []
    taken = {position for start, end, _ in runs for position in range(start, end)}
    return [
        (*match.span(), f"{match['whole']}.{match['decimals']}")
        for match in _SWITCHED_DECIMAL_COMMA.finditer(text)
        if not taken.intersection(range(*match.span()))
    ]
