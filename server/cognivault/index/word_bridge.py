"""A word bridge: a question's word the vault never uses, read as the vault's own word of another language.

A question asked in the other language than the note that answers it ("How do antibodies get from the mother to the
unborn child?" on a German note on "Antikörper", "Mutter", "ungeboren") has no word keyword search or the answer gates
can find, and was refused as off-topic. USE-multilingual v3 (the ``multilingual`` extra, ``index.multilingual``) reads
single words across languages well: cosine(antibody, Antikörper) 0.79, (mother, Mutter) 0.92. The bridge maps such a
word to the vault's vocabulary of its other languages (the words its notes use, not a dictionary; a word counts as
its note's language's where ``wordfreq`` finds it more common there than in the other: "Nebenfächler" quoted in an
English note is no English word): the vault word nearest to it, where it is at least :data:`BRIDGE_FLOOR` near
(cosine), :data:`BRIDGE_MARGIN` nearer than the next vault word of another stem, and no everyday word of the
question's language (:data:`REFERENCE_WORDS` of ``wordfreq``'s list) is more than :data:`BACK_SLACK` nearer to it
than the question's word: "Angebot" is "offer" before it is "supply" (0.86 to 0.43), so "supply" is not bridged to
it, nor "heart" to "hart" (hard).

Chosen on 173 word pairs of our own (subjects from beekeeping to bookkeeping, false friends "Gift"/"gift",
"bekommen"/"become", near neighbours "Mutter"/"Vater", "Angebot"/"Nachfrage"), both ways, over everyday words of each
language as the vault's vocabulary (8,000 German, 4,000 English): floor 0.6, margin 0.03 and back slack 0.03 bridge
189 of 314 pairs right and 15 wrong ("bees" to "Beine"), and 66 of 336 words whose translation the vocabulary lacks
to another word, most of them a synonym ("Vertrag": "agreement", "Vater": "dad"). Without the back check 205 right,
35 wrong, 149 bridged without their translation; floors 0.55 to 0.65 and margins 0.03 to 0.1 were tried (a wider
margin loses synonyms a vault has side by side: "Wirbel" is "spine" 0.73 and "vertebrae" 0.71).

Vectors are computed as the index's last step (``Engine.index``) and for the first question answered that needs them
where the vault changed since (never for a search: it bridges by the vocabulary as last read, or not at all): the
vault's words of a language, in batches (about 1.3 ms a word on one core, a fifth of the time of single words),
cached by the word itself in a file beside the index (a re-index embeds only new words), as float16 so a word's
vector is the same computed or loaded. The everyday words' vectors are the same for every vault: they are kept once
per user, in the model cache (``$COGNIVAULT_MODEL_CACHE`` or ``<user cache>/cognivault/models/word-bridge/``).
"""

from __future__ import annotations

import hashlib
import io
import logging
import re
import threading
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from difflib import SequenceMatcher
from pathlib import Path
from typing import Any

import numpy as np

from cognivault.atomic import atomic_write_bytes
from cognivault.index.analysis import Analyzer, is_stopword, spelling_key, words
from cognivault.index.lexical import QueryReading
from cognivault.index.multilingual import MultilingualEncoder

BRIDGE_FLOOR = 0.6  # the least cosine of a vault word to the question's word
BRIDGE_MARGIN = 0.03  # ... and by how much it is nearer than the next vault word of another stem
BACK_SLACK = 0.03  # how much nearer to the vault word an everyday word of the question's language may be
REFERENCE_WORDS = 4000  # everyday words of the question's language the bridged vault word must be farther from
SPELLED_ALIKE = 0.75  # the least difflib ratio of a name and the vault word it is bridged to
MIN_CHARS = 3  # shorter words are not bridged, nor bridged to ("Ei", "AT")
BATCH = 256
BRIDGE_FILE = "word-bridge.npz"
REFERENCE_FOLDER = "word-bridge"  # in the user's model cache: the everyday words' vectors
BRIDGE_LANGUAGES = frozenset({"en", "de"})  # measured in both directions
_LETTER_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")

log = logging.getLogger(__name__)

Table = tuple[list[str], np.ndarray, list[str]]  # words, their unit vectors (one row each), their stems
_REFERENCE: dict[tuple[str, int], Table] = {}  # (language, how many everyday words) -> their table


