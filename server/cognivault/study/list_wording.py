"""How a card or a question on a list asks, by what the list is a list of.

The heading over a list says what its items are: "Causes" lists causes, "Phases" phases, "Characters" people,
"Ursachen der Inflation" causes. A list of terms ("Key terms", "Begriffe", any other heading) asks what each term
is; an item of a list of causes, phases or characters is asked back from its description ("which cause is this:
'France was nearly bankrupt …'?"), since "what is 'Financial crisis'?" asks what the student knows already and not
why it is on the list. A year in a timeline asks what happened then, a command with a description that says what it
does asks what it does, and a section opening with such a list asks for its items by their kind and number ("name
the 4 causes of a demand shift").

A heading names its kind by its first word ("Causes of a demand shift"); German asks with the singular and its
gender's "welche/welcher/welches" ("Welche Ursache ist gemeint"), never inflecting the note's words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cognivault.vault.reading import asks, formula_word, is_aspect, math_spans, names_a_person, verb_in_person


@dataclass(frozen=True, slots=True)
class _Kind:
    """One kind of list item, as a heading's first word (a plural) names it."""

    one: str  # one item: "cause", "Ursache"
    which: str  # asking for one, in its gender: "which", "Welche"
    sequence: bool = False  # its items come in an order of their own (steps, phases)
    people: bool = False  # its items are people: a person is offered among people only


@dataclass(frozen=True, slots=True)
class _ListWords:
    """A language's words for what a list is a list of."""

    kinds: dict[str, _Kind]  # a heading's first word (plural) -> one of its items
    links: frozenset[str]  # what ties a kind to what it belongs to ("Causes *of* …", "Folgen *für* …")
    # words naming a sequence, anywhere in a heading or a list's lead (German: also a compound's end,
    # "Produktlebenszyklus", "Arbeitsschritte"): a numbered list under one is asked in its order
    ordered: tuple[str, ...]
    # words naming a collection without an order of its own, anywhere in a heading or a list's lead ("Factors
    # influencing buying behaviour", "Einflussfaktoren auf die Preiselastizität", "The three rules"); not the kinds a
    # procedure's lead may name ("To run a command using Slash commands:")
    unordered: tuple[str, ...]
    joins: tuple[str, ...] = ()  # what joins a list's last part ("hot, dry *and* windy", "`a`, `b` *oder* `c`")


