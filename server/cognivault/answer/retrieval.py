"""Retrieval for one question: hybrid search in scope -> the evidence pack (blocking; run it in a thread).

The best passage comes with the one right after it in its note (the next section often finishes what it
starts), and a question naming an ordinal ("the *second* law", "das *dritte* Gesetz") gets the section a found
note numbers so ("2. Hauptsatz", "3rd law"), whatever its heading's words. A name in the question ("Apple
Watch") that neither the pack nor a keyword search for its words finds
side by side counts as unknown to the vault as a whole (``evidence.add_unknown_names``), and a word the vault
never uses in a question on a note of another language is no sign of another topic when that note has an anchor of
the question (``translation_gaps``: "Wie viele *Schichten* hat das OSI-Modell?" on the English "OSI Model"). The
search reads the question in its own language; a passage of another language of the vault that a search reading it
in that language finds, and that has all the question asks about where no passage found does, comes first ("Welche
Phasen hat die Renaissance?": the English "Renaissance" note's "Phases"). A question its words call off-topic that
passages of another language mean (``answer.across``, meaning search on) has those passages first.

Answers come from the user's own notes: study notes CogniVault generated (frontmatter key
``cognivault``) never enter the pack unless the request's scope names them (the study folder, one of
those notes, or ``property:cognivault``); the notes they were generated from are searched instead.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from cognivault.answer.acronyms import acronyms_written, spelled_out
from cognivault.answer.across import Across, bridged, bridged_gaps, meant_across
from cognivault.answer.evidence import (
    DEFAULT_MAX_ITEMS,
    DEFAULT_TOKEN_BUDGET,
    Evidence,
    EvidencePack,
    add_unknown_names,
    analyzer_of,
    evidence_from_record,
    evidence_from_result,
    idf_weights,
    key_phrases,
    question_concepts,
    question_language,
    text_pairs,
    text_terms,
    unknown_words,
)
from cognivault.answer.extractive import formula_given
from cognivault.answer.ordinals import asked_ordinals, numbered_sections, numbers, ordinal_of
from cognivault.index.generated import GENERATED_KEY, source_targets
from cognivault.index.scope import Scope
from cognivault.models.base import ModelUnavailable
from cognivault.vault.markdown import WIKILINK_RE

log = logging.getLogger(__name__)


def build_pack(engine: Any, question: str, query: str | None = None, scope: Scope | None = None,
               max_items: int = DEFAULT_MAX_ITEMS, token_budget: int = DEFAULT_TOKEN_BUDGET,
               prior_paths: Sequence[str] = (), preset: Sequence[Evidence] = (), mode: str = "hybrid"
               ) -> tuple[EvidencePack, str | None]:
    """The evidence pack for ``question`` (searched as ``query``, e.g. a resolved follow-up; ``mode``: the engine's
    search mode, "lexical" for keywords alone, which leaves meaning out of the pack too).

    ``preset`` passages (attachments) come first; ``prior_paths`` (notes cited by the previous
    turn of a follow-up) contribute their best passages for the new question. Returns the pack
    and the question's language.
    """
    from cognivault.engine import EngineError

    query = (query or question).strip()
    lang = question_language(engine, query)
    pack = EvidencePack(max_items=max_items, token_budget=token_budget, query=query, lang=lang)
    pack.concepts = {concept.key: concept for concept in question_concepts(engine, query, lang)}
    terms = list(pack.concepts)
    pack.question_terms = terms
    pack.term_weights = idf_weights(engine, terms, pack.concepts)
    pack.question_phrases = [pair for pair in key_phrases(engine, query, lang) if set(pair) <= set(terms)]
    for item in preset:
        pack.add(item)
    pack.unknown_share, pack.unknown, unheard_scene = unknown_words(engine, list(pack.concepts.values()),
                                                                    pack.term_weights, lang, pack.items)
    if bridged(engine, pack):  # asked across languages: its words read as the vault's of the other language
        pack.unknown_share, pack.unknown, unheard_scene = unknown_words(engine, list(pack.concepts.values()),
                                                                        pack.term_weights, lang, pack.items)
    # "I'm on a MacBook Pro, how do I ...": no passage need say what the vault never does of the scene
    pack.question_terms = [term for term in terms if term not in unheard_scene]
    lexical = engine.store.lexical
    if lexical is None or len(lexical) == 0:
        pack.notes.append("the index is empty: run `cognivault index` first")
        return pack, lang
    depth = max_items * 2
    results: list[Any] = []
    pack.question_vector = question_vector(engine, query, lang) if mode == "hybrid" else None
    try:
        if prior_paths:
            follow = _follow_up_scope(scope, prior_paths)
            if follow is not None:
                results += engine.search(question, k=2, mode=mode, scope=follow).results
        response = engine.search(query, k=depth, mode=mode, scope=scope, query_vector=pack.question_vector)
        pack.notes.extend(response.notes)
        own = response.results
        if not scope_names_generated(engine, scope):
            own, sources, at = _without_generated(engine, own)
            narrowed = _within(scope, sources) if sources else None
            if narrowed is not None:  # the notes they came from take the place of the first one
                own[at:at] = engine.search(query, k=2, mode=mode, scope=narrowed,
                                           query_vector=pack.question_vector).results
        results += own
    except EngineError as exc:
        pack.notes.append(str(exc))
        return pack, lang
    built: dict[str, Evidence] = {}  # chunk id -> its passage as read to judge it before packing: read once
    results = _other_language_passages(engine, pack, query, scope, results, built) + results
    seen: set[str] = set()
    asked = asked_ordinals(query)
    numbered = _numbered_passages(engine, results, asked) if asked else {}
    for result in results:
        if result.chunk_id in seen:
            continue
        seen.add(result.chunk_id)
        if len(pack) >= max_items:
            break
        pack.add(built.pop(result.chunk_id) if result.chunk_id in built else evidence_from_result(engine, result))
        # "the second law" in a note whose sections are "1. Hauptsatz", "2. Hauptsatz", ...: that section comes
        # with the note's first passage, whatever the words of its heading
        section = numbered.pop(result.path, None)
        if section is not None and section.id not in seen and len(pack) < max_items:
            seen.add(section.id)
            pack.add(evidence_from_record(engine, section, result.title, source="vault"))
        if len(pack) == 1 + len(preset):
            following = _following_passage(engine, result)
            if following is not None and following.id not in seen and len(pack) < max_items:
                seen.add(following.id)
                pack.add(evidence_from_record(engine, following, result.title, source="vault"))
    if asked:
        _mark_numbered(pack, asked)
    for item in pack.items:
        item.terms = item.terms | formula_given(pack, item.text)
    _spell_out_acronyms(pack)
    _mark_names_in_note(engine, pack)
    pack.gaps = translation_gaps(engine, pack)
    if pack.gaps:
        pack.unknown_share, pack.unknown, _ = unknown_words(engine, list(pack.concepts.values()), pack.term_weights,
                                                            lang, pack.items[:len(preset)], pack.gaps)
    bridged_gaps(engine, pack)  # asked across languages in words the vault has some of: the rest read as its own
    if pack.question_vector is not None:
        _measure_similarity(engine, pack)
    add_unknown_names(pack, [name for name in pack.question_phrases if not _said_together(engine, pack, name, scope)],
                      lang)
    # a question its words call off-topic that passages of another language mean is answered from those
    across = meant_across(engine, pack, query, scope) if mode == "hybrid" else None
    if across is not None:
        _meant_first(engine, pack, across, len(preset))
    return pack, lang


def _meant_first(engine: Any, pack: EvidencePack, across: Across, preset: int) -> None:
    """The pack answering by meaning (``EvidencePack.across``) from the passages of the user's own notes its question
    means, first after its ``preset`` ones."""
    own = {result.chunk_id for result in _without_generated(engine, [_as_result(record, "")
                                                                     for record in across.records])[0]}
    records = [record for record in across.records if record.id in own]
    if not records:
        return
    pack.across = across
    titles = engine.store.reader().titles([record.path for record in records])
    meant = [evidence_from_record(engine, record, titles.get(record.path, ""), source="vault") for record in records]
    rest = [item for item in pack.items[preset:] if item.chunk_id not in pack.across.similarity]
    items, pack.items, pack.tokens_used = pack.items[:preset] + meant + rest, [], 0
    for item in items:
        pack.add(item)


OTHER_LANGUAGE_DEPTH = 3  # passages a keyword search finds with the question read as another language of the vault


def _other_language_passages(engine: Any, pack: EvidencePack, query: str, scope: Scope | None,
                             results: Sequence[Any], built: dict[str, Evidence]) -> list[Any]:
    """The passages of another language of the vault that a keyword search finds with the question read as that
    language, where one has every word of what the question asks about and no passage found does: the search reads
    a German question as German only, so "Welche Phasen hat die Renaissance?" misses the English note whose words
    stem otherwise ("renaiss", not "renaissanc") though its section "Phases" of "Renaissance" has them all. Such a
    passage the search found below passages of the question's language that have only some of it comes first too
    (the search reads a word no passage has in the question's language as the vault's other languages stem it). The
    passages it reads to judge them are kept in ``built`` by chunk id."""
    lexical = engine.store.lexical
    others = [lang for lang in lexical.main_languages if lang != pack.lang] if pack.lang else []
    topic = {key for key, concept in pack.concepts.items() if not concept.frame}
    if not others or not topic or (scope is not None and not scope.is_empty()):
        return []

    def whole(item: Evidence) -> bool:
        return topic <= pack.concepts_in(item.terms, item.words) | formula_given(pack, item.text)

    def read(result: Any) -> Evidence:
        if result.chunk_id not in built:  # the first of a chunk's results, as packing takes it
            built[result.chunk_id] = evidence_from_result(engine, result)
        return built[result.chunk_id]

    complete = [result for result in results[:pack.max_items] if whole(read(result))]
    if any(read(result).lang in (pack.lang, None) for result in complete):
        return []
    known = {result.chunk_id for result in results}
    found = complete  # found by the search read in the question's language too, below what has only some of it
    # the words a compound is read as: the other language's words for its parts ("Wie funktioniert das
    # Komplementsystem?": "complement system"), the other language's compound of two words ("What is the communication
    # model?": "Kommunikationsmodell")
    parts = " ".join(dict.fromkeys([*(concept.key for concept in pack.concepts.values() if concept.whole),
                                    *(term for concept in pack.concepts.values() if not concept.frame
                                      for term in sorted(concept.terms) if len(concept.terms) > 1 and
                                      term not in (concept.key, concept.word, concept.slip) and
                                      lexical.document_frequency(term))]))
    for lang in others:
        for hit in lexical.search(f"{query} {parts}".strip(), lang, OTHER_LANGUAGE_DEPTH):
            record = engine.chunk(hit.chunk_id)
            if record is None or hit.chunk_id in known or record.lang == pack.lang:
                continue
            known.add(hit.chunk_id)
            title = engine.store.reader().titles([record.path]).get(record.path, "")
            found_result = _as_result(record, title)
            if whole(read(found_result)):
                found.append(found_result)
    return _without_generated(engine, found)[0]


def _as_result(record: Any, title: str) -> Any:
    """A chunk found outside the engine's search as one of its results."""
    from cognivault.engine import SearchResult

    crumb = " > ".join([title, *record.heading_path]) if title else " > ".join(record.heading_path)
    return SearchResult(record.id, record.path, title, crumb, list(record.heading_path), record.line_start,
                        record.line_end, record.locator, 0.0, record.text[:240], [])