@dataclass(frozen=True, slots=True)
class Bridge:
    """A question's word read as a vault word of another language."""

    word: str  # the question's word, casefolded
    target: str  # the vault's word, as its notes write it
    lang: str  # the vault word's language
    similarity: float


def letter_words(text: str) -> list[str]:
    """The words of letters of ``text`` as written (case kept: USE reads "Mutter" nearer "mother" than "mutter")."""
    return _LETTER_WORD.findall(text)


class WordBridge:
    """The vault's vocabulary per language with its USE-multilingual word vectors, and the bridge over them."""

    def __init__(self, store: Any, encoder: MultilingualEncoder) -> None:
        self.store = store
        self.encoder = encoder
        self.analyzer = Analyzer()  # stems tell a word's forms apart from other words (the index's own analyzer: terms)
        self._lock = threading.RLock()
        self._cache: dict[str, np.ndarray] | None = None  # "lang\x1fword" -> float16 vector
        self._unsaved = False
        self._vocabulary: tuple[object, dict[str, Table]] | None = None

    @property
    def path(self) -> Path:
        return Path(self.store.folder) / BRIDGE_FILE

    def ready(self) -> bool:
        """Whether the vault's vocabulary was read (its vectors computed): search bridges only then."""
        return self._vocabulary is not None

    def prepare(self) -> int:
        """Read the vault's vocabulary and compute what vectors it lacks (the index's last step), where its notes are
        in two languages the bridge reads (one language's vault waits for a question in the other); returns how
        many vectors were computed."""
        languages = self.store.reader().languages()
        if len(languages & BRIDGE_LANGUAGES) < 2:
            return 0
        with self._lock:
            before = len(self._loaded())
            for lang in self._vault_vocabulary():
                self._reference_words(lang)
            self._save()
            return len(self._loaded()) - before

    def bridge(self, asked: Iterable[str], lang: str | None, fresh: bool = True) -> dict[str, Bridge]:
        """The bridges of ``asked`` (question words as written, in language ``lang``): casefolded word -> its bridge,
        for each word with one. ``fresh``: the vocabulary read again where the vault changed since (its new words
        embedded); else as last read (none before :meth:`prepare`: nothing is embedded)."""
        if lang not in BRIDGE_LANGUAGES or not fresh and not self.ready():
            return {}
        wanted = list(dict.fromkeys(word for word in asked if len(word) >= MIN_CHARS and word.isalpha()
                                    and not is_stopword(word.casefold(), lang)))
        if not wanted:
            return {}
        with self._lock:
            vocabulary = self._vault_vocabulary() if fresh or self._vocabulary is None else self._vocabulary[1]
            others = [code for code in sorted(vocabulary) if code != lang and code in BRIDGE_LANGUAGES]
            if not others:
                return {}
            # a question's words are embedded, not kept: the cache holds the vault's words and the everyday ones
            queries = self.encoder.encode_batch(wanted).astype(np.float16).astype(np.float32)
            found: dict[str, Bridge] = {}
            for at, word in enumerate(wanted):
                for code in others:
                    bridge = self._nearest(word, lang, queries[at], code, vocabulary[code])
                    if bridge is not None and (word.casefold() not in found or
                                               bridge.similarity > found[word.casefold()].similarity):
                        found[word.casefold()] = bridge
            # a word the other language uses at least as often is a name or a loan: a note of that language writes
            # it alike ("Roman" as "Romanus", "Caesar" as "Cäsar"), and its nearest vault word by meaning alone is
            # another name ("Valmy" is 0.71 near "Valens")
            return {word: bridge for word, bridge in found.items()
                    if not _known_elsewhere(word, lang, unknown_counts=False) or _spelled_alike(word, bridge.target)}

    def _nearest(self, word: str, lang: str, vector: np.ndarray, code: str,
                 vocabulary: Table) -> Bridge | None:
        """The vault word of language ``code`` that ``word`` is bridged to, if any."""
        targets, vectors, stems = vocabulary
        if not targets:
            return None
        similarity = vectors @ vector
        order = np.argsort(-similarity)
        best = int(order[0])
        second = next((float(similarity[at]) for at in order[1:] if stems[at] != stems[best]), 0.0)
        if similarity[best] < BRIDGE_FLOOR or similarity[best] - second < BRIDGE_MARGIN:
            return None
        if not self._back_to(word, lang, vectors[best], float(similarity[best])):
            return None
        return Bridge(word.casefold(), targets[best], code, float(similarity[best]))

    def _back_to(self, word: str, lang: str, vector: np.ndarray, own: float) -> bool:
        """Whether ``word`` (of ``lang``, ``own`` near ``vector``, a vault word's) is nearer it than every everyday
        word of ``lang`` of another stem."""
        stem = self._stem(word, lang)
        words, vectors, stems = self._reference_words(lang)
        if not words:
            return True
        similarity = vectors @ vector
        rivals = [float(similarity[at]) for at in np.argsort(-similarity)[:8] if stems[at] != stem]
        return not rivals or own >= rivals[0] - BACK_SLACK

    def _stem(self, word: str, lang: str) -> str:
        terms = self.analyzer.terms_of_word(word.casefold(), lang)
        return terms[0] if terms else word.casefold()

    def _reference_words(self, lang: str) -> Table:
        """The everyday words of ``lang`` with their vectors (the same for every vault: kept for the process)."""
        found = _REFERENCE.get((lang, REFERENCE_WORDS))
        if found is None:
            from wordfreq import top_n_list

            common = [word for word in top_n_list(lang, REFERENCE_WORDS)
                      if len(word) >= MIN_CHARS and word.isalpha() and not is_stopword(word, lang)]
            if lang == "de":  # German writes its nouns capitalised, and USE reads them better so
                common += [word.capitalize() for word in common]
            found = _REFERENCE[(lang, REFERENCE_WORDS)] = self._table(lang, common, per_user=True)
        return found

    def _reference_vectors(self, lang: str, common: Sequence[str]) -> np.ndarray:
        """The vectors of everyday words, kept once per user beside the models (about 12,000 words, 15-40 s of one
        core to compute: every vault's first index, and each language server's, would pay it again), under a name
        that changes with the encoder and the word list."""
        from cognivault.models.embedded import model_cache_root

        digest = hashlib.sha256("\n".join([self.encoder.model_id, lang, *common]).encode("utf-8")).hexdigest()[:16]
        path = model_cache_root() / REFERENCE_FOLDER / f"{lang}-{digest}.npy"
        try:
            kept = np.asarray(np.load(path, allow_pickle=False), dtype=np.float32)
            if kept.shape == (len(common), self.encoder.dimension):
                return kept
        except (OSError, ValueError):
            pass
        vectors = np.vstack([self.encoder.encode_batch(common[start:start + BATCH]).astype(np.float16)
                             for start in range(0, len(common), BATCH)]) if common else \
            np.zeros((0, self.encoder.dimension), np.float16)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            buffer = io.BytesIO()
            np.save(buffer, vectors, allow_pickle=False)
            atomic_write_bytes(path, buffer.getvalue())
        except OSError as exc:  # a read-only cache: computed again by the next process
            log.info("everyday words' vectors not kept at %s: %s", path, exc)
        return vectors.astype(np.float32)

    def _table(self, lang: str, words: Sequence[str], per_user: bool = False) -> Table:
        """``words`` with their vectors and stems; ``per_user``: vectors kept in the user's model cache, not the
        vault's."""
        words = list(dict.fromkeys(words))
        vectors = self._reference_vectors(lang, words) if per_user else self._vectors([(lang, word) for word in words])
        return words, vectors, [self._stem(word, lang) for word in words]

    def _vault_vocabulary(self) -> dict[str, Table]:
        """The vault's words per language (each as its notes write it most often), with their vectors; read again
        when the catalog changed."""
        catalog = self.store.reader()
        generation = catalog.generation()
        if self._vocabulary is not None and self._vocabulary[0] == generation:
            return self._vocabulary[1]
        spellings: dict[str, dict[str, Counter[str]]] = defaultdict(lambda: defaultdict(Counter))
        for lang, text in catalog.chunk_texts():
            if lang not in BRIDGE_LANGUAGES:
                continue
            for word in letter_words(text):
                folded = word.casefold()
                if len(word) >= MIN_CHARS and not is_stopword(folded, lang):
                    spellings[lang][folded][word] += 1
        # a word of its note's language, not one of another language it quotes ("Nebenfächler" in an English note),
        # nor one of both (a name): it is what a question in the other language may be bridged to
        for lang, by_word in spellings.items():
            for folded in [folded for folded in by_word if _known_elsewhere(folded, lang, unknown_counts=True)]:
                del by_word[folded]
        tables = {lang: self._table(lang, [forms.most_common(1)[0][0] for forms in by_word.values()])
                  for lang, by_word in spellings.items()}
        self._vocabulary = (generation, tables)
        self._save()
        return tables

    def _vectors(self, words: Sequence[tuple[str, str]]) -> np.ndarray:
        """Unit vectors of ``words`` ((language, word) each), from the cache or computed in batches."""
        cache = self._loaded()
        keys = [f"{lang}\x1f{word}" for lang, word in words]
        missing = list(dict.fromkeys(key for key in keys if key not in cache))
        for start in range(0, len(missing), BATCH):
            batch = missing[start:start + BATCH]
            vectors = self.encoder.encode_batch([key.split("\x1f", 1)[1] for key in batch])
            for key, vector in zip(batch, vectors, strict=True):
                cache[key] = vector.astype(np.float16)
            self._unsaved = True
        if not keys:
            return np.zeros((0, self.encoder.dimension), np.float32)
        return np.vstack([cache[key] for key in keys]).astype(np.float32)

    def _loaded(self) -> dict[str, np.ndarray]:
        if self._cache is None:
            self._cache = {}
            try:
                with np.load(self.path, allow_pickle=False) as saved:
                    self._cache = dict(zip(saved["keys"].tolist(), saved["vectors"], strict=True))
            except (OSError, ValueError, KeyError) as exc:
                if self.path.exists():
                    log.warning("word bridge cache unreadable (%s); computing it again", exc)
        return self._cache

    def _save(self) -> None:
        if not self._unsaved or not self.store.writable or self._cache is None:
            return
        keys = list(self._cache)
        temporary = self.path.with_suffix(".tmp.npz")
        np.savez(temporary, keys=np.array(keys), vectors=np.vstack([self._cache[key] for key in keys]))
        temporary.replace(self.path)
        self._unsaved = False