_LIST_WORDS: dict[str, _ListWords] = {
    "en": _ListWords(
        kinds={
            "causes": _Kind("cause", "which"), "reasons": _Kind("reason", "which"), "factors": _Kind("factor", "which"),
            "triggers": _Kind("trigger", "which"), "consequences": _Kind("consequence", "which"),
            "effects": _Kind("effect", "which"), "outcomes": _Kind("outcome", "which"),
            "impacts": _Kind("impact", "which"), "methods": _Kind("method", "which"),
            "techniques": _Kind("technique", "which"), "approaches": _Kind("approach", "which"),
            "strategies": _Kind("strategy", "which"), "functions": _Kind("function", "which"),
            "roles": _Kind("role", "which"), "tasks": _Kind("task", "which"), "uses": _Kind("use", "which"),
            "applications": _Kind("application", "which"), "properties": _Kind("property", "which"),
            "features": _Kind("feature", "which"), "characteristics": _Kind("characteristic", "which"),
            "traits": _Kind("trait", "which"), "advantages": _Kind("advantage", "which"),
            "benefits": _Kind("benefit", "which"), "disadvantages": _Kind("disadvantage", "which"),
            "drawbacks": _Kind("drawback", "which"), "limitations": _Kind("limitation", "which"),
            "problems": _Kind("problem", "which"), "risks": _Kind("risk", "which"),
            "challenges": _Kind("challenge", "which"), "crises": _Kind("crisis", "which"),
            "symptoms": _Kind("symptom", "which"), "types": _Kind("type", "which"), "kinds": _Kind("kind", "which"),
            "forms": _Kind("form", "which"), "phases": _Kind("phase", "which", sequence=True),
            "stages": _Kind("stage", "which", sequence=True), "steps": _Kind("step", "which", sequence=True),
            "characters": _Kind("character", "which", people=True), "people": _Kind("person", "which", people=True),
            "figures": _Kind("figure", "which", people=True), "themes": _Kind("theme", "which"),
            "motifs": _Kind("motif", "which"), "symbols": _Kind("symbol", "which"),
            "commands": _Kind("command", "which"), "clauses": _Kind("clause", "which"),
            "operators": _Kind("operator", "which"), "keywords": _Kind("keyword", "which"),
            "mechanisms": _Kind("mechanism", "which"), "artists": _Kind("artist", "which", people=True),
            "painters": _Kind("painter", "which", people=True), "composers": _Kind("composer", "which", people=True),
            "authors": _Kind("author", "which", people=True), "writers": _Kind("writer", "which", people=True),
            "philosophers": _Kind("philosopher", "which", people=True),
            "scientists": _Kind("scientist", "which", people=True),
            "inventors": _Kind("inventor", "which", people=True), "rulers": _Kind("ruler", "which", people=True),
            "researchers": _Kind("researcher", "which", people=True), "leaders": _Kind("leader", "which", people=True),
            "politicians": _Kind("politician", "which", people=True),
        },
        links=frozenset({"of", "for", "in", "to", "on"}),
        joins=("and", "or"),
        ordered=("algorithm", "chronology", "cycle", "instructions", "lifecycle", "order", "phases", "procedure",
                 "process", "recipe", "sequence", "stages", "step", "steps", "timeline", "workflow"),
        unordered=("advantages", "aspects", "assumptions", "axioms", "benefits", "causes", "characteristics",
                   "conditions", "consequences", "criteria", "determinants", "disadvantages", "drawbacks", "effects",
                   "examples", "factors", "features", "goals", "influences", "kinds", "laws", "limitations",
                   "objectives", "outcomes", "premises", "prerequisites", "principles", "properties", "reasons",
                   "requirements", "risks", "rules", "symptoms", "tests", "tips", "traits", "triggers", "types"),
    ),
    "de": _ListWords(
        kinds={
            "ursachen": _Kind("Ursache", "Welche"), "gründe": _Kind("Grund", "Welcher"),
            "faktoren": _Kind("Faktor", "Welcher"), "auslöser": _Kind("Auslöser", "Welcher"),
            "folgen": _Kind("Folge", "Welche"), "auswirkungen": _Kind("Auswirkung", "Welche"),
            "methoden": _Kind("Methode", "Welche"), "verfahren": _Kind("Verfahren", "Welches"),
            "techniken": _Kind("Technik", "Welche"), "strategien": _Kind("Strategie", "Welche"),
            "funktionen": _Kind("Funktion", "Welche"), "aufgaben": _Kind("Aufgabe", "Welche"),
            "rollen": _Kind("Rolle", "Welche"), "eigenschaften": _Kind("Eigenschaft", "Welche"),
            "merkmale": _Kind("Merkmal", "Welches"), "vorteile": _Kind("Vorteil", "Welcher"),
            "nachteile": _Kind("Nachteil", "Welcher"), "probleme": _Kind("Problem", "Welches"),
            "risiken": _Kind("Risiko", "Welches"), "krisen": _Kind("Krise", "Welche"),
            "symptome": _Kind("Symptom", "Welches"), "arten": _Kind("Art", "Welche"), "typen": _Kind("Typ", "Welcher"),
            "formen": _Kind("Form", "Welche"), "phasen": _Kind("Phase", "Welche", sequence=True),
            "stadien": _Kind("Stadium", "Welches", sequence=True), "stufen": _Kind("Stufe", "Welche", sequence=True),
            "schritte": _Kind("Schritt", "Welcher", sequence=True), "personen": _Kind("Person", "Welche", people=True),
            "figuren": _Kind("Figur", "Welche", people=True), "themen": _Kind("Thema", "Welches"),
            "motive": _Kind("Motiv", "Welches"), "symbole": _Kind("Symbol", "Welches"),
            "befehle": _Kind("Befehl", "Welcher"), "operatoren": _Kind("Operator", "Welcher"),
            "mechanismen": _Kind("Mechanismus", "Welcher"), "einschränkungen": _Kind("Einschränkung", "Welche"),
            "herausforderungen": _Kind("Herausforderung", "Welche"),
            "künstler": _Kind("Künstler", "Welcher", people=True), "maler": _Kind("Maler", "Welcher", people=True),
            "komponisten": _Kind("Komponist", "Welcher", people=True),
            "autoren": _Kind("Autor", "Welcher", people=True),
            "philosophen": _Kind("Philosoph", "Welcher", people=True),
            "erfinder": _Kind("Erfinder", "Welcher", people=True),
            "herrscher": _Kind("Herrscher", "Welcher", people=True),
            "forscher": _Kind("Forscher", "Welcher", people=True),
            "wissenschaftler": _Kind("Wissenschaftler", "Welcher", people=True),
            "politiker": _Kind("Politiker", "Welcher", people=True),
        },
        links=frozenset({"der", "des", "von", "für", "im", "in", "bei", "zur", "zum", "auf"}),
        joins=("und", "oder"),
        ordered=("schritte", "schritten", "schritt", "phasen", "stadien", "stufen", "ablauf", "abläufe", "vorgehen",
                 "vorgehensweise", "prozess", "zyklus", "reihenfolge", "chronologie", "zeitleiste", "zeitstrahl",
                 "anleitung", "prüfung", "prüfschema", "verlauf", "entstehung", "algorithmus", "rezept"),
        unordered=("ursachen", "gründe", "faktoren", "auslöser", "folgen", "auswirkungen", "vorteile", "nachteile",
                   "risiken", "symptome", "arten", "typen", "eigenschaften", "merkmale", "regeln", "gesetze",
                   "prinzipien", "beispiele", "tipps", "kriterien", "voraussetzungen", "einflüsse", "aspekte",
                   "einflussgrößen", "annahmen", "bedingungen", "prämissen", "axiome", "grundsätze", "ziele"),
    ),
}
_ERA = r"(?:BC|BCE|AD|CE|[vn]\. ?Chr\.)"
_SPAN = r"(?:\s*(?:–|-|/|bis|to)\s*\d{2,4})?"  # "1521/22": a span of two
_YEAR = rf"(?:\d{{3,4}}{_SPAN}(?: {_ERA})?|\d{{1,4}}{_SPAN} {_ERA})"  # "30 BC": a short year says its era
_MONTH = (r"(?:January|February|March|April|May|June|July|August|September|October|November|December|Januar|Februar|"
          r"März|Mai|Juni|Juli|Oktober|Dezember)")
