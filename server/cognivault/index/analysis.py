"""Turning text into search terms, per language: what makes lexical search find the right words.

- ``words``: Unicode-aware casefolded words; scripts written without spaces
  (Chinese, Japanese, Thai, Khmer, ...) become overlapping character bigrams.
- ``detect_language``: ISO 639-1 code of a text (py3langid), used per file
  unless the note's frontmatter sets ``lang``.
- ``Analyzer``: words to index terms: stopwords dropped, Snowball stemming for
  every language PyStemmer knows, and German compounds split against the
  vault's own vocabulary, so ``Synchronisierungseinstellungen`` also yields
  the terms of ``Synchronisierung`` and ``Einstellungen``.
"""

from __future__ import annotations

import copy
import re
import threading
from collections import Counter
from collections.abc import Iterable
from functools import lru_cache

import Stemmer
from bm25s import stopwords as bm25s_stopwords

from cognivault.vault.reading import math_spans

_WORD = re.compile(r"\w+")
SYMBOL_RUN = re.compile(r"[^\w\s]{2,}")  # Markdown syntax ("%%", "[[##") counts as a word
# Runs made only of these are sentence punctuation ('?"', '“,', ').'), not syntax anyone searches for.
_PROSE_PUNCTUATION = frozenset(".,;!?\"'“”„«»‘’‚()–—…")
# Scripts without spaces between words: index character bigrams instead of "words".
_UNSPACED = re.compile(
    "[\u0e00-\u0e7f\u0e80-\u0eff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff\u3400-\u4dbf"
    "\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]")

SNOWBALL_BY_ISO = {
    "ar": "arabic", "hy": "armenian", "eu": "basque", "ca": "catalan", "cs": "czech", "da": "danish",
    "nl": "dutch", "en": "english", "eo": "esperanto", "et": "estonian", "fi": "finnish", "fr": "french",
    "de": "german", "el": "greek", "hi": "hindi", "hu": "hungarian", "id": "indonesian", "ga": "irish",
    "it": "italian", "lt": "lithuanian", "ne": "nepali", "no": "norwegian", "nb": "norwegian",
    "fa": "persian", "pl": "polish", "pt": "portuguese", "ro": "romanian", "ru": "russian",
    "sr": "serbian", "es": "spanish", "sv": "swedish", "ta": "tamil", "tr": "turkish",
}
# Question words the German list lacks while the English one has theirs ("who", "why", "when",
# "where"): a German question's "warum" would otherwise rank notes that happen to say "warum".
GERMAN_QUESTION_WORDS = frozenset(
    "wer wen wem wessen warum wieso weshalb weswegen wozu wann woher wohin womit wodurch".split())
_STOPWORDS = {
    "en": frozenset(bm25s_stopwords.STOPWORDS_EN_PLUS),
    "de": frozenset(bm25s_stopwords.STOPWORDS_GERMAN) | GERMAN_QUESTION_WORDS,
}
_FUGEN = ("", "s", "es", "n", "en", "er", "e")
FUGEN = _FUGEN  # the joints of a German compound ("Liquidität|s|falle")
# The articles of a German genitive that names what a compound's first part does ("die Falle *der* Liquidität" is
# the "Liquiditätsfalle", "der Kreislauf *des* Kohlenstoffs" the "Kohlenstoffkreislauf")
GENITIVE_ARTICLES = frozenset({"der", "des"})
# Bump when term production changes (stemming, stopwords, decompounding): saved BM25 indexes rebuild.
ANALYZER_VERSION = "a6"
_MIN_PART = 3  # German has short real parts: Tag, Ort, Zug, Bau (dev set: de nDCG 0.779 -> 0.810)

# Accepted spelling variants, each written as its plainest form: German umlauts spelt out or not, old and new
# orthography (ß, "ph" loanwords as "f", "th" as "t"); a doubled letter as one (which also makes ß and ss one).
_PLAIN_LETTERS = str.maketrans({"ß": "s", "ä": "a", "ö": "o", "ü": "u"})
_PLAIN_PAIRS = (("ph", "f"), ("th", "t"), ("ae", "a"), ("oe", "o"), ("ue", "u"))
_DOUBLED_LETTER = re.compile(r"(\w)\1+")
# How English and German write one learned (Latin or Greek) word: a soft c is a z, a hard c a k, a y an i
# ("cytosol"/"Zytosol", "glucose"/"Glukose", "enzyme"/"Enzym"), after the accepted variants of spelling_key.
_SOFT_C = re.compile(r"c(?=[eiy])")
COGNATE_MIN_CHARS = 5  # a shorter key is shared by unrelated words of the two languages

