"""The check every generated study item passes before it is written, and the verdict the generation bench reports.

An item is rejected when a student would be misled or puzzled by it:

- ``mangled_code``: a code span that is not in the source as written (a link
  stripped inside backticks, a changed character), or a stray backtick;
- ``mangled_link``: link syntax cut in half (``[[`` without ``]]``, ``](``
  left over) or a link that is not in the source;
- ``raw_html``: an HTML tag outside code (``<h1>``, ``<br>``);
- ``answer_in_stem``: a quiz stem that names the right option (the whole
  answer, or words of it no wrong option shares), or a cloze whose hidden
  words (or whole hidden text) stay readable in its sentence;
- ``duplicate_options``: two options that read the same;
- ``answer_stands_out``: the right option is the only one of its form (the
  only one with a remark in parentheses, opening with an article, or a list
  with commas; or the only one without; or far the longest), so it is found
  without knowing it;
- ``back_equals_front`` / ``empty_back``: a card that asks what it shows, or
  shows nothing;
- ``empty_label``: a mind-map node with no text.

Generators drop items with problems (so what is written passes), and
``bench/bench_generation.py`` runs the same check on the notes as written.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable

from cognivault.index.analysis import Analyzer
from cognivault.vault.markdown import block_tokens, inline_pieces

_WORD_RE = re.compile(r"[^\W_]{4,}", re.UNICODE)
_STOPWORDS = frozenset(
    "with from that this these those what which when where there their they them than then have your into "
    "about also only more most such each other some same will would could should been being does done make "
    "note notes true false wahr falsch eine einer eines einem einen nicht auch oder sind sein seine ihre "
    "ihren wird werden wurde dass diese dieser dieses kann können muss haben hier dort wenn dann beim durch "
    "über unter nach noch mehr sich".split())
# articles per language: "das GuV-Konto" among "Aktivtausch", "Passivtausch" stands out by its article; English
# names keep theirs ("The Reign of Terror" among "Tennis Court Oath"), so none is told apart by it
_ARTICLES = {"de": frozenset({"der", "die", "das", "den", "dem", "des", "ein", "eine", "einen", "einem", "einer",
                              "eines"}),
             "es": frozenset({"el", "la", "los", "las", "un", "una"})}
_ALL_ARTICLES = frozenset().union(*_ARTICLES.values())
_MATH_RE = re.compile(r"\$\$?[^$]+\$\$?")
_REMARK_RE = re.compile(r"\([^()]+\)")
_GLOSS_RE = re.compile(r"\(([^\W_][^\s()]{1,5})\)")  # "(Vd)", "(HZV)", "(t½)": a short name the term goes by
_ANALYZER = Analyzer()  # the index's stemming, so "reduces" in a stem gives away the section "Reduction"


def _outside_code(text: str) -> tuple[str, list[str]]:
    """(the text with code spans blanked, the code spans verbatim)."""
    codes: list[str] = []
    pieces: list[str] = []
    pos = 0
    for piece in inline_pieces(text):
        if piece.kind != "code" or piece.start < pos:
            continue
        pieces.append(text[pos:piece.start])
        pieces.append(" ")
        codes.append(text[piece.start:piece.end])
        pos = piece.end
    pieces.append(text[pos:])
    return "".join(pieces), codes


def _source_code(source_text: str) -> set[str]:
    """What the source shows as code, read as the index reads it: code spans' text, code blocks' lines."""
    shown: set[str] = set()
    for token in block_tokens(source_text):
        if token.type in ("fence", "code_block"):
            shown.update(line.strip() for line in token.content.split("\n"))
        elif token.type == "inline":
            shown.update(piece.text for piece in inline_pieces(token.content) if piece.kind == "code")
    return shown


def _code_text(code: str) -> str:
    inner = code.strip("`")
    return inner[1:-1] if len(inner) >= 2 and inner[0] == inner[-1] == " " and inner.strip() else inner


def markup_problems(text: str, source_text: str | None) -> list[str]:
    """Problems with the Markdown of one item side against the text it came from (form only when None)."""
    problems: list[str] = []
    prose, codes = _outside_code(text)
    shown = _source_code(source_text) if codes and source_text is not None else set()
    if any(source_text is not None and _code_text(code) not in shown for code in codes) or "`" in prose:
        problems.append("mangled_code")
    pieces = inline_pieces(prose)
    links = [prose[p.start:p.end] for p in pieces if p.kind in ("wikilink", "mdlink", "embed", "image")]
    bare = prose
    for found in links:
        bare = bare.replace(found, " ")
    bare = re.sub(r"\\.", " ", bare)  # escaped brackets are text
    if any(source_text is not None and found not in source_text for found in links) \
            or any(fragment in bare for fragment in ("[[", "]]", "](")):
        problems.append("mangled_link")
    if any(p.kind == "html" and not prose.startswith("<!--", p.start) for p in pieces):  # comments are hidden
        problems.append("raw_html")
    return problems


def content_words(text: str) -> set[str]:
    prose, codes = _outside_code(text)
    words = {w.casefold() for w in _WORD_RE.findall(prose)} - _STOPWORDS
    return words | {c.strip("`").casefold() for c in codes}


def stems_of(text: str, lang: str | None) -> set[str]:
    """The content words of ``text`` as the index stems them for ``lang`` (as written when it has no stemmer)."""
    return {stem for word in content_words(text) for stem in (_ANALYZER.terms_of_word(word, lang)[:1] or (word,))}


def _same_form(first: str, second: str) -> bool:
    short, long = sorted((first, second), key=len)
    return short == long or (len(short) >= 5 and long.startswith(short) and len(long) - len(short) <= 3)


def _same_word(first: str, second: str, lang: str | None = None) -> bool:
    """Equal, or one an inflection of the other (search/searches, Notiz/Notizen), never a mere shared prefix; with
    the note's language, also when their Snowball stems are (reduces/Reduction: "reduc", "reduct")."""
    if _same_form(first, second):
        return True
    stems = [_ANALYZER.terms_of_word(word, lang)[:1] for word in (first, second)] if lang else []
    return bool(stems) and all(stems) and _same_form(stems[0][0], stems[1][0])


