"""Facts read from a note's structure without any model, for offline flashcards, quizzes, maps and workshops.

The passage is read with the project's own Markdown reader
(:func:`cognivault.vault.markdown.block_tokens` and :func:`inline_pieces`), so
code spans, links, embeds, tags, inline HTML and callouts are what Obsidian
shows: code spans stay verbatim (a ``[[link]]`` inside backticks is code), a
link outside code reads as its display text, tags stay in their sentence,
and a sentence holding raw HTML or an embed gives no fact at all. Fenced code,
HTML blocks and ``%%`` comments are never read.

Only reliable shapes become facts (English and German):

- ``item``: a list item "term – description" / "term: description"
  (``**term**``, ``` `code` ``` or plain), framed by the heading above it;
- ``row``: a table row, its first cell the term, the next cell the answer
  under that column's header;
- ``definition``: "X is Y" / "X are Y" / "X was Y" / "X were Y", "X refers to Y",
  "X means Y" ("X ist/sind/war/waren Y", "X bezeichnet Y", "Unter X versteht man
  Y" with X bare, as its dative would match no option) with X a short noun
  phrase that is not a pronoun or a clause and Y opening with an article or a
  noun; a remark in parentheses after X ("The French Revolution (1789–1799)
  was …") is not part of it, nor are tags after the sentence's end. A card asks
  in the sentence's verb and tense ("What was …?", "What does X refer to?",
  "Was versteht man unter X?"); ``called``: "Y are called X" / "Y were called X"
  ("Y nennt man X", "Y nannte man X");
- ``bold`` / ``code``: a sentence holding ``**term**`` or a code span (a
  cloze on it);
- ``heading``: a section's heading with its first sentence (and, when that
  sentence introduces a list, the list's first items, or a one-line code
  example: ``example``), or the first steps of the list it opens with; the
  note's opening sentence under its title;
- ``label``: a bold label on its own line ("**File explorer:**") with the
  first items of the list below it, framed by its section;
- ``step``: a step of a numbered list of three or more, with the step before
  it (a card and a quiz ask which step comes next, the quiz with the list's
  other steps as options; a step quoted in lists that go on differently is
  never asked after);
- ``faq``: a question in bold on its own line ("**Can I …?**") with the
  first sentences of the answer below it (a card asks the question; a quiz
  quotes the answer and offers the note's other questions); likewise each of
  a section's problems stated in bold ("**I am receiving a hash error …**",
  two or more, so not a lone warning), asked as "what does the note say
  about …".

Shapes of a student's notes (issue 25), read with :mod:`cognivault.vault.reading`:

- ``faq`` also: a ``Q: …`` line over its ``A: …`` (any language's labels), the answer whole;
- ``vocab``: a block of ``word :: translation`` lines; ``formula``: a formula alone under a heading, or after a
  label ("spring: $$E = …$$"), asked and answered byte for byte;
- ``record``: a row of a table with three columns or more, every column on one card;
- ``task``: under a heading naming exercises, a numbered task over its one nested solution;
- ``item`` also: a definition list (a term over ``: definition`` lines), and a list item highlighted as a whole
  "term: definition" (what follows the highlight is the student's remark on it) or opening with its marked term
  ("==object permanence==: knowing objects exist …");
- a highlight (``==key==``) is a cloze like a term in bold; a section opening naming its section is a cloze on
  that name; a list item's cloze names the label it hangs from ("massive stars:"). A hub of links and dates,
  date stamps, tag lines and course logistics (a course's event with its date) give no fact; a section's or a
  labelled list's opening is never asked as such ("What does X say under Y?" asks about the layout), only
  steps in order, asked whole.
- ``faq`` also: a ``Q:`` set as an order ("Define …", "Erkläre …") without the student's closing aside ("(ask
  tutor – exam?)"); a statement closed with a question mark ("Haskell is purely functional?") asks nothing, no card;
  ``definition`` also: a term in bold that a verb says what it captures ("Die **Preiselastizität** misst, …");
- a heading or a list's label counting its items ("Die 5 guten Kaiser", "Die 3 Arten der Elastizität:") over as many
  asks for them whole; an aspect's label over the term it defines ("Abgrenzung: invitatio ad offerendum = …") asks
  that term; a factor's label ("Einflussfaktoren" › "Zeithorizont:") is asked as the factor, never what it means;
  a table's empty cells ("–") are no answers, and a grid of numbers that names nothing (a payoff matrix) no card;
- a lecture's list counted in one sentence and said over the paragraphs after it ("four types …", "First, …").
- ``faq`` also: a list item's label over the student's own question and its answer after an arrow ("Causes: Why
  did it fall? → civil wars, …", "Frage: ist jede Relation in 3NF auch in 2NF? → ja, …").

A sentence holding an embed or raw HTML gives no fact (the rest of its
paragraph still may); Obsidian's inline icons (``![[x.svg#icon]]``) are
decoration and read as nothing. A cloze sentence may open with "you", a
preposition or a conjunction, not with a word that points at the sentence
before it ("It", "These", "Also").

Each fact knows the *form* of its term (a shortcut, a code span, a UI setting
in bold, a heading or a plain term), so a quiz can draw wrong options of the
same form.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, replace
from functools import lru_cache
from itertools import pairwise, takewhile

from cognivault.study.list_wording import (
    ItemQuestion,
    in_sequence,
    item_question,
    list_kind,
    list_question,
    lists_properties,
    states_amounts,
    unordered_kind,
    when,
)
from cognivault.study.sources import Source
from cognivault.study.spoken import (
    Said,
    answered_question,
    counted_off,
    leans_back_said,
    lecture_subject,
    list_card,
    named_cloze,
    paragraph_topic,
    sentence_subject,
    stressed_card,
)
from cognivault.vault.markdown import InlinePiece, block_tokens, inline_pieces
from cognivault.vault.reading import (
    TIMESTAMP_RE,
    WORDS,
    asks_about_course,
    atom_spans,
    called_in,
    chatter_start,
    course_aside_start,
    dashed_qa_pair,
    defines_by_condition,
    definition_in,
    definition_list,
    described_in,
    ends_open,
    formula_word,
    gives_a_reason,
    gives_an_estimate,
    identifies,
    is_aspect,
    is_bookkeeping_line,
    is_bookkeeping_term,
    is_copula,
    is_formula,
    is_free_relative,
    is_label,
    is_question_label,
    is_spoken,
    is_todo,
    is_transcript_title,
    labelled_definition,
    law_question,
    leans_on_note,
    math_spans,
    month_alone,
    names_a_clause_after_a_sentence,
    names_a_person,
    names_a_quality,
    names_an_overview,
    names_by_pro_form,
    names_exercises,
    names_factors,
    names_no_formula,
    names_no_subject,
    names_planning,
    names_terms,
    names_the_session,
    names_worked_example,
    note_shape,
    opens_definition,
    opens_planning_callout,
    opens_with_clause,
    opens_with_symbol,
    prose_language,
    qa_pair,
    question_tail,
    said_plainly,
    sectioned_text,
    sets_a_task,
    spoken_meaning,
    states_a_rule,
    states_apart,
    states_its_purpose,
    states_not_asks,
    subject_then_verb,
    vocabulary,
    without_bracketed_remarks,
    without_course_remarks,
    without_fillers,
    without_own_aside,
    without_remarks_in_brackets,
    works_out,
)
from cognivault.vault.sentences import shield, unshield

_PLACEHOLDER_RE = re.compile("\ue000(\\d+)\ue001")
GAP = "\ue004"  # where an embed or raw HTML stood: a sentence holding it is not read (its content is not there)
_BLOCK_ID_RE = re.compile(r"(?:^|\s)\^[A-Za-z0-9-]+\s*$")  # Obsidian hides a block's id
_ICON_RE = re.compile(r"!\[\[[^\[\]|#]+\.svg#icon(?:\|[^\[\]]*)?\]\]")  # Obsidian's inline icons: decoration
# after a full stop, also one inside quotation marks ('… into the past." The last line …')
_SENTENCE_SPLIT_RE = re.compile(r"(?:(?<=[.!?])|(?<=[.!?][\"”“’»]))\s+(?=[\"“„(*\ue000]*[A-ZÄÖÜ0-9¹²³\ue000])")
_BOLD_RE = re.compile(r"(?<![\w*])\*\*(?=\S)([^*\n]{2,80}?)(?<=\S)\*\*(?![\w*])")  # not "**S**ave **c**urrent"
# a term in bold glossed after a dash as it is said ("the **asthenosphere** – a weak, partly molten layer"; not "That's
# **subduction** – and it builds …", which goes on about it)
_SAID_GLOSS_RE = re.compile(r"(?<![\w*])\*\*(?P<term>[^*\n:]{2,60}?)\*\*\s+[–—-]\s+(?P<gloss>[^–—\n]+)")
MIN_GLOSS_WORDS = 3
_HIGHLIGHT_RE = re.compile(r"(?<![=\w])==(?=\S)([^=\n]{2,80}?)(?<=\S)==(?![=\w])")
# "**hedonic calculus** (hedonistisches Kalkül)", "**European Investment Bank** (EIB)": a remark right after a key
# term that says the term again (a translation or paraphrase of two words or more, an abbreviation of its initials),
# not a remark on it (no figures, no list, no "z.B.", no "!", no qualifier such as "recommended" or "nur")
_GLOSS_RE = re.compile(r"^ \((?P<gloss>[^()\d,;:.!?=+*`]{2,60})\)")
_GLOSS_WORDS = 4
_QUALIFIERS = {"en": frozenset({"recommended", "default", "optional", "only", "not", "also", "usually", "mostly",
                                "or", "and", "see"}),
               "de": frozenset({"empfohlen", "standard", "optional", "nur", "nicht", "auch", "meist", "oder", "und",
                                "siehe"})}
_EMPHASIS_RES = (_HIGHLIGHT_RE, re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*"),
                 re.compile(r"(?<!\w)__(?=\S)(.+?)(?<=\S)__(?!\w)"),
                 re.compile(r"\*(?=[^\s*])(.+?)(?<=[^\s*])\*"),
                 re.compile(r"(?<!\w)_(?=[^\s_])(.+?)(?<=[^\s_])_(?!\w)"))
_ALIASES_TAIL_RE = re.compile(r"\s*\(aliases: [^)]*\)\s*$")
# Ctrl+P, ⌘P, and Alt-Click (a hyphen before a capitalised key, not "Alt-text")
_SHORTCUT_RE = re.compile(r"^(?:(?:Ctrl|Cmd|Alt|Shift|Strg|Umschalt|Opt|Option|Win|Meta|Fn)"
                          r"\s*(?:\+|-(?-i:(?=[A-ZÄÖÜ0-9])))|[⌘⌥⇧⌃])", re.I)
# "term – description", "term: description", "term = description" (a student's "Tritonus = 3 Ganztöne")
_ITEM_RE = re.compile(r"^(?P<term>.{1,70}?)\s*(?P<sep>\s[–—=-]\s|:\s)\s*(?P<def>.{6,})$")
MAX_EQUATED_WORDS = 3  # "Tritonus = …", "la carta = …"; "folgt direkt aus actio = reactio" is a sentence
_LINKING_ADVERBS = {"instead", "stattdessen", "however", "jedoch", "therefore", "daher", "deshalb", "thus",
                    "otherwise", "sonst", "trotzdem", "dennoch"}  # they open a sentence, never a term
_PRONOUNS = {word.casefold() for word in {
             "it", "this", "that", "these", "those", "they", "there", "he", "she", "we", "you", "which", "what",
             "each", "every", "one", "some", "most", "all", "here", "such", "its", "their", "both", "many",
             "es", "dies", "das", "diese", "dieser", "dieses", "sie", "er", "man", "hier", "jede", "jeder", "alle",
             "beide", "welche", "was", "when", "if", "how", "why", "where", "because", "while", "although", "since",
             "after", "before", "as", "so", "wenn", "wie", "warum", "wo", "weil", "da", "als", "ob", "dass",
             "nachdem", "bevor", "only", "also", "nur", "auch", "for", "to", "in", "on", "by", "with", "from",
             "für", "zum", "zur", "mit", "von", "bei", "im", "am", "um", "an", "auf", "durch", "nach", "your", "our",
             "dein", "deine", "ihr", "ihre", "unser", "note", "example", "beispiel", "hinweis", "tip", "tipp",
             "und", "and", "or", "oder", "but", "aber", "then", "dann", "now", "jetzt", "there's", "it's",
             "derzeit", "aktuell", "standardmäßig", "außerdem", "zudem", "dabei", "hierbei", "danach", "zuerst",
             "heute", "oft", "manchmal", "meistens", "normalerweise", "zusätzlich", "alternativ", "ebenfalls",
             "currently", "usually", "often", "sometimes", "additionally", "alternatively", "first", "finally",
             "more", "less", "mehr", "weniger", "despite", "trotz"}} \
    | _LINKING_ADVERBS  # "more general: …" compares with the line above, names no term; casefolded as a sentence's
# first word is ("standardmäßig" as "standardmässig")
_ARTICLE_PRONOUNS = {"das"}  # an article before a noun ("Das Mitochondrium ist …"), a pronoun alone ("Das ist …")
_ENGLISH_ARTICLES = {"an"}  # a German preposition ("An der Börse …"), in English the article ("An acid is …")
_PARTICIPLES = {"made", "split", "found", "taken", "given", "known", "built", "held", "done", "seen", "shown",
                "driven", "broken", "kept", "lost", "set", "put", "cut", "brought", "thought", "caught", "sent",
                "spent", "left", "meant", "read", "run", "won", "bound", "drawn", "grown", "thrown", "written",
                "born", "chosen", "eaten", "fallen", "forgotten", "frozen", "hidden", "led", "paid", "said", "sold",
                "spoken", "stolen", "told", "worn", "torn", "begun", "sung", "struck", "stuck", "hung", "laid",
                "available", "enabled", "disabled", "able", "possible", "useful", "helpful", "important"}
_COLON_STOP = {"related", "details", "detail", "see", "note", "notes", "evidence", "example", "examples", "answer",
               "source", "sources", "compare", "aliases", "tip", "warning", "summary", "ausführlich", "siehe",
               "hinweis", "beispiel", "merksatz", "listen", "question", "frage", "info", "important", "wichtig",
               "read", "why", "how", "result", "results", "ergebnis", "method", "methode", "for example",
               "zum beispiel", "z. b.", "e.g.", "i.e.", "step", "schritt", "windows", "macos", "linux", "ios",
               "android", "optional", "default", "standard"}
_DEICTIC = {"above", "below", "following", "here", "there", "oben", "unten", "folgende", "folgenden", "hier", "obige",
            "obigen", "obiges", "obiger", "untenstehende", "untenstehenden"}
# a sentence opening with a preposition, a conjunction, a linking adverb, "you" or a time word stands alone; with the
# other words of _PRONOUNS ("It lets you …", "These are …", "Also …") it leans on the sentence before it
_CONTEXT_OPENERS = _PRONOUNS - _LINKING_ADVERBS - {word.casefold() for word in {
    "when", "if", "how", "why", "where", "because", "while", "although", "since", "after", "before", "as", "wenn",
    "wie", "warum", "wo", "weil", "ob", "dass", "nachdem", "bevor", "for", "to", "in", "on", "by", "with", "from",
    "für", "zum", "zur", "mit", "von", "bei", "im", "am", "um", "an", "auf", "durch", "nach", "you", "we", "your",
    "our", "dein", "deine", "unser", "man", "which", "what", "note", "example", "beispiel", "hinweis", "tip", "tipp",
    "currently", "usually", "often", "sometimes", "derzeit", "aktuell", "standardmäßig", "heute", "oft",
    "manchmal", "meistens", "normalerweise"}}
_DEMONSTRATIVES = {"this", "these", "those", "dies", "diese", "dieser", "dieses", "diesen", "diesem", "jene", "jener",
                   "jenes", "jenen"}
_BACK_POINTERS = {"it", "its", "this", "these", "those", "them", "they", "that", "es", "dies", "diese", "diesen", "ihn",
                  "ihm", "ihnen", "sie", "dort"}  # ("Put that condition into `ON` instead")
# a question in bold on its own line, or a problem or message stated as a sentence ("**I am receiving a hash error
# when trying to publish a note.**"), with its answer in the lines or the paragraph below
_FAQ_RE = re.compile(r"^\*\*(?P<question>[^*\n]{8,200}[?.])\*\*[ \t]*(?:\n(?P<answer>[\s\S]+))?$")
MIN_STATEMENT_WORDS = 4  # "**Done.**" is emphasis; a stated problem is a sentence
# a question callout's title asking a question ("[!question] Why is the mass irrelevant?", "[!faq]- Wozu …?")
_QUESTION_CALLOUT_RE = re.compile(r"^\[!(?i:question|help|faq)\][+-]?\s+(?P<question>[^*\n]{8,200}\?)\s*$")
_LEADING_ARROW_RE = re.compile(r"^\s*(?:→|->|=>|⇒)\s*")
_BOLD_LINE_RE = re.compile(r"^\*\*[^*\n]+\*\*:?$")
_NAMED_START_RE = re.compile(r"^(?:\*\*|`|\[)")  # a list item opening with a name of its own
# a highlight opening a list item ("==verspätete Annahme = neuer Antrag==": a single "=" may stand inside)
_MARKED_ITEM_RE = re.compile(r"^==(?=\S)(?P<fact>(?:[^=\n]|=(?!=))+?)(?<=\S)==(?![=\w])")
_BOLD_ITEM_RE = re.compile(r"^\*\*(?P<term>[^*]{2,60})\*\*\s*(?::|\s[–—-])\s*(?P<def>.{6,})$")
# a line opening with its term in bold or highlighted, said equal to its meaning ("**Anlassen** = erneutes Erwärmen
# …", "==Martensit== = sehr hartes Gefüge", "==Leading==: the vertical distance …")
_EQUATED_LINE_RE = re.compile(r"^(?P<mark>\*\*|==)(?P<term>[^*=\n]{2,60})(?P=mark)(?:\s+=|(?<===):)\s+(?P<def>.{6,})$")
# a paragraph of a glossary in prose: "Verlustaversion (loss aversion): Verluste wiegen …" (a term, maybe marked,
# maybe its gloss, and a sentence)
_PROSE_ENTRY_RE = re.compile(r"^(?P<mark>\*\*|==)?(?P<term>[A-ZÄÖÜ][^:()\n*=`]{1,50}?)(?(mark)(?P=mark))"
                             r"(?P<gloss> \([^()\n]{2,60}\))?:\s+(?P<def>[A-ZÄÖÜ].{15,}[.!])$")
_KEYS = {"enter", "eingabe", "return", "escape", "esc", "tab", "space", "leertaste", "backspace", "delete", "entf",
         "alt", "shift", "umschalt", "ctrl", "strg", "cmd", "option", "up", "down", "left", "right", "home", "end",
         "pos1", "ende", "page up", "page down", "bild auf", "bild ab", "f1", "f2", "f11", "f12"}
_TASK_RE = re.compile(r"^\[[ xX]\]\s+")  # a list item's box: the student's task, planning and no fact
_CLAUSE_WORDS = {"that", "which", "who", "your", "you", "we", "they", "it", "dass", "du", "dein", "deine", "deinen",
                 "wir", "ihr", "sie", "es", "man"}  # a "term" holding these is a clause, not a name
_UNFINISHED_RE = re.compile(r"(?:,|\b(?:or|and|oder|und|but|aber))\s*$")
MIN_DEFINITION_WORDS = 3
MAX_STEPS = 10  # a numbered list longer than this is no card's back
MAX_STEPS_CHARS = 600
MAX_ANSWER_CHARS = 400  # a Q/A pair's answer longer than this is an essay, not a card's back
MAX_RECORD_CHARS = 300  # a table row's cells on one card's back, at most
# a list item or line naming what a formula below or beside it gives: "spring: $$E_{sp} = …$$"
_FORMULA_ITEM_RE = re.compile("^(?P<term>[^\ue000:]{2,60}?):?\\s+(?P<formula>\ue000\\d+\ue001)$")


@dataclass(frozen=True, slots=True)
class Fact:
    kind: str  # definition | called | item | row | record | bold | code | example | heading | label | faq | step
    #          | vocab | formula | task
    term: str  # Markdown as the note shows it (code spans verbatim)
    definition: str  # the answer side: what the term is, its description, the section's first sentence
    sentence: str  # the whole sentence, item or row the fact came from (Markdown)
    cloze: str  # the sentence with the term marked ==term== ("" when that is not possible)
    verb: str  # the defining verb as written: is / was / refers to / ist / war / versteht man … ("" when none)
    source: Source
    lang: str
    form: str = "term"  # shortcut | code | setting | heading | question | law | term: what kind of thing the term is
    context: str = ""  # the heading the fact sits under
    column: str = ""  # for a table row: the header of the answer's column
    answer_form: str = "text"  # the same kinds, for the definition side (a row's cell, an item's description)
    situated: bool = False  # a definition inside a paragraph, not its first sentence: it holds within its section
    in_order: bool = False  # the answer is a numbered list's steps in their order: a fact beside each step's
    list_items: tuple[str, ...] = ()  # a section opening with a list its answer shows whole: the list's items
    frame: str = ""  # a list item under a short label line ("Merklieder:"): the label, which frames its question
    nested: bool = False  # a list item under another item: its heading does not say what kind of item it is
    # a cell of a two-way comparison ("| | TCP | UDP |", a row per aspect): the other rows' cells answer other
    # aspects, no wrong option for this one
    compared: bool = False
    listed: bool = False  # read from a list item: a fragment ("**720 MEPs** since the 2024 election") whose section
    #                       names what it is about
    # a list item whose label structures its list ("Spannung:" in a plot, "Verfassung:" among a state's aspects):
    # no term, asked as that aspect of its section
    structural: bool = False
    # a list item whose description is a statement of its own about the label ("Maldives: most islands sit …"): the
    # card asks for the label plainly ("Maldives?"), not what it means; a quiz may still ask which label it is about
    stated: bool = False

    @property
    def german(self) -> bool:
        return self.lang == "de"

    @property
    def names_its_note(self) -> bool:
        """The term is the note's own name, article aside ("The French Revolution" in "French Revolution")."""
        return bare_name(plain(self.term)) == bare_name(self.source.title)