# How a note writes a symbol in math and a question writes it flat, as one word: "$V_{max}$" is "Vmax", "$K_M$" "Km",
# "$E_a$" "Ea"; a Greek letter named with its subscript or the capital it changes is written as the letter ("delta G",
# "$\Delta G$" are "ΔG"; "$\theta_c$" is "θc"): a word no stemmer cuts and no typing slip reads as another ("ΔS" stays
# no "delta" any ΔH answers).
# a subscript to a letter, or to a small letter before a capital ("$pK_a$" is "pKa"), as written or in upright type
# ("$k_\text{cat}$", "$K_{\mathrm{M}}$")
_UPRIGHT = r"\\(?:text|mathrm|rm)\{"
_SUBSCRIPT = re.compile(r"(?<![\\\w])([a-z]?[A-Z]|[^\W\d_])_(?:\{(?:" + _UPRIGHT + r"([^\W_]+)\}|([^\W_]+))\}|"
                        + _UPRIGHT + r"([^\W_]+)\}|([^\W_]))")
_GREEK = dict(zip((
    "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi pi rho sigma tau upsilon phi chi psi "
    "omega").split(), "αβγδεζηθικλμνξπρστυφχψω", strict=True))
_GREEK_NAME = r"(?<![^\W\d_])\\?(?:var)?(?i:(" + "|".join(_GREEK) + r"))(?![^\W\d_])"
_GREEK_SYMBOL = re.compile(_GREEK_NAME + r"(?:_\{([^\W_]+)\}|_([^\W_])|[ -]?([A-Z])(?![\w{]))")
_GREEK_SYMBOL_IN_MATH = re.compile(_GREEK_NAME + r"(?:_\{([^\W_]+)\}|_([^\W_])|\s*([A-Z])(?![\w{]))")


_detector_lock = threading.Lock()


def words(text: str) -> list[str]:
    """Casefolded words of ``text``; unspaced scripts as character bigrams.

    Runs of two or more symbols (``%%``, ``[[##``, ``==``, ``::``) are words too:
    users search for Markdown syntax, and such runs are rare enough to matter.
    """
    folded = text.casefold()
    said = _WORD.findall(folded)
    greek = not _GREEK.keys().isdisjoint(said)
    formulas = math_spans(text) if "$" in text else []
    if greek or formulas:
        folded = _flat_symbols(text, greek, formulas).casefold()
        said = _WORD.findall(folded)
    found: list[str] = [run for run in SYMBOL_RUN.findall(folded) if not _PROSE_PUNCTUATION.issuperset(run)]
    for word in said:
        if _UNSPACED.search(word) is None:
            found.append(word)
        elif len(word) == 1:
            found.append(word)
        else:
            found.extend(word[i:i + 2] for i in range(len(word) - 1))
    return found


def _flat_symbols(text: str, greek: bool, formulas: list[tuple[int, int]]) -> str:
    """``text`` with its symbols written as a question writes them flat, each one word ("$V_{max}$" as "$Vmax$",
    "$\\varepsilon_p$" as "$εp$"; with ``greek``, a text naming a Greek letter, "delta G" as "δG"); ``formulas``: its
    math spans."""
    if formulas:
        text = _with_flat_math(text, formulas)
    return _GREEK_SYMBOL.sub(_joined_symbol, text) if greek else text


def _with_flat_math(text: str, formulas: list[tuple[int, int]]) -> str:
    """``text`` with each formula (the note reader's ``math_spans``, so a "$" in code or a price stays text) written
    flat."""
    parts: list[str] = []
    done = 0
    for start, end in formulas:
        math = _GREEK_SYMBOL_IN_MATH.sub(_joined_symbol, text[start:end])
        flat = _SUBSCRIPT.sub(lambda found: found[1] + next(part for part in found.groups()[1:] if part), math)
        parts += [text[done:start], flat]
        done = end
    return "".join(parts) + text[done:]


def _joined_symbol(found: re.Match[str]) -> str:
    return _GREEK[found[1].casefold()] + (found[2] or found[3] or found[4])


@lru_cache(maxsize=1)
def _base_identifier():  # type: ignore[no-untyped-def]
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=False)


@lru_cache(maxsize=8)
def _language_identifier(candidates: frozenset[str] | None):  # type: ignore[no-untyped-def]
    base = _base_identifier()
    if not candidates:
        return base
    usable = sorted(candidates & set(base.nb_classes))
    if len(usable) < 2:
        return base
    restricted = copy.copy(base)  # set_languages rebinds arrays: the base model stays whole
    restricted.set_languages(usable)
    return restricted


def warm_language_model() -> None:
    """Load the language model now (about a second) so the first search does not wait for it."""
    with _detector_lock:
        _base_identifier()


