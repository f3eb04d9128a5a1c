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

# a heading's first word (plural) -> one of them (English)
_ENGLISH_KINDS = {
    "causes": "cause", "reasons": "reason", "factors": "factor", "triggers": "trigger",
    "consequences": "consequence", "effects": "effect", "outcomes": "outcome", "impacts": "impact",
    "methods": "method", "techniques": "technique", "approaches": "approach", "strategies": "strategy",
    "functions": "function", "roles": "role", "tasks": "task", "uses": "use", "applications": "application",
    "properties": "property", "features": "feature", "characteristics": "characteristic", "traits": "trait",
    "advantages": "advantage", "benefits": "benefit", "disadvantages": "disadvantage", "drawbacks": "drawback",
    "limitations": "limitation", "problems": "problem", "risks": "risk", "challenges": "challenge",
    "crises": "crisis", "symptoms": "symptom", "types": "type", "kinds": "kind", "forms": "form",
    "phases": "phase", "stages": "stage", "steps": "step", "characters": "character", "people": "person",
    "figures": "figure", "themes": "theme", "motifs": "motif", "symbols": "symbol", "commands": "command",
    "clauses": "clause", "operators": "operator", "keywords": "keyword", "mechanisms": "mechanism",
    "artists": "artist", "painters": "painter",
    "composers": "composer", "authors": "author", "writers": "writer", "philosophers": "philosopher",
    "scientists": "scientist", "inventors": "inventor", "rulers": "ruler", "researchers": "researcher",
    "leaders": "leader", "politicians": "politician",
}
# a heading's first word (plural) -> (one of them, "which" in its gender)
_GERMAN_KINDS = {
    "ursachen": ("Ursache", "Welche"), "gründe": ("Grund", "Welcher"), "faktoren": ("Faktor", "Welcher"),
    "auslöser": ("Auslöser", "Welcher"), "folgen": ("Folge", "Welche"), "auswirkungen": ("Auswirkung", "Welche"),
    "methoden": ("Methode", "Welche"), "verfahren": ("Verfahren", "Welches"), "techniken": ("Technik", "Welche"),
    "strategien": ("Strategie", "Welche"), "funktionen": ("Funktion", "Welche"), "aufgaben": ("Aufgabe", "Welche"),
    "rollen": ("Rolle", "Welche"), "eigenschaften": ("Eigenschaft", "Welche"), "merkmale": ("Merkmal", "Welches"),
    "vorteile": ("Vorteil", "Welcher"), "nachteile": ("Nachteil", "Welcher"), "probleme": ("Problem", "Welches"),
    "risiken": ("Risiko", "Welches"), "krisen": ("Krise", "Welche"), "symptome": ("Symptom", "Welches"),
    "arten": ("Art", "Welche"), "typen": ("Typ", "Welcher"), "formen": ("Form", "Welche"),
    "phasen": ("Phase", "Welche"), "stadien": ("Stadium", "Welches"), "stufen": ("Stufe", "Welche"),
    "schritte": ("Schritt", "Welcher"), "personen": ("Person", "Welche"), "figuren": ("Figur", "Welche"),
    "themen": ("Thema", "Welches"), "motive": ("Motiv", "Welches"), "symbole": ("Symbol", "Welches"),
    "befehle": ("Befehl", "Welcher"), "operatoren": ("Operator", "Welcher"),
    "mechanismen": ("Mechanismus", "Welcher"),
    "einschränkungen": ("Einschränkung", "Welche"), "herausforderungen": ("Herausforderung", "Welche"),
    "künstler": ("Künstler", "Welcher"), "maler": ("Maler", "Welcher"), "komponisten": ("Komponist", "Welcher"),
    "autoren": ("Autor", "Welcher"), "philosophen": ("Philosoph", "Welcher"), "erfinder": ("Erfinder", "Welcher"),
    "herrscher": ("Herrscher", "Welcher"), "forscher": ("Forscher", "Welcher"),
    "wissenschaftler": ("Wissenschaftler", "Welcher"), "politiker": ("Politiker", "Welcher"),
}
# the kinds of list whose items are people: a person is offered among people only
_PEOPLE = frozenset({"person", "character", "figure", "artist", "painter", "composer", "author", "writer",
                     "philosopher", "scientist", "inventor", "ruler", "researcher", "leader", "politician", "Person",
                     "Figur", "Künstler", "Maler", "Komponist", "Autor", "Philosoph", "Erfinder", "Herrscher",
                     "Forscher", "Wissenschaftler", "Politiker"})