# -- reading inline content -------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Inline:
    """Inline content as a student reads it, with code spans shielded as placeholders for pattern matching."""

    text: str  # links as display text, comments and icons gone, code spans as \ue000N\ue001, embeds and HTML as GAP
    codes: tuple[str, ...]  # the code spans, verbatim with their backticks
    html: bool  # raw inline HTML was there (a sentence holding it never becomes a card)
    embed: bool  # an embed was there (its content is not in this text)

    def restore(self, text: str) -> str:
        return _PLACEHOLDER_RE.sub(lambda m: self.codes[int(m.group(1))], text)


def read_inline(content: str) -> Inline:
    """Inline content read as Obsidian shows it (see :class:`Inline`); a block id ending it (``^id``) is hidden."""
    content = _BLOCK_ID_RE.sub("", content)
    pieces: list[str] = []
    codes: list[str] = []
    html = embed = False
    pos = 0
    for piece in _with_formulas(content, inline_pieces(content)):
        if piece.start < pos:
            continue  # nested in a link label already read
        pieces.append(content[pos:piece.start])
        pos = piece.end
        if piece.kind in ("code", "math"):  # atoms: shielded from every pattern, restored byte for byte
            pieces.append(f"\ue000{len(codes)}\ue001")
            codes.append(content[piece.start:piece.end])
        elif piece.kind == "mdlink":  # its label may hold code, HTML, emphasis
            label = read_inline(piece.text)
            html, embed = html or label.html, embed or label.embed
            pieces.append(_PLACEHOLDER_RE.sub(lambda m: f"\ue000{len(codes) + int(m.group(1))}\ue001", label.text))
            codes.extend(label.codes)
        elif piece.kind == "wikilink":
            pieces.append(piece.text.replace("*", "\\*"))
        elif piece.kind in ("embed", "image") and _ICON_RE.fullmatch(content, piece.start, piece.end):
            pieces.append("\ue005")  # an icon: nothing to read, and no space left before the punctuation after it
        elif piece.kind in ("embed", "image"):
            pieces.append(GAP)
            embed = True
        elif piece.kind == "html":
            pieces.append(GAP)
            html = True
        elif piece.kind in ("tag", "escape", "autolink"):
            pieces.append(content[piece.start:piece.end])  # as written: a tag stays in its sentence
    pieces.append(content[pos:])
    text = re.sub("\\s*\ue005(?=[.,;:!?)])|\ue005", "", "".join(pieces))
    return Inline(" ".join(text.split()), tuple(codes), html, embed)


def _with_formulas(content: str, pieces: list[InlinePiece]) -> list[InlinePiece]:
    """The inline pieces with each formula (``$…$``, ``$$…$$``) as one piece of its own: an escape inside it
    (``1\\,\\text{J}``) is part of it, a formula overlapping a link or code span is none."""
    formulas = [InlinePiece("math", start, end, content[start:end]) for start, end in math_spans(content)
                if not any(p.start < end and start < p.end and p.kind != "escape" for p in pieces)]
    if not formulas:
        return pieces
    kept = [p for p in pieces if not any(f.start <= p.start and p.end <= f.end for f in formulas)]
    return sorted([*kept, *formulas], key=lambda piece: piece.start)


def plain(text: str) -> str:
    """Markdown emphasis removed in pairs, as Obsidian shows it (code spans, formulas and everything else kept,
    byte for byte: only the whitespace between them is made single)."""
    atoms: list[str] = []
    pieces, pos = [], 0
    for start, end in atom_spans(text):
        pieces.append(text[pos:start] + f"\ue002{len(atoms)}\ue003")  # not \ue000: read_inline's placeholders
        atoms.append(text[start:end])
        pos = end
    shielded = "".join(pieces) + text[pos:]
    for pattern in _EMPHASIS_RES:
        shielded = pattern.sub(r"\1", shielded)
    return re.sub("\ue002(\\d+)\ue003", lambda m: atoms[int(m.group(1))], " ".join(shielded.split()))


def unbold(text: str) -> str:
    """Bold marks gone, code spans and formulas kept byte for byte (`*args, **kwargs` stays as written)."""
    pieces, pos = [], 0
    for start, end in [*atom_spans(text), (len(text), len(text))]:
        pieces += [text[pos:start].replace("**", "").replace("__", ""), text[start:end]]
        pos = end
    return "".join(pieces)


_EQUATION_OPENING_RE = re.compile(r"[^\W\d_]\w{0,3}\s*[=<>≈≤≥]")  # "k = 1 / (1 − MPC)": a symbol keeps its case


def _finish(text: str) -> str:
    text = text.strip().rstrip(",;:")
    if not text:
        return text
    first = text.split()[0]
    own_case = "." not in first and any(ch.isupper() for ch in first[1:])  # "pH = 7", "mRNA …"; "z.B." is no name
    if text[0].islower() and not text.startswith("\ue000") and not own_case and not _EQUATION_OPENING_RE.match(text):
        text = text[0].upper() + text[1:]
    ended = text.rstrip("\"“”„'’»«")  # a quotation ends at its own full stop: '"… into the past."'
    return text if ended[-1:] in tuple(".!?)`…$") or text.endswith("\ue001") else text + "."


def form_of(term: str) -> str:
    """What kind of thing a term is, for wrong options of the same kind."""
    bare = term.strip()
    if re.fullmatch(r"`[^`]+`", bare):
        inner = bare.strip("` ")
        if _SHORTCUT_RE.match(inner) or inner.casefold() in _KEYS:
            return "shortcut"
        return "code" if re.search(r"\w", inner) else "symbol"  # `#`, `>`, `- `: Markdown's own marks
    if _SHORTCUT_RE.match(plain(bare).replace("`", "")):
        return "shortcut"
    if re.fullmatch(r"\*\*[^*]+\*\*", bare):
        return "setting"
    if re.search(r"\d", bare) and len(re.findall(r"\d", bare)) * 3 >= len(re.sub(r"\W", "", bare)):
        return "number"  # a date, a year, a version, an amount
    if re.fullmatch(r"[^\W\d_]{2,6}", bare) and sum(ch.isupper() for ch in bare) >= 2:
        return "abbreviation"  # "BGA", "aLuL": no wrong option beside "das GuV-Konto"
    return "term"


# -- the blocks of a passage ----------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Block:
    kind: str  # paragraph | item | table | code | heading
    content: str  # raw inline content (a table: its lines, code: its text)
    heading: str  # the heading this block sits under ("" before any)
    lead: str  # an item: the paragraph introducing its list, or the item it is nested in
    first: bool  # the block is the first text of its section
    ordered: bool = False  # an item of a numbered list (steps in their order)


def _section_heading(source: Source) -> str:
    path = [h for h in source.heading_path if h]
    if path and path[0].casefold() == source.title.casefold():
        path = path[1:]
    return path[-1] if path else ""


def cited_under(source: Source, heading: str, written: str) -> Source:
    """The passage as a fact under ``heading`` cites it: a passage that took in small sections (``## Complexity``
    after ``## Slicing``) cites each fact at the section it sits in, so the link opens there; text before any
    heading in a passage that starts with such sections is the note's opening and cites the note. ``written``
    is the heading as the note writes it (the link's target); the passage itself is the same."""
    path = tuple(source.heading_path)
    titled = bool(path) and path[0].casefold() == source.title.casefold()
    if plain(heading).casefold() == plain(_section_heading(source)).casefold():
        return source
    if not heading:
        cited = path[:1] if titled else ()
    else:
        shown = [plain(read_inline(h).text).casefold() for h in path]
        key = plain(heading).casefold()
        cited = path[:shown.index(key) + 1] if key in shown else \
            (*(path[:-1] if _section_heading(source) else path), written)
    return replace(source, heading_path=cited)


def _flat(text: str) -> str:
    return " ".join(text.split()).casefold()


_STAMPED_LINE_RE = re.compile(rf"^[*_]*{TIMESTAMP_RE.pattern}")


def _one_entry_a_line(lines: list[str]) -> bool:
    """Lines of a paragraph that each stand alone: a transcript's timestamped lines, a glossary's entries, each
    described in a phrase ("**Recommended systems**: `iOS`" over "**Requires**: [[#Git]]" are a section's labels)."""
    entries = [_BOLD_ITEM_RE.match(line) or _EQUATED_LINE_RE.match(line) for line in lines]
    return len(lines) >= 2 and (all(_STAMPED_LINE_RE.match(line) for line in lines) or all(
        entry is not None and len(plain(entry.group("def")).split()) >= MIN_DEFINITION_WORDS for entry in entries))


BELOW_ANY_HEADING = 7  # a heading level deeper than Markdown's six