def _mark_names_in_note(engine: Any, pack: EvidencePack) -> None:
    """Mark on each passage the question's names its note states anywhere: a lecture transcript names "the ECB"
    or "France" once, at its start, and its paragraph on the interest-rate corridor or the Directory is still on
    them."""
    names = {key: concept for key, concept in pack.concepts.items() if concept.name and not concept.frame}
    lexical = engine.store.lexical
    if not names or lexical is None:
        return
    by_path: dict[str, frozenset[str]] = {}  # the pack's passages are often of one note
    for item in pack.items:
        if item.source == "vault":
            if item.path not in by_path:
                by_path[item.path] = frozenset(key for key, concept in names.items()
                                               if lexical.path_holds_any(item.path, concept.terms))
            item.names_in_note = by_path[item.path]


def _spell_out_acronyms(pack: EvidencePack) -> None:
    """The question's acronyms ("the Council of the *EU*") found where a passage has the words a passage of the pack
    spells them out with ("Court of Justice of the European Union (CJEU)": "Council of the European Union")."""
    spelled = spelled_out(item.text for item in pack.items)
    written = acronyms_written(pack.query)
    pack.concepts = {key: replace(concept, spelled=spelled[concept.word])
                     if concept.word in written and concept.word in spelled else concept
                     for key, concept in pack.concepts.items()}