_CODE_NAME_RE = re.compile(r"[^\W\d_]{3,}")


def _code_names(text: str) -> set[str]:
    """The names inside the text's code spans ("sort" of "`sort()`"): "Sorts the list in place" names `sort()`."""
    return {name.casefold() for code in _outside_code(text)[1] for name in _CODE_NAME_RE.findall(code)}


def _shares_answer(stem: str, answer: str, wrong: list[str], lang: str | None) -> bool:
    """The stem gives the answer away: it holds the whole answer, or words only the answer has (no wrong option
    has them too): any such word of a short answer (up to four content words), half the words of a longer one."""
    stem_folded = stem.casefold()
    bare = answer.strip().strip("`*").casefold()
    if bare and re.search(r"(?<!\w)" + re.escape(bare) + r"(?!\w)", stem_folded):
        return True
    stem_words = content_words(stem)
    others = {w for option in wrong for w in content_words(option) | _code_names(option)}
    words = content_words(answer) | _code_names(answer)
    shared = [w for w in words if any(_same_word(w, s, lang) for s in stem_words)
              and not any(_same_word(w, o, lang) for o in others)]
    # the short name the answer goes by, given in the stem ("…; Vd = Dosis / c₀" for "Verteilungsvolumen (Vd)")
    glosses = [g for g in _GLOSS_RE.findall(_outside_code(answer)[0])
               if re.search(rf"(?<!\w){re.escape(g)}(?!\w)", stem) and not any(g in option for option in wrong)]
    return bool(glosses) or bool(shared) and (len(words) <= 4 or len(shared) * 2 >= len(words)) \
        or any(_spelled_out(acronym, stem) and not any(acronym in option for option in wrong)
               for acronym in _ACRONYM_RE.findall(_outside_code(answer)[0])) \
        or len(words) <= 4 and _head_in_stem(stem_words, words, others)