def blocks_of(source: Source) -> list[Block]:
    """Paragraphs, list items (first paragraph), tables, code blocks and headings of a passage, in order.

    Left out: text that only shows what a code block above it in the same section renders to (a note on
    Markdown writes the list ``- Second list item`` as code, then the rendered list: an example, not a
    fact), and, in a later part of a long section, the sentence the part starts in the middle of."""
    tokens = block_tokens(source.text)
    blocks: list[Block] = []
    heading = owner = _section_heading(source)
    owner_shown = any(index and token.type == "inline" and tokens[index - 1].type == "heading_open"
                      and plain(read_inline(token.content).text) == plain(owner) for index, token in enumerate(tokens))
    if owner_shown:
        heading = ""  # small sections were carried in front of its heading line: text before any is the note's opening
    first = True
    last_paragraph = ""
    depth_items = 0
    open_items: list[str] = []  # the first paragraph of each enclosing list item
    numbered: list[bool] = []  # per enclosing list: whether it is a numbered one
    in_heading = False
    item_taken = False
    callout_title_pending = False
    section_code: list[str] = []  # the code blocks of the current section, flattened
    cut_start = source.continues_section
    # the course's planning ("## Klausuren", "> [!todo] Diese Woche"): the heading level of a planning section the
    # passage is in (below any heading's when it starts inside one, of a level unknown here: the next heading ends it),
    # and how deep in a planning callout
    planning_level = BELOW_ANY_HEADING if any(names_planning(h) for h in source.heading_path if h) else 0
    planning_quotes = quotes = 0
    for index, token in enumerate(tokens):
        kind = token.type
        if kind == "heading_open":
            in_heading = True
            section_code = []
            level = int(token.tag[1:])
            following = tokens[index + 1] if index + 1 < len(tokens) else None
            if planning_level and level <= planning_level:
                planning_level = 0
            if not planning_level and following is not None and names_planning(following.content):
                planning_level = level
        elif kind == "heading_close":
            in_heading = False
        elif kind in ("ordered_list_open", "bullet_list_open"):
            numbered.append(kind == "ordered_list_open")
        elif kind in ("ordered_list_close", "bullet_list_close"):
            numbered.pop()
        elif kind == "list_item_open":
            depth_items += 1
            item_taken = False
        elif kind == "list_item_close":
            depth_items -= 1
            del open_items[depth_items + 1:]
            item_taken = True
        elif kind == "blockquote_open":
            following = tokens[index + 2] if index + 2 < len(tokens) else None
            callout_title_pending = bool(following is not None and following.type == "inline"
                                         and following.content.startswith("[!"))
            quotes += 1
            if not planning_quotes and callout_title_pending and following is not None \
                    and opens_planning_callout("> " + following.content.split("\n", 1)[0]):
                planning_quotes = quotes
        elif kind == "blockquote_close":
            if planning_quotes == quotes:
                planning_quotes = 0
            quotes -= 1
        elif kind in ("fence", "code_block"):
            blocks.append(Block("code", token.content, heading, "", first))
            section_code.append(_flat(token.content))
            first = cut_start = False
        elif kind == "inline":
            content = token.content
            if in_heading:
                inline = read_inline(content)
                heading = inline.restore(inline.text)
                blocks.append(Block("heading", content, heading, "", False))
                first = True
                continue
            if planning_level or planning_quotes:
                callout_title_pending = False
                continue  # "- OC: 12.02., 120 min" under "## Klausuren": the student's planning, nothing to learn
            if callout_title_pending:
                callout_title_pending = False
                title, _, content = content.partition("\n")
                if asks_about_course(title):
                    continue  # "> [!question] Kommt das in der Hausarbeit dran?": the student's, and so is its body
                asked = _QUESTION_CALLOUT_RE.match(title)
                if asked and content.strip():
                    # "> [!question] Why …?" over its answer: the note's question and answer, as "**Why …?**" over a
                    # paragraph would be (the answer may open with an arrow: "> → because …")
                    content = f"**{asked.group('question')}**\n{_LEADING_ARROW_RE.sub('', content)}"
                if not content.strip():
                    continue
            if not blocks and source.opens_note and source.text.startswith(content.split("\n", 1)[0]):
                lead_line = content.split("\n", 1)[0]
                if lead_line.startswith("Aliases: "):
                    content = content.split("\n", 1)[1] if "\n" in content else ""
                else:
                    rest = content.split("\n", 1)[1] if "\n" in content else ""
                    lead_line = _ALIASES_TAIL_RE.sub("", lead_line)
                    content = f"{lead_line}\n{rest}" if rest else lead_line
                    if rest[:1].isupper() and not re.search(r"[.!?:]\W*$", lead_line) \
                            and len(lead_line.split()) >= 4 and not source.continues_section:
                        # the frontmatter's description line, set before the note's first paragraph: its own
                        blocks.append(Block("paragraph", lead_line, heading, "", first))
                        first, content = False, rest
                if not content.strip():
                    continue
            rendered_example = any(_flat(content) in code for code in section_code)
            started_before = cut_start and not content.lstrip()[:1].isupper()
            cut_start = False
            task = bool(depth_items) and _TASK_RE.match(content) is not None  # "- [ ] redo the Z-scheme drawing"
            if rendered_example or started_before or task:
                if depth_items and not item_taken:  # its nested items still know their parent
                    del open_items[depth_items - 1:]
                    open_items.append(content)
                    item_taken = True
                continue
            if any(asks_about_course(line) for line in content.split("\n")):  # "Hausarbeit bis 15.7.?"
                # a line closing with the student's aside on the course keeps what it says before it ("Q: Explain
                # why … (ask tutor – exam?)")
                said = (without_own_aside(line) if asks_about_course(line) else line for line in content.split("\n"))
                content = "\n".join(line for line in said if not asks_about_course(line))
                if not content.strip():
                    continue
            lines = [line.strip() for line in content.split("\n") if line.strip()]
            if lines and all(is_bookkeeping_line(line) or states_its_purpose(line) for line in lines):
                continue  # "Stand: 12.01.2025", "#uni/ws25 #exam", "Needed for the lab!": the student's filing
            if len(lines) >= 2 and all(line.startswith("|") for line in lines):
                blocks.append(Block("table", content, heading, "", first))
            elif depth_items and not item_taken:
                del open_items[depth_items - 1:]
                parent = open_items[-1] if open_items else last_paragraph
                blocks.append(Block("item", content, heading, parent, first, ordered=bool(numbered and numbered[-1])))
                open_items.append(content)
                item_taken = True
            elif not depth_items and _one_entry_a_line(lines) and qa_pair(content) is None:
                # "[02:10] So the protostar …", "**Chymus** – Speisebrei …" a line each, no blank line between: each
                # line is said apart (a glossary's next entry is no part of this one's meaning)
                for number, line in enumerate(lines):
                    blocks.append(Block("paragraph", line, heading, "", first and not number))
                last_paragraph = lines[-1]
            elif not depth_items:
                blocks.append(Block("paragraph", content, heading, "", first))
                last_paragraph = content
            first = False
    # "**Def.** Die Distanz … ist …", "Def.: Notwehr ist …": the sentence after a label naming no term, read as any
    # other (a label naming its term, "Def. Heimtücke: …", is read with it)
    return [replace(block, content=labelled[1]) if block.kind in ("item", "paragraph")
            and (labelled := labelled_definition(block.content)) is not None and not labelled[0] else block
            for block in blocks]


def sentences(text: str) -> list[str]:
    return [unshield(s).strip() for s in _SENTENCE_SPLIT_RE.split(shield(text)) if len(s.strip()) >= 8]


# -- the shapes -------------------------------------------------------------------------
def _glossed(term: str, rest: str, lang: str) -> str:
    """The key term with the gloss that follows it in the sentence ("hedonic calculus (hedonistisches Kalkül)"): a
    cloze leaving the gloss beside its gap would show the answer in other words. A one-word remark ("(Windows)",
    "(Portugal)") is a gloss only as an abbreviation with two of the term's initials."""
    found = _GLOSS_RE.match(rest)
    gloss = found.group("gloss").strip() if found else ""
    words = gloss.split()
    if not words or len(words) > _GLOSS_WORDS or words[0].casefold() in _QUALIFIERS.get(lang, frozenset()):
        return term
    if len(words) == 1:
        initials = "".join(word[0].upper() for word in plain(term).split())
        capitals = "".join(ch for ch in gloss if ch.isupper())
        # "ECA" for "Court of Auditors", "CoR": mostly capitals, two or more of them the term's initials in order
        # ("OneDrive" after "Always keep on this device" is a name)
        if not gloss[0].isupper() or not gloss.isalpha() or len(gloss) > 2 * len(capitals) \
                or _common_subsequence(capitals, initials) < 2:
            return term
    return f"{term} ({gloss})"


def _common_subsequence(first: str, second: str) -> int:
    """The length of the longest sequence of letters both strings hold in the same order."""
    lengths = [0] * (len(second) + 1)
    for char in first:
        previous = 0
        for index, other in enumerate(second, 1):
            previous, lengths[index] = lengths[index], (previous + 1 if char == other
                                                        else max(lengths[index], lengths[index - 1]))
    return lengths[-1]


def _term_ok(term: str, german: bool, max_words: int = 6) -> bool:
    words = plain(term).split()
    if not words or len(words) > max_words or len(term) > 80 or len(plain(term)) < 2:
        return False
    if _opens_with(words, _PRONOUNS if german else _PRONOUNS - _ENGLISH_ARTICLES):
        return False
    if unicodedata.category(term[:1]) == "So":
        return False  # "⚠️ im Deutschen: …": a warning sign labels the line
    if not re.search(r"[A-Za-zÄÖÜäöüß0-9\ue000]", term) or term.endswith((",", ";")) \
            or any(arrow in term for arrow in _ARROWS):
        return False  # "client → server", "bottom → up": a direction, not a term
    if term.count("(") != term.count(")") or term.count("**") % 2 or "==" in term:
        return False
    if any(word.casefold() in _DEICTIC or word.casefold() in _CLAUSE_WORDS for word in words) \
            or plain(term).casefold() in _COLON_STOP or is_bookkeeping_term(plain(term)):
        return False  # "the examples above" points elsewhere; "Q", "Bsp.", "Klausur" label a line
    if when(term, german) is not None:
        return True  # "776 v. Chr.", "c. 3100 BC": a date's abbreviations end no clause
    return not re.search(r"[.!?;:]", _PLACEHOLDER_RE.sub("", term).rstrip(")"))


_CLOSING_QUOTES = {"\"": "\"“”", "“": "”“", "„": "“”\"", "”": "”", "'": "'’", "‘": "’", "»": "«", "«": "»"}


def _unquoted(term: str) -> str:
    """A term without the quotation marks around it ("„Kettenstart“" → "Kettenstart"); a quotation that ends
    before the term does ("„Impression, soleil levant“ (1872)") keeps both of its marks."""
    while len(term) >= 2 and term[-1] in _CLOSING_QUOTES.get(term[0], ()) \
            and not any(mark in term[1:-1] for mark in "\"“”„«»"):  # "“a” and “b”": two quotations
        term = term[1:-1].strip()
    return term


def _opens_with(words: list[str], pronouns: set[str]) -> bool:
    """Whether the first of ``words`` is one of ``pronouns``, where "das" before a noun is the article."""
    first = words[0].casefold().strip("\"“„(,.;:")
    if first in _ARTICLE_PRONOUNS and len(words) > 1 and words[1].strip("\"“„(")[:1].isupper():
        return False
    return first in pronouns


def _points_elsewhere(meaning: str) -> bool:
    """A definition naming something of the sentences around it ("a graph that shows this relationship", "the
    steps below", "one consequence of it", "the classic example, although …"): read alone on a card, it does not say
    what the term is."""
    words = [word.casefold().strip(",.;:()") for word in plain(meaning).split()]
    example = _EXAMPLE_OF_NOTHING_RE.match(plain(meaning))
    return any(word in _DEMONSTRATIVES | _DEICTIC for word in words) or bool(words) and words[-1] in _ENDING_BACK \
        or (example is not None and is_label(example.group("noun")))


# "the classic example, although …", "ein typisches Beispiel.": an example of what the lecture was just on
_EXAMPLE_OF_NOTHING_RE = re.compile(r"^(?:\w+\s+)?(?:\w+\s+)?(?P<noun>\w+)\s*(?:[,;.]|$)")


def _only_pronouns(term: str, lang: str) -> bool:
    """A definition's subject that is only an article or a pronoun ("Die ist eigentlich eine Legemaschine", "Das ist
    die natürliche Vermehrung"): what it stands for was said before, "Was ist Die?" asks nothing."""
    words = [word.casefold() for word in term.split()]
    return all(word in _PRONOUNS or word in WORDS[lang].articles for word in words)


def _names_a_value(meaning: str, lang: str) -> bool:
    """What a bare noun is said to be, when that is a code or a model ("APS-C", "ein XF 35mm"), or in English a name
    ("Fujifilm, based in Tokyo"): a value, no description."""
    words = meaning.split()
    if words and words[0].casefold() in WORDS[lang].articles and lang == "de":
        words = words[1:]
    return opens_with_symbol(" ".join(words)) or (lang != "de" and bool(words) and words[0][:1].isupper()
                                                  and identifies(meaning))


_BARE_NOUN_RE = re.compile(r"[A-ZÄÖÜ][^\W\d_]+")  # a German noun without its article ("Sensor", "Anbieter")
_ENDING_BACK = {"it", "them", "ihm", "ihn", "ihr", "ihnen", "davon", "daraus", "dafür", "dazu", "damit", "daran"}


_CLAUSE_END_RE = re.compile(r"\s*(?:[,;:]|\s[–—-]\s)")


def _defines(definition: str, verb: str, german: bool, spoken: bool = False) -> bool:
    """"X is a/the …" names what X is; "X is tied to …", "X sind davon nicht betroffen" only say something about
    it. A definition starts with an article or a noun (a plural noun after "are"/"were"; after "bezeichnet" or
    "versteht man" also "den"). ``spoken``: a lecturer drops the article ("blood pressure is cardiac output times
    total peripheral resistance"), so an English noun in lower case opens one too (not a participle or an adverb,
    nor a lone word before the clause ends: "France is bankrupt — …", "the king is moving troops …" say how X is)."""
    first = definition.split()[0].strip(",") if definition.split() else ""
    # "The Sun is about 4.6 billion years old", "Iron is the end, because fusing iron …"
    if gives_an_estimate(definition, "de" if german else "en") or gives_a_reason(definition, "de" if german else "en"):
        return False
    if german:
        return opens_definition(definition, verb, "de")
    if first.casefold() in _PARTICIPLES or (first.endswith("ed") and len(first) >= 4):
        return False
    if spoken and first.isalpha() and first.islower() and not first.endswith(("ly", "ing")) \
            and first not in _PRONOUNS | _DEICTIC | {"not", "very", "really", "quite", "much", "too", "so"} \
            and len(_CLAUSE_END_RE.split(definition, maxsplit=1)[0].split()) >= 2:
        return True
    return opens_definition(definition, verb, "en") or (verb in ("are", "were") and first.endswith("s")
                                                       and len(first) > 3)


def _names_who(term: str, meaning: str, verb: str, german: bool) -> bool:
    """"The key figure is Metternich, the Austrian foreign minister, …": a role with nothing it is of, filled by a
    name, says who someone is; "What is the key figure?" asks about no term of the note (of what?). English only:
    German capitalises every noun, so a name does not show."""
    words = term.split()
    first = meaning.split()[0].strip(",;") if meaning.split() else ""
    return not german and verb in ("is", "was") and 2 <= len(words) <= 4 and words[0].casefold() == "the" \
        and all(word.isalpha() and word.islower() and word not in _ROLE_QUALIFIERS for word in words[1:]) \
        and first[:1].isupper() and first.isalpha() and not opens_definition(first.casefold(), verb, "en")


_ROLE_QUALIFIERS = {"of", "for", "in", "on", "at", "to"}  # "the capital of France": the role says whose it is


def mark_term(sentence: str, term: str) -> str:
    """The sentence with the first occurrence of ``term`` as a cloze ``==term==`` ("" when absent or in code)."""
    index = sentence.find(term)
    if index < 0 or not term.strip() or "==" in sentence:
        return ""
    return f"{sentence[:index]}=={term}=={sentence[index + len(term):]}"


COORDINATION_RE = r"\s*(?:,|;|&|\band\b|\bor\b|\bund\b|\boder\b|\bsowie\b)\s*"
_SIBLING_AFTER_RE = re.compile(rf"^{COORDINATION_RE}(?:`|\*\*)")  # "`@staticmethod`, `@classmethod` (…)"
_SIBLING_BEFORE_RE = re.compile(rf"(?:`|\*\*){COORDINATION_RE}$")
_NAME_WORD_RE = re.compile(r"\w{3,}")


def fair_gap(sentence: str, term: str) -> bool:
    """Whether a cloze hiding ``term`` in ``sentence`` can be filled from what the sentence shows, and only so: not
    where the rest shows the term's words again ("==`@my_decorator`== … is sugar for `f = my_decorator(f)`"), where
    the term is one of code spans or bold terms named side by side with nothing said of it alone ("==`@staticmethod`==,
    `@classmethod` (gets cls …)"), or where the sentence goes on from a line above ("= `f = a(b(f))` → …")."""
    index = sentence.find(term)
    if index < 0:
        return True
    before, after = sentence[:index], sentence[index + len(term):]
    if _SIBLING_AFTER_RE.match(after) or _SIBLING_BEFORE_RE.search(before):
        return False
    if plain(before).lstrip().startswith(("=", *_ARROWS)):
        return False
    words = _NAME_WORD_RE.findall(term.strip("`*"))
    return not (words and all(re.search(rf"(?<!\w){re.escape(word)}(?!\w)", before + after, re.IGNORECASE)
                              for word in words))


def blank_term(sentence: str, term: str, filler: str = "____") -> str:
    """The sentence with the first occurrence of ``term`` replaced by ``filler`` ("" when absent)."""
    index = sentence.find(term)
    if index < 0 or not term.strip():
        return ""
    return f"{sentence[:index]}{filler}{sentence[index + len(term):]}"


_EXAMPLE_MARKER_RE = re.compile(r"(?:\bsuch as|\blike|\be\.\s?g\.|\bfor (?:example|instance)|\bincluding|\bz\.\s?B\.|"
                                r"\bwie|\betwa|\bbeispielsweise|\bzum Beispiel)[\s,:]*$", re.IGNORECASE)