def _following_passage(engine: Any, result: Any) -> Any:
    """The passage right after ``result`` in its note (None at the note's end): the next section often
    finishes what the best one starts (how to send the gift after what a gift is)."""
    chunks = engine.store.reader().chunks_of(result.path)
    at = next((index for index, chunk in enumerate(chunks) if chunk.id == result.chunk_id), None)
    return chunks[at + 1] if at is not None and at + 1 < len(chunks) else None


def translation_gaps(engine: Any, pack: EvidencePack) -> set[str]:
    """The question's words the vault never uses that a passage of another language likely says in its own words:
    a German question on an English note ("Wie viele *Schichten* hat das OSI-Modell?" on "OSI ... 7 layers").

    Only where a passage in another language than the question's has an *anchor* of the question: a word the
    same in both languages (an acronym as written, "OSI", "EU"; a word both languages stem alike, "Thiazide" and
    "thiazides"), never a number (a year is in many notes), and that no passage in the question's language states
    (outside its links): a vault that speaks of the anchor in the question's language too would use the word there
    if it had it. An acronym or a name the vault never uses stays unknown ("QUIC"): such a word is the same in
    every language, so the vault lacks it in all of them."""
    if not pack.unknown or pack.lang is None:
        return set()
    analyzer = analyzer_of(engine)
    native = set().union(*(text_terms(analyzer, WIKILINK_RE.sub("", item.text), item.lang) for item in pack.items
                           if item.lang in (pack.lang, None)))
    acronyms = acronyms_written(pack.query)
    unheard = set(pack.unknown)
    gaps = {key for key, concept in pack.concepts.items() if (concept.whole or concept.word) in unheard
            and concept.word.isalpha() and concept.word not in acronyms and not concept.name}
    for item in pack.items:
        if item.lang in (pack.lang, None):
            continue
        for key in item.terms & pack.concepts.keys():
            concept = pack.concepts[key]
            # (a word read through the word bridge is no anchor: the passage has its translation, not the word)
            if concept.frame or key in gaps or concept.word.isdigit() or (concept.whole or concept.word) in unheard \
                    or concept.bridged:
                continue
            own = analyzer.terms_of_word(concept.word, item.lang)
            if (concept.word in acronyms or (own and own[0] == key)) and not concept.terms & native:
                return gaps
    return set()