_ACRONYM_RE = re.compile(r"(?<![^\W_])[A-ZÄÖÜ]{2,6}(?![^\W_])")  # "IPA", "ATP", "BGB"
_CAPITALISED_RE = re.compile(r"(?<![^\W_])[A-ZÄÖÜ][^\W_]*")


def _spelled_out(acronym: str, text: str) -> bool:
    """Whether ``text`` has capitalised words in a row whose initials spell ``acronym`` ("International Phonetic
    Alphabet" for "IPA"): an option going by that short name is given away."""
    capitalised = [(match.start(), match.group()) for match in _CAPITALISED_RE.finditer(text)]
    for at in range(len(capitalised) - len(acronym) + 1):
        run = capitalised[at:at + len(acronym)]
        in_a_row = all(re.fullmatch(r"[\s-]+", text[start + len(word):following])
                       for (start, word), (following, _) in zip(run, run[1:], strict=False))
        if in_a_row and "".join(word[0] for _, word in run) == acronym:
            return True
    return False


MIN_HEAD = 4  # "Klimax" of "Klimaxstadium", "Pionier" of "Pionierstadium": a compound's own part


def _head_in_stem(stem_words: set[str], words: set[str], others: set[str]) -> bool:
    """A compound answer whose own part (what it does not share with the wrong options' words: "klimax" of
    "klimaxstadium" among "folgestadium", "pionierstadium") opens a word of the stem ("Klimaxgesellschaft = …"): the
    stem names the answer's part that tells it apart."""
    for word in words:
        shared = max((len(os.path.commonprefix([word[::-1], other[::-1]])) for other in others), default=0)
        head = word[:len(word) - shared]
        if shared >= MIN_HEAD and len(head) >= MIN_HEAD and not any(other.startswith(head) for other in others) \
                and any(said.startswith(head) for said in stem_words):
            return True
    return False


_COMPOUND_RE = re.compile(r"(?:`[^`\n]+`|[^\W_])+(?:-(?:`[^`\n]+`|[^\W_])+)+")  # five-carbon, `base`-Block


def mask_answer_words(text: str, answer: str, lang: str | None, most: int | None = 2,
                      shared: Iterable[str] = ()) -> str:
    """``text`` with the words that give ``answer`` away shown as "…" (outside code), so a quoted sentence stays
    whole and says it lacks them ("to regenerate three molecules of … so the cycle"); "" when more than ``most``
    words would go (``None``: any number), or none would.

    A word the ``shared`` options (the wrong ones) hold too gives nothing away and stays, as the validator sees it;
    a word inside a hyphenated compound takes the whole compound with it ("a … sugar", never "a five-… sugar")."""
    answer_words = content_words(answer)
    common = {w for option in shared for w in content_words(option)}
    code = [(p.start, p.end) for p in inline_pieces(text) if p.kind == "code"]
    compounds = [(m.start(), m.end()) for m in _COMPOUND_RE.finditer(text)]
    hidden: list[tuple[int, int]] = []
    for match in _WORD_RE.finditer(text):
        word = match.group(0).casefold()
        if word in _STOPWORDS or any(start <= match.start() < end for start, end in code) \
                or not any(_same_word(word, a, lang) for a in answer_words) \
                or any(_same_word(word, c, lang) for c in common):
            continue
        span = next(((start, end) for start, end in compounds if start <= match.start() < end), match.span())
        if span not in hidden:
            hidden.append(span)
    if not hidden or (most is not None and len(hidden) > most):
        return ""
    shown = text
    for start, end in sorted(hidden, reverse=True):
        shown = f"{shown[:start]}…{shown[end:]}"
    return re.sub(r"…(?:\s*…)+", "…", shown)


def card_problems(front: str, back: str, source_text: str) -> list[str]:
    problems = markup_problems(front, source_text) + markup_problems(back, source_text)
    if not back.strip():
        problems.append("empty_back")
    elif " ".join(front.split()).casefold().rstrip("?.") == " ".join(back.split()).casefold().rstrip("?."):
        problems.append("back_equals_front")
    return sorted(set(problems))