# the examples already listed before a term ("such as `a`, `b` or …"): the term is one more
_LISTED_BEFORE_RE = re.compile(r"(?:(?:\ue000\d+\ue001|\*\*[^*]+\*\*)\s*(?:,|\band\b|\bor\b|\bund\b|\boder\b)\s*)+$")
_WORDLIKE_RE = re.compile(r"[^\W\d_]{2}|[^\W\d_]_\{?[^\W\d_]")  # a word, or a quantity's symbol ("K_M", "E_{a}")
_NEXT_CLAUSE_RE = re.compile(r",\s+(?!(?:which|that|who|whose|where|when|and|but|or|so|der|die|das|welche[rsmn]?|wo|"
                             r"wenn|dass|und|aber|oder|also)\b)[^\s,;:]+(?:\s+[^\s,;:]+){0,3}\s+"
                             r"(?:is|are|was|were|ist|sind|war|waren)\s")
_TAGS_AFTER_RE = re.compile(r"(?<=[.!?])(?:\s+#[^\s#]+)+$")  # tags after a sentence's end: not part of it
_TERM_REMARK_RE = re.compile(r"\s*\([^()]*\)$")  # "The French Revolution (1789–1799)": the term is before it
_SPACED_DASH_RE = re.compile(r"\s[—–]\s")  # "Yes — the question was whether …": two clauses, no term
_ASKED_FIRST_RE = re.compile(r"^(?P<question>[^?→\n]{2,120}\?)\s*(?:→|->|=>)\s*(?P<answer>\S.{2,})$")


def _short_term(raw: str) -> str:
    """The term of "... are called **grana** (singular granum) and are ..." → 'grana'."""
    bold = _BOLD_RE.search(raw)
    if bold:
        return bold.group(1).strip()
    cut = re.split(r"\s*(?:[,;(.]|\s(?:and|or|und|oder|which|that)\s)", raw, maxsplit=1)[0]
    return cut.strip().rstrip(".")


def _holds_a_number(text: str) -> bool:
    """A digit outside the text's formulas and code spans ("2 mA", "p* = 30"), not inside one ("$U_{out}$")."""
    spans = atom_spans(text)
    return any(char.isdigit() and not any(start <= index < end for start, end in spans)
               for index, char in enumerate(text))


def _marked(sentence: str, term: str) -> bool:
    """The term's noun in bold or highlighted in the sentence ("Die **Kapazität** ist …"): the student's own term."""
    noun = re.escape(term.split()[-1])
    return re.search(rf"(?:\*\*|==){noun}(?:\*\*|==)", sentence) is not None


def _table_rows(content: str) -> tuple[list[str], list[list[str]]]:
    """(header cells, body rows) of a pipe table; empty when it is not one."""
    rows = []
    for line in content.split("\n"):
        line = line.strip()
        if not line.startswith("|"):
            continue
        cells = [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line.strip("|"))]  # "\|ε\|": |ε|
        rows.append(cells)
    if len(rows) < 3 or not all(re.fullmatch(r":?-{2,}:?", c.replace(" ", "")) for c in rows[1] if c):
        return [], []
    return rows[0], [r for r in rows[2:] if len(r) == len(rows[0])]


_EMPTY_CELL_RE = re.compile(r"[-–—?/.]+|n/?a|k\.\s?a\.", re.IGNORECASE)
_NUMBERS_RE = re.compile(r"[-+−–]?\d[\d\s.,;:/()%+−–-]*")  # "10, 0", "(5, 5)", "3", "-2": numbers alone


_KEY_COLUMN_RE = re.compile(r"[^\W\d_]{3,}(?: [^\W\d_]{3,})?")  # "Vitamin", "Blood group": not "Nr", "#"


def _keyed(key: str, column: str) -> str:
    """A row's key of one letter or digit read with its column's header ("C" under "Vitamin" is "Vitamin C", "2"
    under "Phase" is "Phase 2"): alone, "“C” – Deficiency disease?" names nothing a student could learn."""
    bare, named = plain(key).strip(), plain(column).strip()
    return f"{named} {bare}" if len(bare) == 1 and bare.isalnum() and _KEY_COLUMN_RE.fullmatch(named) else key


def _number_grid(header: list[str], rows: list[list[str]]) -> bool:
    """A grid of numbers (a payoff matrix "| | B silent | B confesses |" over "| A silent | 1, 1 | 10, 0 |", rounds
    "| Round | 1 | 2 | 3 |"): its cells are only numbers, and neither its header nor its cells say what each number
    is (the corner is empty, or the header counts too), so a row's card would be cryptic. "| Office | Minimum age |
    Number |" names what its numbers are."""
    cells = [cell for row in rows for cell in row[1:] if cell and not _EMPTY_CELL_RE.fullmatch(cell)]
    if not cells or not all(_NUMBERS_RE.fullmatch(cell) for cell in cells):
        return False
    return not header[0].strip() or all(_NUMBERS_RE.fullmatch(cell) for cell in header[1:] if cell)


def facts_of(source: Source, lang: str | None = None) -> tuple[Fact, ...]:
    """Every fact the shapes find in one passage, in text order (read once per passage: nearby notes' passages
    are read for every quiz, under a different prompt number each time)."""
    return _facts_of(replace(source, number=0), lang or source.lang or "en")