NUMBERED_NOTES = 3  # of the notes found first, those whose numbered section a question's ordinal may pick


def _numbered_passages(engine: Any, results: Sequence[Any], asked: set[int]) -> dict[str, Any]:
    """Note path -> its passage under the section numbered as the question asks ("2. Hauptsatz" for "the second
    law"), of the first ``NUMBERED_NOTES`` notes found that number their sections (``ordinals.numbered_sections``)."""
    found: dict[str, Any] = {}
    for path in list(dict.fromkeys(result.path for result in results))[:NUMBERED_NOTES]:
        chunks = engine.store.reader().chunks_of(path)
        if not numbered_sections({heading for chunk in chunks for heading in chunk.heading_path}):
            continue
        section = next((chunk for chunk in chunks if any(numbers(heading, asked) for heading in chunk.heading_path)),
                       None)
        if section is not None:
            found[path] = section
    return found


def _mark_numbered(pack: EvidencePack, asked: set[int]) -> None:
    """The passages under a section numbered as the question asks have its ordinal word ("second" in "2. Hauptsatz")."""
    keys = frozenset(key for key, concept in pack.concepts.items() if ordinal_of(concept.word) in asked)
    for item in pack.items:
        if keys and any(numbers(heading, asked) for heading in item.heading_path):
            item.terms = item.terms | keys


NAME_DEPTH = 10  # passages searched for a name's words when the pack does not have them side by side


def _said_together(engine: Any, pack: EvidencePack, name: tuple[str, str], scope: Scope | None) -> bool:
    """Whether a passage of the pack, or of a keyword search for the name's words, has them side by side; a passage in
    another language than the question's says the name where it states each of its words: the other language orders
    and inflects a name's words its own way, and the word bridge may read one of them as another form of the vault
    word ("How many consuls did the *Roman Republic* have?" of a German note on the "Römische Republik", whose
    "roman" is read as the note's "Romanus")."""
    from cognivault.engine import EngineError

    if any(pack.side_by_side(name, item.pairs) or item.lang not in (None, pack.lang)
           and set(name) <= pack.concepts_in(item.terms, item.words) for item in pack.items):
        return True
    try:
        results = engine.search(" ".join(pack.word_of(key) for key in name), k=NAME_DEPTH, mode="lexical",
                                scope=scope).results
    except EngineError:
        return True  # not knowing is no reason to refuse
    analyzer = analyzer_of(engine)
    for result in results:
        record = engine.chunk(result.chunk_id)
        if record is None:
            continue
        crumb = " ".join([result.title, *result.heading_path])
        if pack.side_by_side(name, text_pairs(analyzer, f"{crumb}\n{record.text}", record.lang)):
            return True
    return False