def detect_language(text: str, candidates: frozenset[str] | None = None) -> str | None:
    """ISO 639-1 code of ``text`` (its first 1,500 characters), None for too little text.

    ``candidates`` restricts the guess to languages that occur in the vault,
    which makes short queries far more reliable.
    """
    sample = text[:1500]
    if len(_WORD.findall(sample)) < 2:
        return None
    if candidates is not None and len(candidates) == 1:
        return next(iter(candidates))
    with _detector_lock:
        language, _ = _language_identifier(candidates).classify(sample)
    return str(language)


_LANGUAGE_NAMES = {name: iso for iso, name in SNOWBALL_BY_ISO.items()} | {"deutsch": "de", "englisch": "en"}
_LANGUAGE_LIST_RE = re.compile(r"\s*[/,;+&|]\s*|\s+(?:and|und)\s+")


def declared_languages(value: str | None) -> frozenset[str]:
    """The languages a note's ``lang`` names: ``"de/en"``, ``"en, de"``, ``"Deutsch und Englisch"`` ->
    ``{"de", "en"}``; ``"de-DE"`` -> ``{"de"}``; an unknown code stays as given (lower-cased)."""
    if not value:
        return frozenset()
    found = set()
    for part in _LANGUAGE_LIST_RE.split(value.strip().lower().replace("_", "-")):
        part = part.strip()
        if part:
            found.add(_LANGUAGE_NAMES.get(part) or part.split("-")[0])
    return frozenset(code for code in found if code)


def normalize_language(lang: str | None) -> str | None:
    """``"de-DE"``, ``"German"`` -> ``"de"``; unknown stays as given (lower-cased); a value naming several
    languages (``"de/en"``) is none of them: such a note's passages are read each in its own language."""
    declared = declared_languages(lang)
    return next(iter(declared)) if len(declared) == 1 else None


def passage_language(declared: str | None, text: str, note_lang: str | None) -> str | None:
    """A passage's language: its note's, or where the note names several (``lang: de/en``) the one of those its
    text reads as."""
    named = declared_languages(declared)
    if len(named) == 1:
        return next(iter(named))
    known = frozenset(code for code in named if code in SNOWBALL_BY_ISO)
    return (detect_language(text, known) if len(known) > 1 else None) or note_lang


def is_stopword(word: str, lang: str | None) -> bool:
    """Whether casefolded ``word`` is a stopword of ``lang`` (known for English and German)."""
    stop = _STOPWORDS.get(lang or "")
    return stop is not None and word in stop


def spelling_key(term: str) -> str:
    """The key that an index term shares with its accepted spelling variants: "delphin" and "delfin",
    "photosynthes" and "fotosynthes", "strasse" and "straße", "aerzt" and "arzt", "schiffahrt" and
    "schifffahrt". Only for reading a query word no passage holds: the index keeps words as written."""
    key = term.translate(_PLAIN_LETTERS)
    for pair, plain in _PLAIN_PAIRS:
        key = key.replace(pair, plain)
    return _DOUBLED_LETTER.sub(r"\1", key)


def cognate_key(term: str) -> str | None:
    """The key an index term shares with the same learned word stemmed in the other language: "mitosi" (English
    "mitosis") and "mitos" (German "Mitose"), "photosynthesi" and "fotosynthes", "glucos" and "glukos",
    "reaction" and "reaktion", "molecul" and "molekul": :func:`spelling_key`, c read as z or k, y as i, the stem's
    final vowels dropped (each stemmer keeps others). None when the key is too short to tell words apart. For reading
    a query word no passage holds, like :func:`spelling_key`, and for matching a question's word to a passage's
    across the vault's languages (``answer.evidence.spelled_alike``)."""
    key = _SOFT_C.sub("z", spelling_key(term).replace("ch", "\x00")).replace("c", "k").replace("\x00", "ch")
    key = _DOUBLED_LETTER.sub(r"\1", key.replace("y", "i")).rstrip("aeiou")
    return key if len(key) >= COGNATE_MIN_CHARS else None


# Endings that make the same learned word a noun of action or of state in one language and not the other
# ("Diskriminier*ung*"/"discrimin*ation*", "Permanen*z*"/"permanen*ce*"): left off before comparing consonants
_LEARNED_ENDINGS = ("ierungen", "ierung", "ieren", "iert", "ier", "ations", "ation", "ence", "ance", "enz", "anz")
_VOWELS = re.compile(r"(?<!^)[aeiouyh]+")
_REPEATED_CHAR = re.compile(r"(.)\1+")