# the words that tie a kind to what it belongs to ("Causes of …", "Folgen für …")
_ENGLISH_LINKS = {"of", "for", "in", "to", "on"}
_GERMAN_LINKS = {"der", "des", "von", "für", "im", "in", "bei", "zur", "zum", "auf"}
_ENGLISH_SEQUENCES = {"phases", "stages", "steps"}
_GERMAN_SEQUENCES = {"phasen", "stadien", "stufen", "schritte"}
_YEAR = r"\d{3,4}(?:\s*(?:–|-|/|bis|to)\s*\d{2,4})?(?: (?:BC|AD|v\. Chr\.))?"  # "1521/22": a span of two
_MONTH = (r"(?:January|February|March|April|May|June|July|August|September|October|November|December|Januar|Februar|"
          r"März|Mai|Juni|Juli|Oktober|Dezember)")
_YEAR_RE = re.compile(rf"^(?:um |c\. )?{_YEAR}$")
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


def lists_people(heading: str, german: bool) -> bool:
    """Whether the list under ``heading`` names people ("Key people", "Forscher", "Philosophen der Aufklärung")."""
    kind = list_kind(heading, german)
    return kind is not None and kind.one in _PEOPLE


def list_kind(heading: str, german: bool) -> ListKind | None:
    """The kind of list under ``heading`` (its first word, a plural such as "Causes", alone or before what they
    belong to: "Causes of a demand shift", "Ursachen der Inflation"), or None for terms ("Themen durchsuchen" is
    what to do, no list of themes)."""
    words = heading.split()
    if len(words) > 1 and words[0].isdigit():  # "4 Arten von Bestandsveränderungen": the count is said again
        words = words[1:]
        heading = " ".join(words)
    if len(words) == 2 and words[1].casefold() in (_GERMAN_KINDS if german else _ENGLISH_KINDS) \
            and words[0].casefold() not in (_GERMAN_LINKS if german else _ENGLISH_LINKS):
        # "Social consequences", "Wirtschaftliche Folgen": a word before the kind says which ones
        kind = list_kind(words[1], german)
        if kind is not None:
            return ListKind(kind.one, kind.which, heading if german else heading[0].lower() + heading[1:],
                            kind.sequence)
    if not words or (len(words) > 1 and words[1].casefold() not in (_GERMAN_LINKS if german else _ENGLISH_LINKS)):
        return None
    first = words[0].casefold()
    if german:
        if first not in _GERMAN_KINDS:
            return None
        one, which = _GERMAN_KINDS[first]
        return ListKind(one, f"{which} {one}", heading, first in _GERMAN_SEQUENCES)
    if first not in _ENGLISH_KINDS:
        return None
    one = _ENGLISH_KINDS[first]
    return ListKind(one, f"which {one}", heading[0].lower() + heading[1:], first in _ENGLISH_SEQUENCES)


def unordered_kind(heading: str, german: bool) -> bool:
    """Whether ``heading`` names a kind of list whose items come in no order of their own (causes, methods), even
    when the list is numbered."""
    kind = list_kind(heading, german)
    return kind is not None and not kind.sequence


# words naming a sequence, alone or as the end of a German compound ("Produktlebenszyklus", "Arbeitsschritte"):
# a numbered list under one is asked in its order
_ENGLISH_ORDERED = frozenset({"steps", "step", "phases", "stages", "process", "procedure", "sequence", "timeline",
                              "chronology", "order", "cycle", "lifecycle", "workflow", "algorithm", "instructions",
                              "recipe"})
_GERMAN_ORDERED = ("schritte", "schritten", "schritt", "phasen", "stadien", "stufen", "ablauf", "abläufe", "vorgehen",
                   "vorgehensweise", "prozess", "zyklus", "reihenfolge", "chronologie", "zeitleiste", "zeitstrahl",
                   "anleitung", "prüfung", "prüfschema", "verlauf", "entstehung", "algorithmus", "rezept")
# words naming a collection without an order of its own, anywhere in a heading or a list's lead ("Factors
# influencing buying behaviour", "Einflussfaktoren auf die Preiselastizität", "The three rules"); not the kinds a
# procedure's lead may name ("To run a command using Slash commands:")
_ENGLISH_UNORDERED = frozenset({"causes", "reasons", "factors", "triggers", "consequences", "effects", "outcomes",
                                "advantages", "benefits", "disadvantages", "drawbacks", "limitations", "risks",
                                "symptoms", "types", "kinds", "properties", "features", "characteristics",
                                "traits", "rules", "laws", "principles", "examples", "tips", "criteria",
                                "requirements", "determinants", "influences", "aspects", "tests", "assumptions",
                                "conditions", "prerequisites", "premises", "axioms", "goals", "objectives"})
