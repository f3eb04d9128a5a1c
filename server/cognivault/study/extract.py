"""Facts found in passages without any model: definitions, "X: Y" lines, bold terms, headings.

The extractive generators build flashcards, quizzes, mind maps and workshop
outlines from these. Patterns (English and German):

- definitions: "X is Y", "X are Y" ("X ist Y", "X sind Y"), with X a short
  noun phrase that is not a pronoun;
- namings: "Y are called X" ("Y nennt man X");
- "X: Y" lines whose X is a short term, or ``**X**: Y``;
- bold terms: a sentence holding ``**term**`` (a cloze on the term);
- headings: a section's heading with its first sentence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cognivault.study.sources import Source

_WIKILINK_RE = re.compile(r"!?\[\[([^\[\]|#]*)(?:#[^\[\]|]*)?(?:\|([^\[\]]*))?\]\]")
_MDLINK_RE = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_EMBED_LINE_RE = re.compile(r"^\s*!\[")
_CALLOUT_RE = re.compile(r"^\s*>\s*\[![\w-]+\][+-]?\s*(.*)$")
_BLOCK_ID_RE = re.compile(r"\s\^[A-Za-z0-9-]+\s*$")
_TAG_RE = re.compile(r"(?<![\w/&])#[\w/-]*[A-Za-z][\w/-]*")
_COMMENT_RE = re.compile(r"<!--.*?-->", re.S)
_SENTENCE_SPLIT_RE = re.compile(r"(?<=[.!?])\s+(?=[\"“„(*]*[A-ZÄÖÜ0-9¹²³])")
_BOLD_RE = re.compile(r"\*\*([^*\n]{2,80}?)\*\*")
_PRONOUNS = {"it", "this", "that", "these", "those", "they", "there", "he", "she", "we", "you", "which", "what",
             "each", "every", "one", "some", "most", "all", "here", "such", "its", "their", "both", "many",
             "es", "dies", "das", "diese", "dieser", "sie", "er", "man", "hier", "jede", "jeder", "alle", "beide",
             "welche", "was", "when", "if", "how", "why", "where", "because", "while", "although", "since",
             "after", "before", "as", "so", "wenn", "wie", "warum", "wo", "weil", "da", "als", "ob", "dass",
             "nachdem", "bevor", "only", "also", "nur", "auch"}
_PARTICIPLES = {"made", "split", "found", "taken", "given", "known", "built", "held", "done", "seen", "shown",
                "driven", "broken", "kept", "lost", "set", "put", "cut", "brought", "thought", "caught", "sent",
                "spent", "left", "meant", "read", "run", "won", "bound", "drawn", "grown", "thrown", "written"}
_COLON_STOP = {"related", "details", "detail", "see", "note", "notes", "evidence", "example", "examples", "answer",
               "source", "sources", "compare", "aliases", "tip", "warning", "summary", "ausführlich", "siehe",
               "hinweis", "beispiel", "merksatz", "listen", "question", "frage", "info", "important", "wichtig",
               "read", "why", "how", "result", "results", "ergebnis", "method", "methode"}


@dataclass(frozen=True, slots=True)
class Fact:
    kind: str  # definition | called | colon | bold | heading
    term: str
    definition: str  # the answer side: what the term is / the section's first sentence
    sentence: str  # the whole cleaned sentence (markup removed)
    cloze: str  # the sentence with the term marked ==term== ("" when the term is not in it)
    verb: str  # is / are / ist / sind ("" when none)
    source: Source
    lang: str

    @property
    def german(self) -> bool:
        return self.lang == "de"


def _clean_inline(text: str) -> str:
    text = _COMMENT_RE.sub("", text)
    text = _WIKILINK_RE.sub(lambda m: (m.group(2) or m.group(1).split("/")[-1]) if not m.group(0).startswith("!")
                            else "", text)
    text = _MDLINK_RE.sub(lambda m: m.group(1) if not m.group(0).startswith("!") else "", text)
    text = _BLOCK_ID_RE.sub("", text)
    text = _TAG_RE.sub("", text)
    return " ".join(text.split())


def prose_paragraphs(text: str) -> list[str]:
    """The prose of a passage as paragraphs: no tables, code, embeds, headings or meta lines; links as text."""
    paragraphs: list[str] = []
    current: list[str] = []
    in_code = False

    def close() -> None:
        if current:
            joined = " ".join(current).strip()
            if joined:
                paragraphs.append(joined)
            current.clear()

    for raw in text.replace("\r\n", "\n").split("\n"):
        line = raw.rstrip()
        if line.lstrip().startswith(("```", "~~~")):
            in_code = not in_code
            close()
            continue
        if in_code:
            continue
        stripped = line.strip()
        if not stripped or stripped.startswith(("|", "#")) or _EMBED_LINE_RE.match(stripped) \
                or stripped.startswith(("Aliases: ", "<!--")) or re.fullmatch(r"[-*_=]{3,}", stripped):
            close()
            continue
        callout = _CALLOUT_RE.match(line)
        if callout:
            close()
            continue
        if stripped.startswith(">"):
            stripped = stripped.lstrip("> ").strip()
        bullet = re.match(r"^(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?(.*)$", stripped)
        if bullet:
            close()
            stripped = bullet.group(1)
            current.append(_clean_inline(stripped))
            close()
            continue
        current.append(_clean_inline(stripped))
    close()
    return [p for p in paragraphs if len(p) >= 3]


def sentences(paragraph: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_SPLIT_RE.split(paragraph) if len(s.strip()) >= 8]


def unbold(text: str) -> str:
    return text.replace("**", "").replace("__", "")


def _finish(text: str) -> str:
    text = text.strip().rstrip(",;:")
    if not text:
        return text
    text = text[0].upper() + text[1:]
    return text if text[-1] in ".!?)" else text + "."


def _term_ok(term: str, max_words: int = 6) -> bool:
    words = term.split()
    if not words or len(words) > max_words or len(term) > 70 or len(term) < 2:
        return False
    if words[0].casefold().strip("(\"“„") in _PRONOUNS:
        return False
    if not re.search(r"[A-Za-zÄÖÜäöüß]", term) or term.endswith((",", ";")):
        return False
    return not re.search(r"[.!?;:]", term.rstrip(")"))


def _passive(definition: str) -> bool:
    """"are rearranged", "is split": a passive verb, not a definition."""
    first = definition.split()[0].casefold().strip(",") if definition.split() else ""
    return first in _PARTICIPLES or (first.endswith("ed") and len(first) > 4)


def display_term(term: str, text: str, german: bool) -> str:
    """An English term written as it appears mid-sentence ('Chloroplasts' → 'chloroplasts')."""
    if german or not term or not term[0].isupper() or term.split()[0].isupper():
        return term
    first = term.split()[0]
    if any(ch.isupper() for ch in first[1:]):
        return term  # RuBisCO, NADPH
    if re.search(r"[a-z,;][ \t]+" + re.escape(term), text):
        return term  # capitalised in the middle of a sentence: a name
    return term[0].lower() + term[1:]


def _lower_article(term: str) -> str:
    """'The Calvin cycle' → 'the Calvin cycle' (for use inside a question)."""
    match = re.match(r"^(The|A|An|Der|Die|Das|Ein|Eine)\s+(.*)$", term)
    return f"{match.group(1).lower()} {match.group(2)}" if match else term


def mark_term(sentence: str, term: str) -> str:
    """The sentence with the first occurrence of ``term`` as a cloze ``==term==`` ("" when absent)."""
    plain = unbold(sentence)
    index = plain.casefold().find(term.casefold())
    if index < 0 or not term.strip():
        return ""
    return f"{plain[:index]}=={plain[index:index + len(term)]}=={plain[index + len(term):]}"


def blank_term(sentence: str, term: str, filler: str = "____") -> str:
    """The sentence with the first occurrence of ``term`` replaced by ``filler`` ("" when absent)."""
    plain = unbold(sentence)
    index = plain.casefold().find(term.casefold())
    if index < 0 or not term.strip():
        return ""
    return f"{plain[:index]}{filler}{plain[index + len(term):]}"


_DEF_EN = re.compile(r"^(?P<term>(?:(?:The|A|An)\s+)?[^,;:]{2,70}?)\s+(?P<verb>is|are)\s+(?P<def>(?!not\b|also\b|"
                     r"called\b|then\b|therefore\b|used\b|why\b|how\b|where\b|when\b|what\b)[^\n]{6,})$")
_DEF_DE = re.compile(r"^(?P<term>(?:(?:Der|Die|Das|Ein|Eine)\s+)?[^,;:]{2,70}?)\s+(?P<verb>ist|sind)\s+"
                     r"(?P<def>(?!nicht\b|auch\b|dabei\b)[^\n]{6,})$")
_CALLED_EN = re.compile(r"^(?P<def>.{6,}?)\s+(?P<verb>is|are)\s+called\s+(?P<term>.+)$")
_CALLED_DE = re.compile(r"^(?P<def>.{6,}?)\s+nennt\s+man\s+(?P<term>.+)$")
_COLON_BOLD = re.compile(r"^\*\*(?P<term>[^*]{2,60})\*\*\s*[:—–-]\s*(?P<def>.{5,})$")
_COLON_PLAIN = re.compile(r"^(?P<term>[A-ZÄÖÜ][^:.!?]{1,40}):\s+(?P<def>.{8,})$")


def _short_term(raw: str) -> str:
    """The term of "... are called **grana** (singular granum) and are ..." → 'grana'."""
    bold = _BOLD_RE.search(raw)
    if bold:
        return bold.group(1).strip()
    cut = re.split(r"\s*(?:[,;(.]|\s(?:and|or|und|oder|which|that)\s)", raw, maxsplit=1)[0]
    return cut.strip().rstrip(".")


def facts_of(source: Source, lang: str | None = None) -> list[Fact]:
    """Every fact the patterns find in one passage, in text order."""
    lang = lang or source.lang or "en"
    german = lang == "de"
    found: list[Fact] = []
    seen_terms: set[str] = set()

    def add(kind: str, term: str, definition: str, sentence: str, verb: str) -> None:
        term = unbold(term).strip().strip("\"“”„'").strip()
        definition = _finish(unbold(definition))
        if not _term_ok(term) or len(definition) < 4:
            return
        key = f"{kind}:{term.casefold()}"
        if key in seen_terms:
            return
        seen_terms.add(key)
        plain = _finish(unbold(sentence))
        found.append(Fact(kind, term, definition, plain, mark_term(plain, term), verb, source, lang))

    paragraphs = prose_paragraphs(source.text)
    for paragraph in paragraphs:
        colon = _COLON_BOLD.match(paragraph) or (_COLON_PLAIN.match(paragraph) if len(paragraph) < 400 else None)
        if colon:
            term = colon.group("term").strip()
            if term.casefold() not in _COLON_STOP and len(term.split()) <= 4 \
                    and len(colon.group("def").split()) >= 2:
                add("colon", term, colon.group("def"), f"{term}: {colon.group('def')}", "")
                continue
        for sentence in sentences(paragraph):
            called = (_CALLED_DE if german else _CALLED_EN).match(sentence.rstrip("."))
            if called:
                term = _short_term(called.group("term"))
                add("called", term, called.group("def"), sentence, called.groupdict().get("verb") or "")
            else:
                definition = (_DEF_DE if german else _DEF_EN).match(unbold(sentence).rstrip("."))
                if definition and "?" not in sentence and not (not german and _passive(definition.group("def"))):
                    add("definition", definition.group("term"), definition.group("def"), sentence,
                        definition.group("verb"))
            for bold in _BOLD_RE.finditer(sentence):
                term = bold.group(1).strip()
                opener = unbold(sentence).split()[0].casefold().strip("\"“„(") if sentence.split() else ""
                if len(term.split()) <= 6 and len(unbold(sentence)) > len(term) + 15 and opener not in _PRONOUNS:
                    add("bold", term, sentence, sentence, "")
    headings = [h for h in source.heading_path if h]
    if len(headings) >= 2 and paragraphs:
        first = sentences(paragraphs[0])
        if first:
            add("heading", headings[-1], first[0], first[0], "")
    return found


def all_facts(sources: list[Source], lang: str) -> list[Fact]:
    return [fact for source in sources for fact in facts_of(source, source.lang or lang)]


def spread(facts: list[Fact], limit: int) -> list[Fact]:
    """Up to ``limit`` facts taken from the passages in turn, so every passage contributes."""
    by_source: dict[str, list[Fact]] = {}
    for fact in facts:
        by_source.setdefault(fact.source.chunk_id, []).append(fact)
    groups = list(by_source.values())
    picked: list[Fact] = []
    depth = 0
    while len(picked) < limit and any(depth < len(g) for g in groups):
        for group in groups:
            if depth < len(group) and len(picked) < limit:
                picked.append(group[depth])
        depth += 1
    return picked


def key_phrases(source: Source, limit: int = 3) -> list[str]:
    """Short phrases for a mind-map leaf: bold terms and defined terms of the passage."""
    phrases: list[str] = []
    for fact in facts_of(source):
        if fact.kind == "heading":
            continue
        term = display_term(fact.term, source.text, fact.german)
        if term.casefold() not in {p.casefold() for p in phrases}:
            phrases.append(term)
        if len(phrases) >= limit:
            break
    return phrases


def first_sentence(source: Source) -> str:
    for paragraph in prose_paragraphs(source.text):
        found = sentences(paragraph)
        if found:
            return _finish(unbold(found[0]))
    return ""


def question_for(fact: Fact) -> str:
    """The front of a question card for a fact."""
    term = _lower_article(display_term(fact.term, fact.source.text, fact.german))
    if fact.kind == "definition":
        if fact.german:
            return f"Was {fact.verb or 'ist'} {term}?"
        return f"What {fact.verb or 'is'} {term}?"
    if fact.kind == "called":
        subject = _lower_article(fact.definition.rstrip("."))
        subject = subject[0].lower() + subject[1:] if subject[:2].istitle() and not subject[:2].isupper() else subject
        if fact.german:
            return f"Wie nennt man {subject}?"
        return f"What {'are' if fact.verb == 'are' else 'is'} {subject} called?"
    if fact.kind == "colon":
        return f"Was bedeutet „{fact.term}“?" if fact.german else f"What does “{fact.term}” mean?"
    if fact.kind == "heading":
        title = fact.source.title
        return f"{title}: Worum geht es bei „{fact.term}“?" if fact.german \
            else f"{title}: what is “{fact.term}” about?"
    return fact.cloze or fact.sentence


def answer_for(fact: Fact) -> str:
    if fact.kind == "called":
        return _finish(fact.term)
    return fact.definition
