"""Answers with no language model at all: the vault's best evidence, quoted whole, each with its source.

The passages of the evidence pack are read block by block with the project's
Markdown reader (``vault.markdown.split_blocks``): paragraphs, list items
(with everything nested in them), code blocks, table rows and callouts are the
units an answer quotes, verbatim, so a code span, an embed or a shortcut the
answer hinges on is never rewritten, and no code block or list item is cut in
half. A paragraph that ends with ``:`` introduces the block after it ("To
embed a note:" + its code block) and is quoted with it; an exception right after a rule ("> [!warning] Exception:
events …") qualifies it and is quoted with it too; a table row is quoted
under its table's header. A long paragraph is quoted by its sentences.

Text read from an image by OCR is quoted only where it reads as prose (a scanned page, a photo of notes:
``reads_as_prose``); a screenshot's menu entries and buttons stay searchable, no answer.
A line of bold text alone is read as the heading it stands for. A link or
an embed alone says nothing on its own: a unit needs ``MIN_WORDS`` words a
reader sees, most of them outside links ("More: [[A]] and [[B]]" only points).
An entry for another note of the pack ("2. [[Pigments]]: why leaves are
green"), or a list of them, is not quoted when that note's passages say all it
says of the question: the note itself is.

Each unit is scored, under its headings (the note's title and aliases, its section), by the
weighted share of the question's concepts it has (``EvidencePack.concepts``:
the user's words in the question's languages, rare words weighing more; a word
it says only as a link's text counts ``LINK_SHARE``), less
by how well its passage covers the question (half by the passage itself, half
by all the passages of its note in the pack: ``NOTE_WEIGHT``), and a little by having the
question's words side by side ("embed a note"), by standing in the section a question's ordinal numbers
("the *second* law": "2. Hauptsatz", ``ordinals``; the note's sections numbered otherwise are left out) or, asked
why, in the section giving reasons ("Why Britain first?", "Causes"); a unit writing math gives the formula a
question asks for ("the *formula* for kinetic energy": "$$E_k = \\frac{1}{2}mv^2$$", ``FORMULA_WORDS``); or,
asked "What is X?" or just "X" (a term the passages name: a note's title, a heading, a bold term), by
defining X (``DEFINITION_WEIGHT``; in any of the vault's spellings: "First-Pass-Effekt" for "first pass effect"),
and a definition that leads takes no other note's mere mention of X with it; an embedding model that knows the
question's language re-ranks the best units by meaning (a unit that says the
question's words only in its headings is as near as the nearest of its section:
the model reads it without them, so the section's opening text leads it). Units are quoted in
the question's language where the vault has the passage in it. The answer leads
with the best unit, adds up to ``MAX_UNITS - 1`` others that are nearly as good
(another note's unit must nearly match the best one's share, unless it states
``COMPLETING_SHARE`` of the question the others do not; where the lead's headings, its note's title and aliases
included, name all the question asks about, "TCP three-way handshake" for "TCP handshake", a unit of another section
or note must state such a part: the question names the section, and the rest only shares its words), then up to
``SECTION_UNITS`` blocks around the chosen units under their headings (the
nearest block of each first), within
``ANSWER_BUDGET`` characters; a whole short list or paragraph goes before its
item or sentence (an ordered list, steps or causes 1-6, is whole up to twice as long; a table is whole for a
question comparing what its columns are: "| | SN1 | SN2 |" for "the difference between SN1 and SN2"; asked to compare
two things, ``comparison``, the answer quotes a passage naming each by its own name, one naming both first, and where
each has a section of its own, that section, not the other's mention of it). Asked when a term applies ("When is demand
called elastic?", ``conditions``), a line naming the term with its condition leads, and the note's other mentions of
the term are left out. The section named for what a question asks about ("## Worker bee") leads its sibling sections
on other things ("## Drone: only role …"), which only share the asking word.
Quotes follow the lead in the order of the notes, each led by
its section's title and followed by its ``[Sn]`` label, which names the heading the quote
stands under (a passage that took in small sections is read and cited section by section:
``PassageAnswer.cited``). A question asking for a kind of answer ("how many", "wie lange",
"when was": ``answer_kind``) is answered only by a unit that gives one next to what it asks about, and that
unit leads. A question counting the things it asks for ("What are the *four* stages …?", ``ordinals.asked_count``)
is led by a list of that many under a heading naming them, or quotes the blocks a sentence announcing them leads to,
each opening with its ordinal ("… gives you four maxims." / "[00:07:45] First, …"); quotes giving no such list are
the nearest the notes come (low). When the pack does not support an answer (see ``confidence``), no
unit passes (or none gives the kind asked for), or the quotes would state less
than ``ANSWER_FLOOR`` of the question, or state a name it asks about only in passing, apart from the rest of
its topic ("northern Australia" in a list of regions, "capital" in another note), or leave out what the question asks
about, a word or two the vault names elsewhere, weighing more of the question than the quotes state ("What causes
the *liquidity trap*?" answered with the causes of inflation, "What are *anticoagulants* used for?" with what
antibiotics are used for), or leave out the form it asks to turn a thing into together with what it asks to do
("export a note *as a PDF*" answered with how to embed a PDF: ``_forms_unquoted``), or, asked whether a thing
can do something, no passage found says the doing in any form ("Can the Audio recorder *transcribe* …?":
``_abilities_unheard``), or, asked for a number or a span of time, what it is asked of has a word the vault never
uses ("… von Lübeck nach *Nowgorod*?": ``_focus_unheard``), or number no provision the question asks about ("§ 35"
answered with §§ 32-34: ``_references_unquoted``), or state the words of what it
asks about each apart, none two together ("telephone" in a database example, "invented" in a timeline; not one
note's sections, each saying a part), the answer says the vault does not cover it instead of guessing. Deterministic.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from cognivault.answer.acronyms import abbreviated
from cognivault.answer.across import located_quotes, quoted_across
from cognivault.answer.answer_kind import ExpectedAnswer, expected_answer, gives_answer
from cognivault.answer.comparison import compared_sides, names_side, side_terms
from cognivault.answer.conditions import asked_condition, names_term, states_condition
from cognivault.answer.confidence import QuoteMeasures
from cognivault.answer.evidence import (
    NOUN_CAPITALISING,
    Evidence,
    EvidencePack,
    spelled_alike,
    text_pairs,
    text_terms,
    verb_asked_with,
)
from cognivault.answer.ordinals import (
    COUNT_REACH,
    DIGIT_ORDINAL,
    asked_count,
    asked_ordinals,
    heading_ordinal,
    numbers,
    opening_ordinal,
    ordinal_of,
    says_count,
    series,
)
from cognivault.index.analysis import is_stopword, words
from cognivault.index.question_frame import KIND_NOUNS, SEQUENCE_NOUNS
from cognivault.index.word_rarity import rarity
from cognivault.study.extract import cited_under
from cognivault.study.sources import Source
from cognivault.vault.chunking import LEAD_ALIASES_RE
from cognivault.vault.markdown import (
    CODE_FENCE_RE,
    HTML_COMMENT_RE,
    WIKILINK_RE,
    MarkdownBlock,
    inline_pieces,
    split_blocks,
)
from cognivault.vault.reading import (
    ALL_ARTICLES,
    WORDS,
    announcement_start,
    course_aside_start,
    definition_subject,
    is_own_aside,
    is_spoken,
    is_todo,
    math_spans,
    question_tail,
    vocabulary,
    without_course_remarks_in,
    without_filing,
)
from cognivault.vault.sentences import shield, unshield

NOT_IN_VAULT = "The vault doesn't say: none of the indexed notes covers this question."
NOT_IN_VAULT_DE = "Dazu steht nichts im Vault: keine der indizierten Notizen behandelt diese Frage."
NOT_NAMED = "The vault doesn't say anything about {}: no note covers it."
NOT_NAMED_DE = "Zu {} steht nichts im Vault: keine Notiz behandelt es."
NOT_NEAR = "The vault doesn't say this about {}: the passages on the rest of the question do not name it."
NOT_NEAR_DE = "Dazu steht nichts im Vault zu {}: die Passagen zum Rest der Frage nennen es nicht."
MIN_UNIT_SHARE = 0.1
RELATIVE_SHARE = 0.5
SCORE_SHARE = 0.6
OTHER_NOTE_SHARE = 0.8
COMPLETING_SHARE = 0.1  # a unit adding this much of the question's weight to the answer is always welcome
PADDING_SHARE = 0.7  # an answer stating all the question asks takes no unit stating less than this of the lead's share
CONTEXT_SHARE = 0.75
CONTEXT_WEIGHT = 0.35
NOTE_WEIGHT = 0.5  # of a passage's context, the share judged over all its note's passages in the pack
LINK_SHARE = 0.5  # a question word a unit says only as a link's text counts this much
COMMENT_SHARE = LINK_SHARE  # so does one a code block says only in a comment ("# blocks until ... handshake done")
PHRASE_WEIGHT = 0.1  # a unit that has the question's words side by side ("embed a note") comes first on a tie
SECTION_WEIGHT = PHRASE_WEIGHT  # so does a unit under a heading naming the question's words
TITLE_SHARE = 0.75  # a question word a unit has only from its note's title counts this much
DEFINITION_WEIGHT = PHRASE_WEIGHT  # so does, for "What is X?", a unit defining X ("X is ...", "**X**")
DENSE_FLOOR = 0.2
DENSE_SHARE = 0.6
MAX_EMBEDDED_UNITS = 24
MAX_UNITS = 3
SECTION_UNITS = 2  # blocks around the best match, under its heading, added when they fit
ANSWER_BUDGET = 700  # characters of quoted Markdown (the first unit may take up to twice that)
LONG_PROSE = 320  # a longer paragraph is also quoted by its sentences
WHOLE_LIMIT = 600  # a paragraph or list up to this long is also a unit as a whole
MIN_REPEATED = 6  # a unit of this many different words or more, nearly all in a chosen quote, repeats it
CONTAINED_SHARE = 0.9
MIN_WORDS = 3  # a paragraph, item or callout with fewer words (embeds aside) is not quoted alone
OCR_LINE_TOKENS = 5  # a line of text read from an image is prose from this many tokens on (a menu entry is shorter)
OCR_LINE_WORDS = 0.8  # ... that are nearly all words (no "©", "v0.3.0", "je]", "8.png")
OCR_PROSE_SHARE = 0.75  # text read from an image is quoted where this share of its tokens stands on lines of prose
MAX_INTRO = 240  # a longer paragraph ending in ":" is also a passage of its own (its sentences), not only a lead-in
ANSWER_FLOOR = 0.25  # quotes stating less of the question than this are no answer (bench_answer_quality.py)
# quotes stating less than this of the question, and not what it names, are no answer (bench_answer_quality.py:
# no tune question is refused by it)
NAME_FLOOR = 0.5
MAX_UNHEARD = 3  # a refusal names at most this many words the vault never uses



@dataclass(frozen=True, slots=True)
class StructureWords:
    """One language's words that tie a question to a note's structure (casefolded)."""

    why: frozenset[str]  # asking why: the section giving reasons answers ("Why Britain first?")
    reasons: frozenset[str]  # a heading naming reasons ("Causes", "Gründe")
    exceptions: frozenset[str]  # what opens an exception to the rule before it ("Exception: events …")
    compares: frozenset[str]  # asking to compare: a table whose columns are the things compared answers whole
    formulas: frozenset[str]  # asking for a formula: what a note writes in math ("$E_k = \frac{1}{2}mv^2$") gives it


STRUCTURE_WORDS: dict[str, StructureWords] = {
    "en": StructureWords(why=frozenset({"why"}), reasons=frozenset({"reason", "reasons", "cause", "causes"}),
                         exceptions=frozenset({"exception", "exceptions", "except", "however", "but"}),
                         compares=frozenset({"difference", "differences", "differ", "compare", "comparison", "vs",
                                             "versus", "contrast"}),
                         formulas=frozenset({"formula", "formulas", "formulae", "equation", "equations"})),
    "de": StructureWords(why=frozenset({"warum", "wieso", "weshalb"}),
                         reasons=frozenset({"grund", "gründe", "ursache", "ursachen"}),
                         exceptions=frozenset({"ausnahme", "ausnahmen", "außer", "aber", "jedoch"}),
                         compares=frozenset({"unterschied", "unterschiede", "unterscheidet", "unterscheiden",
                                             "vergleich", "vergleiche", "vergleichen", "vs", "versus"}),
                         formulas=frozenset({"formel", "formeln", "gleichung", "gleichungen"})),
}
# A question asking why is answered by the section giving reasons: its heading asks why too ("Why Britain first?",
# "Warum …?") or names them ("Causes", "Gründe"), though it shares no other word with the question.
WHY_WORDS = frozenset().union(*(words.why for words in STRUCTURE_WORDS.values()))
REASON_HEADINGS = WHY_WORDS.union(*(words.reasons for words in STRUCTURE_WORDS.values()))
COMPARE_WORDS = frozenset().union(*(words.compares for words in STRUCTURE_WORDS.values()))
FORMULA_WORDS = frozenset().union(*(words.formulas for words in STRUCTURE_WORDS.values()))
# A quote or callout opening with an exception ("> [!warning] Exception: events", "> Ausnahme: …") qualifies the
# rule right before it (a callout on something else, "> [!warning] Mutable default arguments", does not)
_EXCEPTIONS = "|".join(sorted((word for words in STRUCTURE_WORDS.values() for word in words.exceptions),
                              key=len, reverse=True))
_CALLOUT = re.compile(r"\s*>\s*\[![\w-]+\]")
_CAVEAT = re.compile(rf"\s*>\s*(?:\[![\w-]+\][-+]?\s*)?(?:\*\*|__)?(?:{_EXCEPTIONS})\b", re.IGNORECASE)

_COUNT = re.compile(r"(?<![\w.,])\d+(?:[.,]\d+)?\s+[^\W\d_]{3,}")  # a number with what it counts: "7 layers"
_ORDINAL = re.compile(DIGIT_ORDINAL + r"\s+(?P<noun>[^\W\d_][\w-]*)")  # with what it numbers: "4. Normalform"
# a provision numbered after one of the languages' markers ("§ 35", "Art. 48", "Artikel 48", "§35")
_REFERENCE_MARK = "|".join(sorted({re.escape(mark) for language in WORDS.values() for mark in language.references},
                                  key=len, reverse=True))
_REFERENCE = re.compile(rf"(?<![\w.])(?:{_REFERENCE_MARK})\s*(?P<number>\d+[a-z]?)(?![\w.,]\d)", re.IGNORECASE)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[*_`]?[A-ZÄÖÜ0-9])")
# Hidden in the rendered note (citation markers, review schedules): never quoted outside code.
_HTML_COMMENT = re.compile(r"[ \t]*" + HTML_COMMENT_RE.pattern, re.DOTALL)  # with the blanks before it
# a block's id, closing its last line or on a line of its own ("… hochladen. ^publish-media-limit"): Obsidian hides it
_BLOCK_ID = re.compile(r"(?:[ \t]+|^)\^[A-Za-z0-9-]+[ \t]*$", re.MULTILINE)
_WORDS = re.compile(r"\w+")
_BOLD = re.compile(r"(\*\*|__)(?P<text>[^*_\n]+)\1")
_BOLD_LINE = re.compile(_BOLD.pattern + ":?")
_EMPHASIS = re.compile(r"(?<![\w*_])(?P<mark>\*\*|__|\*|_)(?P<text>[^*_\n]+)(?P=mark)(?![\w*_])")  # bold or italics
# Where a sentence may start: after its end mark, at a list item, a new line of a table or block, a blank line
# (not at a line break inside a wrapped paragraph).
_SENTENCE_BREAK = re.compile(r"[.!?:]\s+|\n(?=[ \t]*(?:[-*+>|]|\d{1,3}[.)])\s)|\n[ \t]*\n")
# A line comment in code: "#", "//" or "--" at a line's start or after a blank, then a blank, to the line's end.
_CODE_COMMENT = re.compile(r"(?:^|(?<=\s))(?:#|//|--)(?:\s.*)?$", re.MULTILINE)
_EMBED = re.compile(r"!\[\[[^\]]*\]\]|!\[[^\]]*\]\([^)]*\)")
# A block opening with a term of its own, in bold or as a short label ("**Turgor** – …", "- static friction: …"): an
# entry on that term, not the rest of the block before it
_ENTRY_OF_ITS_OWN = re.compile(r"\s*(?:[-*+]|\d{1,3}[.)])?\s*(?:(?:\*\*|__)[^*_\n]+(?:\*\*|__)|"
                               r"[^\W\d_][\w'-]*(?:\s+[\w'()-]+){0,3}\s*(?::|\s[–=]))")
_PROSE_KINDS = frozenset({"paragraph", "sentence", "item", "quote"})
_QUOTED_KINDS = frozenset({"paragraph", "item", "code", "table", "quote"})


_HONEST = re.compile(r"vault (?:doesn't|does not) say|not in (?:the|your) vault|steht nichts im vault|"
                     r"the notes do not (?:cover|say)|nichts (?:dazu )?in (?:deinen|den) notizen", re.IGNORECASE)


NEAREST_ONLY = "The notes may not answer this as asked; the nearest they come:"
NEAREST_ONLY_DE = "Die Notizen beantworten das womöglich nicht so, wie gefragt; am nächsten kommen sie hier:"
NOT_GIVEN = "The vault doesn't say: the notes give no {}."
NOT_GIVEN_DE = "Dazu steht nichts im Vault: die Notizen nennen {}."
NEAREST_LACKING = "The notes give no {}; the nearest they come:"
NEAREST_LACKING_DE = "Die Notizen nennen {}; am nächsten kommen sie hier:"
# what the notes lack where the student marked it still to write (``NOT_GIVEN``: "the notes give no …")
UNFINISHED = "account of {} yet (marked unfinished)"
UNFINISHED_DE = "nichts zu {} (als noch offen vermerkt)"
IN_PASSING = "account of {}, which they only mention"
IN_PASSING_DE = "{} nur beiläufig"


def nearest_only(lang: str | None, lacking: str = "") -> str:
    """The first line of a low answer's quotes: what follows is the nearest the notes come, maybe no answer; where
    the notes lack the kind of answer asked for (``lacking``: "number for control"), that they do not give it (a
    question for a degree, "how much control …", may still be answered in words)."""
    if lacking:
        return (NEAREST_LACKING_DE if lang == "de" else NEAREST_LACKING).format(lacking)
    return NEAREST_ONLY_DE if lang == "de" else NEAREST_ONLY


def not_in_vault(lang: str | None, unnamed: Sequence[str] = (), named_elsewhere: Sequence[str] = (),
                 lacking: str = "") -> str:
    """The honest "the vault doesn't say" answer in the question's language, naming what the question asks about
    that no passage names: words the vault never uses (``unnamed``: "The vault doesn't say anything about
    “statins”: no note covers it"), else words it uses, but not in the passages on the rest of the question
    (``named_elsewhere``: a note names the "ECB" in its opening, not in its paragraph on the interest-rate corridor),
    else the kind of answer asked for that no passage gives (``lacking``: "The vault doesn't say: the notes give no
    temperature for Gulf Stream")."""
    if not unnamed and not named_elsewhere and lacking:
        return (NOT_GIVEN_DE if lang == "de" else NOT_GIVEN).format(lacking)
    if not unnamed and not named_elsewhere:
        return NOT_IN_VAULT_DE if lang == "de" else NOT_IN_VAULT
    english, german = (NOT_NAMED, NOT_NAMED_DE) if unnamed else (NOT_NEAR, NOT_NEAR_DE)
    named = ", ".join(f"“{word}”" for word in unnamed or named_elsewhere)
    return (german if lang == "de" else english).format(named)


def says_not_in_vault(text: str) -> bool:
    """Whether an answer says the vault does not cover the question (ours, or a model's words for it)."""
    return bool(_HONEST.search(text))


def split_sentences(text: str) -> list[str]:
    """Sentences of plain prose (four words or more), whitespace collapsed."""
    pieces = (piece.strip(" \t\n-*+>|") for piece in re.split(r"\n{2,}|(?<=[.!?])\s+(?=[A-ZÄÖÜ0-9])", shield(text)))
    return [" ".join(unshield(piece).split()) for piece in pieces if len(piece.split()) >= 4]


def _sentences_of(paragraph: str) -> list[str]:
    """A paragraph's sentences as written (never split inside a code span)."""
    found, start = [], 0
    for match in _SENTENCE_END.finditer(shield(paragraph)):
        if paragraph.count("`", 0, match.start()) % 2:
            continue
        found.append(paragraph[start:match.start()].strip())
        start = match.end()
    found.append(paragraph[start:].strip())
    return [sentence for sentence in found if sentence]


# A sentence opening with one of these speaks of what the sentence before it names ("It takes place in the
# chloroplasts"): quoted alone, it would not say what "it" is.
_ANAPHORS = frozenset("""
it its this these that those they their them such he she his her both
es sie er dies diese dieser dieses diesen deren dessen dabei dadurch dazu dort ihr ihre beide
""".split())


def _with_referents(sentences: list[str]) -> list[str]:
    """``sentences``, each that opens with an anaphor joined to the one before it."""
    joined = []
    for at, sentence in enumerate(sentences):
        first = _WORDS.match(sentence.lstrip("*_\"'(["))
        if at and first is not None and first.group().casefold() in _ANAPHORS:
            sentence = f"{sentences[at - 1]} {sentence}"
        joined.append(sentence)
    return joined


@dataclass(slots=True)
class Unit:
    """One quotable piece of a passage: verbatim Markdown, scored against the question."""

    label: str
    position: int  # the passage's index in the pack
    order: int  # where it is in its passage
    kind: str  # paragraph | sentence | item | list | code | row | quote
    text: str
    intro: str = ""  # the paragraph ending in ":" that introduces it
    header: str = ""  # a table row's header and delimiter rows
    group: int = 0  # list or table or paragraph it belongs to (units of one group merge)
    heading: str = ""  # the note title and headings it is under (scored with it)
    section: str = ""  # the heading right above it (the quote's lead line)
    path: tuple[str, ...] = ()  # the headings it stands under in its note (a bold line is none)
    share: float = 0.0
    score: float = 0.0
    concepts: set[str] = field(default_factory=set)
    answers_kind: bool = False  # gives the kind of answer the question asks for (a number, a date) near its focus
    by_heading: bool = False  # states the question's words only in its headings
    stated: set[str] = field(default_factory=set)  # the question's concepts its own text states (not its headings)
    own: set[str] = field(default_factory=set)  # those it states itself (its text, its own section's heading)
    defines: bool = False  # defines the term the question asks about ("What is X?": "**X** – …", "X is …")
    conditional: bool = False  # states when the term a question asks the condition of applies ("elastic: |ε| > 1")
    side_heading: bool = False  # stands under the section on one of two things compared: its quote shows the heading
    # what the question asks about, where its headings (note title, sections) name all of it: the section asked for
    headed: set[str] = field(default_factory=set)
    caveat: str = ""  # the warning right after its block that qualifies it ("> [!warning] Exception: …")
    # the rest of an item or a sentence the passage begins inside ("  - NO-Monsun, trocken", "der Notion-API sind …":
    # chunks overlap), without what it is of
    cut: bool = False
    counted: bool = False  # a list of as many things as the question counts, naming what it counts ("## 4 stages")
    long: bool = False  # a list of bullets longer than a whole list quoted otherwise: only for its count (``counted``)
    opening: bool = False  # stands in its note's opening, before the first heading (headed by the note's title)

    @property
    def size(self) -> int:
        return len(self.text) + len(self.intro) + len(self.header) + len(self.caveat)


def units_of(item: Evidence, position: int, headers: Sequence[str] = ()) -> list[Unit]:
    """The quotable units of one passage, in order (``headers``: the table headers of its note's passages)."""
    text = LEAD_ALIASES_RE.sub("", item.text.removesuffix(" …"))
    blocks = split_blocks(text)
    units: list[Unit] = []
    previous: MarkdownBlock | None = None
    list_intros: dict[int, str] = {}
    last_group: int | None = None  # the group of the units of the last block that gave any
    passage = Source(item.chunk_id, item.path, item.title, tuple(item.heading_path), "", item.line_start,
                     item.line_end)
    section = item.heading_path[-1] if item.heading_path else ""
    # A passage that took in small sections before its own has its own heading line after them
    # (``vault.chunking``): what stands before any heading line there is the note's opening.
    if any(block.kind == "heading" and _heading_text(block).casefold() == section.casefold() for block in blocks):
        section = ""
    # Text under a heading line of the passage stands under that heading, not under the passage's own.
    path = cited_under(passage, section, section).heading_path
    heading = " ".join([item.title, *item.aliases, *path])
    for index, block in enumerate(blocks):
        if block.kind != "code":
            block = replace(block, text=_BLOCK_ID.sub("", _HTML_COMMENT.sub("", block.text)))
        if block.kind in _PROSE_KINDS:
            # the student's tag lines, date stamps and remarks on the exam are no evidence, nor a lecturer's words
            # on the next session ("[15:02] Next week: deflation and the liquidity trap.")
            said = without_course_remarks_in(without_filing(block.text))
            block = replace(block, text=said[:announcement_start(said)].rstrip().strip("\n"))
            # nor is the student's aside in parentheses or to-do ("(is the Cori cycle klausurrelevant?)", "TODO:
            # heapsort next week"): it names a thing the note does not explain
            if not block.text.strip() or is_own_aside(block.text) or is_todo(block.text):
                continue
        if block.kind == "heading":
            section = _heading_text(block)
            path = cited_under(passage, section, section).heading_path
            heading = " ".join([item.title, *item.aliases, *path])
        elif block.kind == "paragraph" and _BOLD_LINE.fullmatch(block.text.strip()):
            # a line of bold text alone: a heading the quote shows, within the section it stands in
            block = replace(block, kind="heading", text=block.text.strip().strip("*_").strip())
            section = block.text
            heading = " ".join([item.title, *item.aliases, *path, section])
        lines = block.text.split("\n")
        if index == 0 and block.kind == "paragraph" and len(lines) > 1 and lines[0].rstrip().endswith("|") \
                and not lines[0].lstrip().startswith("|"):
            block = replace(block, text="\n".join(lines[1:]))  # "dienen soll. |": the end of a row the passage cut
        if block.kind == "paragraph" and all(line.lstrip().startswith("|") for line in block.text.split("\n")):
            block = replace(block, kind="table")  # rows of a table the passage begins inside (no header)
        before = len(units)
        intro = ""
        # (a longer paragraph ending in ":" is a passage of its own too: "Due to technical limitations, Obsidian cannot
        # reliably restrict plugins … consider the following examples of what community plugins can do:")
        if previous is not None and previous.kind == "paragraph" and previous.text.rstrip().endswith(":") \
                and len(previous.text) <= WHOLE_LIMIT and block.kind in ("code", "item", "table"):
            intro = previous.text.strip()
        if block.kind == "item":  # every item of a list is introduced by what introduces the list
            intro = list_intros.setdefault(block.group, intro)
        group = index * 1000 if block.kind != "item" else -block.group
        if block.kind == "quote" and previous is not None and previous.kind in ("item", "paragraph", "table") and \
                _CAVEAT.match(block.text):
            # "> [!warning] Exception: events …" right after a rule qualifies it: quoted with it
            for unit in units:
                if unit.group == last_group:
                    unit.caveat = block.text
        order = index * 1000
        if block.kind == "code" and block.closed:
            units.append(Unit(item.label, position, order, "code", block.text, intro, group=group))
        elif block.kind == "item":
            cut = block.text[:1].isspace()
            if cut and index == 1 and blocks[0].kind == "paragraph":
                for unit in units:
                    unit.cut = True  # the end of the item's first line ("– Rome, papal patronage") before its rest
            units.append(Unit(item.label, position, order, "item", block.text, intro, group=group, cut=cut))
        elif block.kind == "quote":
            units.append(Unit(item.label, position, order, "quote", block.text, group=group))
        elif block.kind == "table":
            rows = block.text.split("\n")
            header = "\n".join(rows[:2])
            if not _TABLE_DELIMITER.match(rows[1] if len(rows) > 1 else ""):
                # the passage begins inside a table: its rows go under the table's header where another passage of
                # the note has it (else under none, never under a stray "|" taken for one)
                rows = [row for row in rows if _cells(row) > 1]
                header = next((found for found in headers if _cells(found.split("\n")[0]) == _cells(rows[0])), "") \
                    if rows else ""
                rows = ["", "", *rows]
            for number, row in enumerate(rows[2:], start=1):
                units.append(Unit(item.label, position, order + number, "row", row, intro, header, group))
            if header and len(rows) > 3 and sum(map(len, rows)) <= 2 * WHOLE_LIMIT:
                # the whole table, for a question comparing what its columns are (``_compares``)
                units.append(Unit(item.label, position, order, "table", "\n".join(rows[2:]), intro, header, group))
        elif block.kind == "paragraph" and vocabulary(block.text):
            # "la propina :: das Trinkgeld": each line of a vocabulary list is an entry of its own
            for number, line in enumerate(line for line in block.text.split("\n") if line.strip()):
                units.append(Unit(item.label, position, order + number, "sentence", line.strip(), group=group))
        elif block.kind == "paragraph" and not (block.text.rstrip().endswith(":") and len(block.text) <= MAX_INTRO):
            leads_in = block.text.rstrip().endswith(":") and index + 1 < len(blocks) and \
                blocks[index + 1].kind in ("code", "item", "table")
            # the rest of a sentence the passage begins inside ("der Notion-API sind …": chunks overlap)
            cut = index == 0 and block.text[:1].islower()
            if len(block.text) <= WHOLE_LIMIT and not leads_in:  # (else it is quoted whole with what it leads to)
                units.append(Unit(item.label, position, order, "paragraph", block.text, group=group, cut=cut))
            if len(block.text) > LONG_PROSE:
                for number, sentence in enumerate(_with_referents(_sentences_of(block.text))):
                    units.append(Unit(item.label, position, order + number, "sentence", sentence, group=group,
                                      cut=cut and number == 0))
        for unit in units[before:]:
            unit.heading, unit.section, unit.path = heading, section, path
        if len(units) > before:
            last_group = group
        if block.kind in _QUOTED_KINDS or block.kind == "heading":
            previous = block
    # A short list is also a unit as a whole: the question may be answered by all of its items.
    lists: dict[int, list[Unit]] = {}
    for unit in units:
        if unit.kind == "item" and not unit.cut:
            lists.setdefault(unit.group, []).append(unit)
    # An image or embed alone, a link alone ("- [[Variables#Prompt variables|Prompt variables]]"), or a word
    # or two, says nothing on its own: words a reader does not see (link targets) do not count.
    # The student's open question ("> [!question] Why …? → ask in the tutorial") is no evidence, nor padding.
    units = [u for u in units if u.kind not in _PROSE_KINDS or _says_itself(u.text) and not _only_asks(u.text)]
    for items in lists.values():
        whole = "\n".join(unit.text for unit in items)
        # an ordered list (steps, causes 1-6) is one answer: whole up to what a first quote may take; so is a list of
        # as many things as a question counts ("Welche vier Phasen …?"), whatever its marks (``Unit.long``)
        limit = 2 * WHOLE_LIMIT
        numbered = all(_NUMBERED_ITEM.match(unit.text) for unit in items)
        # a list of links ("- [[Newton's Laws]], [[Energy and Work]]", "- [[Thermodynamik Hauptsätze]]") points to
        # notes, as each of its items does: no answer, unless a lead-in says what they are ("There are two types of
        # variables:")
        if len(items) > 1 and len(whole) <= limit and (_says_itself(whole) or items[0].intro):
            first = items[0]
            units.append(Unit(first.label, first.position, first.order, "list", whole, first.intro,
                              group=first.group, heading=first.heading, section=first.section, path=first.path,
                              caveat=first.caveat, long=not numbered and len(whole) > WHOLE_LIMIT))
    if item.locator == "image":
        # the OCR of a screenshot (menu entries, buttons, "© ®® | Newtab x") stays searchable but is no answer;
        # a scanned page or a photo of notes reads as lines of prose
        units = [unit for unit in units if reads_as_prose(unit.text)] if reads_as_prose(item.text) else []
    return units


_OCR_WORD = re.compile(r"[(\"'„“‚«]?[^\W\d_]{2,}(?:[-'’][^\W\d_]+)*[.,;:!?)\"“”»]*")


def reads_as_prose(text: str) -> bool:
    """Whether text read from an image reads as prose: most of its tokens stand on lines of ``OCR_LINE_TOKENS`` or
    more, nearly all of them words of two letters or more (in any script), most longer, as a scanned page's lines do; a
    screenshot's OCR is labels of a word or two, version numbers and stray glyphs."""
    tokens = text.split()
    in_prose = 0
    for line in text.split("\n"):
        said = line.split()
        found = [token for token in said if _OCR_WORD.fullmatch(token)]
        # most words of prose are longer than two letters, not "ee Se Pl RN DR"
        if len(said) >= OCR_LINE_TOKENS and len(found) >= OCR_LINE_WORDS * len(said) and \
                2 * sum(sum(map(str.isalpha, token)) > 2 for token in found) >= len(said):
            in_prose += len(said)
    return bool(tokens) and in_prose >= OCR_PROSE_SHARE * len(tokens)


_TABLE_DELIMITER = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*$")


def _cells(row: str) -> int:
    """How many cells a table row has ("|" alone: none)."""
    return len([cell for cell in row.strip().strip("|").split("|")]) if row.strip().strip("|").strip() else 0


def table_headers(texts: Sequence[str]) -> list[str]:
    """The header and delimiter rows of every table in ``texts``."""
    found = []
    for text in texts:
        lines = text.split("\n")
        found += [f"{line}\n{after}" for line, after in zip(lines, lines[1:], strict=False)
                  if line.lstrip().startswith("|") and _TABLE_DELIMITER.match(after)]
    return found


def _sections_of(unit: Unit, item: Evidence, titles: set[str]) -> list[str]:
    """The headings ``unit`` stands under in its note, its note's title left out (``titles``: casefolded): the
    heading above all the others that says it; one below it is a section though it says an alias ("## Grimm's law"
    in the note "Sound shifts" also called "Grimm's law", next to "## Verner's law")."""
    return [heading for depth, heading in enumerate(unit.path) if heading.casefold() not in titles or
            depth and heading.casefold() not in (item.title.casefold(), unit.path[0].casefold())]


def _titles(items: Sequence[Evidence]) -> dict[str, set[str]]:
    """Each note's names as its passages' headings may say them (casefolded): its title and aliases, and the
    heading all its passages in the pack stand under, where that heading says the title or more than one
    passage stands under it (an H1 "Rechnernetze – Exam Prep Q&A" titles the note "Exam Prep Q&A")."""
    tops: dict[str, list[str]] = {}
    for item in items:
        tops.setdefault(item.path, []).append(item.heading_path[0].casefold() if item.heading_path else "")
    titles: dict[str, set[str]] = {}
    for item in items:
        names = titles.setdefault(item.path, {name.casefold() for name in (item.title, *item.aliases)})
        first = set(tops[item.path])
        if len(first) == 1 and (top := first.pop()) and \
                (len(tops[item.path]) > 1 or any(name in top for name in names if name)):
            names.add(top)
    return titles


def _heading_text(block: MarkdownBlock) -> str:
    """A heading block's text as written, without its ``#`` marks."""
    return block.text.lstrip("#").strip()


_ENTRY_START = re.compile(r"\s*(?:[-*+]|\d{1,3}[.)])?\s*(?:\*\*|__)?\[\[")


_ARTICLE = r"(?:(?:a|an|the|ein|eine|einen|einem|einer|der|die|das|den|dem|des)\s+)?"
# What asks for a term to be defined or explained: "What is X?", "Who was X?", "What does X mean?", "Explain X",
# "Describe the term X", "Erkläre X", "Beschreibe X", "Was bedeutet X?", "Was versteht man unter X?". An article
# and "the term", "den Begriff" before X are no part of it.
_TERM_QUESTION = re.compile(
    r"(?:(?:what|who|was|wer)\s+(?:is|are|was|were|ist|sind|war|waren)|what\s+is\s+meant\s+by|"
    r"was\s+(?:bedeutet|bedeuten|bezeichnet|bezeichnen|heißt|meint)|was\s+versteht\s+man\s+unter|"
    r"(?:please\s+)?(?:explain|describe|define)(?:\s+to\s+me)?|"
    r"(?:bitte\s+)?(?:erkläre|erklär|beschreibe|beschreib|erläutere|definiere)(?:\s+mir)?(?:\s+bitte)?)\s+"
    + _ARTICLE + r"(?:(?:term|concept|begriff|konzept)\s+)?(?P<term>[^?]+?)|"
    r"what\s+(?:does|do)\s+" + _ARTICLE + r"(?P<meant>[^?]+?)\s+mean",
    re.IGNORECASE)
_ARTICLES = frozenset("a an the ein eine der die das".split())
_ALIAS_AFTER = re.compile(r"\s*\((?P<alias>[^()\n]{2,60})\)")  # "**Salzbrücke** (salt bridge)": another name of it
MAX_TERM_WORDS = 4  # a longer "What is ...?" asks about more than a term


def _asked_term(question: str) -> str:
    """The term a question asks to be defined or explained ("What is RuBisCO?", "Explain mitosis", "Was versteht
    man unter Stomata?"), or ""."""
    match = _TERM_QUESTION.fullmatch(" ".join(question.split()).rstrip(" ?.!"))
    term = next((value for value in match.groups() if value), "") if match else ""
    return term if 0 < len(term.split()) <= MAX_TERM_WORDS else ""


def _named_term(query: str, items: Sequence[Evidence], units: dict[int, list[Unit]], analyzer: Any) -> str:
    """``query`` when it is nothing but a term the passages name (a note's title or alias, a heading, a bold
    term: "mitosis", "Zellatmung", "Reign of Terror"), or "": a student who types a term, or asks to have it
    explained, asks what it is. ``units``: the passages' units by position (their sections are the headings
    inside a passage)."""
    query = " ".join(query.split()).rstrip(" ?")
    if not 0 < len(query.split()) <= MAX_TERM_WORDS:
        return ""
    for position, passage in units.items():
        item = items[position]
        keys = text_terms(analyzer, query, item.lang)
        names = {item.title, *item.aliases, *item.heading_path, *(unit.section for unit in passage),
                 *(match.group("text") for match in _BOLD.finditer(item.text))}
        if keys and any(text_terms(analyzer, name, item.lang) == keys for name in names):
            return query
    return ""


_ENTRY = re.compile(r"^[ \t]*[-*+][ \t]+(?:\*\*[^*\n]{1,60}\*\*|__[^_\n]{1,60}__)"  # "- **Anode**", "- __Anode__"
                    r"(?:\s*\([^()\n]{1,60}\))?\s*(?::|[–—-]\s)")  # "(anode)", then ": …" or " – …"


def _is_glossary(text: str) -> bool:
    """Whether every item of a list is an entry: a term in bold and what it is ("- **Anode**: Elektrode, …")."""
    lines = [line for line in text.splitlines() if line.strip()]
    return len(lines) > 1 and all(_ENTRY.match(line) for line in lines)


def _defines(text: str, term: str, analyzer: Any, lang: str | None) -> bool:
    """Whether ``text`` defines ``term``: it sets the term alone in bold or
    italics at a sentence's start, after an article if any ("The enzyme **RuBisCO** ...", "*Live Preview* shows
    ...", not "Click the **Backlinks** tab"), or opens a sentence with it as the subject of "is", "are", "ist",
    "means" ... ("Stomata are pores", "A vault is a folder"), maybe with what it is of or for ("A backlink for a
    note is a link ...", "Ein Rückverweis für eine Notiz ist ..."). Of a term with a word more than the subject
    ("page preview plugin"), the sentence says the rest ("Page preview is a core plugin")."""
    for match in _EMPHASIS.finditer(text):
        before = _SENTENCE_BREAK.split(text[:match.start()])[-1].lstrip(" \t-*+>|0123456789.)").split()
        # the term in bold may be followed by its name in the other language: "**Salzbrücke** (salt bridge): …"
        alias = _ALIAS_AFTER.match(text, match.end())
        if (not before or len(before) <= 2 and before[0].casefold() in _ARTICLES) and (
                _names_term(match.group("text"), text, term, analyzer, lang) or
                alias is not None and _names_term(alias.group("alias"), text, term, analyzer, lang)):
            return True
    for sentence in _SENTENCE_BREAK.split(_visible(text)):
        subject = definition_subject(sentence.lstrip(" \t-*+>|0123456789.)"))
        if subject and len(subject.split()) <= len(term.split()) + 1 and \
                _names_term(subject, sentence, term, analyzer, lang):
            return True
    return False


def _names_term(subject: str, sentence: str, term: str, analyzer: Any, lang: str | None) -> bool:
    """Whether a definition's ``subject`` names ``term``: word for word, each word in any form ("Rückverweis"
    for "Rückverweise", which the stemmer reads apart), or all but one of the term's words with the
    ``sentence`` saying that one ("Page preview is a core plugin" for "page preview plugin")."""
    said, wanted = _word_keys(subject, analyzer, lang), _word_keys(term, analyzer, lang)
    missing = [keys for keys in wanted if not any(keys & other for other in said)]
    if not said or any(not any(keys & other for other in wanted) for keys in said):
        return False
    return not missing or len(missing) == 1 < len(wanted) and bool(missing[0] & text_terms(analyzer, sentence, lang))


def _word_keys(text: str, analyzer: Any, lang: str | None) -> list[frozenset[str]]:
    """The analyzed forms of each word of ``text`` (stopwords left out), and the word spelled alike in the vault's
    languages (``spelled_alike``: the "First-Pass-Effekt" a German glossary defines is the "first pass effect")."""
    return [keys | {spelled_alike(word)} for word in words(text) if (keys := text_terms(analyzer, word, lang))]


def _entry_of(text: str, names: dict[str, str]) -> str | None:
    """The path of the note ``text`` is an entry for, when it starts with a link to one of ``names`` (casefolded
    title, file name or alias -> path): "4. [[Photosynthetic pigments]]: why leaves are green"."""
    start = _ENTRY_START.match(text)
    if start is None:
        return None
    link = WIKILINK_RE.match(text, start.end() - 2)
    target = link.group("inside").split("|", 1)[0].split("#", 1)[0].strip() if link else ""
    return names.get(target.casefold())


def _says_itself(text: str) -> bool:
    """Whether prose says something of its own: ``MIN_WORDS`` words a reader sees, most of them outside
    links (not a pointer like "Mehr Einzelheiten: [[Chloroplast#Thylakoids and grana]] und [[Plant cell
    structure]]")."""
    seen = len(_WORDS.findall(_visible(text)))
    own = len(_WORDS.findall(_visible(_unlinked(text))))
    return seen >= MIN_WORDS and own * 2 >= seen


def _concepts_in(text: str, item: Evidence, weight: dict[str, float], analyzer: Any,
                 pack: EvidencePack | None) -> set[str]:
    """The question's concepts (keys of ``weight``) that ``text`` states, in its passage's language."""
    found = text_terms(analyzer, text, item.lang)
    if pack is not None and pack.concepts:
        found = found | pack.concepts_in(found, frozenset(words(text)))
    return {t for t in weight if t in found}


_LETTER_MARKED = re.compile(r"(?<![\w-])(?P<letter>[^\W\d_])-(?P<word>[^\W\d_]{2,})")  # "p-Wert", "T-Zellen"


def _letter_marks(question: str, weight: dict[str, float], pack: EvidencePack | None) -> dict[str, str]:
    """The question's concepts a letter before them names ("p-Wert", "T-Zellen", "t-test"), by key: the letter."""
    if pack is None:
        return {}
    marked = {match["word"].casefold(): match["letter"].casefold() for match in _LETTER_MARKED.finditer(question)}
    return {key: marked[concept.word.casefold()] for key, concept in pack.concepts.items()
            if key in weight and concept.word.casefold() in marked}


def _unmarked(text: str, marks: dict[str, str], item: Evidence, weight: dict[str, float], analyzer: Any,
              pack: EvidencePack | None) -> set[str]:
    """Of the letter-marked concepts (``_letter_marks``), those ``text`` says without the letter before them: "value"
    (``value = func(...)``) is not the "p-Wert" that "p-value" is, "cells" not the "T-Zellen" that "T cells" are."""
    said = words(text)
    marked = {key for key, letter in marks.items() if key in _concepts_in(
        " ".join(after for before, after in zip(said, said[1:], strict=False) if before == letter),
        item, weight, analyzer, pack)}
    return set(marks) - marked


def _names_deed(heading: str, item: Evidence, weight: dict[str, float], analyzer: Any) -> bool:
    """Whether ``heading`` names the deed of a verb of the question by a noun the stemmer does not bring back to the
    verb ("Reifung" of "reifen", "Entwicklung" of "entwickeln": ``LanguageWords.deed_suffixes``)."""
    language = WORDS.get(item.lang or "en")
    if language is None:
        return False
    roots = [word[:-len(suffix)] for word in words(heading) for suffix in language.deed_suffixes
             if word.casefold().endswith(suffix) and len(word) - len(suffix) >= 3]
    # a verb in -eln/-ern drops its e in the noun ("entwickeln" → "Entwicklung")
    roots += [root[:-1] + "e" + root[-1] for root in roots if root[-1] in "lr"]
    return not weight.keys().isdisjoint(analyzer.terms(roots, item.lang))


def _unlinked(text: str) -> str:
    """``text`` without its links and embeds (what it says itself, not what it points to)."""
    kept, at = [], 0
    for piece in inline_pieces(text):
        if piece.start < at:
            continue
        if piece.kind in ("wikilink", "mdlink", "embed", "image", "autolink"):
            kept.append(text[at:piece.start])
            at = piece.end
    kept.append(text[at:])
    return "".join(kept)


def _repeats(unit: Unit, seen: list[set[str]]) -> bool:
    """Whether ``unit`` says what a quote already chosen says (most of their words shared, or nearly all of its
    words in one: a sentence another passage already quotes in its paragraph; code says other things in the same
    words); if not, its words join ``seen``. Words as a reader sees them: "the _backlinks_" says what "the
    backlinks" does."""
    said = _words_shown(unit.text)
    if any(len(said & other) / max(len(said | other), 1) > 0.7 or
           unit.kind in _PROSE_KINDS and len(said) >= MIN_REPEATED and len(said & other) >= CONTAINED_SHARE * len(said)
           for other in seen):
        return True
    seen.append(said)
    return False


def _words_shown(text: str) -> set[str]:
    """The words a reader sees in ``text``, casefolded."""
    return set(_WORDS.findall(_visible(text).casefold()))


def _visible(text: str) -> str:
    """``text`` as a reader sees its words: links by their display text; embeds, HTML and comments gone."""
    shown, at = [], 0
    for piece in inline_pieces(text):
        if piece.start < at:
            continue
        shown += [text[at:piece.start], piece.text]
        at = piece.end
    shown.append(text[at:])
    return "".join(shown)


_QUESTION_LEAD = re.compile(r"\s(?:→|->|=>|–|—)\s")


def _only_asks(text: str) -> bool:
    """Whether ``text`` is a question and states nothing: not a statement closed by the student's own question
    ("1712 – Newcomen: atmospheric steam engine → very inefficient → why?", "… (is this on the exam?)"), which
    still states its fact."""
    text = text[:course_aside_start(text)]  # "… wenn es auch bei Licht läuft?? → Tutor fragen": still a question
    ending = text.rstrip().rstrip(")]").rstrip()
    if not ending.endswith("?"):
        return False
    heads = [text[:question_tail(text)]] + [ending[:lead.start()] for lead in _QUESTION_LEAD.finditer(ending)]
    return not any(head.strip() != ending and _says_itself(head) for head in heads)


def _quotes(text: str, asked: list[str]) -> bool:
    """Whether ``text`` contains the question word for word (an example of asking it, not an answer), other than
    as an exam pair's question with its answer on the lines below ("**Q: What is …?**" / "A: …")."""
    if len(asked) < 3:
        return False
    lines = text.splitlines()
    for at, line in enumerate(lines):
        said = _WORDS.findall(line.casefold())
        if any(said[i:i + len(asked)] == asked for i in range(len(said) - len(asked) + 1)):
            return not _says_itself("\n".join(lines[at + 1:]))
    return False


def choose_units(items: Sequence[Evidence], terms: Sequence[str], weights: dict[str, float], analyzer: Any,
                 question: str = "", question_vector: Any = None, embedder: Any = None,
                 pack: EvidencePack | None = None, max_units: int = MAX_UNITS,
                 budget: int = ANSWER_BUDGET, expected: ExpectedAnswer | None = None) -> list[Unit]:
    """The units of ``items`` that answer the question: the best first, then the others in note order.

    ``pack``: where the question's concepts are (matched in the user's words and languages); without
    it, units are matched on ``terms`` alone. ``expected``: the kind of answer the question asks for
    ("how many": a number); only a unit that gives it near the question's focus may lead, and without
    one nothing answers. Empty: nothing relevant.
    """
    weight = {t: max(weights.get(t, 1.0), 0.05) for t in terms}
    total = sum(weight.values())
    if not total or not items:
        return []
    lang = pack.lang if pack is not None else None
    ordered = [t for t in terms if t in weight]
    phrases = set(zip(ordered, ordered[1:], strict=False))
    # "Council of the EU" is side by side in "Council of the European Union" where the pack spells "EU" out so
    acronyms = {key: concept.spelled for key, concept in pack.concepts.items() if concept.spelled} \
        if pack is not None else {}
    # A passage is judged in its note's context: the note whose passages together cover the question
    # ("Fotos" in one section of Apple Journal, "Tagebucheinträge" in another) is what the question is about.
    # Under its note's aliases too: a passage under "Temperature" in the note also called "Factors affecting
    # photosynthesis" is about how temperature affects photosynthesis.
    named = [item.terms | text_terms(analyzer, " ".join(item.aliases), item.lang) if item.aliases else item.terms
             for item in items]
    note_terms: dict[str, set[str]] = {}
    for i, item in enumerate(items):
        note_terms.setdefault(item.path, set()).update(named[i])
    # Quoted in the question's language where the vault says it in that language (a vault of translated
    # notes has each passage twice): a passage in another language only where it says more of the question
    # than every passage in the question's language (a student's Spanish vocabulary asked about in German, an
    # English note asked about in German next to a German hub that only links it).
    # (Not where the question has words the vault says only in another language, ``EvidencePack.gaps``: there the
    # other language's passages are what it asks for.)
    # A note that mixes its languages (``lang: de/en``) is no translation: its passages in the other language stay.
    native_notes = {item.path for item in items if item.lang in (lang, None)}
    native = [_weighed(note_terms[path], weight, total) for path in native_notes]
    foreign = {i for i, item in enumerate(items) if item.path not in native_notes
               and _weighed(note_terms[item.path], weight, total) <= max(native)} \
        if lang is not None and native and not (pack is not None and pack.gaps) else set()
    for path in {items[i].path for i in foreign}:
        del note_terms[path]
    names = {name.casefold(): item.path for i, item in enumerate(items) if i not in foreign
             for name in (item.title, item.path.rsplit("/", 1)[-1].removesuffix(".md"), item.path.removesuffix(".md"),
                          *item.aliases)}
    contexts = [(1 - NOTE_WEIGHT) * _weighed(named[i], weight, total)
                + NOTE_WEIGHT * _weighed(note_terms[item.path], weight, total) if i not in foreign else 0.0
                for i, item in enumerate(items)]
    best_context = max(contexts)
    best_terms = named[contexts.index(best_context)]
    headers = {path: table_headers([item.text for item in items if item.path == path])
               for path in dict.fromkeys(item.path for item in items)}
    passages = {position: units_of(item, position, headers[item.path]) for position, item in enumerate(items)
                if position not in foreign}
    asked_term = _asked_term(question)
    named_term = _named_term(asked_term or question, items, passages, analyzer)
    term = asked_term or named_term
    condition_term = asked_condition(question)
    # A passage naming the term the query is made of says it word for word: that is no quoted question.
    asked = [] if named_term else _WORDS.findall(question.casefold())
    candidates: list[Unit] = []
    units_by_position: dict[int, list[Unit]] = {}
    said_words = set(_WORDS.findall(question.casefold()))
    asks_why, compares = bool(WHY_WORDS & said_words), bool(COMPARE_WORDS & said_words)
    sides = compared_sides(question) if compares else None
    # two things compared, each in a section of its own ("## Tacking", "## Gybing"), unless a table's columns compare
    # them ("| | TCP | UDP |"): its rows say it side by side
    by_section = sides if sides is not None and not any(
        unit.header and all(_names(side, replace(unit, text=unit.header), items, analyzer, {}, weight)
                            for side in sides)
        for units in passages.values() for unit in units) and all(
        any(_headed_by(side, unit, items, analyzer) for units in passages.values() for unit in units)
        for side in sides) else None
    framing = {key for key, concept in pack.concepts.items() if concept.frame} if pack is not None else set()
    asked_things = set(weight) - framing
    language, first = WORDS.get(lang or "en"), words(question)[:1]
    asks_how = expected is None and language is not None and bool(first) and first[0] in language.procedures
    topic = {key for key in weight if pack is None or key not in pack.concepts or not pack.concepts[key].frame}
    asked_numbers = asked_ordinals(question)
    marks = _letter_marks(question, weight, pack)
    ordinal_keys = {key for key in weight if pack is not None and key in pack.concepts and
                    ordinal_of(pack.concepts[key].word) in asked_numbers}

    # the notes with a section numbered as asked: their sections numbered otherwise are not what is asked
    # what the sections numbered as asked count, by note ("law" of "2nd law – areas"): the note's sections of the
    # same series numbered otherwise ("1st law", "3rd law") are not what is asked
    asked_series = {(items[position].path, series(heading)) for position, units in passages.items()
                    for unit in units for heading in unit.path if numbers(heading, asked_numbers)} \
        if asked_numbers else set()

    def other_numbered(path: str, headings: Sequence[str]) -> bool:
        return not any(numbers(heading, asked_numbers) for heading in headings) and \
            any((path, series(heading)) in asked_series for heading in headings if heading_ordinal(heading) is not None)

    def numbered_keys(path: Sequence[str]) -> set[str]:
        """The question's ordinal word, for a unit under the section it numbers ("second": "2. Hauptsatz")."""
        return set(ordinal_keys) if ordinal_keys and any(numbers(heading, asked_numbers) for heading in path) \
            else set()

    # "What are the *four* stages of …?": a list of four things states the count, the note's list of five key terms
    # does not (the count word's key: "four" or "4" in its terms)
    weight_words = {pack.concepts[key].word for key in topic if key in pack.concepts} if pack is not None else set()
    count = asked_count(question, weight_words)
    count_keys = {key for key in weight if key == str(count) or pack is not None and key in pack.concepts and
                  str(count) in pack.concepts[key].terms} if count is not None else set()

    noun = _counted_words(question, count, weight_words).split()[-1].casefold() if count is not None else ""
    counted_noun = {key for key in weight
                    if pack is not None and key in pack.concepts and pack.concepts[key].word == noun}

    def listing(unit: Unit) -> set[str]:
        return set(count_keys) if count_keys and unit.kind == "list" and listed(unit.text) == count else set()

    def keys_of(nouns: frozenset[str]) -> set[str]:
        return {key for key in weight if pack is not None and key in pack.concepts and
                pack.concepts[key].word.casefold() in nouns}

    kind_keys, sequence_keys = keys_of(KIND_NOUNS), keys_of(SEQUENCE_NOUNS)

    def named_by_list(unit: Unit) -> set[str]:
        """The question's nouns a list names by its shape, in no word of it: the *steps* a numbered list gives
        ("What are the *steps* of …?", "Welche *Schritte* …?"), the *kinds* a list of bullets a sentence announces
        gives ("What *kinds* of items …?": "… to the following:")."""
        if unit.kind != "list":
            return set()
        if _NUMBERED_ITEM.match(unit.text):
            return set(sequence_keys)
        return set(kind_keys) if unit.intro else set()

    titles = _titles(items)
    for position, units in passages.items():
        item = items[position]
        adds = sum(weight[t] for t in weight if t in named[position] and t not in best_terms) / total
        # A passage much weaker than the best is left out, unless it covers a part of the question the best does
        # not, or gives the kind of answer the question asks for ("1 vault" for "how many vaults").
        # (nor a passage under a heading naming one of two things compared: "## Tacking" is what the notes say of it,
        # though the section on gybing names tacking too; nor one saying when the term a question asks about applies)
        if contexts[position] < best_context * CONTEXT_SHARE and adds < COMPLETING_SHARE and not (
                expected is not None and any(_gives(expected, unit, item, analyzer) for unit in units)) and not (
                by_section is not None and any(_headed_by(side, unit, items, analyzer) for side in by_section
                                               for unit in units)
        ) and not (condition_term and any(states_condition(unit.text, condition_term, analyzer, item.lang)
                                          for unit in units)) and not (
                sides is None and asked_things and any(asked_things <= _concepts_in(
                    unit.path[-1], item, weight, analyzer, pack) for unit in units if unit.path)):
            continue
        signposts: list[Unit] = [unit for unit in units if unit.long and not listing(unit)]
        for unit in units:
            if unit.long and not listing(unit):
                continue
            if unit.path and other_numbered(item.path, unit.path):
                continue  # "the second law": the note's 1st and 3rd are other things
            said = f"{unit.heading}\n{unit.intro}\n{unit.header}\n{unit.text}"
            if _quotes(f"{unit.intro}\n{unit.text}", asked):
                continue  # an example of asking this one: not an answer
            formula = formula_given(pack, unit.text) & weight.keys()
            by_shape = named_by_list(unit)
            unit.concepts = _concepts_in(said, item, weight, analyzer, pack) | numbered_keys(unit.path) | formula | \
                listing(unit) | by_shape
            if marks:
                unit.concepts -= _unmarked(said, marks, item, weight, analyzer, pack)
            # "4. [[Photosynthetic pigments]]: why leaves are green": an entry for a note whose passages are in
            # the pack and say all it says of the question:
            # the note is quoted instead. A list of such entries is an index of notes, not an answer.
            entry = _entry_of(unit.text, names)
            if entry not in (None, item.path) and unit.concepts <= note_terms[entry] or \
                    unit.kind == "list" and any(other.group == unit.group for other in signposts):
                signposts.append(unit)
                continue
            # A word the unit says only as a link's text points to where it is explained ("Related:
            # [[Limiting factors]]"); it counts for less than one the unit says itself.
            pointed = unit.concepts - _concepts_in(_unlinked(said), item, weight, analyzer, pack) - by_shape
            # A word the unit has only from its note's title (every block of the note has it) says less of
            # the question than one it states itself or its section's heading states.
            sections = _sections_of(unit, item, titles[item.path])
            sectioned = _concepts_in(" ".join(sections), item, weight, analyzer, pack) | numbered_keys(unit.path)
            unit.opening = not sections and not (unit.section and unit.section.casefold() not in titles[item.path])
            # the note's opening is headed by its title as a section is by its heading (not for a question asking how
            # to do a thing: the steps answer it, not what the note is about)
            headed = _concepts_in(" ".join([item.title, *item.aliases]), item, weight, analyzer, pack) \
                if unit.opening and not asks_how else sectioned
            shown = f"{unit.intro}\n{unit.header}\n{unit.text}"
            stated = unit.stated = (_concepts_in(shown, item, weight, analyzer, pack) | formula | listing(unit) |
                                    by_shape) & unit.concepts
            titled = unit.concepts - stated - sectioned
            # a section's heading says what its only block is about ("3. NF" over its list), not what each of
            # its blocks is ("Energie" over three formulas)
            alone = len({other.group for other in units if other.heading == unit.heading}) == 1
            unit.own = stated | numbered_keys(unit.path) | (sectioned if alone else set())
            # A code block sharing a word of the question only in a comment shows code about something else.
            commented = stated - _concepts_in(f"{unit.intro}\n{_CODE_COMMENT.sub('', unit.text)}", item, weight,
                                              analyzer, pack) - sectioned if unit.kind == "code" else set()
            if unit.kind == "table" and not (compares and _compares(unit, item, weight, topic, analyzer, pack)):
                continue
            unit.share = sum(weight[t] * (LINK_SHARE if t in pointed else 1.0) * (TITLE_SHARE if t in titled else 1.0)
                             * (COMMENT_SHARE if t in commented else 1.0) for t in unit.concepts) / total
            if unit.share < MIN_UNIT_SHARE:
                continue
            unit.by_heading = not stated
            unit.counted = bool(listing(unit)) and bool(counted_noun & unit.concepts)
            unit.score = (1 - CONTEXT_WEIGHT) * unit.share + CONTEXT_WEIGHT * contexts[position]
            # the section whose heading names what is asked ("TCP three-way handshake", "Why Britain first?")
            unit.score += SECTION_WEIGHT * _weighed(headed, weight, total)
            if asks_why and unit.path and REASON_HEADINGS & set(_WORDS.findall(unit.path[-1].casefold())):
                unit.score += SECTION_WEIGHT
            if phrases:
                side_by_side = phrases & text_pairs(analyzer, abbreviated(said, acronyms), item.lang)
                unit.score += PHRASE_WEIGHT * len(side_by_side) / len(phrases)
            candidates.append(unit)
        units_by_position[position] = [unit for unit in units if all(unit is not other for other in signposts)]
    # the question's everyday frame words (its verb, "Was *gilt* am Halbäquivalenzpunkt?"; a conjunction, "… *although*
    # they have more fuel?"), which any subject's notes say; not a frame word telling what happened to the thing asked
    # about ("Symbolleiste versehentlich *ausgeblendet*")
    everyday = {key for key in framing if key in weight and rarity(pack.concepts[key].word, lang) <= EVERYDAY_RARITY} \
        if pack is not None else set()
    if everyday and any(unit.concepts & asked_things for unit in candidates):
        # a unit sharing only those with the question says nothing of what it asks about: where another unit states
        # that, the glossary's "verspätete Annahme – *gilt* als neuer Antrag" or another note's "type I error:
        # rejecting H0 *although* it is true" is no part of the answer
        candidates = [unit for unit in candidates if not unit.concepts <= everyday]
    if not candidates:
        return []
    scored = sorted(candidates, key=lambda u: -u.score)
    best_share = max(unit.share for unit in candidates)
    # The rest of an item cut by the passage's start is quoted only where no whole block says as much.
    whole_share = max((unit.share for unit in candidates if not unit.cut), default=0.0)
    if condition_term:
        # "When is demand called elastic?": the line saying when ("elastic: |ε| > 1") answers, though it leaves out
        # the question's other words (what the note's list of determinants names beside "elastic"); of a list, the
        # item saying it, not its neighbours
        for unit in candidates:
            unit.conditional = states_condition(unit.text, condition_term, analyzer, items[unit.position].lang)
        conditional_groups = {(unit.position, unit.group) for unit in candidates
                              if unit.conditional and unit.kind in ("item", "sentence")}
        for unit in candidates:
            if unit.kind in ("list", "paragraph") and (unit.position, unit.group) in conditional_groups:
                unit.conditional = False
    # "What roles does a worker bee have?" of a note with a section on each kind of bee: the section named for the
    # worker bee says what it does (though in words of its own); its sibling on the drone ("only role: mating"), its
    # heading naming no word of the question, says the asking word of another thing, and one naming the worker bee in
    # passing says it of its own subject (a sibling named for the question's verb, "## Format" for "Wie formatiere ich
    # ein Datum?", is what it asks, as is one naming its deed, "## Bildung & Reifung" for "Wo reifen T-Zellen?")
    def named_for_asked(unit: Unit) -> bool:
        return sides is None and not condition_term and bool(unit.path) and bool(asked_things) and \
            asked_things <= _concepts_in(unit.path[-1], items[unit.position], weight, analyzer, pack)

    candidates = [unit for unit in candidates if (unit.share >= best_share * RELATIVE_SHARE or unit.conditional or
                                                  named_for_asked(unit)) and
                  not (unit.cut and unit.share <= whole_share)]
    if expected is not None:
        in_own_words = expected.kind == "quantity" and expected.head is None and pack is not None and bool(pack.gaps)
        for unit in candidates:
            unit.answers_kind = _gives(expected, unit, items[unit.position], analyzer)
            if in_own_words and unit.answers_kind and _COUNT.search(_visible(unit.text)):
                # what the question counts is in the vault's other language: a number with its noun ("7 layers")
                # counts it, a number in a table cell only may
                unit.score += PHRASE_WEIGHT
        if not any(unit.answers_kind for unit in candidates):
            return []  # the passages use the question's words but never give what it asks for
    if embedder is not None and question_vector is not None:
        candidates = _by_meaning(candidates, question_vector, embedder)
    candidates = [unit for unit in candidates if unit.size <= 2 * budget]  # too long to quote whole
    if not candidates:
        return []
    if term:
        for unit in candidates:
            if _defines(unit.text, term, analyzer, items[unit.position].lang):
                unit.score += DEFINITION_WEIGHT
                unit.defines = True
        # a glossary list holds the entry defining the term: the entry is the definition, not the list of the
        # other terms around it ("What is a salt bridge?" quoted all five entries of the glossary)
        defining_groups = {(unit.position, unit.group) for unit in candidates if unit.defines and unit.kind == "item"}
        for unit in candidates:
            if unit.kind == "list" and unit.defines and (unit.position, unit.group) in defining_groups:
                unit.score -= DEFINITION_WEIGHT
                unit.defines = False
    # Likewise a list of entries, each a label with what it is ("- **Kathode**: Elektrode, an der …"): when one entry
    # says all the list says of the question, that entry answers and the list adds only the other entries
    candidates = [unit for unit in candidates if not (unit.kind == "list" and _is_glossary(unit.text) and any(
        other.kind == "item" and other.position == unit.position and other.group == unit.group and other.stated and
        other.stated >= unit.stated for other in candidates))]
    if sides is not None and not any(unit.kind == "table" for unit in candidates):
        # one passage saying what each of the two things compared is answers whole (unless a table compares them:
        # its rows say it side by side)
        for unit in candidates:
            if unit.kind != "row" and all(_names(side, unit, items, analyzer, acronyms) for side in sides):
                unit.score += PHRASE_WEIGHT
    # On a tie a whole list or paragraph goes before its items or sentences (they remain for a tight budget).
    # A unit giving the kind of answer asked for leads (expected is None: none does, the order is by score; nor does a
    # name, ``ExpectedAnswer.leads``).
    leads = expected is not None and expected.leads
    # "What are the three battle lines …?": the list of three under "Battle lines" leads the key terms that name them
    # On a tie the note's opening, what it says of its subject first, goes before a section of it or of another note.
    parents = {(items[unit.position].path, unit.path[:-1]) for unit in candidates if named_for_asked(unit)}

    def of_a_sibling(unit: Unit) -> bool:
        return bool(unit.path) and (items[unit.position].path, unit.path[:-1]) in parents and \
            not _concepts_in(unit.path[-1], items[unit.position], weight, analyzer, pack) and \
            not _names_deed(unit.path[-1], items[unit.position], weight, analyzer)

    # A code block whose words of the question a line of prose of its note states too shows what that line says in
    # words ("`final` method can't be overridden" beside the class that declares one; "chmod 755 → owner rwx, …" beside
    # ``chmod 755 script.sh``): unless the question asks how to do a thing, the prose answers, the code follows it.
    explained = {id(unit) for unit in candidates if unit.kind == "code" and not asks_how and unit.stated and any(
        other.kind in _PROSE_KINDS | {"list"} and items[other.position].path == items[unit.position].path and
        other.stated >= unit.stated for other in candidates)}
    # A unit saying when the term asked about applies leads the ones mentioning it.
    candidates.sort(key=lambda u: (leads and not u.answers_kind, not u.conditional, of_a_sibling(u), not u.counted,
                                   id(u) in explained, -u.score, not u.opening, u.kind in ("item", "sentence"),
                                   u.position, u.order))
    if leads and not candidates[0].answers_kind:
        return []  # what gives it is too long to quote

    # A block quoted after the lead states a part of the question in its own words, not only its note's topic
    # (the exam Q&A's next pair on the birthday problem after the one on Bayes' formula; the transcript's next
    # timestamp): every block of the note shares the topic words, so they say nothing of what is asked.
    topic_words = {path: _concepts_in(" ".join(names), items[next(i for i, item in enumerate(items)
                                                                  if item.path == path)], weight, analyzer, pack)
                   for path, names in titles.items()}

    def states_own(unit: Unit, stated: frozenset[str] = frozenset()) -> bool:
        topic = topic_words[items[unit.position].path]
        # (a question asking only what the note is about, "backlinks" of the note Backlinks, asks for the note)
        return bool(unit.own - stated - (topic if set(weight) - framing - topic else set()))

    lead = candidates[0]
    chosen = [lead]
    # the lead's headings (its note's title and aliases, its sections) name all the question asks about ("TCP
    # three-way handshake" for "TCP handshake", "2. Second law" in "Kepler's laws" for what Kepler's second law says)
    named_section = not compares and set(weight) - framing <= numbered_keys(lead.path) | _concepts_in(
        "\n".join([*items[lead.position].aliases, *lead.path]), items[lead.position], weight, analyzer, pack)
    if named_section:
        for unit in units_by_position[lead.position]:
            if unit.path == lead.path:
                unit.headed = set(weight) - framing
    asked_topic = set(weight) - framing
    lead_titled = _weighed(topic_words[items[lead.position].path] & asked_topic, weight, total)
    lead_states_all = asked_topic <= lead.stated and lead_titled > 0
    sectioned_sides = by_section if by_section is not None and all(
        any(_headed_by(side, unit, items, analyzer) for unit in scored) for side in by_section) else ()
    used = lead.size
    seen = [_words_shown(lead.text)]
    covered = set(lead.concepts)
    for unit in candidates[1:]:
        if len(chosen) >= max_units:
            break
        # A unit that states a part of the question the answer does not state yet is welcome (a question
        # in two parts); otherwise it must nearly match the best, and come from another note only when
        # it covers the question nearly as well (that is where weak, off-topic passages come from).
        # A word framing the question ("Unterschied", "difference", a verb) is no part of it to complete.
        completes = sum(weight[t] for t in unit.concepts - covered - framing) / total >= COMPLETING_SHARE
        if _pads(unit, lead, covered | framing, weight) or not states_own(unit):
            continue
        if lead.counted and unit.kind in ("list", "item") and not unit.counted:
            continue  # the three battle lines listed: the key terms' list names them among other things
        if named_section and not completes and (unit.path, items[unit.position].path) != \
                (lead.path, items[lead.position].path):
            # the question names the lead's section: a block elsewhere saying only what it states shares its words,
            # not its answer ("1609: first and second law in Astronomia nova" under History for what the second law
            # says, the DNS answer mentioning a handshake for "TCP handshake")
            continue
        if lead_states_all and not completes and \
                _weighed(topic_words[items[unit.position].path] & asked_topic, weight, total) < lead_titled:
            # the lead's own words state all the question asks, in the note named for it: a note named for less of it
            # saying the same words says them of something else ("the remote vaults window will pop-up … close …
            # this window" in "Set up Obsidian Sync" after what closing a vault window does to its pop-out windows)
            continue
        if of_a_sibling(unit) and not of_a_sibling(lead):
            continue  # the section on another thing, beside the one on what is asked
        if id(unit) in explained and not completes:
            continue  # the code showing what the quoted prose says
        if sectioned_sides and not any(_headed_by(side, unit, items, analyzer) for side in sectioned_sides) and \
                not all(_names(side, unit, items, analyzer, acronyms) for side in sectioned_sides):
            continue  # each thing compared has its section: a block elsewhere naming one of them mentions it
        if lead.conditional and not unit.conditional:
            continue  # "When is demand called elastic?" answered by when: what else the notes say of it is no answer
        if lead.defines and not unit.defines and (items[unit.position].path != items[lead.position].path or
                                                  _ENTRY_OF_ITS_OWN.match(unit.text)):
            # "What is X?" answered by X's definition: another note's mention of X says what X does there, and so
            # does a glossary's entry on another term ("**First-Pass-Effekt** – … senkt die Bioverfügbarkeit")
            continue
        if lead.kind == unit.kind == "row" and unit.header == lead.header and not compares and \
                _concepts_in(unit.text, items[unit.position], weight, analyzer, pack) <= covered:
            # a table's row is about what its own cells say: the rows beside the one answering share its header's
            # words, not its answer ("| Maximum file size | 5 MB |" under "| | Sync Standard | Sync Plus |" for how
            # many vaults Sync Plus syncs), unless their cells state a part of the question it does not
            continue
        if not completes and asked_topic <= lead.stated and (lead.answers_kind or lead.kind == "row") and \
                items[unit.position].path != items[lead.position].path:
            # the lead's own words state all the question asks about and give what it asks for (a number, a table's
            # cell): another note's block adding none of it shares its words, not more of the answer ("The maximum
            # number of collaborators on a shared vault is 20" after the row giving how many vaults Sync Plus syncs)
            continue
        if not completes and (unit.score < lead.score * SCORE_SHARE or (
                items[unit.position].path != items[lead.position].path and unit.share < best_share * OTHER_NOTE_SHARE)):
            continue
        if used + unit.size > budget:
            continue
        if any(_overlaps(unit, other) for other in chosen):
            continue
        if _repeats(unit, seen):
            continue
        chosen.append(unit)
        covered |= unit.concepts
        used += unit.size
    if count is not None and not any(listed(unit.text) == count for unit in chosen if unit.kind in ("list", "item")):
        # "… gives you four maxims." and the maxims in the paragraphs after it ("[00:07:45] First, the maxim of
        # quantity …", "Zweitens die Preispolitik …"): the things announced are the answer, the announcement leads them
        for unit in chosen:
            announced = _announced(unit, count, passages, items)
            size = sum(other.size for other in announced)
            if announced and used + size <= 2 * budget:
                chosen += [other for other in announced if all(other is not known for known in chosen)]
                used += size
                break
    # A question comparing two things is answered by what the notes say of each: the best unit naming a side no
    # quote names yet is quoted too ("European Council" and "Council of the EU", each by its own name), looked for
    # among all the units scored (a table's rows say more of the question than the sentence stating the difference).
    compared: tuple[str, ...] = sides or ()
    for side in compared:
        naming = [unit for unit in scored if unit.kind != "table" and _names(side, unit, items, analyzer, acronyms)]
        if not naming:
            naming = [unit for unit in scored if unit.kind != "table" and _names(side, unit, items, analyzer,
                                                                                 acronyms, weight)]
        on_side = sorted((unit for unit in scored if by_section and unit.kind != "table" and
                          _headed_by(side, unit, items, analyzer)),
                         key=lambda unit: (-unit.score, unit.kind in ("item", "sentence")))
        if on_side:
            # the section on a side says what it is; the other side's section naming it ("Drohne: … Begattung der
            # Königin") says it in passing
            naming = on_side + [unit for unit in naming if all(unit is not known for known in on_side) and not any(
                _headed_by(other, unit, items, analyzer) for other in compared if other != side)]
        if any(unit is other for unit in naming for other in chosen):
            continue
        # one unit naming both sides ("**European Council** = … / **Council of the European Union** = …") first
        both = [unit for unit in naming if all(_names(other, unit, items, analyzer, acronyms) for other in compared)]
        for unit in both + [unit for unit in naming if all(unit is not other for other in both)]:
            if used + unit.size <= budget and not any(_overlaps(unit, other) for other in chosen) and \
                    not _repeats(unit, seen):
                chosen.append(unit)
                covered |= unit.concepts
                used += unit.size
                break
    # What surrounds a match under its heading often completes it ("... vom oberen Bildschirmrand ausgelöst."
    # + "Die Schnell-Aktion öffnet standardmäßig die Befehlspalette."): each chosen unit's nearest block
    # first, the best unit's before the others', then the next nearest ones.
    # The block right after a chosen one is what it leads to ("this message displays as the following error:" + what
    # it means), unless it is an entry on a term of its own that says nothing of the question (a glossary's next
    # entry) or a callout, which the student sets apart as a warning or tip of its own ("> [!tip] Memory hook: …" after
    # what ATP synthase uses); the others are padding where the answer already states all the question asks.
    around = [_neighbours(unit, units_by_position.get(unit.position, [])) for unit in chosen]
    follows = [near[0] for unit, near in zip(chosen, around, strict=True) if near and near[0].order > unit.order
               and not (_ENTRY_OF_ITS_OWN.match(near[0].text) and not near[0].stated)
               and not _CALLOUT.match(near[0].text)
               and not _same_series(unit.text, near[0].text)]
    added = 0
    # a block around the quotes that says only what they already state adds text, not an answer ("Die potentielle
    # Energie ist …" beside "Die kinetische Energie ist …" for how the kinetic energy is computed)
    quoted_own = frozenset().union(*(unit.own for unit in chosen))
    for neighbour in (near[rank] for rank in range(SECTION_UNITS) for near in around if rank < len(near)):
        if added >= SECTION_UNITS:
            break
        if all(neighbour is not after for after in follows) and (
                _pads(neighbour, lead, covered | framing, weight) or not states_own(neighbour, quoted_own)):
            continue
        if lead.defines and not neighbour.defines and _ENTRY_OF_ITS_OWN.match(neighbour.text):
            continue  # the glossary's next entry, on a term of its own, though it names the one defined
        if id(neighbour) in explained:
            continue  # the code showing what the quoted prose says
        if lead.conditional and not neighbour.conditional and (
                neighbour.kind in ("item", "row") or
                names_term(neighbour.text, condition_term, analyzer, items[neighbour.position].lang)):
            continue  # beside the line saying when the term applies: the next entry, or a mention of the term
        if not neighbour.concepts and any(is_spoken(unit.text) for unit in chosen if unit.heading == neighbour.heading):
            # in a lecture transcript the next paragraph is the next thing said ("[00:00:12] Okay, let's get
            # started."), not what the quoted one leads to: only what states part of the question is quoted
            continue
        if used + neighbour.size <= budget and not any(neighbour is other or _overlaps(neighbour, other)
                                                       for other in chosen) and not _repeats(neighbour, seen):
            chosen.append(neighbour)
            used += neighbour.size
            added += 1
    in_order = _in_note_order(lead, chosen, units_by_position, budget)
    for unit in in_order:
        # "Foragers are the oldest workers" beside "The queen is …": the heading says which thing compared it is of
        unit.side_heading = by_section is not None and any(_headed_by(side, unit, items, analyzer)
                                                            for side in by_section)
    return in_order


_TOP_ITEM = re.compile(r"^(?:[-*+]|\d{1,3}[.)])[ \t]", re.MULTILINE)


def listed(text: str) -> int:
    """How many items a list has at its top level (nested items are parts of theirs)."""
    return len(_TOP_ITEM.findall(text))


def _announced(unit: Unit, count: int, units_by_position: dict[int, list[Unit]], items: Sequence[Evidence]
               ) -> list[Unit]:
    """The ``count`` blocks after ``unit`` in its note that give the things it announces ("Grice … gives you four
    maxims."), each opening with its ordinal in turn ("[00:07:45] First, …", "[00:10:20] Second, …"), or []. Of a
    paragraph too long to quote whole, its first sentence gives the thing (a lecture's examples follow it)."""
    if unit.kind not in _PROSE_KINDS or not says_count(unit.text, count):
        return []
    path, start = items[unit.position].path, (items[unit.position].line_start, unit.order)
    later = [((items[position].line_start, other.order), other)
             for position, units in units_by_position.items() if items[position].path == path for other in units
             if (other.kind in ("paragraph", "item", "quote") or other.kind == "sentence" and not other.order % 1000)
             and (items[position].line_start, other.order) > start]
    found: list[Unit] = []
    for _, other in sorted(later, key=lambda entry: entry[0]):
        if opening_ordinal(other.text) == len(found) + 1:
            found.append(other)
            if len(found) == count:
                return found
    return []


def _same_series(text: str, other: str) -> bool:
    """Whether two blocks open with the same marker ("[00:02:10]" and "[00:05:40]", "**Q:" and "**Q:"): entries of
    one series (a transcript's timestamps, an exam's question-answer pairs), the next of which is no part of the
    one before."""
    marker = _SERIES_MARKER.match(text)
    return marker is not None and marker.group(0).translate(_DIGITS_AS_ZERO) == \
        (next_marker.group(0).translate(_DIGITS_AS_ZERO) if (next_marker := _SERIES_MARKER.match(other)) else None)


_SERIES_MARKER = re.compile(r"\s*[^\w\s]*(?:\w{1,12}[^\w\s]+)+(?=\s)")  # "[00:02:10]", "**Q:", "A:", "**[02:15]**"
_DIGITS_AS_ZERO = str.maketrans("123456789", "000000000")


def formula_given(pack: EvidencePack | None, text: str) -> set[str]:
    """The question's words for a formula ("the *formula* for kinetic energy", ``FORMULA_WORDS``) where ``text``
    writes math ("$$E_k = \\frac{1}{2}mv^2$$"): it gives the formula, whatever it calls it."""
    if pack is None or not math_spans(text):
        return set()
    return {key for key, concept in pack.concepts.items() if concept.word in FORMULA_WORDS}


def _names(side: str, unit: Unit, items: Sequence[Evidence], analyzer: Any, acronyms: dict[str, tuple[str, ...]],
           weight: dict[str, float] | None = None) -> bool:
    """Whether ``unit``'s own text names ``side`` of a comparison word for word; with ``weight``, by the side's
    heaviest word alone (a side written with the noun both share: "SN2 reactions", "unelastischer Stoß")."""
    lang = items[unit.position].lang
    terms = side_terms(analyzer, side, lang)
    if weight is not None:
        terms = [max(terms, key=lambda term: weight.get(term[1], 0.0))] if terms else []
    return names_side(analyzer, abbreviated(f"{unit.intro}\n{unit.text}", acronyms), terms, lang)


def _headed_by(side: str, unit: Unit, items: Sequence[Evidence], analyzer: Any) -> bool:
    """Whether the heading right above ``unit`` names ``side`` of a comparison ("## Königin" over what the queen
    is)."""
    lang = items[unit.position].lang
    return bool(unit.section) and names_side(analyzer, unit.section, side_terms(analyzer, side, lang), lang)


def _pads(unit: Unit, lead: Unit, stated: set[str], weight: dict[str, float]) -> bool:
    """Whether ``unit`` only pads an answer that already states every word the question asks about (``stated``):
    it says far less of the question than the lead ("| große Septime | 11 |" under "Tritonus = 6 Halbtöne" for
    "how many semitones in a tritone"), so it adds text, not an answer."""
    return set(weight) <= stated and unit.share < lead.share * PADDING_SHARE


def _compares(table: Unit, item: Evidence, weight: dict[str, float], topic: set[str], analyzer: Any,
              pack: EvidencePack | None) -> bool:
    """Whether a whole table answers a question asking to compare: its header names two things the question asks
    about or more ("| | SN1 | SN2 |" for "the difference between SN1 and SN2"): each row compares them, so no row
    alone does."""
    return len(_concepts_in(table.header, item, weight, analyzer, pack) & topic) >= 2


def _gives(expected: ExpectedAnswer, unit: Unit, item: Evidence, analyzer: Any) -> bool:
    """Whether ``unit`` (with its headings) gives the kind of answer the question asks for."""
    return gives_answer(expected, _visible(f"{unit.intro}\n{unit.text}"), analyzer, item.lang,
                        f"{unit.heading}\n{unit.header}", item.names_in_note)


_NUMBERED_ITEM = re.compile(r"\s*\d{1,3}[.)]\s")


def _weighed(found: set[str] | frozenset[str], weight: dict[str, float], total: float) -> float:
    """The share of the question's weight in ``found``."""
    return sum(value for term, value in weight.items() if term in found) / total


def _in_note_order(lead: Unit, chosen: list[Unit], units_by_position: dict[int, list[Unit]],
                   budget: int) -> list[Unit]:
    """The lead's group (list, table) first, then the others, each in the note's order (a table's
    answering row first).

    Items of a list chosen apart (steps 2, 1 and 4 of a procedure), or one step of a numbered list, are
    quoted as the whole list where it fits the budget (a procedure in the lead's section: twice the budget, as much
    as a first quote may take), so no step is skipped or out of place.
    """
    groups: dict[tuple[int, int], list[Unit]] = {}
    for unit in chosen:
        groups.setdefault((unit.position, unit.group), []).append(unit)
    used = sum(unit.size for unit in chosen)
    ordered: list[list[Unit]] = []
    dropped: set[int] = set()
    for (position, group), members in groups.items():
        members = [u for u in members if id(u) not in dropped]
        if not members:
            continue
        items = all(u.kind == "item" for u in members)
        # A list reads in its order; of a table's rows, the one that answers comes right under the header.
        members.sort(key=lambda u: (u is not lead or items, u.order))
        steps = items and (len(members) > 1 or _NUMBERED_ITEM.match(members[0].text))
        whole = next((u for u in units_by_position.get(position, ()) if u.kind == "list" and u.group == group), None)
        # a procedure in the lead's section (its steps after "… perform the following steps.") may take what a first
        # quote may (``ANSWER_BUDGET``): quoted up to its first step only, it does not say how
        procedure = all(_NUMBERED_ITEM.match(u.text) for u in members) and \
            (position, members[0].heading) == (lead.position, lead.heading)
        # so may a list of bullets under the lead's heading where it names all the question asks about ("Welche
        # Voraussetzungen gelten für den SBF See?" of "## Voraussetzungen für den SBF See"): three of its six items
        # are part of the answer
        named_list = items and bool(lead.headed) and (position, members[0].heading) == (lead.position, lead.heading)
        limit = 2 * budget if procedure else budget
        if steps and whole is not None:
            room = limit - used + sum(u.size for u in members)  # what the whole list may take in their place
            if whole.size > room and all(u is not lead for u in members):
                # a step of a procedure the lead leads to ("Der Weg eines CO₂-Moleküls: 1. …") is quoted with its
                # other steps: the blocks of its passage chosen after it give way to the whole list (where even then
                # it does not fit, the step stays: "1. Right-click the column header" still says where to start)
                later = [u for u in chosen if id(u) not in dropped and u.position == position and u is not lead and
                         u.group != group and u.order > members[-1].order]
                freed = sum(u.size for u in later)
                if whole.size <= room + freed:
                    used, room = used - freed, room + freed
                    dropped |= {id(u) for u in later}
            if whole.size <= room:
                used += whole.size - sum(u.size for u in members)
                whole.concepts = set().union(whole.concepts, *(u.concepts for u in members))
                members = [whole]
        elif steps and whole is None and (procedure or named_list):
            # one too long to be one unit ("1. Open Obsidian" of seven steps with sub-steps): its steps in order from
            # the first, as far as they fit
            series = sorted((u for u in units_by_position.get(position, ()) if u.kind == "item" and u.group == group
                             and not u.cut), key=lambda u: u.order)
            room = 2 * budget - used + sum(u.size for u in members)
            taken: list[Unit] = []
            for step in series:
                if sum(len(u.text) for u in [*taken, step]) + len(step.intro) > room:
                    break
                taken.append(step)
            if len(taken) > len(members) and all(any(u is step for step in taken) for u in members):
                used += sum(len(u.text) for u in taken) + len(taken[0].intro) - sum(u.size for u in members)
                members = taken
        ordered.append(members)
    ordered = [kept for block in ordered if (kept := [u for u in block if id(u) not in dropped])]
    lead_group = (lead.position, lead.group)
    ordered.sort(key=lambda members: ((members[0].position, members[0].group) != lead_group,
                                      members[0].position, members[0].order))
    return [unit for members in ordered for unit in members]


def _neighbours(lead: Unit, units: Sequence[Unit]) -> list[Unit]:
    """The blocks under ``lead``'s heading in its passage, nearest first (those after it before those before).

    A table's row is no such block: one row under its header, away from what the question asks, says nothing (nor
    is the whole table, quoted whole only for a question comparing its columns)."""
    blocks = [u for u in units if u.kind not in ("sentence", "list", "row", "table") and u.group != lead.group and
              u.heading == lead.heading and not u.cut]
    return sorted(blocks, key=lambda u: (abs(u.order - lead.order) // 1000, u.order < lead.order, u.order))


def _overlaps(unit: Unit, other: Unit) -> bool:
    """Whether one unit quotes the other (a list and its item, a paragraph and its sentence)."""
    return unit.position == other.position and (unit.text in other.text or other.text in unit.text or
                                                unit.text == other.caveat or other.text == unit.caveat or
                                                unit.text.strip() == other.intro or other.text.strip() == unit.intro)


def _by_meaning(candidates: list[Unit], question_vector: Any, embedder: Any) -> list[Unit]:
    """The best candidates re-ranked by meaning; those far from the question's meaning are dropped."""
    candidates = sorted(candidates, key=lambda u: -u.score)[:MAX_EMBEDDED_UNITS]  # embedding is not free
    try:
        vectors = embedder.embed_documents([f"{u.intro} {u.header} {u.text}".strip() for u in candidates])
        similarity = [max(0.0, float(vector @ question_vector)) for vector in vectors]
    except Exception:  # noqa: BLE001 - meaning is a bonus; words alone still answer
        return candidates
    # The model reads a block without its headings: of the blocks that state the question's words only in
    # their heading ("Slicing"), each alone would rank an aside above the text the heading titles. They are
    # as near the question as their section is, and stay in the section's order.
    sections: dict[tuple[int, str], float] = {}
    for unit, close in zip(candidates, similarity, strict=True):
        if unit.by_heading:
            sections[unit.position, unit.heading] = max(sections.get((unit.position, unit.heading), 0.0), close)
    similarity = [sections[unit.position, unit.heading] if unit.by_heading else close
                  for unit, close in zip(candidates, similarity, strict=True)]
    if max(similarity) < DENSE_FLOOR:
        return candidates  # nothing near the question's meaning (a misspelt or unusual word): words alone decide
    floor = max(DENSE_FLOOR, max(similarity) * DENSE_SHARE)
    kept = []
    for unit, close in zip(candidates, similarity, strict=True):
        if close >= floor:
            unit.score = 0.6 * unit.score + 0.4 * close
            kept.append(unit)
    return kept


@dataclass(slots=True)
class Quote:
    """One part of a passage answer: Markdown quoted verbatim and the label that cites it."""

    label: str
    text: str
    heading_path: tuple[str, ...] | None = None  # the headings its text stands under (None: its passage's)

    def cited(self) -> str:
        """The quote with its label: after the text, or on a line of its own after a block."""
        last = self.text.rstrip().rsplit("\n", 1)[-1].strip()
        if last.startswith(("|", ">")) or self.text.lstrip().startswith(">"):
            # apart by a blank line: a line right after a table row is read as one more row, after a quote as
            # more of the quote
            return f"{self.text.rstrip()}\n\n[{self.label}]"
        if CODE_FENCE_RE.match(last):
            return f"{self.text.rstrip()}\n[{self.label}]"
        return f"{self.text.rstrip()} [{self.label}]"


def quotes_of(units: Sequence[Unit]) -> list[Quote]:
    """The units as quotes: neighbours of one list, table or paragraph merge, lead-ins and headers once."""
    quotes: list[Quote] = []
    titled: set[str] = set()  # the section titles shown so far: each once ("**Intervalle**" over three quotes)
    last: Unit | None = None
    for unit in units:
        same_group = last is not None and last.position == unit.position and last.group == unit.group and \
            last.label == unit.label
        if last is not None and last.caveat and not same_group:
            quotes[-1].text += f"\n\n{last.caveat}"
        if same_group and quotes:
            joiner = " " if unit.kind == "sentence" else "\n"
            quotes[-1].text += joiner + unit.text
        else:
            body = f"{unit.header}\n{unit.text}" if unit.header else unit.text
            if unit.intro:
                body = f"{unit.intro}\n\n{body}"
            new_section = last is None or (last.label, last.section) != (unit.label, unit.section)
            if new_section and unit.section and unit.section.casefold() not in titled and \
                    (unit.side_heading or unit.section.casefold() not in body.casefold()):
                body = f"**{unit.section}**\n\n{body}"  # the section's title leads its quote
            titled.add(unit.section.casefold())
            quotes.append(Quote(unit.label, body, unit.path))
        last = unit
    if last is not None and last.caveat:
        quotes[-1].text += f"\n\n{last.caveat}"
    return quotes


def compose(quotes: Sequence[Quote]) -> str:
    """The answer text: each quote followed by its label, quotes apart by a blank line."""
    return "\n\n".join(quote.cited() for quote in quotes)


@dataclass(slots=True)
class PassageAnswer:
    """The quotes that answer a question and what they state of it."""

    quotes: list[Quote] = field(default_factory=list)
    measures: QuoteMeasures = field(default_factory=QuoteMeasures)
    unnamed: list[str] = field(default_factory=list)  # what the question asks about that the vault never names
    named_elsewhere: list[str] = field(default_factory=list)  # what it asks about that the vault names elsewhere
    lacking: str = ""  # the kind of answer asked for that no passage gives, in the user's words ("name for X")

    def labels(self) -> list[str]:
        return list(dict.fromkeys(quote.label for quote in self.quotes))

    def cited(self, item: Evidence) -> Evidence:
        """``item`` as the answer cites it: at the headings its (first) quote stands under. A passage that took in
        small sections (``vault.chunking``) has the heading path of one of them; quoted under another, it is
        cited there, so the source names the heading above the quoted text and its link opens there."""
        path = next((quote.heading_path for quote in self.quotes if quote.label == item.label), None)
        if path is None or list(path) == item.heading_path:
            return item
        return replace(item, heading_path=list(path))


def renumbered(pack: EvidencePack, answer: PassageAnswer) -> PassageAnswer:
    """The answer with its sources numbered in the order it cites them: the pack's passages relabelled S1, S2, ...
    the first quote's first, the passages it does not cite after those in their order (an answer citing only
    [S3] and [S4] reads [S1] and [S2]). Only before any label is shown: the pack is relabelled in place."""
    cited = answer.labels()
    order = sorted(pack.items, key=lambda item: cited.index(item.label) if item.label in cited else len(cited))
    relabel = {item.label: f"S{number}" for number, item in enumerate(order, 1)}
    pack.items = [replace(item, label=relabel[item.label]) for item in order]
    return replace(answer, quotes=[replace(quote, label=relabel[quote.label]) for quote in answer.quotes])


def passage_answer(pack: EvidencePack, analyzer: Any, question: str = "", embedder: Any = None) -> PassageAnswer:
    """The passage answer to the pack's question (no quotes: the pack does not answer it)."""
    if pack.across is not None:  # its words are not the vault's: passages of another language mean it
        from cognivault.answer.across import answer_by_meaning

        return answer_by_meaning(pack)
    question = question or pack.query
    expected = expected_answer(question, list(pack.concepts.values()), pack.lang) if pack.concepts else None
    if expected is not None and expected.head is not None and expected.head.key in pack.gaps:
        # "Wie viele *Schichten* hat das OSI-Modell?" on an English note: "7 layers" counts what the vault says
        # in its own words; the number stands next to the question's other words ("OSI ... model")
        about = tuple(concept for concept in pack.concepts.values() if concept.key not in pack.gaps and
                      not concept.frame)
        expected = replace(expected, focus=about or expected.focus, head=None)
    terms = _topic_terms(pack, question)
    units = choose_units(pack.items, terms, pack.term_weights, analyzer, question,
                         pack.question_vector, embedder, pack, expected=_in_the_vaults_words(expected, pack))
    kind_stated = None if expected is None else bool(units)
    if expected is not None and not units and not expected.required:  # "how much control ...": maybe a degree
        units = choose_units(pack.items, terms, pack.term_weights, analyzer, question,
                             pack.question_vector, embedder, pack)
    units = located_quotes(units, pack)
    weight = {t: max(pack.term_weights.get(t, 1.0), 0.05) for t in terms}
    total = sum(weight.values())

    def share_of(chosen: Sequence[Unit]) -> float:
        said = set().union(*(unit.concepts for unit in chosen)) if chosen else set()
        return sum(weight[t] for t in said if t in weight) / total if total else 0.0

    lead = [unit for unit in units if (unit.position, unit.group) == (units[0].position, units[0].group)] \
        if units else []
    # what the question asks about (its framing words aside: "what", a verb), stated by one block itself
    asked = {t: value for t, value in weight.items() if not (t in pack.concepts and pack.concepts[t].frame)}
    together = max((sum(value for t, value in asked.items() if t in unit.own | unit.headed) / sum(asked.values())
                    for unit in units), default=0.0) if asked else 0.0
    measures = QuoteMeasures(share_of(units), share_of(lead), kind_stated, block_share=together)
    lacking = ""
    if expected is not None and not kind_stated:
        lacking = expected.describe(pack.lang, lambda word: _as_written(question, word))
        # Asked for what no passage gives, in words the vault never uses ("how much funding ... investors") or has
        # only spelled alike in another language ("Wie groß ist eine Zelle?" of a note on cells dividing,
        # ``Concept.cognate``): what the quotes say of the question's other words is not about it.
        if not units or pack.unknown or any(concept.cognate for concept in pack.concepts.values()):
            return PassageAnswer([], replace(measures, refusal=f"the passages give no {expected.describe()}"),
                                 lacking=lacking)
        measures = replace(measures, doubt=f"the passages give no {expected.describe()}")
    unheard_focus = _focus_unheard(pack, expected, question) if kind_stated else []
    if unheard_focus:
        # "Wie lange dauerte eine Fahrt von Lübeck nach *Nowgorod*?": the span of time the quotes give is of the
        # journey they name (to Bergen), not of one to a place the vault never names
        return PassageAnswer([], replace(measures, refusal="no passage names " + ", ".join(unheard_focus)),
                             [_as_written(question, word) for word in unheard_focus])
    if measures.share < ANSWER_FLOOR:
        return PassageAnswer([], measures)  # what the passages would say is not an answer to this
    unnamed = (_names_unquoted(pack, units, analyzer) if measures.share < NAME_FLOOR else []) + \
        _names_in_passing(pack, units, terms) + _slips_unquoted(pack, units) + _ordinals_unquoted(question, units) + \
        _terms_unquoted(pack, units, analyzer, question, weight, measures.share) + \
        _references_unquoted(pack, units, question) + \
        _modifiers_unquoted(pack, units, question) + _forms_unquoted(pack, units, question) + \
        _abilities_unheard(pack, question) + _outputs_unheard(pack, question, analyzer) + \
        _unheard_of_the_subject(pack, question, analyzer)
    if unnamed:
        # "Who painted *The Night Watch*?" answered from the Renaissance note: the topic is near, but what is
        # asked about is in none of the quotes, so they do not answer it
        unnamed = [_as_written(question, words) for words in dict.fromkeys(unnamed)]
        unheard_words = {word.casefold() for word in pack.unknown}
        refusal = replace(measures, refusal="no quoted passage names " + ", ".join(unnamed))
        return PassageAnswer([], refusal, [word for word in unnamed if word.casefold() in unheard_words],
                             [word for word in unnamed if word.casefold() not in unheard_words])
    unfinished = _marked_unfinished(pack, terms, analyzer)
    if unfinished:
        # "Wie entstehen Pulsare?" of a note closing with "Fehlt noch: Pulsare": the note says it is still to write
        return PassageAnswer([], replace(measures, refusal="the notes mark " + ", ".join(unfinished) + " unfinished"),
                             lacking=(UNFINISHED_DE if pack.lang == "de" else UNFINISHED).format(
                                 _quoted(question, unfinished, pack.lang)))
    # (quotes in another language than the question's may state the word in theirs: "Fläche" as "area")
    across = quoted_across(units, pack)
    passing = [] if across else _named_only_in_passing(pack, terms, analyzer, question)
    if passing:
        # "Wie wirken Adjuvanzien?" of a note saying only "Viele Totimpfstoffe enthalten Adjuvanzien.": it names them,
        # it does not say how they work
        return PassageAnswer([], replace(measures, refusal="the notes name " + ", ".join(passing) + " only in passing"),
                             lacking=(IN_PASSING_DE if pack.lang == "de" else IN_PASSING).format(
                                 _quoted(question, passing, pack.lang)))
    # (where the quotes give the kind of answer asked for, a span of time of "eine Harddisk" for the note's
    # "Festplatte", what it is of was judged above by the words around it)
    if not kind_stated and _beside_the_unheard(pack, units, terms):
        refusal = replace(measures, refusal="the quotes state one word beside what the vault never uses")
        return PassageAnswer([], refusal, unheard(pack, question))
    elsewhere = _bridged_alone(pack, units, terms)
    if elsewhere:
        refusal = replace(measures, refusal="the quotes state only words read from another language, none of "
                          + ", ".join(elsewhere))
        return PassageAnswer([], refusal, [], elsewhere)
    sides = compared_sides(question)
    # (two things compared, each quoted from the section named for it, are apart by the notes' design)
    if _only_apart(pack, units, terms) and not (sides is not None and all(
            any(_headed_by(side, unit, pack.items, analyzer) for unit in units) for side in sides)):
        return PassageAnswer([], replace(measures, refusal="the quoted passages state the question's words only apart"))
    quotes = quotes_of(units)
    nouns = {concept.word for concept in pack.concepts.values() if not concept.frame}
    count = asked_count(question, nouns)
    if count is not None and not any(listed(quote.text) == count or says_count(quote.text, count) for quote in quotes):
        # "What are the four stages of …?" answered with a list of five key terms: the nearest the notes come
        counted = _counted_words(question, count, nouns)
        measures = replace(measures, doubt=f"no quoted list gives {counted}")
        lacking = lacking or (f"keine Liste zu „{counted}“" if pack.lang == "de" else f"list of {counted}")
    return PassageAnswer(quotes, measures, lacking=lacking)


def _quoted(question: str, said: Sequence[str], lang: str | None) -> str:
    """Words of the question (``said``), as it writes them, each in the quotation marks of ``lang``."""
    return ", ".join(f"„{_as_written(question, word)}“" if lang == "de" else f"“{_as_written(question, word)}”"
                     for word in said)


_HEADING_LINE = re.compile(r"[ \t]{0,3}#{1,6}[ \t]+(?P<text>.+)")


def _text_sections(text: str, heading: str) -> list[tuple[str, list[str]]]:
    """The sections of a passage's ``text`` (under ``heading`` where it opens without a heading line of its own):
    each heading with its lines of text, code left out."""
    sections: list[tuple[str, list[str]]] = [(heading, [])]
    in_code = False
    for line in text.split("\n"):
        if CODE_FENCE_RE.match(line):
            in_code = not in_code
        elif (opened := _HEADING_LINE.fullmatch(line)) is not None and not in_code:
            sections.append((opened["text"], []))
        elif line.strip() and not in_code:
            sections[-1][1].append(line)
    return sections


def _marked_unfinished(pack: EvidencePack, terms: Sequence[str], analyzer: Any) -> list[str]:
    """The question's topic words that the passages found have only where the student marks the notes unfinished
    (``is_todo``: "TODO: class switching not covered yet", "Fehlt noch: Kartelle und Preisabsprachen", or a heading
    over nothing but such a line): the notes say they do not cover it yet, whatever they say of the question's other
    words ("How does class switching work in antibodies?" answered with the list of antibody classes)."""
    topic = {key for key in terms if key in pack.concepts and not pack.concepts[key].frame and
             not pack.concepts[key].context and key not in pack.gaps}
    marked: set[str] = set()
    stated: set[str] = set()
    for item in pack.items:
        def found(text: str, lang: str | None = item.lang) -> set[str]:
            return pack.concepts_in(text_terms(analyzer, text, lang), frozenset(words(text))) & topic

        for heading, lines in _text_sections(item.text, item.heading):
            todo = [line for line in lines if is_todo(line.strip(" \t-*+>"))]
            rest = [line for line in lines if line not in todo]
            marked.update(*(found(line) for line in todo))
            stated.update(*(found(line) for line in rest))
            (marked if todo and not rest else stated).update(found(heading))
    return [pack.word_of(key) for key in terms if key in marked - stated]


_STATEMENT_BREAK = re.compile(r"(?<=[.!?])\s+")
# a sentence listing things ("Beispiele: Ibuprofen, Diclofenac, Naproxen."): each of a few words, after its label
_LISTING = re.compile(r"[^:]{1,40}:\s*(?P<items>[^,;:]{1,40}(?:(?:,|;|\s(?:and|or|und|oder)\s)[^,;:]{1,40}){2,})")
PASSING = frozenset().union(*(language.passing for language in WORDS.values()))
MAX_PASSING_WORDS = 1  # what a mention in passing says of a thing besides the question's words and ``PASSING``
MAX_LISTED_WORDS = 3  # an item of a listing naming a thing, not saying something of it


def _named_only_in_passing(pack: EvidencePack, terms: Sequence[str], analyzer: Any, question: str) -> list[str]:
    """The question's topic words that every passage found states only in passing, while the question asks something
    more of it (another of its words, or how or why of it alone: "Wie funktionieren Superkondensatoren?"): each
    sentence naming it says that it exists, is related, or is part of something (``LanguageWords.passing``), with at
    most ``MAX_PASSING_WORDS`` other words of its own ("Cross-price elasticity is a related measure.", "Viele
    Totimpfstoffe enthalten Adjuvanzien."), or lists it among other things ("Beispiele: Ibuprofen, Diclofenac,
    Naproxen."), and none of the question's other words but those it writes side by side with it, nor do its
    headings ("Does Promise.allSettled reject when one promise rejects?" of a note closing with "Promise.allSettled
    also exists."). A heading naming the word is a section on it, a table's row gives its values, a line of the word
    alone is a label or a term the next line explains: none is a mention in passing; nor is a word after a
    preposition one the question asks of ("… graph view *on a Mac*?": a listing of systems is no answer, nor needed)."""
    asked = {key for key, concept in pack.concepts.items() if not concept.context and key not in pack.gaps}
    language = WORDS.get(pack.lang or "en")
    said = words(question)
    if language is None or not said:
        return []
    how = said[0] in language.procedures | WHY_WORDS
    # a word after a preposition sets the scene ("How do I open graph view *on a Mac*?"): what the question asks of
    # is before it
    scene = {word for at, word in enumerate(said) if at and (said[at - 1] in language.prepositions or at > 1 and
             said[at - 1] in language.articles and said[at - 2] in language.prepositions)}
    topic = {key for key in terms if key in asked and not pack.concepts[key].frame and
             (pack.concepts[key].whole or pack.concepts[key].word) not in scene}
    phrases = text_pairs(analyzer, question, pack.lang)
    in_passing: dict[str, bool] = {}  # the word: whether every sentence naming it does so in passing
    beyond: dict[str, set[str]] = {}  # the word: what else the question asks of it
    for item in pack.items:
        def found(text: str, lang: str | None = item.lang) -> set[str]:
            return pack.concepts_in(text_terms(analyzer, text, lang), frozenset(words(text)))

        above = found(" ".join(item.heading_path))
        for heading, lines in _text_sections(item.text, item.heading):
            for key in found(heading) & topic:
                in_passing[key] = False
            for sentence in (part for line in lines if not line.lstrip().startswith("|")
                             for part in _STATEMENT_BREAK.split(line.strip(" \t-*+>"))):
                stated = found(sentence)
                for key in stated & topic:
                    one = _written_with(pack, key, phrases, text_pairs(analyzer, sentence, item.lang))
                    beyond[key] = beyond.get(key, asked) - one
                    listing = _LISTING.fullmatch(sentence.rstrip(" .!"))
                    listed = listing is not None and any(
                        key in found(part) and len(words(part)) <= MAX_LISTED_WORDS
                        for part in re.split(r",|;|\s(?:and|or|und|oder)\s", listing["items"]))
                    own = [word for word in words(sentence) if not is_stopword(word, item.lang) and
                           word not in PASSING and not found(word)]
                    # (a line of the word alone is a label, or the term a next line explains: no mention)
                    said_of = listed or len(own) <= MAX_PASSING_WORDS and bool(PASSING.intersection(words(sentence)))
                    in_passing[key] = in_passing.get(key, True) and not (stated | above) - one and said_of
    return [pack.word_of(key) for key, passing in in_passing.items()
            if passing and (beyond[key] or how and topic == {key})]


def _written_with(pack: EvidencePack, key: str, asked: frozenset[tuple[str, str]],
                  pairs: frozenset[tuple[str, str]]) -> set[str]:
    """``key`` with the question's words it writes side by side with it (``asked``: the question's pairs) that a
    sentence (its ``pairs``) writes so too, as one thing ("postal rule", "Promise.allSettled", "cross-price
    elasticity")."""
    one = {key}
    while True:
        joined = {other for first, second in asked for other, known in ((first, second), (second, first))
                  if known in one and other not in one and pack.side_by_side((first, second), pairs)}
        if not joined:
            return one
        one |= joined


# an unheard word of a question's focus this common in its language (Zipf 5 and more: "makes", "gets") is no name
# or substance its number could be of ("How much of the energy actually *makes* it to the next level?")
EVERYDAY_RARITY = 0.5


def _in_the_vaults_words(expected: ExpectedAnswer | None, pack: EvidencePack) -> ExpectedAnswer | None:
    """``expected`` judged by the words of its focus the vault uses: one that no note uses in any form is in no
    passage's sentence ("Wie lange braucht das Wasser für eine Runde um die *Welt*?" of "eine Runde dauert ca. 1000
    Jahre"). Whether such a word names what the answer must be of is ``_focus_unheard``'s question; what a number
    counts (the focus's head) stays asked."""
    if expected is None:
        return None
    unheard = set(pack.unknown)
    known = tuple(concept for concept in expected.focus if (concept.whole or concept.word) not in unheard
                  or concept == expected.head)
    return replace(expected, focus=known) if known and len(known) < len(expected.focus) else expected


def _focus_unheard(pack: EvidencePack, expected: ExpectedAnswer | None, question: str) -> list[str]:
    """The names and substances of what a question asks a number, a date or a span of time of
    (``ExpectedAnswer.focus``) that the vault never uses in any form (``EvidencePack.unknown``): a passage giving
    such an answer gives it of something else ("… von Lübeck nach *Nowgorod*?", "the catalytic cycle of
    *lysozyme*"). A word after an article names a kind of thing the vault may call otherwise ("eine *Reise*" of a
    note saying "Fahrt"); neither is the verb the question asks with ("How long do worker bees *survive*?"), nor a
    word the vault may say only in another language."""
    if expected is None:
        return []
    unheard = set(pack.unknown)
    said = words(question)
    verb = verb_asked_with(said, expected.cue, lambda word: word not in unheard) \
        if pack.lang not in NOUN_CAPITALISING else None
    after_article = {word for at, word in enumerate(said) if ALL_ARTICLES.intersection(said[max(0, at - 2):at])}
    return [concept.whole or concept.word for concept in expected.focus
            if (concept.whole or concept.word) in unheard - after_article and concept.word != verb and
            not concept.frame and not concept.context and concept.key not in pack.gaps and
            (concept.name or concept.whole or rarity(concept.word, pack.lang) > EVERYDAY_RARITY)]


def _counted_words(question: str, count: int, nouns: set[str]) -> str:
    """The words of ``question`` from its count to what it counts ("four stages", "vier Instrumenten")."""
    said = question.rstrip(" ?.!").split()
    start = next((at for at, word in enumerate(said) if says_count(word, count)), 0)
    end = next((at for at in range(start + 1, min(len(said), start + 1 + COUNT_REACH))
                if said[at].casefold().strip(",;:") in nouns), start)
    return " ".join(said[start:end + 1])


MIN_COMPOUND_PART = 4  # a shorter word at a compound's start or end is no part of it ("car" of "cardigan")


def _beside_the_unheard(pack: EvidencePack, units: Sequence[Unit], terms: Sequence[str]) -> bool:
    """Whether the question's heaviest topic word is one the vault never uses (``EvidencePack.unknown``: "How do I
    change the *oil* filter of my car?") and the quotes state one word of its topic at most ("filter" in a note on
    search filters): they are about that one word, not about what the question asks."""
    topic = {key for key in terms if key in pack.concepts and not pack.concepts[key].frame}
    unknown = {word.casefold() for word in pack.unknown}
    if len(topic) < 2 or not unknown:
        return False
    heaviest = max(topic, key=lambda key: pack.term_weights.get(key, 0.0))
    stated = set().union(*(unit.concepts for unit in units)) & topic if units else set()
    word = pack.word_of(heaviest).casefold()  # also a compound's first or last part ("Werks" of "Werkseinstellungen")
    return len(stated) <= 1 and any(other == word or len(word) >= MIN_COMPOUND_PART and
                                    (other.startswith(word) or other.endswith(word)) for other in unknown)


def _bridged_alone(pack: EvidencePack, units: Sequence[Unit], terms: Sequence[str]) -> list[str]:
    """The question's topic words that the vault uses but no quote states, where every topic word the quotes do
    state is read from a German verb or adjective (``Concept.bridged``, lower case where German writes every noun
    capitalised): "What do *regulatory* T *cells* do?" quoting a sociology note's "nichts reguliert sie mehr" for
    "regulatory", while "cells", which other notes use, is in no quote. A translated word saying what something
    does or is like locates nothing; a translated noun names a subject ("resting potential" as "Ruhepotential")."""
    topic = {key for key in terms if key in pack.concepts and not pack.concepts[key].frame}
    stated = set().union(*(unit.concepts for unit in units)) & topic if units else set()
    if not stated or pack.lang != "en" or any(not pack.concepts[key].bridged[:1].islower()
                                                          for key in stated):
        return []
    unknown = {word.casefold() for word in pack.unknown}
    return [pack.word_of(key) for key in sorted(topic - stated, key=lambda key: -pack.term_weights.get(key, 0.0))
            if not pack.concepts[key].bridged and pack.word_of(key).casefold() not in unknown
            and rarity(pack.word_of(key).casefold(), pack.lang) > EVERYDAY_RARITY]


def _only_apart(pack: EvidencePack, units: Sequence[Unit], terms: Sequence[str]) -> bool:
    """Whether the quotes state every word of what the question asks about, or two of its words or more, but each
    apart, none two of them together ("Who invented the telephone?": a database note's example `Telefon =
    '0176…'`, and "invented" in the textiles timeline; "How do I clean my laptop keyboard?": "clean" in the reader
    view's passage, "laptop" in one on backups, "keyboard" in none quoted), and so does every passage found: each is
    a mention on some other topic, and together they are no answer. (Quotes all stating the same one word are judged
    by how much of the question they state; words the vault may say only in another language,
    ``EvidencePack.gaps``, are not judged here; nor is a pack where some passage has two together, which the quotes
    may have passed over, nor quotes all from one note whose passages found say every one of them, each in its own
    section: the note is on the topic, which a student asking in their own words ("Warum saßen so viele winzige
    *Parteien* im *Reichstag*?") names by words its sections use apart.)"""
    topic = {key for key in terms if key in pack.concepts and not pack.concepts[key].frame}
    asked = set(terms)
    stated = set().union(*(unit.concepts & asked for unit in units))
    # a collage: every word of the topic quoted, or two words of the question or more, each in a quote of its own, in
    # the question's language, where the vault has every word of the topic in it (a note in another language may say
    # the other words in its own)
    scattered = topic <= stated or len(stated) >= 2 and all(len(unit.concepts & asked) < 2 for unit in units) and \
        all(pack.items[unit.position].lang in (None, pack.lang) for unit in units) and not topic & pack.gaps
    # one note the quotes all come from, its sections saying every word of the topic, each in its own ("viele
    # Splitterparteien" under "Schwächen der Verfassung", "Reichstag" under "Entstehung"), is on the topic (not one
    # saying two of its words where the vault never uses a third: "the *ITCZ* … move … year" of a note on the EU)
    quoted_notes = {pack.items[unit.position].path for unit in units}
    in_note = set().union(*(pack.concepts_in(item.terms, item.words) & topic for item in pack.items
                            if item.path in quoted_notes)) if len(quoted_notes) == 1 else set()
    return len(topic) >= 2 and scattered and all(len(unit.concepts & topic) < 2 for unit in units) and \
        all(len(pack.concepts_in(item.terms, item.words) & topic) < 2 for item in pack.items) and in_note != topic


def _names_unquoted(pack: EvidencePack, units: Sequence[Unit], analyzer: Any) -> list[str]:
    """The names the question asks about (``Concept.name``: "Australia", "QUIC"; two side by side: "Night
    Watch") that no chosen unit states, with its headings, nor its note elsewhere (``Evidence.names_in_note``), in
    the user's words."""
    said = set().union(*(unit.concepts | pack.items[unit.position].names_in_note for unit in units)) \
        if units else set()
    missing = [concept.word for key, concept in pack.concepts.items()
               if concept.name and not concept.context and not concept.frame and not concept.unindexed and
               key not in said]
    names = {key for key, concept in pack.concepts.items() if concept.name and not concept.unindexed}
    for first, second in pack.question_phrases:
        if first in names and second in names and not any(
                pack.side_by_side((first, second), text_pairs(analyzer, f"{unit.heading}\n{unit.text}",
                                                              pack.items[unit.position].lang))
                for unit in units):
            missing = [word for word in missing if word not in (pack.word_of(first), pack.word_of(second))]
            missing.append(f"{pack.word_of(first)} {pack.word_of(second)}")  # "Night Watch", not "night", "watch"
    return list(dict.fromkeys(missing))


_WRITTEN_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
_POSSESSIVE = re.compile(r"['’]s$", re.IGNORECASE)
_APOSTROPHE = re.compile(r"[^\W_]['’][^\W_]")  # inside a name ("D'Hondt", "O'Neill"), not a possessive
_ABBREVIATION = re.compile(r"(?=[^\W_]*\d)(?=[^\W_]*[^\W\d_])[^\W_]+|[^\W\d_a-zäöüß]{2,}")  # "C4", "AB0", "TPI"


def _modifiers_unquoted(pack: EvidencePack, units: Sequence[Unit], question: str) -> list[str]:
    """The names that tell which thing of a kind the question asks about, written right before the kind ("the *Ansoff*
    matrix", "das *D'Hondt*-Verfahren", "the *Cori* cycle", "des *AB0*-Systems"), that no chosen unit states with its
    headings: the quotes are on another thing of that kind (the BCG matrix, the Sainte-Laguë method, the Krebs cycle).
    A name is an abbreviation, or a capitalised word away from a sentence's start (where every noun is capitalised,
    one with an apostrophe inside: "Handy-App" is a compound of two nouns), rarer in the vault than the kind; a
    possessive owns the thing ("the ECB's tools"), a name after the thing qualifies the question ("graph view on a
    *Mac*"), neither tells which thing."""
    said = set().union(*(unit.concepts for unit in units)) if units else set()
    asked = {concept.word: key for key, concept in pack.concepts.items() if not concept.frame and not concept.context}
    found = list(_WRITTEN_WORD.finditer(question))

    def weight(key: str) -> float:
        return pack.term_weights.get(key, 1.0)

    missing = []
    for at, (word, following) in enumerate(zip(found, found[1:], strict=False)):
        joint = question[word.end():following.start()]
        if joint.strip(" \t") not in ("", "-") or _POSSESSIVE.search(word[0]):
            continue
        before = question[found[at - 1].end():word.start()] if at else "."
        opens = before.strip(" \t\"'„“”‚‘’«»(*_")[-1:] in (".", "!", "?", ":")
        name = _ABBREVIATION.fullmatch(word[0]) is not None or word[0][:1].isupper() and not opens and (
            pack.lang not in NOUN_CAPITALISING or _APOSTROPHE.search(word[0]) is not None)
        keys = [asked[part] for part in words(word[0]) if part in asked]
        heads = [asked[part] for part in words(following[0]) if part in asked]
        # the name tells which thing where it is rarer in the vault than the kind ("Cori" beside "cycle"), not where
        # it is the vault's own subject ("Obsidian Sync" in Obsidian's help)
        telling = keys and heads and max(weight(key) for key in keys) >= min(weight(head) for head in heads)
        if name and telling and not any(key in said for key in keys):
            missing.append(word[0].casefold())
    return missing


_FORM = re.compile(r"\.[^\W_]{2,5}|[^\W\d_a-zäöüß]{2,}\d?|[^\W\d_]*[a-zäöüß][^\W\d_a-zäöüß][^\W\d_]*")


def _forms_unquoted(pack: EvidencePack, units: Sequence[Unit], question: str) -> list[str]:
    """The form the question asks to turn a thing into ("export a note *as a PDF*", "Canvas *als PNG* speichern",
    "export to *.docx*"; a format's abbreviation, a file extension or a name such as "PowerPoint", also as a
    compound's first part, "als *PDF*-Datei", or a capitalised word the vault never uses, "als *Excel*-Tabelle"), where
    no quote states it together with what the question asks to do (its verbs: "export", "speichern"): quotes on
    embedding a PDF, or on saving a canvas, do not say how to export one as the other. A plain word after the same
    word qualifies the question ("as a present", "on a Mac") and is not judged."""
    language = WORDS.get(pack.lang or "en")
    if language is None or not language.target_forms:
        return []
    prepositions = "|".join(map(re.escape, language.target_forms))
    articles = "|".join(map(re.escape, language.articles))
    verbs = {key for key, concept in pack.concepts.items() if concept.frame and not concept.context}
    # a frame's words too (a German question's lowercase ".docx"), and a compound read as its parts ("Graphansicht")
    by_word = {word: key for key, concept in pack.concepts.items() for word in (concept.whole, concept.word) if word}
    unheard_words = {word.casefold() for word in pack.unknown}
    missing = []
    pattern = (rf"(?P<thing>[^\W_]+(?:-[^\W_]+)*)\s+(?:{prepositions})\s+(?:(?:{articles})\s+)?"
               rf"(?P<form>\S+?)[?!.,;:]*(?=\s|$)")
    for asked in re.finditer(pattern, question, re.IGNORECASE):
        form = asked["form"]
        thing = by_word.get(asked["thing"].casefold()) or by_word.get(asked["thing"].rsplit("-", 1)[-1].casefold())
        if "-" in form and by_word.get(form.casefold()) is None:
            form = form.split("-", 1)[0]  # a compound naming the form by its first part ("als *CSV*-Datei")
        # a format's name, or a capitalised word the vault never uses ("as an *Excel* sheet", "als *Excel*-Tabelle";
        # not "into *Obsidian* links", the vault's own subject)
        named = _FORM.fullmatch(form) is not None or form[:1].isupper() and form.casefold() in unheard_words
        key = by_word.get(form.casefold().lstrip("."))
        # the form of a thing the question names right before it ("a *note* as a PDF"), not a verb's complement
        # ("What *counts* as GDP?", "Was *zählt* als BIP?": what GDP is)
        if key is None or thing is None or pack.concepts[thing].frame or not verbs - {key} or not named:
            continue
        if not any(key in unit.concepts and unit.concepts & (verbs - {key}) for unit in units):
            missing.append(pack.concepts[key].word)
    return missing


def _abilities_unheard(pack: EvidencePack, question: str) -> list[str]:
    """The verbs of a question asking whether a thing can do something ("Can the Audio recorder *transcribe* my
    recording?", "Kann der Audiorekorder meine Aufnahme *transkribieren*?") where no passage found has any of them in
    any form: the passages on the thing say what it does, not whether it can do this (a verb the vault does not use
    is otherwise no reason to refuse: ``evidence.unknown_words``)."""
    language = WORDS.get(pack.lang or "en")
    said = words(question)
    if language is None or not said or said[0] not in language.abilities:
        return []
    verbs = [concept for concept in pack.concepts.values() if concept.frame and not concept.context]
    if not verbs or any(concept.found_in(item.terms, item.words) for concept in verbs for item in pack.items):
        return []
    return [concept.word for concept in verbs]


def _unheard_of_the_subject(pack: EvidencePack, question: str, analyzer: Any) -> list[str]:
    """What a question asking whether a thing does something asks besides the thing, which it names right after its
    first word, in words the titles of the notes found name ("Can the Audio recorder *pause* a recording?", "Does
    the Audio recorder work on *mobile*?"),
    where no passage found on the thing has any of it in any form: the notes on the thing say what it does, not
    whether it does this (a passage on something else with the word, "Bildschirm" in a note on plans, is no
    answer either)."""
    language = WORDS.get(pack.lang or "en")
    said = words(question)
    if language is None or not said or said[0] not in language.whether:
        return []
    subject: set[str] = set()
    for item in pack.items:
        names = " ".join([item.title, *item.aliases])
        subject |= pack.concepts_in(text_terms(analyzer, names, item.lang), frozenset(words(names)))
    asked = [concept for key, concept in pack.concepts.items()
             if not concept.frame and not concept.context and key not in pack.gaps and key not in subject]
    on_it = [item for item in pack.items if pack.concepts_in(item.terms, item.words) & subject]
    # the thing is what the question asks of, right after its first word ("Can *the Audio recorder* …"; not "Are
    # *there* keyboard shortcuts for Slides?", "Can *I* …")
    first = next((word for word in said[1:] if word not in language.articles), "")
    if not any(first in (pack.concepts[key].word, pack.concepts[key].whole) for key in subject) or not asked or \
            any(concept.found_in(item.terms, item.words) for concept in asked for item in on_it):
        return []
    return [concept.word for concept in asked]


def _outputs_unheard(pack: EvidencePack, question: str, analyzer: Any) -> list[str]:
    """The action of a question asking how to, or whether one can, turn a thing into something outside the app
    (``LanguageWords.outputs``: "How do I *print* the graph view?", "Wie *exportiere* ich meine Lesezeichen nach
    Firefox?") where no passage found has it together with what the question asks about: the passages on the graph
    view say what it does, not how to print it."""
    language = WORDS.get(pack.lang or "en")
    said = words(question)
    if language is None or not said or said[0] not in language.abilities | language.procedures:
        return []
    actions = {term for word in language.outputs for term in analyzer.terms_of_word(word, pack.lang)}
    topic = [concept for concept in pack.concepts.values() if not concept.frame and not concept.context]
    return [concept.word for key, concept in pack.concepts.items()
            if concept.frame and not concept.context and key in actions and
            not any(concept.found_in(item.terms, item.words) and
                    any(other.found_in(item.terms, item.words) for other in topic) for item in pack.items)]


def _terms_unquoted(pack: EvidencePack, units: Sequence[Unit], analyzer: Any, question: str,
                    weight: dict[str, float], share: float) -> list[str]:
    """What the question asks about, a word or two side by side ("What are *anticoagulants* used for?", "What causes
    the *liquidity trap*?"), that a passage found has while no chosen unit states it, and that weighs more of the
    question than the quotes state (``share``): the quotes answer the question's lesser words ("used", "causes") on
    something else, and the vault names the term without saying this of it (a lecturer announcing it for next
    week). A light term ("the *new location*") is no reason to refuse, nor a word the vault may say only in another
    language (``EvidencePack.gaps``)."""
    said = set().union(*(unit.concepts for unit in units)) if units else set()
    total = sum(weight.values())
    topic = {key for key, concept in pack.concepts.items()
             if not concept.frame and not concept.context and key not in pack.gaps and key not in said}
    if not total:
        return []
    pairs = [(first, second) for first, second in text_pairs(analyzer, question, pack.lang)
             if {first, second} <= topic and (weight.get(first, 0.0) + weight.get(second, 0.0)) / total > share and
             any(pack.side_by_side((first, second), item.pairs) for item in pack.items)]
    paired = {key for pair in pairs for key in pair}  # "liquidity trap", not also "liquidity"
    return [f"{pack.word_of(first)} {pack.word_of(second)}" for first, second in pairs] + \
        [pack.word_of(key) for key in pack.concepts if key in topic and key not in paired and
         weight.get(key, 0.0) / total > share and
         any(key in item.terms for item in pack.items)]


def _names_in_passing(pack: EvidencePack, units: Sequence[Unit], terms: Sequence[str]) -> list[str]:
    """The names the question asks about ("Australia") that the quotes state only apart from every other word of
    its topic ("northern Australia" in a list of monsoon regions, "capital" in another note): a mention in
    passing, not an answer on it. A unit on the rest of the topic in a note that states the name elsewhere is on
    it (``Evidence.names_in_note``: a lecture transcript on the ECB, its paragraph on the corridor). The words the
    vault may say only in another language (``EvidencePack.gaps``) are no part of the topic a quote must state
    ("What does a *calculator* after von Neumann consist of?" of a German note: "Ein Rechner nach von Neumann
    …")."""
    topic = {key for key in terms if key in pack.concepts and not pack.concepts[key].frame and key not in pack.gaps}
    missing = []
    for key in topic:
        concept = pack.concepts[key]
        if not concept.name or concept.context or len(topic) < 2:
            continue
        stating = [unit for unit in units if key in unit.concepts | pack.items[unit.position].names_in_note]
        if stating and not any(unit.concepts & (topic - {key}) for unit in stating):
            missing.append(concept.word)
    return missing


def unheard(pack: EvidencePack, question: str = "") -> list[str]:
    """What the question asks about that the vault never uses (``EvidencePack.unknown``), as the question writes
    it, a name's words once ("Night Watch", not also "night"), for the refusal to name (at most ``MAX_UNHEARD``)."""
    words = list(dict.fromkeys(pack.unknown))
    for first, second in pack.question_phrases:
        pair = (pack.word_of(first), pack.word_of(second))
        if set(pair) <= set(words):
            words = [" ".join(pair) if word == pair[0] else word for word in words if word != pair[1]]
    whole = [word for word in words if not any(word != other and word in other.split() for other in words)]
    return [_as_written(question or pack.query, word) for word in whole[:MAX_UNHEARD]]


def _as_written(question: str, words: str) -> str:
    """``words`` (casefolded, one or two) as the question writes them ("night watch": "Night Watch", "fussball":
    "Fußball": casefolding wrote ß as ss)."""
    found = re.search(r"\s+\S*\s*".join(re.escape(word).replace("ss", "(?:ss|ß)") for word in words.split()),
                      question, re.IGNORECASE)
    return found[0] if found and len(found[0]) <= 2 * len(words) else words


def _slips_unquoted(pack: EvidencePack, units: Sequence[Unit]) -> list[str]:
    """The question's words the vault has in no form, read as a near word of the vault (``Concept.slip``:
    "statins" as "static", "Indefinido" as "indefinit"), that no chosen unit states: a typing slip the quotes
    answer is in them ("irregualr": "irregular"), while quotes without it answer the question's other words."""
    said = set().union(*(unit.concepts for unit in units)) if units else set()
    return [concept.word for key, concept in pack.concepts.items()
            if concept.slip and not concept.frame and not concept.context and key not in said]


def _ordinals_unquoted(question: str, units: Sequence[Unit]) -> list[str]:
    """The numbered things the question asks about ("die *4. Normalform*", "the *5th amendment*") that no chosen
    unit numbers so (the number before the noun or a short form of it: "4. Normalform", "4NF", "4th NF"): a note
    on the 1st to 3rd does not answer on the 4th."""
    missing = []
    for asked in _ORDINAL.finditer(question):
        number, noun = asked["number"], asked["noun"]
        numbered = re.compile(rf"(?<![\w.]){number}(?:\.|st|nd|rd|th)?\s*(?:\*\*|__)?{re.escape(noun[0])}",
                              re.IGNORECASE)
        if not any(numbered.search(f"{unit.heading}\n{unit.section}\n{unit.text}") for unit in units):
            missing.append(asked[0])
    return missing


def _references_unquoted(pack: EvidencePack, units: Sequence[Unit], question: str) -> list[str]:
    """The numbered provisions the question asks about ("Wann greift *§ 35 StGB*?", "What does *Article 50* say?")
    that no chosen unit, with its headings and its note's title, numbers so ("Art. 48" answers "Artikel 48"): quotes
    on the neighbouring provisions do not answer on this one."""
    said = "\n".join(f"{pack.items[unit.position].title}\n{unit.heading}\n{unit.section}\n{unit.text}"
                     for unit in units)
    stated = {found["number"].casefold() for found in _REFERENCE.finditer(said)}
    return [asked[0] for asked in _REFERENCE.finditer(question) if asked["number"].casefold() not in stated]


def _topic_terms(pack: EvidencePack, question: str) -> list[str]:
    """The question's concept keys that say what it is about: of a question asking to have a term explained
    ("Describe mitosis", "Was versteht man unter Stomata?"), or to compare two things, those of the term or the
    things alone (the words asking say how to answer, not what about: a passage that "describes" something else is
    no answer)."""
    sides = compared_sides(question)
    # of a question asking to compare two things, the words naming them: "Unterschied" is how to answer, and a note
    # on "unterschiedliche Erwärmung" no answer to "Unterschied zwischen Wetter und Klima"
    said = set(words(" ".join(sides))) if sides else set(words(_asked_term(question)))
    about = [key for key in pack.question_terms if key in pack.concepts and
             (pack.concepts[key].whole or pack.concepts[key].word) in said]
    return about or list(pack.question_terms)


# -- the simple, synchronous API (kept for callers outside the streaming pipeline) ----------------


@dataclass(slots=True)
class Citation:
    label: str
    chunk_id: str
    path: str
    heading_path: list[str]
    line_start: int
    line_end: int
    locator: str
    snippet: str
    score: float

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


@dataclass(slots=True)
class ExtractiveAnswer:
    question: str
    text: str
    citations: list[Citation]  # the whole evidence pack
    cited: list[str]  # labels used in ``text``
    answered: bool
    confidence: str = "low"

    def to_dict(self) -> dict[str, object]:
        return {"question": self.question, "text": self.text, "answered": self.answered,
                "confidence": self.confidence, "cited": self.cited,
                "citations": [c.to_dict() for c in self.citations]}


def answer_extractively(engine: Any, question: str, k: int = 5, scope: Any = None) -> ExtractiveAnswer:
    """A complete extractive answer in one call (blocking; the streaming pipeline is ``stream_answer``, which chooses
    it the same way: keywords first where meaning search is on, meaning where they leave it unanswered,
    ``answer.words_first``)."""
    from cognivault.answer.confidence import Confidence, assess, cap_by_citations
    from cognivault.answer.evidence import analyzer_of
    from cognivault.answer.retrieval import build_pack
    from cognivault.answer.words_first import answered, hybrid_replaces, words_first

    def attempt(mode: str) -> tuple[EvidencePack, str | None, Confidence, PassageAnswer]:
        pack, lang = build_pack(engine, question, question, scope=scope, max_items=k, mode=mode)
        confidence = assess(pack)
        answer = renumbered(pack, passage_answer(pack, analyzer_of(engine), question, engine.embedder)) \
            if confidence.supported else PassageAnswer(unnamed=unheard(pack, question))
        if answer.quotes:
            confidence = cap_by_citations(confidence, pack, answer.labels(), answer.measures)
        return pack, lang, confidence, answer

    pack, lang, confidence, answer = attempt("lexical" if words_first(engine) else "hybrid")
    if words_first(engine) and not answered(answer, confidence):
        other = attempt("hybrid")
        if hybrid_replaces(answer, other[3], other[2]):
            pack, lang, confidence, answer = other
    citations = [Citation(i.label, i.chunk_id, i.path, i.heading_path, i.line_start, i.line_end, i.locator,
                          i.snippet, i.score) for i in map(answer.cited, pack.items)]
    if not answer.quotes:
        refusal = not_in_vault(lang, answer.unnamed, answer.named_elsewhere, answer.lacking)
        return ExtractiveAnswer(question, refusal, citations, [], False, "low")
    text = compose(answer.quotes)
    if confidence.label == "low":
        text = f"{nearest_only(lang, answer.lacking)}\n\n{text}"
    return ExtractiveAnswer(question, text, citations, answer.labels(), True, confidence.label)