def cloze_problems(text: str, source_text: str) -> list[str]:
    """A cloze gives its answer away when every word hidden is still readable in the rest of the sentence."""
    without = text.replace("==", "")
    problems = markup_problems(without, source_text)
    deletions = list(re.finditer(r"==([^=\n]+)==", text))
    if not deletions:
        problems.append("empty_back")
    for deletion in deletions:
        rest = (text[:deletion.start()] + " … " + text[deletion.end():]).replace("==", "")
        words = content_words(deletion.group(1))
        hidden = deletion.group(1).strip("`* ").casefold()
        if (words and all(any(_same_word(w, s) for s in content_words(rest)) for w in words)) \
                or (len(hidden) >= 3 and hidden in rest.casefold()):  # "ID ==`my-site`== … /my-site"
            problems.append("answer_in_stem")
    return sorted(set(problems))


def question_problems(stem: str, options: list[str], correct: int, source_text: str,
                      lang: str | None = None) -> list[str]:
    """Wrong options come from across the vault: only their form is checked, the right one against the source.
    ``lang``: the note's language, whose stems tell a word's other forms in the stem."""
    problems = markup_problems(stem, source_text)
    for index, option in enumerate(options):
        problems += markup_problems(option, source_text if index == correct else None)
    normalised = [" ".join(o.split()).casefold().strip("`*. ") for o in options]
    if len(set(normalised)) != len(normalised) or any(not o for o in normalised):
        problems.append("duplicate_options")
    if not 0 <= correct < len(options):
        problems.append("empty_back")
    elif len(options) > 2:
        wrong = [o for i, o in enumerate(options) if i != correct]
        if _shares_answer(stem, options[correct], wrong, lang):
            problems.append("answer_in_stem")
        if _stands_out(options[correct], wrong, lang):
            problems.append("answer_stands_out")
    return sorted(set(problems))


def _form_marks(option: str, lang: str | None) -> tuple[bool, bool, bool]:
    """(holds a remark in parentheses, opens with an article, lists with commas) outside code and math."""
    prose = _MATH_RE.sub(" ", _outside_code(option)[0]).strip()
    words = prose.split()
    articles = _ARTICLES.get(lang, frozenset()) if lang else _ALL_ARTICLES
    return (_REMARK_RE.search(prose) is not None, len(words) > 1 and words[0].casefold() in articles,
            re.search(r"[,;]\s", prose) is not None)


def _stands_out(answer: str, wrong: list[str], lang: str | None) -> bool:
    """The right option alone has a mark of form the wrong ones all lack, or alone lacks one they all have
    ("Herzzeitvolumen (HZV)" among "Systole", "Diastole"; "das GuV-Konto" among "Aktivtausch", "Passivtausch"),
    or is far longer than any of them."""
    mine = _form_marks(answer, lang)
    theirs = [_form_marks(option, lang) for option in wrong]
    longest = max(len(option.split()) for option in wrong)
    return any(all(marks[i] != mine[i] for marks in theirs) for i in range(len(mine))) \
        or len(answer.split()) > max(2 * longest, longest + 4)  # a sentence among names


def label_problems(label: str) -> list[str]:
    problems = [p for p in markup_problems(label, None) if p == "raw_html"]
    prose, _ = _outside_code(label)
    if re.search(r"</?[A-Za-z][A-Za-z0-9]*\b", prose) or re.match(r"^h[1-6]\s", prose):
        problems.append("raw_html")
    if not label.strip(" .…-"):
        problems.append("empty_label")
    return sorted(set(problems))


def tally(problem_lists: Iterable[list[str]]) -> dict[str, int]:
    """How many items have each problem, and how many have any (``rejected``)."""
    counts: dict[str, int] = {"rejected": 0}
    for problems in problem_lists:
        if problems:
            counts["rejected"] += 1
        for problem in problems:
            counts[problem] = counts.get(problem, 0) + 1
    return counts