def _known_elsewhere(folded: str, lang: str, unknown_counts: bool) -> bool:
    """Whether ``wordfreq`` finds the word at least as common in another language the bridge reads as in ``lang``
    (a name, a loan, a word quoted from that language); ``unknown_counts``: also where no language knows it."""
    from wordfreq import zipf_frequency

    elsewhere = max(zipf_frequency(folded, other) for other in BRIDGE_LANGUAGES - {lang})
    return zipf_frequency(folded, lang) <= elsewhere and (unknown_counts or elsewhere > 0)


def _spelled_alike(word: str, target: str) -> bool:
    """Whether two words are one spelled by two languages (after the accepted variants of ``spelling_key``): "roman"
    and "Romanus", "caesar" and "Cäsar", "rome" and "Rom", "haben" and a part of "Haben-Summe"; not "valmy" and
    "Valens"."""
    folded = spelling_key(word.casefold())
    return any(SequenceMatcher(None, folded, spelling_key(form)).ratio() >= SPELLED_ALIKE
               for form in (target.casefold(), *target.casefold().split("-")))


def unheard_words(lexical: Any, query: str, lang: str | None) -> list[str]:
    """The words of ``query`` as written that are no stopword and that no passage holds in any of their terms."""
    unheard = []
    for word in letter_words(query):
        terms = lexical.query_terms(word, lang)
        if terms and not any(lexical.document_frequency(term) for term in terms):
            unheard.append(word)
    return unheard


def bridged_reading(bridge: WordBridge, lexical: Any, query: str, lang: str | None, reading: QueryReading
                    ) -> QueryReading:
    """``reading`` of a query asked across languages (most of its words unknown to the vault) with the terms of the
    vault words its unknown words are bridged to, and those words no longer unknown; as it was while the bridge's
    vocabulary is not ready (:meth:`WordBridge.prepare`)."""
    unheard = unheard_words(lexical, query, lang)
    bridges = bridge.bridge(unheard, lang, fresh=False)  # a search never waits for words to be embedded
    if not bridges:
        return reading
    added = [term for found in bridges.values()
             for term in lexical.analyzer.terms_of_word(found.target.casefold(), found.lang)]
    counted = sum(1 for word in words(query) if lexical.query_terms(word, lang))
    share = max(0.0, reading.unknown_share - len(bridges) / counted) if counted else reading.unknown_share
    return replace(reading, terms=tuple(dict.fromkeys([*reading.terms, *added])), unknown_share=share)