_YEAR_RE = re.compile(rf"^(?:um |ca\. |c\. )?{_YEAR}$")
_MONTH_RE = re.compile(rf"^{_MONTH} {_YEAR}$")
_DAY_RE = re.compile(rf"^(?:\d{{1,2}}\.? {_MONTH},? {_YEAR}|{_MONTH} \d{{1,2}}, {_YEAR})$")
# a label naming who or what with its year ("Alfred Wegener 1915", "Irving Fisher 1911"): a year of the era, not a
# number in a name ("ISO 9001", "DIN 4844")
_NAMED_YEAR_RE = re.compile(r"^(?P<name>[A-ZÄÖÜ][^\W\d_]*(?:[ -][A-ZÄÖÜ][^\W\d_]*){0,3})\s+\(?"
                            r"(?P<year>1\d{3}|20\d{2}|\d{3,4} (?:BC|v\. Chr\.))\)?$")
_CODE_RE = re.compile(r"^`[^`]+`$")


@dataclass(frozen=True, slots=True)
class ListKind:
    """What a list's items are, in the note's language."""

    one: str  # one item: "cause", "Ursache"
    which: str  # asking for one: "which cause", "Welche Ursache"
    all_of: str  # the heading as the object of "name the N …": "causes of a demand shift", "Ursachen der Inflation"
    sequence: bool  # its items come in an order of their own (steps, phases), not just numbered
    people: bool = False  # its items are people ("Key people", "Forscher"): a person is offered among people only


def lists_people(heading: str, german: bool) -> bool:
    """Whether the list under ``heading`` names people ("Key people", "Forscher", "Philosophen der Aufklärung")."""
    kind = list_kind(heading, german)
    return kind is not None and kind.people