@lru_cache(maxsize=8192)
def _facts_of(source: Source, lang: str) -> tuple[Fact, ...]:
    german = lang == "de"
    found: list[Fact] = []
    seen_terms: set[str] = set()

    def add(kind: str, term: str, definition: str, sentence: str, verb: str, heading: str, *,
            column: str = "", form: str | None = None, answer_form: str = "text", situated: bool = False,
            in_order: bool = False, list_items: tuple[str, ...] = (), frame: str = "", nested: bool = False,
            compared: bool = False, listed: bool = False) -> None:
        """Record a fact; every text is Markdown with its code spans restored."""
        term = term.strip() if kind in ("code", "example", "step", "faq", "label") \
            else _unquoted(term.strip())  # a term in quotes; a step or question keeps its quotes
        # a table cell is not a sentence: "3", "Chloroplast" stay as the table shows them (no "3.")
        if kind in _LEANING_KINDS and definition.rstrip().endswith(_ARROWS):
            return  # "approves all EP amendments → adopted; otherwise →": it goes on in the next line
        definition = definition[:question_tail(definition)].rstrip(" →–-(")  # "… very inefficient → why?"
        definition = definition[:course_aside_start(definition)]  # "… → ask in the tutorial"
        chatted = chatter_start(definition)  # "… = diminished. ok makes sense": the student's aside is no fact
        if chatted is None or (kind in _LEANING_KINDS and leans_on_note(definition)) \
                or (kind == "item" and leans_on_note(term)):
            return  # "lol", "umgekehrt (bei uns)", "the other way round", "same with the courts: …": nothing a card
            #         could teach alone
        definition = definition[:chatted].rstrip(" →–-(")
        sentence = sentence[:chatter_start(sentence) or len(sentence)].rstrip(" →–-(")
        definition = definition.strip() if kind in ("row", "record", "vocab", "formula") else _finish(definition)
        sentence = _finish(sentence)
        if GAP in term + definition + sentence:
            return  # an embed or raw HTML stood there: the text is not what Obsidian shows
        if kind not in ("formula", "code", "example", "vocab") and (
                works_out(sentence) or (names_worked_example(heading) and _holds_a_number(definition))):
            return  # "df = n − 1 = 24", "n: 30" under "Worked example": the values of one exercise, not the subject's
        if kind == "item" and (names_a_quality(plain(term))
                               or subject_then_verb(_OUTSIDE_REMARKS_RE.sub("", plain(term)), lang)):
            return  # "fast: minutes–hours, no memory": "fast?" asks nothing, "fast" is no term to choose; "Merton
            #         (1938) greift Anomie auf: Diskrepanz …" is a statement, "… greift Anomie auf?" no question
        if kind == "item" and month_alone(plain(term)):
            return  # "Nov: Hitlerputsch" under a year a line above: "Nov?" asks no year
        if kind not in _VERBATIM_KINDS and kind != "step" \
                and (ends_open(definition, lang) or ends_open(sentence, lang)):
            return  # "… an eigenvector of $A$ if.": cut mid-clause, it says something else
        if kind in ("code", "example"):
            if len(term) > 80 or "==" in term or "::" in term:
                return
        elif kind in ("heading", "faq", "label", "step", "vocab", "formula", "task"):  # the author's words: any wording
            if not plain(term) or len(plain(term).split()) > (12 if kind == "heading" else 30):
                return
        elif not _term_ok(term, german) or len(plain(definition)) < (1 if kind == "row" else 2):  # a cell may be "3"
            return
        key = f"{kind}:{column if kind in ('step', 'row') else ''}:{plain(term).casefold()}"  # once per list/column
        if key in seen_terms:
            return
        seen_terms.add(key)
        shown = unbold(term)
        said = unbold(sentence)
        if kind in CLOZE_KINDS and not said.startswith(shown) and said.startswith(shown[:1].upper() + shown[1:]):
            shown = shown[:1].upper() + shown[1:]  # "==iron fusion …== → …" opens its item: the card opens capitalised
        cited = cited_under(source, heading, written_headings.get(heading, heading))
        if kind == "heading":  # "Beispiele (aus Übung 3, 05.11.)" asks as "Beispiele"
            shown = without_course_remarks(shown)
        cloze = mark_term(said, shown) if kind not in CLOZE_KINDS or fair_gap(said, shown) else ""
        found.append(Fact(kind, shown, definition, sentence, cloze, verb, cited, lang,
                          form or form_of(f"**{shown}**" if kind == "bold" else term), without_course_remarks(heading),
                          column, answer_form, situated, in_order, list_items, frame, nested, compared, listed))

    blocks = blocks_of(source)
    written_headings = {block.heading: block.content for block in blocks if block.kind == "heading"}
    named = source.heading_path[0] if source.heading_path and source.heading_path[0] else source.title
    transcript = is_transcript_title(f"{source.title} {named}")  # its paragraphs are said, timestamped or not
    lecture = lecture_subject(named)
    last_topic = ""  # what the last spoken paragraph named as its subject ("So, first class, ACE inhibitors.")
    item_contents = {block.content for block in blocks if block.kind == "item"}
    # the problems or messages a section states in bold, each over its answer: a series of them is the section's
    # shape ("**I am receiving a hash error …**"); a lone one is a warning or advice ("**Always back up …**")
    problems = Counter(block.heading for block in blocks if block.kind == "paragraph"
                       and (stated := _FAQ_RE.match(block.content.strip())) is not None
                       and not stated.group("question").endswith("?")
                       and len(plain(stated.group("question")).split()) >= MIN_STATEMENT_WORDS)
    glossary = _prose_glossary(blocks, lang)
    for position, block in enumerate(blocks):
        if block.kind in ("heading", "code"):
            continue
        if block.kind in ("item", "paragraph") and is_todo(block.content):
            continue  # "fehlt noch: Superkondensator", "Thevenin – not covered yet": still to learn, no fact of it
        labelled = labelled_definition(block.content) if block.kind in ("item", "paragraph") else None
        if labelled is not None and labelled[0]:  # "Def. Heimtücke: Heimtückisch handelt, wer …": term and meaning
            labelled_term, labelled_meaning = read_inline(labelled[0]), read_inline(labelled[1])
            if not labelled_meaning.html and not labelled_meaning.embed:
                term_said, meaning_said = (part.restore(part.text) for part in (labelled_term, labelled_meaning))
                add("item", term_said, meaning_said, f"{term_said}: {meaning_said}", "", block.heading)
            continue
        law_asked = law_question(block.heading, lang) if block.first and block.kind in ("item", "paragraph") \
            and not transcript else ""
        # its first sentence, on its first line when that ends one ("→ Grundlage für Dijkstra" on the next is the
        # student's remark; a line wrapped mid-sentence goes on in the next)
        first_line = block.content.split("\n")[0]
        law_said = read_inline(first_line if first_line.rstrip().endswith((".", "!", "?")) else block.content) \
            if law_asked else None
        law_first = sentences(law_said.text)[:1] if law_said is not None else []
        if law_said is not None and law_first and not law_first[0].rstrip().endswith(":") \
                and GAP not in law_first[0] and len(plain(law_first[0])) <= MAX_ANSWER_CHARS:
            # "## Satz des Fermat" over "Licht nimmt … den Weg, für den es die kürzeste Zeit braucht.", "## 1.
            # Hauptsatz" over "- Energieerhaltung: $\Delta U = Q + W$": what the law states, asked by its name
            # ("Einfallswinkel = Reflexionswinkel" under "## Reflexionsgesetz" is no term and its meaning)
            stated_law = plain(law_said.restore(law_first[0]))  # "unless a **net external force** acts": as shown
            # (form "law": a quiz offers the note's other laws beside it, never its other questions)
            add("faq", law_asked, stated_law, stated_law, "", block.heading, form="law")
            continue
        if block.kind == "table":
            header, rows = _table_rows(block.content)
            if len(header) < 2 or _number_grid(header, rows):
                continue
            columns = [read_inline(cell) for cell in header]
            for row in rows:  # each row's first cell is its term; each other column under a header, one answer
                cells = [read_inline(c) for c in row]
                if cells[0].html or cells[0].embed or not cells[0].text:
                    continue
                term = cells[0].restore(cells[0].text)
                term = _TERM_REMARK_RE.sub("", term) or term  # "**Aktivkonto** (z.B. Bank, Kasse)": the term
                term = _keyed(term, columns[0].restore(columns[0].text))  # "C" under "Vitamin": "Vitamin C"
                record: list[tuple[str, str]] = []  # (column, cell) of the row, for a card on the whole row
                for column, cell in zip(columns[1:], cells[1:], strict=False):
                    if cell.html or cell.embed or not cell.text or not column.text \
                            or _EMPTY_CELL_RE.fullmatch(cell.text):
                        continue  # "–", "-", "?": a cell left empty
                    answer = cell.restore(cell.text)
                    named = plain(column.restore(column.text))
                    record.append((named, answer))
                    if len(plain(answer)) <= 160:
                        add("row", term, answer, f"{term} — {answer}", "", block.heading, column=named,
                            answer_form=form_of(answer), compared=not columns[0].text and len(columns) == 3)
                cells_said = "; ".join(f"{named}: {answer}" for named, answer in record)
                if len(record) >= 2 and len(record) == len(columns) - 1 \
                        and len(plain(cells_said)) <= MAX_RECORD_CHARS:
                    # a wide table's row is one card: "Ketone – Structure, Suffix, Example?" (its cells: one fact)
                    add("record", term, cells_said, f"{term} — {cells_said}", "", block.heading,
                        column=", ".join(named for named, _ in record))
            continue
        if block.kind == "paragraph" and any(line.lstrip().startswith("|") for line in block.content.split("\n")):
            continue  # "`students`" over a table that the paragraph swallowed: a caption, not a sentence
        pair = qa_pair(block.content) or (dashed_qa_pair(block.content) if block.kind == "item" else None)
        if pair is not None:  # "Q: …?" over "A: …": the note's own question and its whole answer, one card
            # "Q: Define Nash equilibrium." sets a task; "… (klausurrelevant? ask tutor)" is the student's aside
            asked, replied = read_inline(without_own_aside(pair[0])), read_inline(pair[1])
            if (asked.text.endswith("?") or sets_a_task(asked.text, lang)) \
                    and len(plain(replied.text)) <= MAX_ANSWER_CHARS:
                add("faq", asked.restore(asked.text), replied.restore(replied.text),
                    replied.restore(replied.text), "", block.heading, form="question")
            continue
        pairs = vocabulary(block.content)
        for word, meaning in pairs:  # "el pan :: das Brot": the word asked, its translation the answer
            asked_word, translation = read_inline(word), read_inline(meaning)
            add("vocab", asked_word.restore(asked_word.text), translation.restore(translation.text),
                f"{word} :: {meaning}", "", block.heading)
        if pairs:
            continue
        entries = definition_list(block.content) if block.kind == "paragraph" else []
        for entry, meaning in entries:  # "Main sequence" over ": phase in which a star fuses hydrogen …"
            term, description = (shown.restore(shown.text) for shown in (read_inline(entry), read_inline(meaning)))
            add("item", term, description, f"{term}: {description}", "", block.heading,
                answer_form=form_of(description.rstrip(".")))
        if entries:
            continue
        inline = read_inline(block.content)
        talk = block.kind == "paragraph" and (transcript or is_spoken(unbold(inline.text)))  # said, not written
        stressed: list[Said] = []  # the points the lecturer stresses in this paragraph
        read_before = len(found)
        if talk:
            answered = answered_question(unbold(inline.text), last_topic, lang, sentences)
            if answered is not None:  # "[student question: …?] No. …": the student asks, the lecturer answers
                add("faq", inline.restore(answered.term), inline.restore(answered.text),
                    inline.restore(answered.text), "", block.heading, form="question")
                continue
            spoken = sentences(without_remarks_in_brackets(inline.text))  # bold kept: a term glossed as said
            heard = [unbold(sentence) for sentence in spoken]
            said_raw = [(raw, said_plainly(raw, lang)) for raw in heard]  # as said (for its emphasis) and written
            said_glosses = [(_SAID_GLOSS_RE.search(marked), said)
                            for marked, (_, said) in zip(spoken, said_raw, strict=True)]
            said_raw = [(raw, sentence) for raw, sentence in said_raw if sentence and "?" not in sentence]
            plainly = [sentence for _, sentence in said_raw]
            topic = paragraph_topic(plainly[0], lang) if plainly else ""
            stressed = [noted for raw, _ in said_raw if (noted := stressed_card(raw, topic, lecture, lang))]
            for previous, sentence in pairwise(["", *plainly]):
                if GAP in sentence:
                    continue
                for noted in (named_cloze(sentence, previous, lang),
                              list_card(sentence, sentence_subject(previous, lang) or topic, lecture, lang)):
                    if noted is not None:
                        add(noted.kind, inline.restore(noted.term), inline.restore(noted.text),
                            inline.restore(noted.text), "", block.heading,
                            form="question" if noted.kind == "faq" else None)
            for said_gloss, said in said_glosses:
                gloss = said_gloss.group("gloss").split() if said_gloss else []
                if said_gloss and said and "?" not in said and GAP not in said and len(gloss) >= MIN_GLOSS_WORDS \
                        and gloss[0].casefold().strip(",") not in _PRONOUNS | WORDS[lang].open_ends:
                    # "They float on the **asthenosphere** – a weak, partly molten layer …": the term the lecturer
                    # glosses as they say it, a gap in what they said
                    add("bold", inline.restore(said_gloss.group("term").strip()), inline.restore(said),
                        inline.restore(said), "", block.heading)
            last_topic = topic or last_topic
            text = " ".join(plainly)
        else:
            text = without_bracketed_remarks(inline.text)  # "… the congress. [→ he will ask about it in the exam!]"
        formula = _FORMULA_ITEM_RE.match(text)
        if formula and (":" in text[formula.end("term"):formula.start("formula")] or not block.ordered) \
                and is_formula(inline.restore(formula.group("formula"))) \
                and _names_a_formula(formula.group("term")):  # "spring: $$E = …$$"
            add("formula", inline.restore(formula.group("term")), inline.restore(formula.group("formula")),
                inline.restore(text), "", block.heading)
            continue
        question = _FAQ_RE.match(block.content.strip()) if block.kind == "paragraph" else None
        if question and (question.group("question").endswith("?") or problems[block.heading] >= 2):
            # "**Can I …?**", or one of a section's "**I am receiving … error.**", and its answer below it (same
            # paragraph or the next; up to a sentence that opens a list, which the card would cut)
            following = blocks[position + 1] if position + 1 < len(blocks) else None
            asked = read_inline(question.group("question"))
            replied = read_inline(question.group("answer") or (following.content if following is not None
                                                               and following.kind == "paragraph" else ""))
            replies = list(takewhile(lambda reply: GAP not in reply and not reply.endswith(":"),
                                     sentences(replied.text)[:2]))
            if replies:
                reply = " ".join(replies) if len(" ".join(replies)) <= 240 else replies[0]
                # "Yes! In a foldable callout …", "nein! Aufwand ohne Auszahlung": too short for a sentence of its
                # own, the opening answers the question
                opening = unshield(_SENTENCE_SPLIT_RE.split(shield(replied.text), maxsplit=1)[0]).strip()
                reply = f"{opening} {reply}" if opening and GAP not in opening and not replies[0].startswith(opening) \
                    else reply
                add("faq", asked.restore(asked.text), replied.restore(reply), replied.restore(reply), "",
                    block.heading, form="question" if asked.text.endswith("?") else "statement")
            if replies or asked.text.endswith("?"):
                continue  # a sentence in bold with no answer below may still label the list under it
        glossed = glossary.get(position) if not talk else None
        if glossed is not None:  # "Survivorship bias: We only look at the cases …" among a glossary's paragraphs
            add("item", inline.restore(glossed[0]), inline.restore(glossed[1]), inline.restore(text), "",
                block.heading)
            continue
        equal_line = _EQUATED_LINE_RE.match(text) if block.kind == "paragraph" and GAP not in text else None
        if equal_line is not None and _equals_a_meaning(equal_line.group("def")):  # "**Anlassen** = erneutes …"
            add("item", inline.restore(equal_line.group("term").strip()), inline.restore(equal_line.group("def")),
                inline.restore(text), "", block.heading)
            continue
        counted = _counted(text) if block.kind == "paragraph" and text.endswith(":") and not block.first else None
        if counted is not None:  # "Die 3 Arten der Elastizität:" over its 3 items, inside a section
            steps, items = _list_below(blocks, position, MAX_STEPS)
            if len(items) == counted.count and not steps.endswith("…"):
                add("label", plain(text).rstrip(":").strip(), steps, steps, "", block.heading,
                    in_order=blocks[position + 1].ordered, list_items=items)
                continue
        label = _BOLD_LINE_RE.match(block.content.strip()) if block.kind == "paragraph" \
            and not block.content.rstrip().endswith("?**") else None
        if label:  # "**File explorer:**" over the steps that way
            steps, items = _list_below(blocks, position)
            if block.heading and (len(items) >= 2 or (items and not steps.endswith("…"))):
                add("label", plain(text).rstrip(":").strip(), steps, steps, "", block.heading,
                    in_order=blocks[position + 1].ordered, list_items=() if steps.endswith("…") else items)
            continue
        children = [b for b in blocks if b.kind == "item" and b.lead == block.content] if block.kind == "item" else []
        if block.ordered and len(children) == 1 and names_exercises(block.heading) and GAP not in text \
                and not any(b.lead == children[0].content for b in blocks) and not _POINTS_AT_TASK_RE.search(text):
            # "1. Kauf eines PCs für 1.190 € per Bank" over "- BGA 1.000 € / Vorsteuer 190 € an Bank": a task and
            # its solution
            solution = read_inline(children[0].content)
            add("task", inline.restore(text), solution.restore(solution.text), inline.restore(text), "",
                block.heading)
            continue
        aspect = _ASPECT_LINE_RE.match(text) if block.kind == "paragraph" else None
        if aspect and is_aspect(plain(aspect.group("term"))) and GAP not in text:
            # "Grundregel: **Soll an Haben** – zuerst …": the note's rule, asked as what it is about
            add("item", plain(aspect.group("term")), inline.restore(aspect.group("def")), inline.restore(text), "",
                block.heading)
            continue
        child = children[0] if len(children) == 1 and block.lead not in item_contents else None
        if child is not None and len(plain(text).split()) <= 5 and not _ITEM_RE.match(text) and GAP not in text \
                and not _NAMED_START_RE.match(child.content):
            # one description below a top-level item: two would be cut to the first, and an item nested deeper
            # ("Brunelleschi" under "Early Renaissance") names one of its parent's, not a term
            # "- [[Reader]]" with "- Read web pages in a clean view." below (not "2. Select" with "**X** to …")
            described = read_inline(child.content)
            if len(plain(described.text).split()) >= 3:
                add("item", inline.restore(text), described.restore(described.text), inline.restore(text), "",
                    block.heading, answer_form="text")
                continue
        # the label or item a list item hangs under: it names what the item is about ("massive stars:" over
        # "remnant: neutron star …", "`dict` / `set`:" over "lookup → O(1)")
        item_frame = _frame(block.lead) or (_parent_term(block.lead) if block.lead in item_contents else "") \
            if block.kind == "item" else ""
        marked = _MARKED_ITEM_RE.match(text) if block.kind == "item" else None
        if marked and _ITEM_RE.match(marked.group("fact")):
            # "==proaktiv: Altes stört Neues== (verwechsle ich immer!!)": the student marked a term and what it
            # means, the fact; what follows the mark is their remark on it
            text = marked.group("fact")
        elif marked and text[marked.end():].startswith((": ", " = ")) and _ITEM_RE.match(f"{marked.group('fact')}"
                                                                                 f"{text[marked.end():]}"):
            # "==object permanence==: knowing objects exist …": the student marked the term its item defines (after
            # a dash, "==does NOT legislate== – the classic exam trap", their remark on it)
            text = f"{marked.group('fact')}{text[marked.end():]}"
        if (block.kind == "item" or _BOLD_ITEM_RE.match(text)) and GAP not in text:
            match = _BOLD_ITEM_RE.match(text) or _ITEM_RE.match(text)
            asked_first = _ASKED_FIRST_RE.match(match.group("def")) if match else None
            if match and asked_first and len(plain(match.group("term")).split()) <= MAX_FRAME_WORDS:
                # "Causes: Why did it fall? → civil wars, …", "Frage: ist jede Relation in 3NF auch in 2NF? → ja, …":
                # the student's own question about the label, answered after the arrow
                asker = plain(inline.restore(match.group("term").strip()))
                own = inline.restore(asked_first.group("question"))
                own = own[:1].upper() + own[1:]
                answer = inline.restore(asked_first.group("answer"))
                # (not "Aktivierung: Was passiert? → drei Wege" over the ways: they are the facts)
                if (not is_bookkeeping_term(asker) or is_question_label(asker)) \
                        and not (children and _counted(plain(answer).rstrip("."))):
                    add("faq", own if is_question_label(asker) else f"{block.heading or source.title} › {asker}: {own}",
                        answer, answer, "", block.heading, form="question")
                continue
            if match:
                term = match.group("term").strip()
                bare = plain(term).casefold()
                # "a = b, c = d"; "Summe Aktiva = Summe Passiva": two sides of one kind are equal, neither defines
                equated = "=" in match.groupdict().get("sep", "") and (
                    len(bare.split()) > MAX_EQUATED_WORDS or " = " in match.group("def")
                    or plain(match.group("def")).casefold().split()[:1] == bare.split()[:1])
                example = match.group("def").startswith("*") and not match.group("def").startswith("**")
                example = example or bool(_INITIAL_RE.match(term))  # "**A**ction": a mnemonic's letter, no term
                # ("dort: Reifung der T-Zellen": where, the line above says; "Bildung & Reifung: dort?" asks nothing)
                if bare not in _COLON_STOP and bare not in _BACK_POINTERS | _DEICTIC \
                        and not is_bookkeeping_term(bare) and not states_a_rule(bare) \
                        and plain(match.group("def")).split() \
                        and not _CHAINED_RE.search(match.group("def")) and not equated and not example \
                        and len(plain(term).split()) <= 5 and _TERM_REMARK_RE.sub("", plain(term)) \
                        and "," not in _OUTSIDE_REMARKS_RE.sub("", term) \
                        and not _TERM_REMARK_RE.sub("", plain(term)).endswith(")"):  # "Costa v ENEL (1964)": a term
                    description = inline.restore(_first_labelled_fact(match.group("def"), is_aspect(plain(term))))
                    if children and _counted(re.split(r"\s(?:→|->|=>)\s", plain(description))[-1].rstrip(".")):
                        continue  # "Aktivierung: Was passiert? → drei Wege" over its ways: the ways are the facts
                    inner = _defined_inside(match.group("def")) if is_aspect(plain(term)) else None
                    if inner is not None:
                        # "Abgrenzung: invitatio ad offerendum = Aufforderung …": the label says where the term
                        # stands in its section, the term defined after it is what to learn
                        term, description = inner[0], inline.restore(inner[1])
                    add("item", inline.restore(term), description, inline.restore(text), "", block.heading,
                        answer_form=form_of(description.rstrip(".")), frame=item_frame,
                        nested=block.lead in item_contents or source.continues_section)  # a list cut: depth unknown
                    continue
        for order, sentence in enumerate(sentences(text)):
            if "?" in sentence or _UNFINISHED_RE.search(sentence) or GAP in sentence:
                continue
            called = called_in(sentence.rstrip("."), "de" if german else "en")
            if called and (defines_by_condition(called.meaning, called.term, lang)
                           or names_a_clause_after_a_sentence(called.meaning, lang)):
                # "A vector … is called an **eigenvector** of $A$ if …": its cloze asks it, no "called" card;
                # "Im Glomerulus wird das Blut filtriert, das Filtrat nennt man …" names its last clause only
                pass
            elif called and not (talk and leans_back_said(called.meaning, lang)):  # "it is often called …"
                term = _short_term(called.term)
                add("called", inline.restore(term), inline.restore(called.meaning), inline.restore(sentence),
                    called.verb, block.heading)
            else:
                said = _TAGS_AFTER_RE.sub("", unbold(sentence)).rstrip(".")  # "… monarchy. #history" ends at "."
                said = without_fillers(said) if talk else said  # "So, quick recap — blood pressure is …"
                meant = spoken_meaning(said, lang) if talk else None
                if meant is not None and len(plain(meant.meaning).split()) >= MIN_DEFINITION_WORDS \
                        and not _points_elsewhere(meant.meaning) and not names_by_pro_form(meant.meaning, lang):
                    # "A lahar, that means a mudflow of …", "Also Fianchetto heißt, der Läufer wird …": said plainly
                    add("definition", inline.restore(meant.term), inline.restore(meant.meaning), inline.restore(said),
                        meant.verb, block.heading)
                definition = definition_in(said, "de" if german else "en") if meant is None else None
                # "X is A; Y is B": the clause after the semicolon says something else (about Y)
                meaning = definition.meaning.split("; ")[0] if definition else ""
                # "B–D is a minor third, D–F is a minor third": the clause after the comma states another fact
                meaning = meaning[:next_clause.start()] if (next_clause := _NEXT_CLAUSE_RE.search(meaning)) else meaning
                meaning = without_fillers(meaning) if talk else meaning  # "is basically …"
                term = _TERM_REMARK_RE.sub("", definition.term) if definition else ""
                about = " ".join((source.title, *source.heading_path, block.heading))  # what the note is about
                if definition and is_copula(definition.verb) and names_no_subject(plain(term), about) \
                        and not _marked(sentence, term) and not names_terms(block.heading) \
                        and identifies(plain(definition.meaning)):
                    # "The enzyme is the C3 convertase", "The receptor is CR1": which enzyme, the card would not say
                    # ("Der Zellkern ist der Speicher der Erbinformation" defines; under "Begriffe" any term does)
                    definition = None
                if definition and is_copula(definition.verb) and _BARE_NOUN_RE.fullmatch(plain(term)) \
                        and plain(term).casefold() not in about.casefold() \
                        and _names_a_value(plain(definition.meaning), lang):
                    # "Sensor ist APS-C, …", "Objektiv ist ein XF 35mm", "Provider is Fujifilm, based in …": a value
                    # of the thing the note is on, "Was ist Sensor?" asks none
                    definition = None
                # "B–D is a minor third": an example worked through (no word in its "term")
                if definition and _defines(meaning, definition.verb, german, spoken=talk) \
                        and not (talk and names_the_session(term, lang)) and not is_free_relative(term, lang) \
                        and not defines_by_condition(term, meaning, lang) \
                        and not _names_who(term, meaning, definition.verb, german) \
                        and len(plain(meaning).split()) >= MIN_DEFINITION_WORDS and not _points_elsewhere(meaning) \
                        and not lists_properties(meaning, german) and not names_by_pro_form(meaning, lang) \
                        and not _only_pronouns(plain(term), lang) \
                        and _WORDLIKE_RE.search(plain(term)) and not _SPACED_DASH_RE.search(term):
                    add("definition", inline.restore(term), inline.restore(meaning),
                        inline.restore(said if talk else unbold(sentence)), definition.verb, block.heading,
                        situated=order > 0 and not talk)
            if _leans_back(plain(sentence)):
                continue  # "It lets you …", "To turn it off, …": what "it" is stands in another sentence
            captured = described_in(_TAGS_AFTER_RE.sub("", sentence).rstrip("."), lang) if not talk else None
            if captured is not None and len(plain(captured.meaning).split()) >= MIN_DEFINITION_WORDS:
                # "Die **Preiselastizität der Nachfrage** misst, um wie viel Prozent …": what it measures, asked
                add("definition", inline.restore(captured.term), inline.restore(captured.meaning),
                    inline.restore(unbold(sentence)), captured.verb, block.heading, situated=order > 0)
                continue
            for highlight in _HIGHLIGHT_RE.finditer(sentence):  # "==Widerstandsgefäße==": the student's key term
                term = _glossed(highlight.group(1).strip(), sentence[highlight.end():], lang)
                shown = _HIGHLIGHT_RE.sub(r"\1", sentence)
                if len(term.split()) <= 6 and len(plain(shown)) > len(term) + 20:
                    add("bold", inline.restore(term), inline.restore(shown), inline.restore(shown), "", block.heading,
                        listed=block.kind == "item", frame=item_frame)
            for bold in _BOLD_RE.finditer(sentence):
                term = bold.group(1).strip()
                if _names_an_example(sentence[:bold.start()]):
                    continue
                if len(term.split()) == 1 and term.islower() and (len(term) < 6 or term in _PRONOUNS):
                    continue  # "**not**", "**more**": emphasis, not a term
                if term.startswith("("):
                    continue  # "**(open beta)**": a remark in bold, not a term
                term = _glossed(term, sentence[bold.end():], lang)
                if len(term.split()) <= 6 and len(plain(sentence)) > len(term) + 20:
                    add("bold", inline.restore(term), inline.restore(sentence), inline.restore(sentence), "",
                        block.heading, listed=block.kind == "item", frame=item_frame)
            code = next((found for found in _PLACEHOLDER_RE.finditer(sentence)  # a code span; a formula is no gap
                         if not _names_an_example(sentence[:found.start()])
                         and inline.codes[int(found.group(1))].startswith("`")), None)
            if code and len(plain(inline.restore(sentence))) > len(inline.codes[int(code.group(1))]) + 20:
                add("code", inline.codes[int(code.group(1))], inline.restore(sentence), inline.restore(sentence), "",
                    block.heading, frame=item_frame)
        defined = {plain(fact.term).casefold() for fact in found[read_before:] if fact.kind in ("definition", "called")}
        for noted in stressed:  # a point stressed that a definition's card asks already: not again
            if not any(term in noted.text.casefold() for term in defined):
                add(noted.kind, inline.restore(noted.term), inline.restore(noted.text), inline.restore(noted.text), "",
                    block.heading, form="question")
    lists: dict[tuple[str, str], list[str]] = {}  # the numbered lists, by what introduces them: their steps
    leads = {block.lead for block in blocks if block.kind == "item"}
    for block in blocks:
        if block.kind == "item" and block.ordered and not _asks_and_answers(block):
            inline = read_inline(block.content)
            whole = GAP not in inline.text and block.content not in leads and not inline.text.endswith(":")
            lists.setdefault((block.heading, block.lead), []).append(  # "" for a step that goes on below it
                inline.restore(inline.text).rstrip(".") if whole else "")
    for (heading, lead), in_order in lists.items():
        if unordered_kind(heading, german) or unordered_kind(_named_kind(lead), german) or \
                not in_sequence(heading, plain(lead), [plain(step) for step in in_order], german):
            continue  # "Methods of price control", "Drei Mechanismen:", factors with their effects: no order
        if len(in_order) >= 3 and all(in_order) and all(len(plain(step)) <= 120 for step in in_order):
            for before, step in zip(["", *in_order[:-1]], in_order, strict=True):  # each with the one before it
                if (before or step).rstrip().endswith(_ARROWS) or step.rstrip().endswith(_ARROWS):
                    continue  # "… adopted; otherwise →": the step goes on in the next, no step alone
                add("step", step, before, step if not before else f"{before} → {step}", "", heading, form="step",
                    column=lead[:80])
    section = _section_heading(source) or ("" if source.heading_path else source.title)
    if section and blocks and blocks[0].kind != "heading" and not blocks[0].heading:
        section = source.title  # the note's opening, carried in front of its first section
    opened = source.continues_section  # the current section's first paragraph was read (or is elsewhere)
    # "## Formeln" over one of the note's several equations: "Formeln: Formel?" could ask any of them
    equations = sum("=" in block.content[start:end] for block in blocks for start, end in math_spans(block.content))
    for position, block in enumerate(blocks):
        if block.kind == "heading":
            section, opened = block.heading, False
            continue
        if equations >= 2 and names_no_formula(section) and block.kind == "paragraph" and is_formula(block.content):
            continue
        if opened and section and section != source.title and block.kind == "paragraph" \
                and not (names_exercises(section) or is_bookkeeping_term(section)) \
                and _the_sections_only_formula(blocks, position):
            # "## Quantity theory", a sentence, then $$M \cdot V = P \cdot Y$$: the formula the section is about
            add("formula", section, block.content.strip(), block.content.strip(), "", section)
            continue
        if opened or not section:
            continue
        opened = True
        equal = _SAID_EQUAL_RE.match(read_inline(block.content).text) if block.kind == "paragraph" else None
        if equal is not None and section != source.title and _names_a_concept(section) \
                and not names_planning(section) and not names_exercises(section) and _counted(section) is None \
                and _equals_a_meaning(equal.group("def")):
            # "## Vergüten" over "= Härten + Anlassen, gibt zähes Gefüge": the section's term and what it means
            opening_line = read_inline(block.content)
            add("item", section, opening_line.restore(equal.group("def")),
                f"{section} {opening_line.restore(opening_line.text)}", "", section)
            continue
        if block.kind == "item" and block.first:  # a section that opens with its steps: they are its opening
            if _asks_and_answers(block):
                continue  # "1. Q: … A: …": exam questions, each its own card, no steps
            steps, items = _steps(blocks, position, *((MAX_STEPS, MAX_STEPS_CHARS) if _counted(section) else ()))
            if len(items) >= 2 and not _leans_back(plain(steps)):
                add("heading", section, steps, steps, "", section, form="question" if section.endswith("?")
                    else "heading", in_order=block.ordered, list_items=() if steps.endswith("…") else items)
            continue
        if block.kind == "paragraph" and block.first and is_formula(block.content) and section != source.title:
            add("formula", section, block.content.strip(), block.content.strip(), "", section)  # "## Power" + $$P=…$$
            continue
        inline = read_inline(block.content)
        found_sentences = sentences(inline.text) if block.kind == "paragraph" and block.first \
            and not _BOLD_LINE_RE.match(block.content.strip()) and not _FAQ_RE.match(block.content.strip()) \
            else []  # "**Command palette:**" labels a list; a question in bold is a card of its own
        if not found_sentences or GAP in found_sentences[0]:
            continue
        opening = inline.restore(found_sentences[0])
        following = blocks[position + 1] if position + 1 < len(blocks) else None
        example = following.content.strip() if following is not None and following.kind == "code" else ""
        listed, items = _list_below(blocks, position)
        # "To do X:" and its steps, "The rate depends on several factors:" and the factors: the sentence says
        # nothing without them
        introduces_list = opening.rstrip().endswith(":") and bool(listed)
        if introduces_list:
            opening = f"{opening.rstrip()} {listed}"
        elif opening.rstrip().endswith(":") and example and "\n" not in example and "`" not in example:
            opening = f"{opening.rstrip()} `{example}`"  # "To embed a note:" and its one-line example
            add("example", f"`{example}`", opening, opening, "", section)
        elif opening.rstrip().endswith(":"):
            continue  # "An inner join of customers and orders:" says nothing without the code or table below it
        add("heading", section, opening, opening, "", section,  # a question heading among questions
            form="question" if section.endswith("?") else "heading",
            in_order=introduces_list and blocks[position + 1].ordered,
            list_items=items if introduces_list and not listed.endswith("…") else ())
        subject = _names_its_section(opening, section) if not introduces_list and section != source.title else None
        if subject and not _leans_back(plain(opening)):
            # "## Lichtsammelkomplexe" over "Lichtsammelkomplexe (Antennenkomplexe) … fangen das Licht ein.": the
            # sentence says what the section's subject is or does, a cloze on its name asks for it
            add("bold", subject, opening, opening, "", section)
    return tuple(_structured(found, lang))