def study_folder_of(engine: Any) -> str:
    return str(getattr(getattr(engine.settings, "study", None), "folder", "Study") or "Study").strip("/")


def scope_names_generated(engine: Any, scope: Scope | None) -> bool:
    """Whether ``scope`` asks for generated study notes: the study folder, one of them, or their property."""
    if scope is None or scope.is_empty():
        return False
    folder = study_folder_of(engine)
    inside = (folder, f"{folder}/")
    if any(f == folder or f.startswith(inside[1]) for f in scope.folders):
        return True
    if any(f.lstrip("/").startswith(inside[1]) for f in scope.files):
        return True
    return any(key == GENERATED_KEY for key, _ in scope.properties)


def _without_generated(engine: Any, results: list[Any]) -> tuple[list[Any], list[str], int]:
    """``results`` without passages of generated study notes, the notes those came from, and where the
    first one was dropped (its index in the kept results)."""
    reader = engine.store.reader()
    kept: list[Any] = []
    sources: list[str] = []
    first_drop = -1
    verdicts: dict[str, list[str] | None] = {}
    for result in results:
        if result.path not in verdicts:
            row = reader.note_row(result.path) if result.path.endswith(".md") else None
            frontmatter = row["frontmatter"] if row and isinstance(row.get("frontmatter"), dict) else {}
            verdicts[result.path] = _source_paths(engine, frontmatter) if GENERATED_KEY in frontmatter else None
        found = verdicts[result.path]
        if found is None:
            kept.append(result)
        else:
            first_drop = len(kept) if first_drop < 0 else first_drop
            sources += [path for path in found if path not in sources]
    return kept, sources, max(first_drop, 0)


def _source_paths(engine: Any, frontmatter: dict[str, Any]) -> list[str]:
    """The vault paths of a generated note's ``source_notes`` (``[[links]]``) that resolve."""
    paths = []
    for target in source_targets(frontmatter):
        try:
            path = engine.note_path(target)
        except Exception:  # noqa: BLE001 - a source that no longer resolves is simply not searched
            path = None
        if path:
            paths.append(path)
    return paths


def _within(scope: Scope | None, paths: Sequence[str]) -> Scope | None:
    """``scope`` narrowed to ``paths`` (None when none of them is inside a file scope it already has)."""
    base = scope or Scope()
    listed = {f.casefold() for f in base.files} | {f"{f.casefold()}.md" for f in base.files}
    files = [p for p in paths if not base.files or p.casefold() in listed]
    if not files:
        return None
    return Scope(folders=list(base.folders), tags=list(base.tags), files=files, properties=list(base.properties))


def question_vector(engine: Any, query: str, lang: str | None) -> np.ndarray | None:
    """The query's embedding, or None without an embedder or when it does not know ``lang``."""
    embedder = engine.embedder
    if embedder is None or engine.dense_weight(lang) <= 0:
        return None
    try:
        return np.asarray(embedder.embed_query(query), dtype=np.float32)
    except ModelUnavailable as exc:
        log.info("no question vector: %s", exc)
        return None


def _measure_similarity(engine: Any, pack: EvidencePack) -> None:
    """Each vault passage's cosine to the question, from the vectors the index already holds."""
    dense = engine.store.dense
    if dense is None:
        return
    for item in pack.items:
        if item.source != "vault" or not item.chunk_id:
            continue
        with engine.store.lock:
            stored = dense.vectors_of([item.chunk_id])
        if len(stored) and stored.shape[1] == len(pack.question_vector):
            item.similarity = float(stored[0] @ pack.question_vector)


def _follow_up_scope(scope: Scope | None, prior_paths: Sequence[str]) -> Scope | None:
    """The request scope narrowed to the previously cited notes (None when that cannot be expressed)."""
    if scope is not None and scope.files:
        return None  # a file scope would widen, not narrow: keep the request scope alone
    base = scope or Scope()
    return Scope(folders=list(base.folders), tags=list(base.tags), files=list(dict.fromkeys(prior_paths)),
                 properties=list(base.properties))