_GERMAN_UNORDERED = ("ursachen", "gründe", "faktoren", "auslöser", "folgen", "auswirkungen", "vorteile", "nachteile",
                     "risiken", "symptome", "arten", "typen", "eigenschaften", "merkmale", "regeln", "gesetze",
                     "prinzipien", "beispiele", "tipps", "kriterien", "voraussetzungen", "einflüsse", "aspekte",
                     "einflussgrößen", "annahmen", "bedingungen", "prämissen", "axiome", "grundsätze", "ziele")
MIN_COMPOUND_KIND = 7
# words that order what a list's items say ("then", "danach"): its items tell a course of events
_ORDER_WORDS = frozenset({"then", "next", "afterwards", "finally", "first", "later", "dann", "danach", "zuerst",
                          "anschließend", "schließlich", "zuletzt", "später"})
_DESCRIBED_LABEL_RE = re.compile(r"^\s*[^\s–:]+(?:\s+[^\s–:]+){0,3}\s+[–-]\s+\S|^\s*[^\s:]+(?:\s+[^\s:]+){0,3}:\s+\S")
_DATED_RE = re.compile(rf"^\s*(?:um |c\. )?{_YEAR}\b")


def _words_of(text: str) -> list[str]:
    return re.findall(r"[^\W\d_]+", text.casefold())


def _names_ordered(text: str, german: bool) -> bool:
    words = _words_of(text)
    if german:
        return any(word.endswith(_GERMAN_ORDERED) and "folgen" not in word for word in words)
    return any(word in _ENGLISH_ORDERED for word in words)


def _names_unordered(text: str, german: bool) -> bool:
    """A heading or a list's lead naming a kind of list without an order (anywhere: "Factors influencing buying
    behaviour", "Einflussfaktoren auf die Preiselastizität", "The three rules")."""
    words = _words_of(text)
    if german:
        # a compound ends in a long kind ("Einflussfaktoren"); a short one is a word of its own ("Karten" lists no
        # "Arten")
        return any(word == kind or (len(kind) >= MIN_COMPOUND_KIND and word.endswith(kind))
                   for word in words for kind in _GERMAN_UNORDERED)
    return any(word in _ENGLISH_UNORDERED for word in words)


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


def states_amounts(description: str) -> bool:
    """A dated list item that gives amounts or counts, not an event ("2024: Germany 96, France 81, …", "2021–2027:
    ≈ €1.074 trillion"): its first clause opens with an amount, or is a name and a number of at most three words.
    "What happened in 2024?" would ask for something that did not happen."""
    first = _CLAUSE_END_RE.split(description, maxsplit=1)[0].strip().rstrip(".")
    if _AMOUNT_OPENING_RE.match(first) and not _COUNTED_WORDS_RE.match(first):
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
            or ((nested or "(" in term) and _is_name(term, german)) or _names_an_aspect(heading):
        # "Rückfluss zum Herzen", "4 Räume", "verallgemeinert": a label, no term; under "Why Britain first?" or "When
        # to use" each item ("Resources", "pipelines") is one of the answers, not a term to define; "Bramante – plans
        # for …" under an item of "Phases" is a person of that phase, "Dürer (Nuremberg)" a person with a remark, no
        # term to define;
        # under "Seats" each item gives its seat ("Parliament: Strasbourg"), it does not say what "Parliament" is
        return ItemQuestion(f"{place}: {term}?", False)
    return ItemQuestion(f"{place}: Was bedeutet „{term}“?" if german else f"{place}: what is “{term}”?", False)


_REMARK_RE = re.compile(r"\s*\([^()]*\)")
_RELATION_RE = re.compile(r"=|<|>|\\le|\\ge|\\approx|≤|≥|≈")


def _names_again(term: str, description: str) -> bool:
    """The description naming its label again, at the start of a word ("Temperatur" in "Temperaturanstieg"), not
    inside one ("Light" in "sunlight")."""
    return re.search(rf"(?<![^\W\d_]){re.escape(term.casefold())}", description.casefold()) is not None


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