def list_kind(heading: str, german: bool) -> ListKind | None:
    """The kind of list under ``heading`` (its first word, a plural such as "Causes", alone or before what they
    belong to: "Causes of a demand shift", "Ursachen der Inflation"), or None for terms ("Themen durchsuchen" is
    what to do, no list of themes)."""
    words = heading.split()
    if len(words) > 1 and words[0].isdigit():  # "4 Arten von Bestandsveränderungen": the count is said again
        words = words[1:]
        heading = " ".join(words)
    said = _LIST_WORDS["de" if german else "en"]
    if len(words) == 2 and words[1].casefold() in said.kinds and words[0].casefold() not in said.links:
        # "Social consequences", "Wirtschaftliche Folgen": a word before the kind says which ones
        kind = list_kind(words[1], german)
        if kind is not None:
            return ListKind(kind.one, kind.which, heading if german else heading[0].lower() + heading[1:],
                            kind.sequence, kind.people)
    if not words or (len(words) > 1 and words[1].casefold() not in said.links):
        return None
    named = said.kinds.get(words[0].casefold())
    if named is None:
        return None
    return ListKind(named.one, f"{named.which} {named.one}", heading if german else heading[0].lower() + heading[1:],
                    named.sequence, named.people)


def unordered_kind(heading: str, german: bool) -> bool:
    """Whether ``heading`` names a kind of list whose items come in no order of their own (causes, methods), even
    when the list is numbered."""
    kind = list_kind(heading, german)
    return kind is not None and not kind.sequence


MIN_COMPOUND_KIND = 7
# words that order what a list's items say ("then", "danach"): its items tell a course of events
_ORDER_WORDS = frozenset({"then", "next", "afterwards", "finally", "first", "later", "dann", "danach", "zuerst",
                          "anschließend", "schließlich", "zuletzt", "später"})
_DESCRIBED_LABEL_RE = re.compile(r"^\s*[^\s–:]+(?:\s+[^\s–:]+){0,3}\s+[–-]\s+\S|^\s*[^\s:]+(?:\s+[^\s:]+){0,3}:\s+\S")
_DATED_RE = re.compile(rf"^\s*(?:um |ca\. |c\. )?{_YEAR}(?!\w)")


def _words_of(text: str) -> list[str]:
    return re.findall(r"[^\W\d_]+", text.casefold())


def _names_ordered(text: str, german: bool) -> bool:
    words = _words_of(text)
    if german:
        return any(word.endswith(_LIST_WORDS["de"].ordered) and "folgen" not in word for word in words)
    return any(word in _LIST_WORDS["en"].ordered for word in words)


def _names_unordered(text: str, german: bool) -> bool:
    """A heading or a list's lead naming a kind of list without an order (anywhere: "Factors influencing buying
    behaviour", "Einflussfaktoren auf die Preiselastizität", "The three rules")."""
    words = _words_of(text)
    if german:
        # a compound ends in a long kind ("Einflussfaktoren"); a short one is a word of its own ("Karten" lists no
        # "Arten")
        return any(word == kind or (len(kind) >= MIN_COMPOUND_KIND and word.endswith(kind))
                   for word in words for kind in _LIST_WORDS["de"].unordered)
    return any(word in _LIST_WORDS["en"].unordered for word in words)


def in_sequence(heading: str, lead: str, items: list[str], german: bool) -> bool:
    """Whether a numbered list's items come in an order of their own, so "which step comes right after" asks
    something: its heading or lead names a sequence (steps, phases, a process, a timeline, "Ablauf",
    "Produktlebenszyklus"), its items are dated or ordered by words ("then", "danach"), or they are no labels with
    descriptions. Never a list its heading names as factors, reasons, types, rules or examples, nor one whose items
    are each a label with its description ("Anteil am Budget – großer Anteil → elastischer", "Quästor –
    Finanzverwaltung"): numbers count them, they give no order."""
    names = [heading.rsplit(" › ", 1)[-1], lead]
    # a lead sentence naming the steps outweighs a kind it names in passing ("follow the steps below. Note that
    # applying a license does not provide any functional benefits")
    if _names_unordered(names[0], german) or (_names_unordered(lead, german) and not _names_ordered(lead, german)):
        return False
    if any(_names_ordered(name, german) for name in names) \
            or sum(bool(_DATED_RE.match(item)) for item in items) >= len(items) - 1 \
            or sum(bool(_ORDER_WORDS & set(_words_of(item))) for item in items) >= 2:
        return True
    return not all(_DESCRIBED_LABEL_RE.match(item) for item in items)