MIN_STATED = 2 / 3  # of a list's labelled items stating something apart: the labels structure the list


def _structured(facts: list[Fact], lang: str) -> list[Fact]:
    """The facts with each list item marked ``structural`` whose label structures its list, not a term: under a
    heading over aspects or a story ("Aspekte des Staates", "Inhalt", "Plot") or over factors ("Einflussfaktoren":
    "Zeithorizont: langfristig elastischer" says how it acts, not what it means), or stating something apart
    (``states_apart``) in a list of which most items do or beside an aspect's label ("Folgen:"; that one is asked
    as its aspect already). A list whose heading names what kind its items are ("4 Arten von …", "Figuren") lists
    terms. Any other item whose description is a subject and its verb (``subject_then_verb``: "Maldives: most
    islands sit …") is marked ``stated``. Items labelled by one word told apart by remarks ("Gruppe (Motiv)",
    "Gruppe (Zweck)") are parts of the list, marked ``structural``."""
    lists: dict[tuple[str, str], list[Fact]] = {}
    for fact in facts:
        if fact.kind == "item":
            lists.setdefault((fact.context, fact.frame), []).append(fact)
    marked: set[int] = set()
    sentences_about: set[int] = set()  # (a list whose heading names its kind asks "which phase is this" already)
    # "Gruppe (Motiv)", "Gruppe (Zweck)" in one section: one word told apart by remarks labels its parts, no term
    parts = Counter((fact.context, _TERM_REMARK_RE.sub("", plain(fact.term)).casefold()) for fact in facts
                    if fact.kind == "item" and _TERM_REMARK_RE.search(plain(fact.term)))
    for (context, frame), items in lists.items():
        heading = frame or context.rsplit(" › ", 1)[-1]
        if list_kind(heading, lang == "de") is not None:
            continue
        overview = len(items) > 1 and (names_an_overview(plain(heading)) or names_factors(plain(heading)))
        stated = [states_apart(plain(item.definition), lang) or _restates(item.term, item.definition)
                  for item in items]
        aspects = [is_aspect(plain(item.term)) for item in items]
        for item, states, aspect in zip(items, stated, aspects, strict=True):
            if parts[(context, _TERM_REMARK_RE.sub("", plain(item.term)).casefold())] >= 2:
                marked.add(id(item))
                continue
            # "Belize: the reef is protected …": a subject and its verb of their own say something about the label
            if not aspect and (overview or opens_with_clause(plain(item.definition), lang)
                               or (states and len(items) > 1
                                   and (sum(stated) >= MIN_STATED * len(items) or any(aspects)))):
                marked.add(id(item))
            elif not aspect and subject_then_verb(plain(item.definition), lang):
                sentences_about.add(id(item))
    return [replace(fact, structural=True) if id(fact) in marked
            else replace(fact, stated=True) if id(fact) in sentences_about else fact for fact in facts]


MIN_STEM = 6


def _restates(label: str, description: str) -> bool:
    """A description naming its own label again, in any form ("Verspätung: verspätete Annahme gilt als neuer
    Antrag", "Substitute: Je mehr Substitute, desto elastischer"): it says what holds for the label, a definition
    would not use the word it defines."""
    words = plain(label).split()
    if len(words) != 1 or len(words[0]) < MIN_STEM or not words[0].isalpha():
        return False
    stem = words[0][:MIN_STEM].casefold()
    return any(word.casefold().startswith(stem) for word in re.findall(r"[^\W\d_]+", plain(description)))


MAX_SECTION_TERM_WORDS = 4
# the kinds whose definition is the note's own description of a term (not a question's answer, a step or a formula)
_INITIAL_RE = re.compile(r"\*\*[^\W\d_]{1,2}\*\*[^\W\d_]")  # "**A**ction": the letter a mnemonic spells
_LEANING_KINDS = frozenset({"item", "bold", "definition", "called", "row", "record", "label"})
_VERBATIM_KINDS = frozenset({"code", "example", "row", "record", "vocab", "formula"})  # cells and atoms as written


def _the_sections_only_formula(blocks: list[Block], position: int) -> bool:
    """Whether the block at ``position`` is a display formula and its section has no other (a derivation's steps
    are no formula to learn each)."""
    if not is_formula(blocks[position].content):
        return False
    start = next((index + 1 for index in range(position - 1, -1, -1) if blocks[index].kind == "heading"), 0)
    end = next((index for index in range(position + 1, len(blocks)) if blocks[index].kind == "heading"), len(blocks))
    return sum(block.kind == "paragraph" and is_formula(block.content) for block in blocks[start:end]) == 1


def _names_its_section(sentence: str, heading: str) -> str | None:
    """The words of ``sentence`` that name its section (``heading``, as the sentence writes them), when the heading is
    a short name and the sentence says more than the name; None otherwise."""
    name = plain(read_inline(heading).text).strip()
    if not name or name.endswith("?") or len(name.split()) > MAX_SECTION_TERM_WORDS or re.search(r"\d", name):
        return None
    found = re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", unbold(sentence), re.IGNORECASE)
    if found is None or len(plain(sentence)) < len(name) + 30:
        return None
    return found.group(0)


def _names_an_example(before: str) -> bool:
    """Whether a term after ``before`` is one example of several ("aliases such as `c` and `o`", "Eigenschaften wie
    `file.name`, `file.size`"): a cloze on it asks for one of many right answers."""
    return bool(_EXAMPLE_MARKER_RE.search(_LISTED_BEFORE_RE.sub("", before)))


MAX_FRAME_WORDS = 4
# what a label's comma may stand in: a remark, a code span, a formula ("European Investment Bank (EIB), Luxembourg:"
# labels a term and its seat, "Metoprolol, bisoprolol:" two terms)
_OUTSIDE_REMARKS_RE = re.compile(r"\([^()]*\)|\ue000\d+\ue001")
_POINTS_AT_TASK_RE = re.compile(r"\b(?:aus|von|zu|from|of|in)\s+(?:Nr\.\s*)?\d{1,2}\.(?!\d)")  # "die Rechnung aus 2."
_ASPECT_LINE_RE = re.compile(r"^(?P<term>(?:\*\*)?[^\s:*]{2,30}(?:\*\*)?):\s+(?P<def>[^\n]{6,}?)(?:\n|$)")
# "2nd half of 2024: Hungary → 1st half of 2025: Poland → …": a chain of labelled entries, not one term's description
_CHAINED_RE = re.compile(r"(?:→|->|;)[^→;:()]{1,40}:\s")  # "→ DoS (defence: SYN cookies)" labels no entry
_ARROWS = ("→", "->", "⇒", "=>", "←", "↔")


def _named_kind(lead: str) -> str:
    """What the line introducing a list names its items, without its count ("Drei Mechanismen:" → "Mechanismen");
    "" when that line is a sentence, not a label."""
    last = plain(read_inline(lead.strip().rsplit("\n", 1)[-1]).text).strip()
    if not last.endswith(":"):
        return ""
    words = last.rstrip(":").split()
    if len(words) > 1 and words[0].casefold() in _ARTICLES and (words[1].isdigit() or words[1].casefold() in _COUNTS):
        words = words[1:]  # "Die 3 Arten der Elastizität:"
    if words and (words[0].isdigit() or words[0].casefold() in _COUNTS):
        words = words[1:]
    return " ".join(words) if len(words) <= MAX_FRAME_WORDS else ""


def _names_a_formula(term: str) -> bool:
    """A label a formula can be asked by ("spring", "kinetic friction"), not a label word ("i.e.", "ex.") or the
    step of a calculation ("h = 5 m →")."""
    shown = plain(term).strip()
    return bool(shown) and not is_bookkeeping_term(shown) and not any(arrow in shown for arrow in _ARROWS) \
        and "=" not in shown and len(shown.split()) <= MAX_FORMULA_NAME_WORDS


MAX_FORMULA_NAME_WORDS = 6


_NEXT_LABEL_RE = re.compile(r"[^\W\d][\w'&-]*(?: [^\W\d][\w'&-]*){0,2}:\s")  # "second: S&D (…)"


MAX_INNER_TERM_WORDS = 4
_VERSUS_RE = re.compile(r"^[^→:=]{2,60}\s(?:vs\.?|versus|und|and|oder|or)\s[^→:=]{2,60}$")


def _defined_inside(description: str) -> tuple[str, str] | None:
    """The term the description after an aspect's label defines ("invitatio ad offerendum = Aufforderung zur Abgabe
    …" after "Abgrenzung:"), with its definition; None when it says something else (a formula "E = mc²", a sum
    "Intervall + Umkehrung = 9", a chain of labels)."""
    compared, arrow, description = description.rpartition(" → ")
    if arrow and not _VERSUS_RE.search(compared):
        return None  # "Marke vs. Produkt → Marke = …" sets the term apart, then defines it
    found = _ITEM_RE.match(description.strip())
    if found is None or found.group("sep").strip() not in ("=", ":") or _CHAINED_RE.search(description):
        return None
    term, meaning = found.group("term").strip(), found.group("def").strip()
    words = plain(term).split()
    if not 1 <= len(words) <= MAX_INNER_TERM_WORDS or not re.search(r"[^\W\d_]{3}", plain(term)) \
            or re.search(r"[\ue000\d+*/<>≤≥]", term) or len(plain(meaning).split()) < 2 \
            or " = " in meaning or is_bookkeeping_term(plain(term)) or plain(term).casefold() in _COLON_STOP:
        return None
    return term, meaning