@lru_cache(maxsize=65536)
def consonant_skeleton(word: str) -> str:
    """The consonants of ``word`` (casefolded) as both languages write the same learned word, its first letter
    kept, with no ending of ``_LEARNED_ENDINGS``: "Preis" and "price" are "prs", "Diskriminierung" and "discrimin"
    "dskrmn", "Objekt" and "object" "objkt". For telling a compound of one language from two words of the other
    ("Preisdiskriminierung", "price discrimination"), where each word alone is too short to tell apart."""
    key = spelling_key(word)
    for ending in _LEARNED_ENDINGS:
        if key.endswith(ending) and len(key) - len(ending) >= 3:
            key = key[:-len(ending)]
            break
    key = _SOFT_C.sub("s", key.replace("ch", "\x00")).replace("c", "k").replace("\x00", "ch").replace("z", "s")
    return _REPEATED_CHAR.sub(r"\1", _VOWELS.sub("", key))


@lru_cache(maxsize=64)
def _stemmer(lang: str) -> Stemmer.Stemmer | None:
    algorithm = SNOWBALL_BY_ISO.get(lang)
    return Stemmer.Stemmer(algorithm) if algorithm else None


class Analyzer:
    """Words -> index terms for one corpus; ``compound_lexicon`` makes German decompounding corpus-aware."""

    def __init__(self, compound_lexicon: Iterable[str] = ()) -> None:
        self.compound_lexicon = frozenset(compound_lexicon)
        self._cache: dict[tuple[str, str | None], tuple[str, ...]] = {}

    @staticmethod
    def build_lexicon(german_word_counts: Counter[str], min_count: int = 2) -> frozenset[str]:
        """German words seen at least ``min_count`` times: the parts compounds may split into."""
        return frozenset(w for w, n in german_word_counts.items()
                         if n >= min_count and len(w) >= _MIN_PART and not w.isdigit())

    def split_compound(self, word: str) -> list[str]:
        """Parts of a German compound found in the lexicon (right-headed), [] when it does not split."""
        return list(_split(word, self.compound_lexicon)) if len(word) >= 2 * _MIN_PART else []

    def terms_of_word(self, word: str, lang: str | None) -> tuple[str, ...]:
        key = (word, lang)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        if is_stopword(word, lang):
            result: tuple[str, ...] = ()
        else:
            terms = [word_stem(word, lang)]
            if lang == "de":
                stemmer = _stemmer(lang)
                terms.extend(stemmer.stemWord(part) if stemmer else part for part in self.split_compound(word)
                             if part != word)
            result = tuple(dict.fromkeys(terms))
        if len(self._cache) < 2_000_000:
            self._cache[key] = result
        return result

    def terms(self, text_words: Iterable[str], lang: str | None) -> list[str]:
        out: list[str] = []
        for word in text_words:
            out.extend(self.terms_of_word(word, lang))
        return out


def word_stem(word: str, lang: str | None) -> str:
    """The index term of ``word`` (casefolded) as a whole in ``lang``, stopword or not, without the parts of a
    compound and without remembering it (:meth:`Analyzer.terms_of_word` remembers what it reads)."""
    stemmer = _stemmer(lang) if lang else None
    stem = stemmer.stemWord(word) if stemmer else word
    return _german_verb_stem(stem) if lang == "de" else stem


def _german_verb_stem(stem: str) -> str:
    """The stem of a German "-ieren" verb in any form: Snowball cuts "definieren" and "definiere" to "defini" but
    leaves "definiert" (participle, "er/sie definiert") and "definierst" ("du definierst") whole, so the notes'
    "wird denaturiert" never met the question's "denaturieren", nor the help's "wenn du migrierst" the question's
    "wenn ich migriere". "-iert"/"-ierst" ends no German noun."""
    for ending in _IERT_ENDINGS:
        if stem.endswith(ending) and len(stem) > len(ending) + 2:
            return stem[: len(stem) - len(ending) + 1]
    return stem


_IERT_ENDINGS = ("ierst", "iert")


def _split(word: str, lexicon: frozenset[str], depth: int = 0) -> tuple[str, ...]:
    """Split ``word`` into head + tail, with the tail (the compound's head noun) in the lexicon.

    A split whose head is known (or splits again) wins; otherwise a known tail
    of at least five letters still splits off an unknown head, since the
    vault may use a compound without ever using its first part alone.
    """
    if depth > 3:
        return ()
    fallback: tuple[str, ...] = ()
    for cut in range(_MIN_PART, len(word) - _MIN_PART + 1):
        tail = word[cut:]
        if tail not in lexicon:
            continue
        head = word[:cut]
        for joint in _FUGEN:
            if joint and not head.endswith(joint):
                continue
            stem = head[: len(head) - len(joint)] if joint else head
            if len(stem) < _MIN_PART:
                continue
            if stem in lexicon:
                return (stem, tail)
            deeper = _split(stem, lexicon, depth + 1)
            if deeper:
                return (*deeper, tail)
        if not fallback and len(tail) >= 5 and len(head) >= 5:
            fallback = (head, tail)
    return fallback