def when(term: str, german: bool) -> str | None:
    """A timeline's entry as a time in a question ("in 1769", "on 14 July 1789", "am 14. Juli 1789", "im August
    1789"), or None when the term is no date."""
    term = term.strip()
    if _YEAR_RE.match(term):
        return term if german else f"in {term}"
    if _MONTH_RE.match(term):
        return f"im {term}" if german else f"in {term}"
    if _DAY_RE.match(term):
        return f"am {term}" if german else f"on {term}"
    return None


# what a date stands before when it dates amounts, not an event: "≈ €1.074 trillion", "Germany 96, France 81, …"
_AMOUNT_OPENING_RE = re.compile(r"^\s*(?:≈|~|ca\.|approx\.|rund|etwa|[€$£]|\d)")
_CLAUSE_END_RE = re.compile(r"[,;+→(]")
_ENDS_IN_NUMBER_RE = re.compile(r"\d[\d.,]*\s*%?$")
_COUNTED_WORDS_RE = re.compile(r"^\d+\s+[^\W\d_]+\s+[^\W\d_]")  # "30 years war ends": a count in an event's words
# "1. Triumvirat", "2nd Punic War": which one, not how many
_ORDINAL_OPENING_RE = re.compile(r"^\d{1,2}(?:\.|st|nd|rd|th)\s+[^\W\d_]")


def states_amounts(description: str) -> bool:
    """A dated list item that gives amounts or counts, not an event ("2024: Germany 96, France 81, …", "2021–2027:
    ≈ €1.074 trillion"): its first clause opens with an amount, or is a name and a number of at most three words.
    "What happened in 2024?" would ask for something that did not happen."""
    first = _CLAUSE_END_RE.split(description, maxsplit=1)[0].strip().rstrip(".")
    if _AMOUNT_OPENING_RE.match(first) and not (_COUNTED_WORDS_RE.match(first) or _ORDINAL_OPENING_RE.match(first)):
        return True
    return bool(first) and len(first.split()) <= 3 and bool(_ENDS_IN_NUMBER_RE.search(first))


def says_what_it_does(term: str, description: str, german: bool) -> bool:
    """A code span described by what it does ("`git init` – creates a new repository", "– erstellt …")."""
    words = description.split()
    if not _CODE_RE.match(term.strip()) or not words:
        return False
    return verb_in_person(words[0].casefold().strip(",.;:"), "de" if german else "en")


@dataclass(frozen=True, slots=True)
class ItemQuestion:
    front: str
    asks_term: bool  # the back is the item's term (asked back from its description), not its description