def _first_labelled_fact(description: str, aspect_label: bool) -> str:
    """An item's description up to the next labelled fact it goes on to: "EPP (…), second: S&D (…)" answers the
    label with "EPP (…)"; under an aspect label ("seat:"), "Frankfurt am Main, President **Christine Lagarde**"
    with "Frankfurt am Main" (another aspect named after the comma)."""
    depth = 0
    for index, char in enumerate(description):
        depth += (char == "(") - (char == ")")
        if depth or not description.startswith(", ", index):
            continue
        rest = description[index + 2:]
        words = plain(rest).split()
        if _NEXT_LABEL_RE.match(rest) or (aspect_label and len(words) > 1 and is_aspect(words[0])):
            return description[:index]
    return description


def _frame(lead: str) -> str:
    """The label line a list hangs under ("Merklieder (Anfang aufwärts):", "- Common forces:"), as a question's
    frame; "" for a sentence introducing it or a list with no label over it."""
    inline = read_inline(lead)
    shown = plain(inline.restore(inline.text)).strip()
    if not shown.endswith(":") or GAP in shown:
        return ""
    shown = shown.rstrip(":").strip()
    if len(shown.split()) > MAX_FRAME_WORDS:
        shown = _TERM_REMARK_RE.sub("", shown)  # "massive stars (> ~8 M☉):" frames as "massive stars"
    return shown if len(shown.split()) <= MAX_FRAME_WORDS else ""


def _parent_term(lead: str) -> str:
    """The term of the list item a nested item hangs under ("**High Renaissance** (~1495–1520) – Rome" → "High
    Renaissance"), as the frame of its question ("Phases › High Renaissance: Bramante?"); "" when it has none."""
    shown = read_inline(lead)
    match = _BOLD_ITEM_RE.match(shown.text) or _ITEM_RE.match(shown.text)
    term = plain(shown.restore(match.group("term"))) if match else ""
    term = _TERM_REMARK_RE.sub("", term).strip()
    return term if term and len(term.split()) <= MAX_FRAME_WORDS and GAP not in term else ""


def _leans_back(sentence: str) -> bool:
    """The sentence needs the one before it: it opens with a word pointing back ("It", "These", "Also") or names
    such a thing in its first words ("To turn it off", "Um es zu deaktivieren")."""
    opening = sentence.split()[:4]
    words = [w.casefold().strip("\"“„(,.;:") for w in opening]
    if sentence.lstrip().startswith(_ARROWS):
        return True  # "→ exactly seven institutions, …": what it follows from stands above it
    return bool(words) and (_opens_with(opening, _CONTEXT_OPENERS) or any(w in _BACK_POINTERS for w in words))


def _steps(blocks: list[Block], first: int, limit: int = 4, chars: int = 300) -> tuple[str, tuple[str, ...]]:
    """The list starting at ``blocks[first]`` as its first items joined ("Open Settings; Select …"), and those
    items. The list is cut, and "…" says so, after ``limit`` items, after ``chars`` characters (two items
    at least), or before an item Obsidian shows otherwise (an embed, raw HTML) or that goes on in nested items:
    never an item in half, never one left out of the middle."""
    lead, heading, ordered = blocks[first].lead, blocks[first].heading, blocks[first].ordered
    if ordered:  # steps are asked whole or not at all: step 1 of 5 answers nothing
        limit, chars = max(limit, MAX_STEPS), max(chars, MAX_STEPS_CHARS)
    steps: list[str] = []
    for index in range(first, len(blocks)):
        block = blocks[index]
        if block.kind != "item" or block.heading != heading or (block.lead == lead and block.ordered != ordered):
            break  # "- 2. NF + …" then "- Bsp: …": a numbered item inside a bullet is no list of steps
        if block.lead != lead:
            continue
        inline = read_inline(block.content)
        step = inline.restore(inline.text).rstrip(".")
        nested = index + 1 < len(blocks) and blocks[index + 1].kind == "item" \
            and blocks[index + 1].lead == block.content
        detail = _key_detail(blocks, index) if nested else ""
        if detail:  # "2. Wunde nicht auswaschen" over "- nur bei ==Verätzungen== spülen": the rule's exception
            step, nested = f"{step} ({detail})", False
        if len(steps) == limit or GAP in inline.text or not step or nested \
                or (len(steps) >= 2 and len("; ".join([*steps, step])) > chars):
            return "; ".join([*steps, "…"]) if steps else "", tuple(steps)
        steps.append(step)
    return "; ".join(steps), tuple(steps)


MIN_LISTED_PARTS = 3
_SAID_EQUAL_RE = re.compile(r"^=\s+(?P<def>[^=\ue004]{6,})$")  # "= Härten + Anlassen, …" under its term


def _equals_a_meaning(said: str) -> bool:
    """What a term is said equal to is a meaning in words ("= erneutes Erwärmen nach dem Härten"), not a sum
    ("**Gesamt** = 250 g + 300 g"), one side of a chain of equations, or what a list holds ("## Einkaufsliste" over
    "= Zwiebeln, Rinderbrühe, Lorbeer": three or more parts of two words at most)."""
    parts = plain(said).rstrip(".").split(", ")
    listed = len(parts) >= MIN_LISTED_PARTS and all(len(part.split()) <= 2 for part in parts)
    return len(_WORDLIKE_RE.findall(plain(said))) >= MIN_DEFINITION_WORDS and " = " not in said and not listed


def _names_a_concept(label: str) -> bool:
    """A paragraph's label naming a term of the subject ("Soziale Rolle", "Straw man"), not one structuring a text
    ("Beispiel", "Ergebnis", "Phase 2", "Step 3") or naming an aspect ("Ursache")."""
    bare = plain(label).strip()
    return 1 <= len(bare.split()) <= MAX_SECTION_TERM_WORDS and not re.search(r"\d", bare) \
        and bare.casefold() not in _COLON_STOP and not is_bookkeeping_term(bare) \
        and not (" " not in bare and is_aspect(bare)) and not states_a_rule(bare.casefold())


def _prose_glossary(blocks: list[Block], lang: str) -> dict[int, tuple[str, str]]:
    """The paragraphs of a glossary written in prose, by position: (term, sentence). Two or more
    paragraphs in a row, each "Term (gloss): Sentence.", are one when a term carries a gloss ("Verlustaversion (loss
    aversion): …"; one word only as the term's abbreviation, not a speaker's role: "Prof (lecturer):") or the
    heading names terms ("Zentrale Begriffe"), and every label names a concept: a run with "Beispiel:", "Phase 2:"
    or "Result:" reports a study or an outing, where "Treffpunkt:" is no term either."""
    found: dict[int, tuple[str, str]] = {}
    run: list[tuple[int, re.Match[str]]] = []

    def close() -> None:
        glossed = any(m.group("gloss") and _glossed(m.group("term"), m.group("gloss"), lang) != m.group("term")
                      for _, m in run)
        if len(run) >= 2 and all(_names_a_concept(m.group("term")) for _, m in run) \
                and (glossed or names_terms(blocks[run[0][0]].heading)):
            found.update((index, (m.group("term").strip(), m.group("def"))) for index, m in run)
        run.clear()

    for index, block in enumerate(blocks):
        entry = _PROSE_ENTRY_RE.match(read_inline(block.content).text) if block.kind == "paragraph" else None
        if entry is None or (run and blocks[run[-1][0]].heading != block.heading):
            close()
        if entry is not None:
            run.append((index, entry))
    close()
    return found


MAX_DETAIL_CHARS = 100


def _key_detail(blocks: list[Block], index: int) -> str:
    """The one bullet nested under ``blocks[index]`` when it states its key fact, a term of it highlighted ("nur bei
    ==Verätzungen== mit Wasser spülen"), as plain text; "" when there are several, deeper ones, or none (a task's
    solution below it, "- **BGA** 1.000 € an Bank", is no part of the task, a numbered sub-step is a step)."""
    parent = blocks[index].content
    nested = [block for block in blocks[index + 1:index + 3] if block.kind == "item" and block.lead == parent]
    child = nested[0] if len(nested) == 1 else None
    after = blocks[index + 2] if index + 2 < len(blocks) else None
    if child is None or child is not blocks[index + 1] or child.ordered \
            or (after is not None and after.lead == child.content):
        return ""
    shown = read_inline(child.content)
    detail = plain(shown.restore(shown.text)).rstrip(".")
    marked = _HIGHLIGHT_RE.search(shown.text) is not None and GAP not in shown.text
    return detail if marked and len(detail) <= MAX_DETAIL_CHARS else ""


def _asks_and_answers(block: Block) -> bool:
    """A list item holding a question and its answer ("1. Q: … A: …", "2. Was ist …? – …"): no step of a list."""
    return block.kind == "item" and (qa_pair(block.content) or dashed_qa_pair(block.content)) is not None


def _list_below(blocks: list[Block], position: int, limit: int = 4) -> tuple[str, tuple[str, ...]]:
    """The list right after the paragraph ``blocks[position]`` introduces ("To do X:", "**File explorer:**"), its
    first ``limit`` items."""
    following = blocks[position + 1] if position + 1 < len(blocks) else None
    if following is None or following.kind != "item" or following.lead != blocks[position].content:
        return "", ()
    return _steps(blocks, position + 1, limit)


CLOZE_KINDS = ("bold", "code")


def all_facts(sources: list[Source], lang: str, placed: bool = True) -> list[Fact]:
    """The facts of the passages; a cloze whose sentence reads like another's ("Right-click the canvas and then
    select …") gets its section heading in front, so each one can only be completed one way. ``placed``: a section
    the note names twice is named with its parent heading (questions); a map keeps each section's own name."""
    hubs = hub_notes(sources)
    languages = _note_languages(sources)
    tails = _cut_tails(sources)
    facts = [fact for source in sources if source.path not in hubs
             for fact in facts_of(source, languages.get(source.path) or source.lang or lang)
             if not (source.chunk_id in tails and tails[source.chunk_id] in _flat(plain(fact.sentence)))]
    facts += _counted_off_aloud([source for source in sources if source.path not in hubs], languages, lang)
    facts = _labels_of_values(_placed(facts) if placed else facts)
    blanks = Counter(blank_term(f.sentence, f.term) for f in facts if f.kind in CLOZE_KINDS)
    # a list item's cloze is a fragment: "Composition: ==720 MEPs== since the 2024 election" (not when the heading
    # holds its answer)
    # (under the label it hangs from: "Life paths › massive stars: ==Iron fusion releases no energy== → …")
    return [replace(f, sentence=f"{place}: {f.sentence}", cloze=f"{place}: {f.cloze}")
            if f.kind in CLOZE_KINDS and (place := cloze_place(f)) and f.cloze
            and (blanks[blank_term(f.sentence, f.term)] > 1 or f.listed or place != f.context) else f
            for f in facts]


MAX_VALUE_NAME_WORDS = 2
_LABEL_WORDS_RE = re.compile(r"[^\W\d_]+(?: [^\W\d_]+)?")  # "Anbieter", "Price tag": words, no figure or remark
MAX_VALUE_WORDS = 7  # "Empfehlung (DGE): 0,8 g pro kg Körpergewicht am Tag"; a longer description says more


def _labels_of_values(facts: list[Fact]) -> list[Fact]:
    """The facts with each list item marked ``structural`` whose label, not in bold, names a value of its section,
    not a term: one its note gives under two sections or more ("Energie: 4 kcal/g" under "Kohlenhydrate",
    "Energie: 9 kcal/g" under "Fette"), or one labelling an amount ("Empfehlung (DGE): 0,8 g pro kg …"). "Was
    bedeutet „Energie“?" would ask what the word means; the card asks "Kohlenhydrate: Energie?", and no quiz offers
    the label among terms. A term in bold ("**Maxime** = …"), a date ("1769:") and code ("`Enter`") label no
    value."""
    sections: dict[tuple[str, str], set[str]] = {}
    for fact in facts:
        if fact.kind == "item":
            sections.setdefault((fact.source.path, plain(fact.term).casefold()), set()).add(fact.context)

    def value(fact: Fact) -> bool:
        described = plain(fact.definition).rstrip(".")
        words = described.split()
        # "Anbieter: DATEV eG", "Provider: Fujifilm" (capitalised as the note writes it): a word's name, no
        # description ("major 7th (Cmaj7): C–E–G–B" names a term by what it is made of)
        named = len(words) <= MAX_VALUE_NAME_WORDS and _LABEL_WORDS_RE.fullmatch(plain(fact.term)) is not None \
            and (opens_with_symbol(described) or not fact.german and all(
                word[:1].isupper() and re.search(rf"(?<!\w){re.escape(word)}", fact.sentence) for word in words))
        return "$" not in described and (named or len(words) <= MAX_VALUE_WORDS and states_amounts(described))

    return [replace(fact, structural=True)
            if fact.kind == "item" and not fact.structural and not is_aspect(plain(fact.term))
            and not written_in_bold(fact) and when(plain(fact.term), fact.german) is None
            and not fact.term.startswith("`")  # "`Enter`" under two sections: a key, asked what it does
            and not _restates(fact.term, fact.definition)  # "Filter: Filter files" says its label again
            and (len(sections[(fact.source.path, plain(fact.term).casefold())]) >= 2 or value(fact))
            else fact for fact in facts]


_REMARK_AFTER_RE = re.compile(r"\s*\([^()]*\)$")  # "**Staging area** (index)" is the item "Staging area (index)"


def written_in_bold(fact: Fact) -> bool:
    """A list item whose label the note writes in bold ("- **Transfette**: …"): a term the student marked."""
    return "**" + _REMARK_AFTER_RE.sub("", plain(fact.term)) in fact.source.text


def _counted_off_aloud(sources: list[Source], languages: dict[str, str], lang: str) -> list[Fact]:
    """Per lecture transcript among the passages, the list its lecturer counts in one sentence and says over the
    paragraphs after it (:func:`counted_off`), passages of the note read as one talk: such a list often runs on into
    the next passage."""
    found: list[Fact] = []
    for passages in _passages_by_note(sorted(sources, key=_in_note_order)).values():
        first = passages[0]
        named = first.heading_path[0] if first.heading_path and first.heading_path[0] else first.title
        note_lang = languages.get(first.path) or first.lang or lang
        transcript = is_transcript_title(f"{first.title} {named}")
        said: list[tuple[list[str], Source, str]] = []  # each spoken paragraph's sentences, where it stands
        seen: set[str] = set()
        for source in passages:
            for block in blocks_of(source):
                text = unbold(read_inline(block.content).text) if block.kind == "paragraph" else ""
                if not text or block.content in seen or not (transcript or is_spoken(text)):
                    continue
                seen.add(block.content)  # a paragraph two passages both hold
                heard = sentences(without_remarks_in_brackets(text))
                plainly = (said_plainly(sentence, note_lang) for sentence in heard)
                said.append(([sentence for sentence in plainly if sentence and "?" not in sentence], source,
                             block.heading))
        counted = counted_off([sentences for sentences, _, _ in said], lecture_subject(named), note_lang)
        if counted is None:
            continue
        position, noted = counted
        _, source, heading = said[position]
        answer = _finish(noted.text)
        found.append(Fact("faq", noted.term, answer, answer, "", "", cited_under(source, heading, heading),
                          note_lang, form="question", context=without_course_remarks(heading)))
    return found


def cloze_place(fact: Fact) -> str:
    """Where a cloze stands: its section and the label its list item hangs from ("Life paths › massive stars"), its
    section alone where the label names the answer ("To expand all folders:" over "Select **Expand all** …"); ""
    where the section names it too."""
    for place in (" › ".join(filter(None, (fact.context, fact.frame))), fact.context):
        if place and plain(fact.term).casefold() not in place.casefold():
            return place
    return ""


MIN_TAIL_CHARS = 20


