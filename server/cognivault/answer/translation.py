"""A question's word the vault never uses, read as the word a passage of the vault's other language says it with.

"How many eggs does the queen bee lay per day?" on a German note ("Die Königin legt im Sommer bis zu 2000 Eier pro
Tag") has no word the vault uses: keywords refuse it. Where the multilingual encoder (USE-multilingual, the search's
meaning side across languages, ``index.multilingual``) finds a word of such a passage that means the question's word
("queen": "Königin", "eggs": "Eier"), the question's concept takes that word's index term, and the passage is judged
by what it states of the question as any passage in the question's language is: a word with no such translation
("winter" asked of the same note) stays one the vault never uses, and the question stays refused. Word by word, not
passage by passage: a passage near the question in meaning says nothing of whether it says what is asked (a note on
bees is near "How do bees survive the winter?").
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from cognivault.answer.evidence import Concept, Evidence, EvidencePack, analyzer_of, evidence_from_record, unknown_words
from cognivault.index.analysis import is_stopword, words

# The least cosine of a question's word and a passage's word that makes them one word in two languages. Chosen on
# the translations of 31 cross-language questions on notes unlike the dev vaults (/tmp/xlang-notes; the dev sets have
# too few such questions to choose on): the wrong readings reached .63 (stalemate: "gelangt", "Vesuv": ash, bees:
# Honig, Monde: planet at .60-.63), the right ones mostly .65-.93 (eggs: Eier .65, chess: Schach .69, Körper: body
# .80, Pharao: pharaoh .91); queen: Königin (.63) is lost to keep the wrong ones out.
AGREEMENT = 0.65
MARGIN = 0.05  # over the next passage word that is no form of it (King: "König" beside "Königin")
PASSAGES = 3  # of the pack's passages in another language, the first ones, whose words may translate
MIN_CHARS = 3  # shorter words are particles more often than nouns
MAX_WORDS = 80  # a passage's words to encode at most, per question
_SAME_HEAD = 4  # letters two words of a passage share at their start when one is a form or compound of the other

_CACHE_SIZE = 4096
_cache: OrderedDict[str, np.ndarray] = OrderedDict()
_cache_lock = threading.Lock()


def _vectors(encoder: Any, texts: Sequence[str]) -> dict[str, np.ndarray]:
    """The encoder's vectors of ``texts``, each encoded once per process (a word recurs across questions)."""
    with _cache_lock:
        missing = [text for text in dict.fromkeys(texts) if text not in _cache]
    if missing:
        encoded = encoder.encode(missing)
        with _cache_lock:
            for text, vector in zip(missing, encoded, strict=True):
                _cache[text] = vector
                if len(_cache) > _CACHE_SIZE:
                    _cache.popitem(last=False)
    with _cache_lock:
        return {text: _cache[text] for text in texts if text in _cache}


def translate_unknown(engine: Any, pack: EvidencePack, given: Sequence[Evidence] = ()) -> bool:
    """Give each concept of ``pack`` whose word the vault never uses the index term of its translation in one of the
    pack's first passages in another language or of those the multilingual side finds nearest (``AGREEMENT``,
    ``MARGIN``), those passages joining the pack, and recount the words the vault never uses (the ``given`` passages,
    attachments, counting as known); only where every such word has a translation (whether they had)."""
    side = getattr(engine, "multilingual", None)
    encoder = getattr(side, "encoder", None)
    if encoder is None or not pack.unknown or pack.lang is None:
        return False
    others = [item for item in pack.items if item.source == "vault" and item.lang not in (pack.lang, None)][:PASSAGES]
    others += _nearest_elsewhere(engine, side, pack, PASSAGES - len(others))
    unheard = {word.casefold() for word in pack.unknown}
    asked = {key: concept for key, concept in pack.concepts.items()
             if (concept.whole or concept.word) in unheard and concept.word.isalpha() and not concept.name}
    if not others or not asked:
        return False
    analyzer = analyzer_of(engine)
    candidates: dict[str, str] = {}  # a passage's word -> its language
    source: dict[str, Evidence] = {}  # a passage's word -> the passage
    for item in others:
        for word in words(item.text):
            if len(candidates) >= MAX_WORDS * len(others):
                break
            if word.isalpha() and len(word) >= MIN_CHARS and not is_stopword(word, item.lang) \
                    and not is_stopword(word, pack.lang):
                candidates.setdefault(word, item.lang or "")
                source.setdefault(word, item)
    if not candidates:
        return False
    vectors = _vectors(encoder, [concept.word for concept in asked.values()] + list(candidates))
    read: dict[str, Concept] = {}  # the concepts translated, by key
    joining: dict[str, Evidence] = {}  # the passages that translate a word, by chunk id
    for key, concept in asked.items():
        if concept.word not in vectors:
            continue
        scored = sorted(((float(vectors[concept.word] @ vectors[word]), word)
                         for word in candidates if word in vectors), reverse=True)
        if not scored or scored[0][0] < AGREEMENT:
            continue
        best, word = scored[0]
        # the next word that is no form of the best one ("Bienen", "Bienenvolk" beside "Biene")
        rival = next((score for score, other in scored[1:] if other[:_SAME_HEAD] != word[:_SAME_HEAD]), 0.0)
        if best - rival < MARGIN:
            continue
        terms = analyzer.terms_of_word(word, candidates[word])
        if terms:
            read[key] = replace(concept, terms=concept.terms | {terms[0]})
            joining.setdefault(source[word].chunk_id, source[word])
    if len(read) < len(asked):
        return False  # a word with no translation is what the vault lacks, as in a question in its own language
    pack.concepts.update(read)
    for item in pack.items:  # the passages packed before the concepts had their translations
        item.terms = item.terms | pack.concepts_in(item.terms, item.words)
    for item in joining.values():
        pack.add(item, from_tool=True)  # beyond the search's passages: what the other words were read in
    pack.unknown_share, pack.unknown, _ = unknown_words(engine, list(pack.concepts.values()), pack.term_weights,
                                                        pack.lang, given)
    return True


def _nearest_elsewhere(engine: Any, side: Any, pack: EvidencePack, count: int) -> list[Evidence]:
    """Up to ``count`` passages in another language than the question's that the multilingual side finds nearest to
    it and the pack lacks (a pack searched by keywords and a meaning model of one language may have none)."""
    if count <= 0:
        return []
    found: list[Evidence] = []
    for chunk_id in side.search(pack.query, PASSAGES * 3):
        record = engine.chunk(chunk_id)
        if record is None or record.lang in (pack.lang, None) or pack.by_chunk(chunk_id) is not None:
            continue
        title = engine.store.reader().titles([record.path]).get(record.path, "")
        found.append(evidence_from_record(engine, record, title, source="vault"))
        if len(found) == count:
            break
    return found