def item_question(term: str, description: str, heading: str, title: str, german: bool,
                  nested: bool = False, names: bool = False) -> ItemQuestion:
    """The front of a card on a list item "term – description" under ``heading`` (in the note ``title``);
    ``nested``: the item sits under another item, so the heading's kind of list is not its kind (the artists
    under each of "Phases"); ``names``: the label says what a name is to the heading ("predecessors: Herman Van
    Rompuy, …"), asked as that aspect, not as what the label means."""
    place = heading or title
    heading = heading.rsplit(" › ", 1)[-1]  # "Court of Justice › Structure": the section's own name says the kind
    shown = description.rstrip(".")
    time = when(term, german) if not states_amounts(description) else None
    if time is not None:
        return ItemQuestion(f"{place}: Was geschah {time}?" if german else f"{place}: what happened {time}?", False)
    named = _NAMED_YEAR_RE.match(term.strip())
    if named and not named["name"].isupper() and not states_amounts(description):
        # asked "Alfred Wegener 1915?", the label names no term; its year is what the item dates
        time = when(named["year"], german)
        return ItemQuestion(f"{place}: Was geschah {time} ({named['name']})?" if german
                            else f"{place}: what happened {time} ({named['name']})?", False)
    if says_what_it_does(term, description, german):
        return ItemQuestion(f"{place}: Was bewirkt {term}?" if german else f"{place}: what does {term} do?", False)
    if is_aspect(term) or names:  # "Ursache: …" under "Monsun" says what causes the monsoon, not what "Ursache" means
        return ItemQuestion(f"{place}: {term}?", False)
    kind = None if nested else list_kind(heading, german)
    if kind is not None and not _names_again(term, description):
        return ItemQuestion(f"{title} › {place}: {kind.which} ist gemeint: „{shown}“?" if german
                            else f"{title} › {place}: {kind.which} is this: “{shown}”?", True)
    if names_a_person(term, description, "de" if german else "en") and term.casefold() not in description.casefold():
        # "Gustav Stresemann: Außenminister …" under "Weimar": who it was, never what the name means
        return ItemQuestion(f"{place}: Welche Person ist gemeint: „{shown}“?" if german
                            else f"{place}: who is this: “{shown}”?", True)
    if _CODE_RE.match(term.strip()):
        return ItemQuestion(f"{place}: Was ist {term}?" if german else f"{place}: what is {term}?", False)
    if _opens_with_formula(description) and "=" not in place + term:
        # "variable force: $W = \int F\,ds$ → area under …" under "Work": the formula for that case, not what a
        # variable force is
        return ItemQuestion(f"{place} › {term}: {formula_word('de' if german else 'en')}?", False)
    if not _names_a_term(term, german) or asks(heading) or _QUOTED_RE.match(description) \
            or ((nested or "(" in term) and _is_name(term, german)) or _names_an_aspect(heading) \
            or lists_properties(description, german) or _names_by_initials(term, description) \
            or (german and _names_no_noun(description)):
        # "Rückfluss zum Herzen", "4 Räume", "verallgemeinert": a label, no term; under "Why Britain first?" or "When
        # to use" each item ("Resources", "pipelines") is one of the answers, not a term to define; "Bramante – plans
        # for …" under an item of "Phases" is a person of that phase, "Dürer (Nuremberg)" a person with a remark, no
        # term to define;
        # under "Seats" each item gives its seat ("Parliament: Strasbourg"), it does not say what "Parliament" is;
        # "Elektrolytkondensator: hohe Kapazität, gepolt" gives its properties, not what the word means
        return ItemQuestion(f"{place}: {term}?", False)
    return ItemQuestion(f"{place}: Was bedeutet „{term}“?" if german else f"{place}: what is “{term}”?", False)


_REMARK_RE = re.compile(r"\s*\([^()]*\)")
_RELATION_RE = re.compile(r"=|<|>|\\le|\\ge|\\approx|≤|≥|≈")


def _names_by_initials(term: str, description: str) -> bool:
    """The description naming its label by the label's initials ("confidence interval: 95 % CI not containing
    μ0 ↔ reject H0"): it says something about the thing, not what the label means."""
    words = [word for word in re.split(r"[\s-]+", term) if word[:1].isalpha()]
    initials = "".join(word[0] for word in words).upper()
    return len(words) >= 2 and re.search(rf"(?<![^\W\d_]){initials}s?(?![^\W\d_])", description) is not None


def _names_no_noun(description: str) -> bool:
    """A German description with no noun after its first word (German capitalises every noun): "eher hell
    geröstet", "ca. 3-4 h, dehnen & falten" say how the thing is or is done, not what its label means."""
    words = [word.strip("(„“\"") for word in description.split()[1:]]
    return bool(words) and not any(word[:1].isupper() for word in words)


def _names_again(term: str, description: str) -> bool:
    """The description naming its label again, at the start of a word ("Temperatur" in "Temperaturanstieg"), not
    inside one ("Light" in "sunlight")."""
    return re.search(rf"(?<![^\W\d_]){re.escape(term.casefold())}", description.casefold()) is not None


MAX_PROPERTY_WORDS = 2


