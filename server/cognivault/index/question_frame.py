"""The frame of a question: the words that say what is asked about a subject, not which subject.

"Unterschied zwischen EU-Verordnung und Richtlinie?", "Wer hat den Begriff „Impressionisten“ geprägt?", "Was heißt
Trinkgeld auf Spanisch?": "Unterschied", "Begriff", "heißt" and "auf Spanisch" hold for any subject, and a note that
happens to say "unterschiedlich", to have a heading "Begriffe" or to list a Spanish course matches them as well as the
note on the subject does. Keyword search weighs a frame word less than the question's other words
(:data:`FRAME_WEIGHT`), so the subject decides; it still matches, so a note about "Beispiele" is found by that word.

A noun framing what is asked about something ("the *role* of water", "der *Unterschied* zwischen") is the frame too
for an answer: like a question's verb, the vault need not use it to answer (:data:`FRAME_NOUNS`).

What each language says in a question's frame is data in :data:`FRAMES`, one :class:`LanguageFrame` per language.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

# The say of a frame word in keyword search, against 1 for the question's other words: chosen on the tune halves of
# both dev vaults (1, 0.5, 0.3, 0.2 and 0.1 tried).
FRAME_WEIGHT = 0.3


@dataclass(frozen=True, slots=True)
class LanguageFrame:
    """One language's question frame (all casefolded, as :func:`cognivault.index.analysis.words` reads them)."""

    # asking for a difference, a term, a meaning, an example, an explanation, a count, how a thing works or comes about;
    # joining the question's clauses ("although")
    words: frozenset[str]
    into: frozenset[str]  # what leads to the language a word is translated into ("auf", "in")
    languages: frozenset[str]  # language names, which are the frame after one of ``into`` ("auf Spanisch")
    nouns: frozenset[str]  # nouns that frame what is asked about a thing (its role, purpose, advantages)
    # nouns asking for the kinds of a thing ("What *kinds* of items …?"): a list answers, not a passage saying "kinds"
    kinds: frozenset[str] = frozenset()
    # nouns asking for the course of a thing ("What are the *steps* of …?", "Welche *Schritte* …?"): a numbered list
    # answers, which need not say "steps"
    sequences: frozenset[str] = frozenset()


FRAMES: dict[str, LanguageFrame] = {
    "en": LanguageFrame(
        words=frozenset({
            "difference", "differences", "differ", "differs", "distinguish", "compare", "compared",
            "comparison", "versus", "vs", "term", "terms", "mean", "means", "meaning", "meant", "called", "word",
            "words", "explain", "explains", "explanation", "example", "examples", "define", "defines", "definition",
            "translate", "translated", "translation", "say", "says", "many", "much",
            # a conjunction joining the question's clauses ("Why do … die young *although* they have more fuel?")
            "although", "though", "whereas", "whilst"}),
        into=frozenset({"in", "into"}),
        languages=frozenset({
            "english", "german", "spanish", "french", "italian", "latin", "portuguese", "dutch", "russian", "polish",
            "greek", "turkish", "arabic", "chinese", "japanese"}),
        nouns=frozenset({
            "role", "roles", "purpose", "purposes", "function", "functions", "importance", "significance",
            "difference", "differences", "advantage", "advantages", "disadvantage", "disadvantages", "benefit",
            "benefits", "drawback", "drawbacks", "meaning", "reason", "reasons", "term", "terms", "concept",
            "concepts"}),
        kinds=frozenset({"kind", "kinds", "type", "types", "sort", "sorts"}),
        sequences=frozenset({"step", "steps", "phase", "phases", "stage", "stages"}),
    ),
    "de": LanguageFrame(
        words=frozenset({
            "unterschied", "unterschiede", "unterscheiden", "unterscheidet", "vergleich", "vergleiche",
            "vergleichen", "begriff", "begriffe", "begriffs", "heißt", "heißen", "heisst", "heissen", "bedeutet",
            "bedeuten", "bedeutung", "genannt", "nennt", "nennen", "bezeichnet", "bezeichnung", "wort", "wörter",
            "erkläre", "erklären", "erklärt", "erklärung", "beispiel", "beispiele", "beispielen", "definition",
            "definiere", "definieren", "definiert", "übersetzt", "übersetzen", "übersetzung", "besagt", "besagen",
            "viele", "vielen", "funktioniert", "funktionieren", "passiert", "passieren", "geschieht", "entsteht",
            "entstehen", "obwohl", "obgleich", "obschon", "wohingegen"}),
        into=frozenset({"auf", "ins", "im"}),
        languages=frozenset({
            "deutsch", "deutsche", "deutschen", "englisch", "englische", "englischen", "spanisch", "spanische",
            "spanischen", "französisch", "französische", "französischen", "italienisch", "italienische",
            "italienischen", "latein", "lateinisch", "lateinische", "lateinischen", "portugiesisch", "niederländisch",
            "russisch", "polnisch", "griechisch", "griechische", "griechischen", "türkisch", "arabisch", "chinesisch",
            "japanisch"}),
        nouns=frozenset({
            "rolle", "rollen", "zweck", "funktion", "funktionen", "aufgabe", "aufgaben", "bedeutung", "unterschied",
            "unterschiede", "vorteil", "vorteile", "nachteil", "nachteile", "sinn", "grund", "gründe", "begriff",
            "begriffe", "konzept", "konzepte"}),
        kinds=frozenset({"art", "arten", "typ", "typen", "sorte", "sorten"}),
        sequences=frozenset({"schritt", "schritte", "phase", "phasen", "stufe", "stufen", "stadium", "stadien"}),
    ),
}
KIND_NOUNS = frozenset().union(*(frame.kinds for frame in FRAMES.values()))  # in any language, casefolded
FRAME_NOUNS = KIND_NOUNS.union(*(frame.nouns for frame in FRAMES.values()))  # in any language, casefolded
SEQUENCE_NOUNS = frozenset().union(*(frame.sequences for frame in FRAMES.values()))  # in any language, casefolded


def frame_words(query_words: Sequence[str], languages: Sequence[str | None]) -> list[bool]:
    """For each of ``query_words`` (casefolded, in order) whether it is the question's frame in one of
    ``languages``: a frame word, or a language name right after what leads to a translation's language."""
    frames = [FRAMES[lang] for lang in dict.fromkeys(languages) if lang in FRAMES]
    found = []
    for at, word in enumerate(query_words):
        before = query_words[at - 1] if at else ""
        found.append(any(word in frame.words or (word in frame.languages and before in frame.into)
                         for frame in frames))
    return found