def _cut_tails(sources: list[Source]) -> dict[str, str]:
    """The passages whose last line goes on in the next passage of their note ("… der Wortlaut wurde wahrsch." and
    then "– der Wortlaut wurde wahrsch. später ergänzt) → …"): chunk id -> the end of its text. A fact read from
    that line would stop mid-sentence."""
    tails: dict[str, str] = {}
    for passages in _passages_by_note(sorted(sources, key=_in_note_order)).values():
        for before, after in zip(passages, passages[1:], strict=False):
            end = before.text.rstrip()[-MIN_TAIL_CHARS:]
            found = after.text.find(end) if len(end) == MIN_TAIL_CHARS else -1
            if found >= 0 and after.text[found + len(end):][:1] not in ("", "\n", "\r"):
                tails[before.chunk_id] = _flat(plain(end)).rstrip(". ")
    return tails


def _parent_heading(fact: Fact, below_top: bool = False) -> str:
    """The heading above the section ``fact`` sits in ("European Parliament" over "Composition"), "" when none;
    ``below_top``: not the note's top heading (its title, "The Industrial Revolution in Britain")."""
    path = [without_course_remarks(plain(read_inline(h).text)) for h in fact.source.heading_path if h]
    if len(path) >= (3 if below_top else 2) and path[-1].casefold() == plain(fact.context).casefold():
        return path[-2]
    return ""


def _placed(facts: list[Fact]) -> list[Fact]:
    """A section name the note repeats ("Composition" under the Parliament, the Council and the Commission), or one
    naming only an aspect ("Structure", "Aufbau"), asks with the heading above it ("European Commission ›
    Composition: term of office?", "Court of Justice › Structure: seat?"): alone it names no one subject."""
    parents: dict[tuple[str, str], set[str]] = {}
    for fact in facts:
        if fact.context:
            parents.setdefault((fact.source.path, fact.context), set()).add(_parent_heading(fact))
    return [replace(fact, context=f"{parent} › {fact.context}")
            if fact.context and (parent := _parent_heading(fact) if len(parents[(fact.source.path, fact.context)]) > 1
                                 else _parent_heading(fact, below_top=True) if is_aspect(fact.context) else "")
            else fact for fact in facts]


def _in_note_order(source: Source) -> tuple[str, int]:
    return source.path, source.line_start


def _passages_by_note(sources: list[Source]) -> dict[str, list[Source]]:
    """The passages of each note, in the order given."""
    by_path: dict[str, list[Source]] = {}
    for source in sources:
        by_path.setdefault(source.path, []).append(source)
    return by_path


def _texts_by_note(sources: list[Source]) -> dict[str, str]:
    return {path: "\n".join(source.text for source in passages)
            for path, passages in _passages_by_note(sources).items()}


def _note_languages(sources: list[Source]) -> dict[str, str]:
    """The language a note's cards ask in, by its prose: a German note of Spanish tables asks in German even where
    its tag says "es" or its tables read as another language."""
    return {path: found for path, text in _texts_by_note(sources).items() if (found := prose_language(text))}


def hub_notes(sources: list[Source]) -> dict[str, str]:
    """The notes among the passages that only link, date and tag (a semester plan): note path -> why nothing is
    asked about it. Their titles are no facts and no wrong options for another subject's quiz."""
    shapes = {path: note_shape(sectioned_text((source.heading_path, source.text) for source in passages))
              for path, passages in _passages_by_note(sources).items()}
    return {path: shape.reason for path, shape in shapes.items() if shape.hub}


def transcript_notes(sources: list[Source]) -> dict[str, str]:
    """The notes among the passages that are lectures said aloud: note path -> how they are read (the generate
    report says why such a note gives few cards)."""
    titles: dict[str, str] = {}
    for source in sources:  # the file's name and the note's title line
        titles[source.path] = f"{titles.get(source.path, source.title)} {' '.join(source.heading_path[:1])}"
    return {path: TRANSCRIPT_READING for path, text in _texts_by_note(sources).items()
            if is_transcript_title(titles[path]) or sum(map(is_spoken, text.split("\n\n"))) >= MIN_SPOKEN_PARAGRAPHS}


TRANSCRIPT_READING = ("read as a lecture transcript: asked only where the lecturer defines or names a term, counts "
                      "a list off, stresses a point or answers a student")
MIN_SPOKEN_PARAGRAPHS = 2


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


def clear_steps(facts: list[Fact]) -> list[Fact]:
    """The steps a "what comes right after" question can ask: a step after another, where every list quoting that
    other step goes on the same way ("Press Enter" in three lists, each going on differently, names no one list)."""
    def shown(text: str) -> str:
        return plain(text).rstrip(".")

    following: dict[str, set[str]] = {}
    for fact in facts:
        if fact.kind == "step" and fact.definition:
            following.setdefault(shown(fact.definition), set()).add(shown(fact.term))
    return [f for f in facts if f.kind == "step" and f.definition and len(following[shown(f.definition)]) == 1]


def key_phrases(source: Source, limit: int = 3) -> list[str]:
    """Short phrases for a mind-map leaf: the passage's terms (defined, listed, in bold), as plain text."""
    phrases: list[str] = []
    for fact in facts_of(source):
        if fact.kind in ("heading", "faq", "step"):
            continue
        term = plain(fact.term)
        if len(term) > 60 or term.casefold() in {p.casefold() for p in phrases}:
            continue
        phrases.append(term)
        if len(phrases) >= limit:
            break
    return phrases


def first_sentence(source: Source) -> str:
    for block in blocks_of(source):
        if block.kind == "paragraph":
            inline = read_inline(block.content)
            if inline.html or inline.embed:
                continue
            found = sentences(inline.text)
            if found:
                return _finish(inline.restore(unbold(found[0])))
    return ""


def bare_name(text: str) -> str:
    """What a term or label names, its article left out, for comparing: "The stroma" names "Stroma"."""
    return re.sub(r"^(?:the|a|an|der|die|das|ein|eine)\s+", "", text.casefold())


def _lower_article(term: str) -> str:
    """'The Calvin cycle' → 'the Calvin cycle' (for use inside a question)."""
    match = re.match(r"^(The|A|An|Der|Die|Das|Ein|Eine)\s+(.*)$", term)
    return f"{match.group(1).lower()} {match.group(2)}" if match else term


def display_term(term: str, text: str, german: bool) -> str:
    """An English term written as it appears mid-sentence ('Chloroplasts' → 'chloroplasts')."""
    if german or not term or not term[0].isupper() or term.split()[0].isupper():
        return term
    first = term.split()[0]
    if any(ch.isupper() for ch in first[1:]) or any(word[:1].isupper() for word in term.split()[1:]):
        return term  # RuBisCO, NADPH, Obsidian Web Clipper: names
    if re.search(r"[a-z,;][ \t]+" + re.escape(term), text):
        return term  # capitalised in the middle of a sentence: a name
    return term[0].lower() + term[1:]


# the question each defining verb asks, in its tense ("What was …?"); other verbs: "What {verb} …?"
_DEFINITION_QUESTIONS = {"refers to": "What does {term} refer to?", "refer to": "What do {term} refer to?",
                         "means": "What does {term} mean?", "versteht man": "Was versteht man unter {term}?",
                         **{verb: f"What does {{term}} {base}?"
                            for verb, base in WORDS["en"].describing_verbs.items()}}


def question_for(fact: Fact) -> str:
    """The front of a question card for a fact (German fronts never inflect the term: quoted forms); "" for a
    fact whose only question would be about the note's layout."""
    term = _lower_article(display_term(fact.term, fact.source.text, fact.german))
    if fact.kind == "definition":  # one read in the middle of a paragraph is asked within its section
        place = f"{fact.context or fact.source.title}: " if fact.situated else ""
        asked = _DEFINITION_QUESTIONS.get(fact.verb, "Was {verb} {term}?" if fact.german else "What {verb} {term}?")
        if is_copula(fact.verb) and names_a_person(plain(fact.term), plain(fact.definition), fact.lang, stated=True):
            asked = "Wer {verb} {term}?" if fact.german else "Who {verb} {term}?"  # "Was war Gustav Stresemann?"
        asked = asked.format(verb=fact.verb, term=term)
        return f"{place}{asked[0].lower() + asked[1:] if place and not fact.german else asked}"
    if fact.kind == "called":
        subject = _lower_article(plain(fact.definition).rstrip("."))
        subject = subject[0].lower() + subject[1:] if subject[:2].istitle() and not subject[:2].isupper() \
            and not fact.german else subject  # "Güter, deren …": a German noun keeps its capital
        if fact.german:
            return f"Wie {fact.verb} man {subject}?"
        return f"What {fact.verb} {subject} called?"
    if fact.kind == "vocab":
        return fact.term
    if fact.kind == "task":  # "Buchungssätze: Kauf eines PCs für 1.190 € per Banküberweisung?"
        return f"{fact.source.title}: {fact.term.rstrip('.:')}?"
    if fact.kind == "formula":
        place = fact.source.title if fact.term == fact.context else fact.context or fact.source.title
        if "=" in place or "=" in fact.term:
            return ""  # "2nd law – F = ma: formula?" says its answer
        return f"{place} › {fact.term}: {formula_word(fact.lang)}?"
    if fact.kind in ("row", "record"):
        column = fact.column.rstrip("?")  # a header asking already ("Binding?") asks once
        return f"{fact.context or fact.source.title}: „{fact.term}“ – {column}?" if fact.german \
            else f"{fact.context or fact.source.title}: “{fact.term}” – {column}?"
    if fact.kind == "item":
        return _item_question(fact).front
    if fact.kind == "faq" and fact.form == "statement":  # a problem or message the note answers
        stated = fact.term[:-1] if fact.term.endswith(".") and not fact.term.endswith("..") else fact.term
        return f"Was sagt „{fact.source.title}“ zu „{stated}“?" if fact.german \
            else f"What does “{fact.source.title}” say about “{stated}”?"
    if fact.kind == "faq" or (fact.kind == "heading" and fact.term.endswith("?")):
        # the note already asks it, unless it states its answer ("Haskell is purely functional?")
        return "" if states_not_asks(plain(fact.term), plain(fact.definition)) else fact.term
    listing = list_question(fact.term, fact.source.title, len(fact.list_items), fact.in_order, fact.german) \
        if fact.kind == "heading" and fact.list_items and fact.term != fact.source.title else None
    if listing:
        return listing
    counted = _counted(fact.term) if fact.kind in ("heading", "label") and fact.list_items else None
    if counted is not None and counted.count == len(fact.list_items):
        # "The seven institutions (Art. 13 TEU)" over 7 items, "Die 3 Arten der Elastizität:" over 3: name them (they
        # are no steps, numbered or not; phases or stages numbered, in their order)
        named = counted.named[0].lower() + counted.named[1:]  # "die 3 Hauptsätze", "the seven institutions"
        named = named if counted.article else f"{'die' if fact.german else 'the'} {named}"
        kind = list_kind(counted.kind, fact.german)
        ordered = fact.in_order and kind is not None and kind.sequence
        place = f"{fact.source.title} › {counted.label}" if counted.label else fact.source.title
        return f"{place}: Nenne {named}{' in ihrer Reihenfolge' if ordered else ''}." if fact.german \
            else f"{place}: name {named}{' in order' if ordered else ''}."
    if fact.kind in ("heading", "label") and fact.in_order and fact.list_items:
        names = [fact.source.title, *([fact.context] if fact.kind == "label" else []), fact.term]
        place = " › ".join(f"„{name}“" if fact.german else f"“{name}”" for name in dict.fromkeys(names))
        return f"{place}: Welche Schritte, in welcher Reihenfolge?" if fact.german \
            else f"{place}: which steps, in order?"
    if fact.kind in ("heading", "label"):
        # "What does X say under Y?", "What is X about?" would ask where a text stands, not what it says: no
        # question (the facts inside the section are asked about one by one)
        return ""
    if fact.kind == "step":
        place = f"„{fact.source.title}“" + (f" › „{fact.context}“" if fact.context else "") if fact.german \
            else f"“{fact.source.title}”" + (f" › “{fact.context}”" if fact.context else "")
        previous = fact.definition.rstrip(".")
        return f"{place}: Was kommt direkt nach „{previous}“?" if fact.german \
            else f"{place}: what comes right after “{previous}”?"
    return fact.cloze or fact.sentence


_COUNTS = {word: str(number) for number, words in enumerate(
    (("two", "zwei"), ("three", "drei"), ("four", "vier"), ("five", "fünf"), ("six", "sechs"), ("seven", "sieben"),
     ("eight", "acht"), ("nine", "neun"), ("ten", "zehn"), ("eleven", "elf"), ("twelve", "zwölf")), start=2)
    for word in words}
# "The seven institutions (Art. 13 TEU)", "Die 3 Hauptsätze", "The 3 Punic Wars", "Die 4 Kardinalzeichen der
# Entzündung", "Kaufentscheidungsprozess: Die 5 Phasen": a heading or a label counting its list's items (a count, a
# plural with at most two words before it, what they are of, a remark; "Zwei Karten verbinden" says what to do, "Two
# ways to connect" how, they count no list)
_LINKS = "(?:of|for|in|der|des|von|für|im|zur|zum)"
_COUNTED_HEADING_RE = re.compile(rf"^(?:(?P<label>[^:\d]{{2,40}}):\s+)?"
                                 rf"(?P<article>(?:The|the|Die|die|Der|der|Das|das)\s+)?"
                                 rf"(?P<count>\d{{1,2}}|{'|'.join(_COUNTS)})\s+"
                                 rf"(?P<kind>(?:(?!{_LINKS}\s)[^\W\d_][\w'’-]*\s+){{0,2}}[^\W\d_][\w'’-]*)"
                                 rf"(?P<of>\s+{_LINKS}\s+[^():]{{1,50}}?)?"
                                 rf"(?:\s*\([^()]*\))?\s*:?\s*$", re.IGNORECASE)
_ARTICLES = {"the", "die", "der", "das"}
_IRREGULAR_PLURALS = {"people", "children", "criteria", "phenomena", "men", "women", "data"}


@dataclass(frozen=True, slots=True)
class Counted:
    """What a heading or a list's label counts."""

    count: int
    named: str  # the counted items as the heading names them, without its label ("The 3 Punic Wars")
    kind: str  # what they are, for "in order" ("Phasen", "stages")
    article: bool  # the heading names them with an article
    label: str  # what the heading's label says they belong to ("Kaufentscheidungsprozess"), "" when none


def _counted(heading: str) -> Counted | None:
    """What a heading or a list's label counts ("Die 5 guten Kaiser": 5 "guten Kaiser"), None when it counts no
    list: its counted word is a plural noun (German capitalises it, English ends it in "s")."""
    found = _COUNTED_HEADING_RE.match(plain(heading).strip())
    if found is None:
        return None
    last = found.group("kind").split()[-1]
    if not (last[:1].isupper() or last.casefold().endswith("s") or last.casefold() in _IRREGULAR_PLURALS):
        return None
    start = found.start("article") if found.group("article") else found.start("count")
    shown = plain(heading).strip()
    count = found.group("count").casefold()
    return Counted(int(_COUNTS.get(count, count)), shown[start:].rstrip(": "), found.group("kind").split()[-1],
                   bool(found.group("article")), (found.group("label") or "").strip())


def _item_question(fact: Fact) -> ItemQuestion:
    # "## Vergüten" over "= Härten + Anlassen": the section is the term, the note is where it stands
    context = fact.context if plain(fact.context) != plain(fact.term) else ""
    place = " › ".join(filter(None, (context or fact.source.title, fact.frame)))
    if fact.structural and fact.context and fact.context != fact.source.title:
        place = f"{fact.source.title} › {place}"  # "Der Schimmelreiter › Inhalt: Spannung?"
    return item_question(fact.term, fact.definition, place, fact.source.title, fact.german, fact.nested,
                         names=_labels_a_name(fact) or fact.structural or fact.stated)


def _labels_a_name(fact: Fact) -> bool:
    """An English item whose lower-case label stands before a name the note writes capitalised ("predecessors:
    Herman Van Rompuy, …", "administration: Directorates-General (DGs) …", "current framework: Treaty of Lisbon"):
    the label says what the name is to its section, it is no term of the subject to define."""
    if fact.german or not fact.term[:1].islower() or fact.sentence[:len(fact.term)].casefold() != fact.term:
        return False  # (the sentence opens capitalised as a card shows it)
    described = fact.sentence[len(fact.term):].lstrip(" :–—-=*_")
    return described[:1].isupper() and not described.split()[0].isupper()  # "TCP", "C=O": a term's letters


def asks_term(fact: Fact) -> bool:
    """A list item's card that asks for the item's name from what it says ("which phase is this: …")."""
    return fact.kind == "item" and _item_question(fact).asks_term


def answer_for(fact: Fact) -> str:
    if fact.kind in ("called", "step"):
        return _finish(fact.term)
    if asks_term(fact):
        return fact.term
    return fact.definition