def lists_properties(description: str, german: bool) -> bool:
    """A description that is a list of short properties or values ("hohe Kapazität, gepolt", "small, unpolarised",
    "`pending`, `fulfilled` or `rejected`"): what the thing is like or may be, not what its name means."""
    joins = "|".join(_LIST_WORDS["de" if german else "en"].joins)
    parts = [part.split() for part in re.split(rf",\s*(?:(?:{joins})\s+)?|\s(?:{joins})\s",
                                                _REMARK_RE.sub("", description).rstrip(". "))]
    return len(parts) >= 2 and all(0 < len(words) <= MAX_PROPERTY_WORDS for words in parts)


def _opens_with_formula(description: str) -> bool:
    """A description opening with a formula relating quantities ("$F_R \\le \\mu_s F_N$, usually …"), not with a
    value ("$3.6 \\cdot 10^6$ J")."""
    spans = math_spans(description)
    return bool(spans) and spans[0][0] == 0 and bool(_RELATION_RE.search(description[:spans[0][1]]))


def labels_a_line(term: str) -> bool:
    """A list item's label that is a phrase, not a term: more than two words besides its remarks in parentheses
    ("priority for naming (highest first)", "Rückfluss zum Herzen"); "Pleinairmalerei (Freilichtmalerei)" is a
    term."""
    return len(_REMARK_RE.sub("", term).split()) > MAX_TERM_WORDS


def _names_an_aspect(heading: str) -> bool:
    """A heading naming in the plural an aspect of each item below it ("Seats", "Units"): not a heading over terms
    that describe it ("Structure", "Formeln")."""
    bare = heading.strip().casefold()
    # English plurals end in "s", German ones often in "e" or "n" ("Beispiele", "Folgen")
    return bare.endswith(("s", "e", "n")) and not is_aspect(bare) and is_aspect(bare[:-1])


def _is_name(term: str, german: bool) -> bool:
    """An English label written capitalised and not in capitals ("Bramante", "Van Gend"): a name, no term (German
    capitalises every noun, so nothing tells there)."""
    words = term.split()
    return not german and bool(words) and words[0][:1].isupper() and not words[0].isupper()


MAX_TERM_WORDS = 2
# a description that is only a quotation ('"O Tannenbaum"'): an example or a mnemonic, not what the term means
_QUOTED_RE = re.compile(r'^\s*["“„»\'][^"“”„»«\']+["”“«\']\s*(?:\([^()]*\))?\s*\.?\s*$')


def _names_a_term(term: str, german: bool) -> bool:
    """Whether a list item's label is a term whose meaning can be asked ("Agonist", "Saytzeff-Regel"), not a label
    for what follows it: a phrase of three words or more, one holding a number or a slash, a German label that
    opens in lower case (a verb or an adjective: German nouns are capitalised)."""
    words = term.split()
    if len(words) > MAX_TERM_WORDS or any(ch.isdigit() for ch in term) or "/" in term:
        return False
    return not (german and words and words[0][:1].islower())


def item_quiz_stem(term: str, description: str, heading: str, german: bool, nested: bool = False) -> str:
    """A quiz's stem asking for the term of a list item from its description (options: the list's terms)."""
    kind = None if nested or is_aspect(term) else list_kind(heading.rsplit(" › ", 1)[-1], german)
    if when(term, german) is not None and not states_amounts(description):
        return f"{heading}: Wann war das: „{description}“?" if german \
            else f"{heading}: when did this happen: “{description}”?"
    if kind is not None:
        return f"{heading}: {kind.which} ist gemeint: „{description}“?" if german \
            else f"{heading}: {kind.which} is this: “{description}”?"
    return f"{heading}: Welcher Begriff gehört zu „{description}“?" if german \
        else f"{heading}: which term goes with “{description}”?"


def list_question(heading: str, title: str, items: int, in_order: bool, german: bool) -> str | None:
    """The front of a card asking for the ``items`` items a section opens with ("name the 4 causes of a demand
    shift"); None when its heading does not say what they are."""
    kind = list_kind(heading, german)
    if kind is None:
        return None
    in_order = in_order and kind.sequence  # a numbered list of methods is no sequence
    if german:
        return f"{title}: Nenne die {items} {kind.all_of}{' in ihrer Reihenfolge' if in_order else ''}."
    return f"{title}: name the {items} {kind.all_of}{' in order' if in_order else ''}."
