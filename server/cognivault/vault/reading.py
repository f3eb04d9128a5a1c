"""How a student's note is read line by line: what is content and what is the student's own bookkeeping.

A student's note holds more than its subject: tag lines (``#uni/ws25 #exam``), date stamps ("Stand: 12.01.2025",
"last edited: 09.01.2026", "letzte Änderung …"), transcript timestamps (``[02:15]``), course logistics ("Klausur
17.02.2026", "VL 4 – [[TCP vs UDP]]"), hubs that only link other notes, labels ("Q:", "Context:", "Bsp.:") and
the student's own questions at a line's end ("→ why?", "– is this on the exam?"), remarks in brackets on the exam
("[→ definition will be on the exam!!]") and a lecturer's announcement of the next session ("Next week: …").
Answers quote none of that as evidence and study notes ask nothing about it; this module is the one place that tells
them apart, so answers and flashcards agree on it.

Formulas (``$…$``, ``$$…$$``) and code spans are *atoms*: :func:`atom_spans` finds them so that no reader splits,
re-spaces or rewrites inside one; they reach a card or an answer byte for byte as the note writes them.

Definition sentences ("X is a …", "X refers to …", "… is called X", "Unter X versteht man …") are read here too,
for study notes (:func:`definition_in`, :func:`called_in`, :func:`opens_definition`) and answers
(:func:`definition_subject`) alike.

What each language contributes (labels, date-stamp words, logistics words, question tails, copulas and definition
verbs, articles) is data in :data:`WORDS`, one :class:`LanguageWords` per language; every check reads all languages
at once, since students mix them within a note (a definition in a study note is read in the note's language).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache

from cognivault.vault.markdown import WIKILINK_RE, is_valid_tag


@dataclass(frozen=True, slots=True)
class LanguageWords:
    """One language's words for the student's bookkeeping (all casefolded)."""

    stamps: tuple[str, ...]  # a line opening with one of these and holding a date is a date stamp
    logistics: frozenset[str]  # words of course organisation: a line of only these, dates and links says nothing
    labels: frozenset[str]  # words that label a line or an item, never a term to learn
    question_tails: tuple[str, ...]  # the student's own question closing a line ("is this on the exam?")
    # the course's dated events ("Klausur", "Praktikum", "lab"): a line naming one with its date is an appointment,
    # whatever topic it names ("[[Photosynthese]] – Praktikum Blattpigmente 16.06.")
    appointments: frozenset[str] = frozenset()
    # those that never name a subject to learn: a line they label is logistics, dated or not ("Praktikum: Kittel
    # mitbringen!!", "Projektabgabe: 15.07."), while "Lecture:", "Übung:", "Deadline:" or "Prüfung:" (an audit)
    # may label what is to learn
    events: frozenset[str] = frozenset()
    # what a heading over the course's planning says ("Klausuren", "Deadlines", "To do", "Stundenplan"): every line
    # under it is planning, dated or not ("- OC: 12.02., 120 min", "- Stats problem set 3 due 14 March"), where the
    # same lines under "Timeline" would be history to learn
    planning: frozenset[str] = frozenset()
    # what only a line on the student's own coursework says, whatever else it names: a penalty ("kostet Punkte!") or
    # agreeing on it with a lecturer ("Thema mit Dr. K. absprechen"); ``{title}`` stands for "Dr. K.", "Prof. Grant"
    coursework: tuple[str, ...] = ()
    asks: frozenset[str] = frozenset()  # the label opening a question of a Q/A pair ("Q:", "Frage:")
    answers: frozenset[str] = frozenset()  # the label opening its answer ("A:", "Antwort:")
    formula: str = "formula"  # what a card calls a formula ("Power: formula?")
    # a heading over a section's formulas, naming none ("Formeln", "Key equations"): "Formeln: Formel?" asks nothing
    formula_headings: frozenset[str] = frozenset()
    aspects: frozenset[str] = frozenset()  # nouns naming an aspect of a section's subject ("Ursache", "unit")
    function_words: frozenset[str] = frozenset()  # the commonest words of its prose, to tell the language
    exercises: frozenset[str] = frozenset()  # a heading's first word over worked tasks, each with its solution below
    # a heading's word over the subject's terms ("Zentrale Begriffe", "Key terms"): its "Term: sentence" paragraphs
    # are a glossary written in prose
    glossaries: frozenset[str] = frozenset()
    # what opens a description that only means something beside the lines around it ("the other way round")
    back_references: tuple[str, ...] = ()
    chatter: tuple[str, ...] = ()  # the student talking to themself ("ok makes sense", "lol"): no fact of the subject
    # words ranking what follows them ("biggest group:", "größte Fraktion:"): the label names an aspect, no term
    ranks: frozenset[str] = frozenset()
    # what a speaker opens a sentence or a predicate with ("So, quick recap —", "is basically …"): no part of the fact
    fillers: tuple[str, ...] = ()
    interjections: tuple[str, ...] = ()  # the same, set apart by a comma or dash ("Right, …", not "Right ventricle")
    # what makes a sentence a definition: "X is a …", "X refers to …", "… is called X", "Unter X versteht man …"
    copulas: tuple[str, ...] = ()  # "X is …"
    meaning_verbs: tuple[str, ...] = ()  # "X means …", "X bezeichnet …": what a term stands for
    object_verbs: frozenset[str] = frozenset()  # their definition is an object ("bezeichnet den Anstieg …")
    # after a copula they say something about X, not what X is ("X is not …", "X ist standardmäßig …")
    not_defining: tuple[str, ...] = ()
    called: tuple[str, ...] = ()  # "… is called X", "… nennt man X": the term comes after them
    frames: tuple[str, ...] = ()  # "Unter {term} versteht man …": the term inside, what it means after
    frame_idioms: frozenset[str] = frozenset()  # a frame's words as an idiom ("unter Umständen"): no term inside
    articles: tuple[str, ...] = ()  # the articles, any case or gender
    # the endings an adjective takes between an article and its noun ("der schriftlich*en* Kündigung"): a lower-case
    # word there without one is cut short, an abbreviation ("der schriftl. Kündigung", "der europ. Länder")
    inflections: tuple[str, ...] = ()
    # a separable verb's particle, closing its clause after a pronoun ("füge bitte eine *hinzu*."): no abbreviation
    verb_particles: frozenset[str] = frozenset()
    definition_openers: tuple[str, ...] = ()  # what may open what a term is besides a noun ("a", "one", "kein")
    qualifiers: tuple[str, ...] = ()  # what joins what a term is of or for ("A backlink for a note is …")
    # words that make a label a rule to keep ("immer angeben:", "T immer in Kelvin:", "never stop:"), no term
    rules: frozenset[str] = frozenset()
    # words that make a line's last clause the student's note on the course ("→ ask in the tutorial", "→ use both
    # sides in the essay!", "– prüfungsrelevant laut Tutor"), not on the subject
    course: frozenset[str] = frozenset()
    # what opens the student's remark on what a note is needed for ("Needed for the ==fetch== project!", "Wichtig
    # für das Praktikum nächste Woche!!"): coursework, no fact of the subject
    purposes: tuple[str, ...] = ()
    # what opens the student's to-do ("TODO: heapsort next week"): what follows is still to learn, no fact of it
    todos: tuple[str, ...] = ()
    # what says a section is not written yet, a line of its own or closing one after a colon, a dash or in brackets
    # ("TODO", "Halbschluss – fehlt noch", "Thevenin (not covered yet)"): what it names the notes do not cover
    unfinished: tuple[str, ...] = ()
    # what a sentence naming a thing only in passing says of it: that it exists, is related or like another, is
    # contained in something ("Promise.allSettled also exists.", "Viele Totimpfstoffe enthalten Adjuvanzien.")
    passing: frozenset[str] = frozenset()
    # the definite articles: "the enzyme", "die Zellen" with no more words point back at what a paragraph is about
    definite_articles: frozenset[str] = frozenset()
    # the months written out, and as notes shorten them ("Nov", "Okt."): a timeline's entry dated by one alone has
    # no year; a day before one ("9. Nov. 1923") ends no sentence
    months: frozenset[str] = frozenset()
    month_abbreviations: frozenset[str] = frozenset()
    # a heading's words over one calculation worked through ("Worked example", "Rechenbeispiel"): its numbers are
    # that exercise's values, not the subject's
    worked: frozenset[str] = frozenset()
    # what a lecturer announces a later session with ("Next week: deflation …", "nächste Woche: …"): what follows
    # is a topic still to come, not said here
    announcements: tuple[str, ...] = ()
    # what opens a condition ("A vector v is called an eigenvector of A if …", "heißt linear, wenn …"): the sentence
    # defines the word before it by the condition, it does not say what its subject is
    conditions: tuple[str, ...] = ()
    # what opens a question asking when a term applies ("*When* is demand called elastic?", "*Ab wann* gilt …"), and
    # what names the term after it ("called", "counts … as", "spricht man von", "gilt … als"; "…" stands for the
    # words of the thing in between): the answer is the condition, a threshold or an if-clause, not a mention
    condition_openers: tuple[str, ...] = ()
    condition_namings: tuple[str, ...] = ()
    # what turns a verb into the noun of its deed where the stemmer does not undo it ("reifen" → "Reifung"): a
    # heading "Bildung & Reifung" names what "Wo reifen T-Zellen?" asks
    deed_suffixes: tuple[str, ...] = ()
    # words bounding a number in a condition besides ``limits`` ("*from* force 8", "*ab* Bft 8", "30 *or more*")
    thresholds: tuple[str, ...] = ()
    # what names the form a thing is turned into ("export a note *as* a PDF", "Canvas *als* PNG speichern")
    target_forms: tuple[str, ...] = ()
    # what opens a question asking whether a thing can do something ("*Can* the recorder transcribe …?", "*Kann* …")
    abilities: frozenset[str] = frozenset()
    # what opens a question asking whether a thing does something ("*Can* the recorder pause …?", "*Does* it work …?")
    whether: frozenset[str] = frozenset()
    # what opens a question asking how to do something ("*How* do I print …?", "*Wie* drucke ich …?")
    procedures: frozenset[str] = frozenset()
    # what asks to turn a thing into something outside the app ("*print* the graph", "die Lesezeichen *exportieren*"):
    # a passage on the thing without the action does not say how (other verbs are often the user's own word for
    # what the notes say otherwise: "get rid of" for "remove")
    outputs: tuple[str, ...] = ()
    # what bounds an amount ("*up to* 50 MB", "*höchstens* zehn"): a question saying one ("What is the *maximum*
    # number of tabs?", "Wie viele Gruppen *höchstens*?") asks for a bound, which a bare count ("3 tabs") does not give
    limits: tuple[str, ...] = ()
    # what says an amount has no bound ("*unlimited*", "*keine Begrenzung*"): an answer to such a question without a
    # number
    no_limits: tuple[str, ...] = ()
    # words no sentence ends on: a text ending in one was cut mid-clause ("… of $A$ if.", "… wenn.")
    open_ends: frozenset[str] = frozenset()
    # what numbers a provision of a law or treaty ("§ 35", "Art. 48", "Article 13 TEU"): the number names one
    # provision, and a passage on its neighbours (§ 32 to § 34) says nothing of it
    references: tuple[str, ...] = ()
    # what opens a relative clause ("a solution that keeps its pH constant when …"): a condition after one is part
    # of the description, not the sentence's
    relatives: tuple[str, ...] = ()
    # what opens a subject naming any one instance ("A vector …", "Eine Abbildung …"): with a condition after the verb,
    # the sentence defines what follows the verb
    instances: tuple[str, ...] = ()
    # what opens a heading that asks ("When to use", "Wozu …"): its list items answer it, they are no terms
    question_words: frozenset[str] = frozenset()
    # endings of a noun naming an action or process ("Konjugation", "Opsonierung", "phosphorylation"): offered for a
    # molecule or a thing, it stands out by its kind
    actions: tuple[str, ...] = ()
    # what opens a relative clause about a person ("Soviet leader who …"): the term it describes is someone
    person_relatives: frozenset[str] = frozenset()
    # particles inside a person's name ("Emil von Behring")
    name_particles: frozenset[str] = frozenset()
    # -- a lecture said aloud (a transcript) --
    transcripts: frozenset[str] = frozenset()  # a note's title word saying it is one ("transcript", "Mitschrift")
    hesitations: frozenset[str] = frozenset()  # sounds, never words of the fact ("um", "äh"), wherever they stand
    # a speaker's words between commas that add nothing to the fact ("is, basically, …", "ist, grob gesagt, …")
    hedges: tuple[str, ...] = ()
    tag_questions: tuple[str, ...] = ()  # a statement's closing ", right?", ", ne?": it asks nothing
    # a term's abbreviation said between commas ("the glomerular filtration rate, or GFR for short, is …", "Die
    # glomeruläre Filtrationsrate, kurz GFR, ist …"), ``{abbr}`` standing for it: the term is what is defined
    shortenings: tuple[str, ...] = ()
    # "…, we call this X", "Wenn …, das nennt man X": the term after them names what was just said
    namings: tuple[str, ...] = ()
    # "that kind of circulation we call X", "diesen Vorgang bezeichnen wir als X": a demonstrative, what it points
    # at in a few words, and a verb naming it; the term after them names what was just said
    # who speaks in a transcript's line ("Prof. Lindqvist:", "Dr. Brandt:", "Dozentin:"): a title before a name, or
    # the speaker's role; the label is no part of what is said
    speaker_titles: tuple[str, ...] = ()
    speaker_roles: tuple[str, ...] = ()
    naming_demonstratives: tuple[str, ...] = ()
    naming_verbs: tuple[str, ...] = ()
    resumptives: frozenset[str] = frozenset()  # "Die Einkommenselastizität, das ist …": the word taking the term up
    # the word taking the term up fused with its copula, as said ("The Lineweaver-Burk plot, that's the …"): written
    # out, the term is taken up as "that is" would take it
    resumed_copulas: tuple[tuple[str, str], ...] = ()
    # how a lecturer says what a term means without "X is a …" ("A lahar, that means a mudflow …", "Tacking is
    # basically when you turn …", "What we call viscosity is …", "Also Fianchetto heißt, der Läufer wird …", "Ein
    # Ableger, das heißt ein kleines Volk …"): ``{term}`` and ``{meaning}`` in the sentence said plainly, each frame
    # with the verb its card asks by
    spoken_meanings: tuple[tuple[str, str], ...] = ()
    # what goes on after a spoken meaning with a remark of its own ("the resistance of a liquid to flow, so honey
    # has …"): the meaning ends before it
    spoken_sequels: tuple[str, ...] = ()
    # words standing for a noun said before ("the classic one", "the dangerous ones"): a description whose head is
    # one says nothing alone ("Mauna Loa is the classic one")
    pro_forms: frozenset[str] = frozenset()
    # a student's question in the recording ("[student question: …]", "Student: …?") and the lecturer's praise of it
    student_questions: tuple[str, ...] = ()
    praise: tuple[str, ...] = ()
    # what counts a list's items off aloud ("first …, then …, and finally …", "erstens …, zweitens …")
    ordinals: tuple[str, ...] = ()
    # verbs saying what a term in bold as a sentence's subject captures ("Die **Preiselastizität der Nachfrage**
    # misst, um wie viel Prozent …"): the sentence defines it, as "X is …" would; English with its base form
    describing_verbs: dict[str, str] = field(default_factory=dict)
    # the ordinals that open the paragraphs a counted list is said in, one per place ("First, egoistic suicide: …",
    # "Zweitens die traditionale Herrschaft."), and what may open its last one instead ("And finally, …")
    places: tuple[tuple[str, ...], ...] = ()
    last_places: tuple[str, ...] = ()
    # what announces that the next words matter ("and this is important", "merken Sie sich"): no part of the fact
    emphases: tuple[str, ...] = ()
    numbers: tuple[str, ...] = ()  # the counts from two on, spelled out ("three phases: …")
    # what a lecturer stresses a statement with, before a colon ("the key point for the exam is this: …", "Merken Sie
    # sich: …"), and how a card asks for it
    key_points: tuple[str, ...] = ()
    key_point_asked: str = "the key point"
    # the lecture itself as a sentence's subject ("today is monetary policy", "heute ist …"): organisation, no term
    sessions: frozenset[str] = frozenset()
    # what makes a subject a role of something unnamed ("the classic model is …", "typische Reaktion ist …"), no term
    roles: frozenset[str] = frozenset()
    existentials: tuple[str, ...] = ()  # "there are", "es gibt": no pronoun pointing back, a list's lead of its own
    # abbreviations whose period ends no sentence ("ca.", "bzw.", "Mio.", "z.B." written without its spaces):
    # a sentence read on goes past them unless a sentence's opening word follows; "etc.", "usw." close a list, and
    # often a sentence, so they are none
    abbreviations: frozenset[str] = frozenset()
    # words that open a sentence, written as they open it: after an abbreviation or an initial, one of them says the
    # sentence ended there ("… 30 v. Chr. Danach kam Rom", "Vitamin C. The …"; "John F. Kennedy" goes on)
    openers: frozenset[str] = frozenset()
    # what opens a sentence with its own subject: a pronoun ("Sie trat …", "Both confess"), a preposition before a
    # phrase ("In einer Sturmflut bricht …"); a list item's description opening so tells what happens under its
    # label, not what the label means
    subjects: frozenset[str] = frozenset()
    prepositions: frozenset[str] = frozenset()
    # what goes on a noun phrase after its noun, every preposition ("the river *of* …", "Unterschiede *zwischen* Tag
    # und Nacht"), and what joins two nouns ("Teilung *und* Absterben"): never the verb after the phrase
    phrase_links: frozenset[str] = frozenset()
    joiners: frozenset[str] = frozenset()
    # what opens a clause that is no sentence of its own ("was der Körper mit dem Arzneistoff macht", "how much …"):
    # its verb comes at its end and says nothing about a subject of the description
    subordinators: frozenset[str] = frozenset()
    # what opens a noun phrase naming some of a kind ("manche Messstationen", "most corals"): with a verb after it,
    # the description is a sentence about them
    quantifiers: frozenset[str] = frozenset()
    # what opens an estimate ("about 4.6 billion years old", "ungefähr 500.000 Jahre alt"): after "X is" it gives a
    # measure of X, not what X is
    estimates: frozenset[str] = frozenset()
    # what labels a definition the student wrote out ("**Def.** Die Distanz ist …", "Def. Heimtücke: …",
    # "Definition. The OLS estimator …"): the sentence after it defines, its term named before a colon or not at all
    definition_labels: tuple[str, ...] = ()
    # the nouns naming a law or theorem, with the article a question puts before a heading ending in them ("der
    # Satz des Fermat", "das Reflexionsgesetz", "the Gauss-Markov theorem"): the sentence under such a heading is
    # what it states; ``law_compounds`` end a compound naming one ("Brechungsgesetz", "Optimalitätsprinzip")
    laws: tuple[tuple[str, str], ...] = ()
    law_compounds: tuple[tuple[str, str], ...] = ()
    states: str = ""  # the question asking what a law states, {law} standing for it with its article
    # what opens a reason ("because", "weil"): "X is the end, because …" remarks on X, a short phrase is no definition
    causal: frozenset[str] = frozenset()
    adverbs: frozenset[str] = frozenset()  # adverbs ending like a verb ("nicht", "meist"): after a noun, no verb
    # headings over a subject's aspects or its story ("Aspekte des Staates", "Inhalt", "Plot"): the labels of a list
    # below one say which aspect or part each item is ("Verfassung:", "Spannung:"), they are no terms
    overviews: frozenset[str] = frozenset()
    # endings of an adjective, never of a given name: a name opening with one names no one ("National Assembly",
    # "Französische Revolution", "Dreißigjähriger Krieg"; "Peter", "Georges", "Maximilien" are given names)
    adjective_endings: tuple[str, ...] = ()
    # what opens an exam task set as an order ("Define …", "Erkläre …"): a Q/A pair's question without "?"
    commands: frozenset[str] = frozenset()
    # the verbs a question opens with when it asks yes or no ("Is …?", "Ist …?"); after a subject they make the line
    # a statement with a question mark ("Haskell is purely functional?"), which no card asks
    auxiliaries: frozenset[str] = frozenset()
    # the words a yes-or-no answer opens with ("No, `Maybe` and lists are monads too.", "Nein, kaum …")
    yes_no: frozenset[str] = frozenset()
    # a heading's word naming what influences its subject ("Einflussfaktoren", "Factors affecting demand"): each
    # item's label below names one factor and its description says how it acts, not what the label means
    factors: tuple[str, ...] = ()
    # a copula's other forms, after which a predicate stands ("must be ==exhaustive==", "wird ==fest==")
    linking_verbs: frozenset[str] = frozenset()
    # -- reading a question across the vault's languages --
    # short words spelled like a word of the other language, a final e more or less or c for z or k, that mean
    # something else ("Kurs" is no curse, "note" no "Not"): never read as that word (``answer.evidence.short_cognate``)
    false_friends: frozenset[str] = frozenset()
    # adjectives labelling a list item by a quality of its section's subject ("fast: minutes–hours, no memory",
    # "schnell: Hefe nehmen"): the label is no term to ask for or to offer as one
    qualities: frozenset[str] = frozenset()


WORDS: dict[str, LanguageWords] = {
    "en": LanguageWords(
        stamps=("last edited", "last updated", "last modified", "last change", "updated", "edited", "date",
                "as of", "status", "created", "modified"),
        logistics=frozenset({"exam", "exams", "lecture", "lectures", "tutorial", "seminar", "test", "quiz",
                             "deadline", "due", "room", "office", "hours", "presentation", "homework",
                             "assignment", "sheet", "week", "todo", "to-do", "mon", "tue", "wed", "thu", "fri",
                             "sat", "sun", "am", "pm", "registration", "slides", "recording", "notes"}),
        appointments=frozenset({"exam", "exams", "midterm", "final", "lecture", "tutorial", "seminar", "lab", "labs",
                                "practical", "deadline", "presentation", "homework", "assignment",
                                "submission", "registration", "excursion"}),
        events=frozenset({"exam", "exams", "midterm", "finals", "excursion", "essay", "homework",
                          "coursework"}),
        planning=frozenset({"exams", "deadlines", "todo", "todos", "to-do", "to-dos", "schedule", "timetable",
                            "appointments", "admin", "logistics", "agenda", "organisational", "organizational",
                            "this week", "next week", "to do"}),
        coursework=("costs marks", "cost marks", "lose marks", "loses marks", "costs points", "lose points",
                    "discuss{words} with {title}", "check{words} with {title}", "talk to {title}",
                    "agree{words} with {title}"),
        labels=frozenset({"q", "a", "question", "answer", "context", "result", "results", "example", "examples",
                          "e.g.", "eg", "note", "notes", "n.b.", "nb", "tip", "warning", "summary", "source",
                          "sources", "see", "see also", "related", "todo", "to do", "status", "date", "tags",
                          "tag", "aliases", "remark", "comment", "idea", "why", "how", "what", "ex", "ex.",
                          "important", "info", "definition", "def", "def.", "mnemonic", "aside", "update", "i.e.",
                          "ie", "others", "other", "rest", "misc", "miscellaneous", "check", "checks"}),
        question_tails=("is this on the exam", "is that on the exam", "on the exam", "exam relevant",
                        "exam-relevant", "why", "how come", "really", "check", "ask", "ask prof", "ask tutor",
                        "not sure", "unsure", "??", "?"),
        asks=frozenset({"q", "question"}), answers=frozenset({"a", "answer"}),
        formula_headings=frozenset({"formula", "formulas", "formulae", "equations", "key formulas", "key equations",
                                    "important formulas", "important equations", "main formulas", "formula sheet",
                                    "useful formulas", "the formulas", "the equations"}),
        aspects=frozenset({"cause", "causes", "reason", "reasons", "meaning", "significance", "importance", "unit",
                           "units", "limits", "boundaries", "location", "position", "consequence", "consequences",
                           "effect", "effects", "example", "use", "uses", "function", "purpose", "advantage",
                           "advantages", "disadvantage", "disadvantages", "exception", "special case", "rule",
                           "rule of thumb", "result", "mnemonic", "memory aid", "trap", "classic trap",
                           "definition", "formula", "symbol", "size", "duration", "origin", "value", "range",
                           "structure", "composition", "tasks", "role", "seat", "members", "term of office",
                           "problem", "solution", "treatment", "side effects", "mechanism", "dose", "indication",
                           "contraindication", "types", "properties", "difference", "occurrence", "formulas",
                           "principle", "basic rule", "goal", "goals", "aim", "aims", "motifs", "subjects",
                           "themes", "topics", "objective", "objectives", "tool", "tools", "task", "maximum",
                           "minimum", "target", "president", "chair", "criticism", "critique", "limitation",
                           "limitations", "drawback", "drawbacks", "pitfall", "pitfalls", "caveat", "caveats",
                           "errors", "error handling", "counterexample", "speed", "rate", "evidence", "proof",
                           "representatives", "delimitation", "distinction", "prerequisites", "requirements",
                           "requirement", "intake", "pros", "cons", "lesson", "lessons", "takeaway", "takeaways",
                           "trigger", "outcome", "input", "inputs", "output", "outputs", "evaluation",
                           "calculation", "analysis"}),
        qualities=frozenset({"fast", "slow", "quick", "cheap", "expensive", "easy", "hard", "difficult", "good",
                             "bad", "early", "late", "strong", "weak", "simple", "high", "low"}),
        false_friends=frozenset({"note", "notes", "curse", "curses", "cost", "costs", "cart", "carts", "cast", "casts",
                                 "mad", "war", "wars", "probe", "probes", "lag", "sag", "band", "bands", "cant",
                                 "well", "celt", "celts", "rate", "rates", "bot", "bots", "fad", "wad", "haste",
                                 "quell", "car", "cars", "tale", "tales", "date", "dates", "sale", "sales", "lose"}),
        function_words=frozenset({"the", "and", "is", "are", "of", "to", "in", "with", "not", "for", "this", "that",
                                  "by", "from", "or", "it", "was", "be", "on", "an", "as", "which", "when"}),
        exercises=frozenset({"examples", "exercises", "practice", "problems", "tasks", "worked"}),
        glossaries=frozenset({"terms", "terminology", "definitions", "glossary", "concepts", "vocabulary"}),
        back_references=("the other way round", "the other way around", "the opposite", "the reverse", "the same",
                         "same", "vice versa", "same as above", "as above", "see above", "ditto", "likewise", "this",
                         "these", "those", "it", "they"),
        chatter=("ok makes sense", "makes sense", "ok got it", "got it", "lol", "hmm", "i think", "i guess",
                 "no idea", "not sure", "tbh"),
        ranks=frozenset({"biggest", "largest", "smallest", "highest", "lowest", "main", "most", "least", "oldest",
                         "newest", "latest", "first", "second", "third", "last", "current", "previous", "next"}),
        interjections=("right", "good", "fine", "great"),  # not "yes": it answers a question
        fillers=("so", "okay", "ok", "now", "well", "alright", "and", "but", "quick recap", "recap", "next", "yeah",
                 "basically", "essentially", "actually", "in practice", "remember", "also"),
        copulas=("is", "are", "was", "were"), meaning_verbs=("refers to", "refer to", "means"),
        not_defining=("not", "also", "called", "then", "therefore", "used", "why", "how", "where", "when", "what",
                      "only", "now", "still", "already", "currently", "available", "enabled", "disabled", "always",
                      "never"),
        called=("is called", "are called", "was called", "were called"),
        articles=("a", "an", "the"), definition_openers=("a", "an", "the", "one", "any", "another"),
        qualifiers=("of", "for", "in"), rules=frozenset({"always", "never"}),
        course=frozenset({"exam", "exams", "essay", "tutorial", "tutor", "prof", "professor", "lecturer", "slides"}),
        purposes=("needed for", "need this for", "needed in", "important for", "relevant for", "required for",
                  "useful for"),
        todos=("todo", "to-do", "to do", "still missing", "not covered yet", "tbd"),
        # ("not covered" alone is no mark: "Flood damage: not covered" states a fact)
        unfinished=("todo", "to-do", "to do", "tbd", "not covered yet", "not done yet", "not written yet",
                    "still missing", "still to do", "to be added", "coming soon", "to be continued"),
        passing=frozenset({"exists", "exist", "existed", "also", "too", "related", "similar", "another", "other",
                           "others", "mentioned", "see", "contain", "contains", "contained", "include", "includes",
                           "included", "including", "many", "some", "several", "various", "etc"}),
        definite_articles=frozenset({"the"}),
        months=frozenset({"january", "february", "march", "april", "may", "june", "july", "august", "september",
                          "october", "november", "december"}),
        month_abbreviations=frozenset({"jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov",
                                       "dec"}),
        worked=frozenset({"worked", "example"}),
        announcements=("next week", "next time", "next lecture", "next session", "next class", "in the next lecture",
                       "that's it for today", "that is it for today", "that's all for today"),
        conditions=("if and only if", "if", "iff", "whenever", "when", "provided that", "provided"),
        definition_labels=("definition", "def"),
        laws=(("law", "the"), ("theorem", "the"), ("principle", "the"), ("lemma", "the"), ("axiom", "the"),
              ("postulate", "the")),
        states="What does {law} state?",
        condition_openers=("when", "at what point", "at which point", "from what", "from which", "at what", "at which"),
        condition_namings=("considered to be", "considered", "called", "labelled", "labeled", "classed as",
                           "classified as", "regarded as", "referred to as", "described as", "said to be", "deemed",
                           "termed", "count … as", "counts … as"),
        thresholds=("above", "below", "over", "under", "from", "or more", "or less", "or higher", "or lower",
                    "or above", "or below", "upwards", "greater than", "higher than", "lower than"),
        target_forms=("as", "into"), abilities=frozenset({"can", "could"}), procedures=frozenset({"how"}),
        whether=frozenset({"can", "could", "does", "do", "is", "are", "will"}),
        outputs=("print", "export", "download", "upload", "convert", "email"),
        limits=("maximum", "maximal", "max", "minimum", "minimal", "min", "limit", "limits", "limited", "up to",
                "at most", "at least", "no more than", "no fewer than", "less than", "fewer than", "more than",
                "smaller than", "larger than", "bigger than", "exceed", "exceeds", "exceeding", "cap", "capped"),
        no_limits=("unlimited", "no limit", "no limits", "no maximum", "without limit", "without any limit"),
        open_ends=frozenset({"if", "iff", "when", "whenever", "because", "unless", "whereas", "and", "or", "but",
                             "of", "the", "an", "than"}),
        references=("§", "art.", "article", "articles"),
        instances=("a", "an", "any", "every", "each"), relatives=("that", "which", "who", "whom", "whose"),
        question_words=frozenset({"when", "why", "how", "what", "which", "where", "who"}),
        actions=("ation", "ition", "ution", "ction", "ssion", "lysis", "ysis"),
        person_relatives=frozenset({"who", "whom", "whose"}), name_particles=frozenset({"de", "van", "von", "da"}),
        transcripts=frozenset({"transcript", "transcription", "transcribed"}),
        hesitations=frozenset({"um", "uh", "uhm", "erm", "er", "hm", "hmm"}),
        hedges=("basically", "essentially", "roughly", "roughly speaking", "so to speak", "you know", "so", "well",
                "on the other hand", "okay", "ok", "i mean", "kind of", "sort of", "like"),
        tag_questions=("right", "okay", "ok", "yeah", "yes", "isn't it", "you see", "correct"),
        shortenings=("or {abbr} for short", "{abbr} for short", "short {abbr}", "abbreviated {abbr}"),
        namings=("we call this", "we call that", "we call it", "we call these", "what we call", "this is called",
                 "that is called", "this is known as", "we refer to this as", "this is what's known as",
                 "this is what’s known as", "this is what is known as", "this is the so-called", "that's the so-called",
                 "that is the so-called", "these are the so-called"),
        speaker_titles=("prof", "dr", "mr", "mrs", "ms"),
        speaker_roles=("lecturer", "professor", "prof", "instructor", "teacher", "tutor", "coach", "trainer",
                       "speaker", "host", "moderator", "interviewer"),
        naming_demonstratives=("this", "that", "these", "those"),
        naming_verbs=("we call", "we'd call", "is called", "are called", "is known as", "are known as"),
        resumptives=frozenset({"this", "that", "it"}),
        resumed_copulas=(("that's", "that is"), ("that’s", "that is")),
        spoken_meanings=(("{term}, that means {meaning}", "means"), ("{term} is basically when {meaning}", "is"),
                         ("{term} is essentially when {meaning}", "is"), ("{term} is when {meaning}", "is"),
                         ("what we call {term} is {meaning}", "is"), ("{term} is what we call {meaning}", "is"),
                         ("{term} is basically {meaning}", "is"), ("{term} is essentially {meaning}", "is")),
        spoken_sequels=(", so ", " — "),
        pro_forms=frozenset({"one", "ones"}),
        student_questions=("student question", "question from a student", "question from the audience", "student asks",
                           "a student asks", "student", "question"),
        praise=("good question", "great question", "very good question", "good point"),
        ordinals=("and first", "first", "firstly", "and second", "second", "secondly", "and third", "third",
                  "thirdly", "and then", "then", "and finally", "finally", "and lastly", "lastly", "and fourth",
                  "fourth"),
        describing_verbs={"measures": "measure", "describes": "describe", "denotes": "denote",
                          "quantifies": "quantify", "captures": "capture", "indicates": "indicate"},
        places=(("first", "firstly"), ("second", "secondly"), ("third", "thirdly"), ("fourth", "fourthly"),
                ("fifth", "fifthly"), ("sixth",), ("seventh",)),
        last_places=("finally", "lastly"),
        emphases=("and this is important", "this is important", "and this is a classic exam question",
                  "this is a classic exam question", "and this is really important", "this is really important"),
        numbers=("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"),
        key_points=("the key point for the exam is this", "the key point for the exam is", "the key point is this",
                    "the key point is", "the important point is", "remember this for the exam", "remember this",
                    "here's the trap", "here is the trap", "the trap is", "the take-home message is",
                    "and this is important for the exam", "this is important for the exam",
                    "and this will be on the exam", "this will be on the exam"),
        roles=frozenset({"typical", "classic", "classical", "common", "usual", "standard", "simplest", "best",
                         "famous", "key", "important"}),
        existentials=("there are", "there is", "there were", "there was"),
        sessions=frozenset({"today", "this week", "this lecture", "this session", "this term", "next week", "the topic",
                            "today's topic", "the plan", "the exam"}),
        subjects=frozenset({"he", "she", "they", "we", "i", "both", "neither"}),
        quantifiers=frozenset({"some", "many", "most", "all", "few"}), causal=frozenset({"because", "since"}),
        adverbs=frozenset({"always", "does", "perhaps", "sometimes", "towards", "besides", "series", "news", "alias",
                           "across", "plus", "versus", "thus", "whereas", "afterwards", "upwards", "downwards",
                           "backwards"}),
        estimates=frozenset({"about", "around", "approximately", "roughly", "nearly", "almost", "circa"}),
        prepositions=frozenset({"in", "after", "before", "during", "at", "on", "with", "by", "since", "from",
                                "until", "when", "while"}),
        phrase_links=frozenset({"of", "in", "at", "on", "with", "by", "from", "to", "for", "into", "onto", "over",
                                "under", "between", "among", "about", "around", "as", "than", "through", "without",
                                "within", "across", "against", "along", "behind", "below", "above", "beyond", "via",
                                "per", "like", "near", "toward", "towards", "upon", "after", "before", "during",
                                "until", "since", "off", "up", "down", "out", "such", "versus", "vs", "plus", "that",
                                "which", "who", "whom", "whose", "where", "when", "while", "whereas", "if", "because",
                                "not", "no"}),
        joiners=frozenset({"and", "or", "&"}),
        subordinators=frozenset({"what", "how", "when", "where", "whether", "if", "why", "who", "which", "that",
                                 "because", "whatever", "wherever"}),
        adjective_endings=("al", "ial", "ical", "ive", "ous", "ern", "ish", "ible", "able"),
        commands=frozenset({"define", "explain", "name", "list", "describe", "state", "give", "compare", "outline",
                            "distinguish", "summarise", "summarize", "calculate", "discuss", "contrast", "identify",
                            "justify", "derive", "sketch"}),
        auxiliaries=frozenset({"is", "are", "was", "were", "am", "do", "does", "did", "can", "could", "will",
                               "would", "should", "shall", "may", "might", "must", "has", "have", "had", "isn't",
                               "aren't", "doesn't", "don't", "didn't", "can't", "won't", "wasn't", "weren't"}),
        factors=("factors", "influences", "determinants", "drivers"),
        yes_no=frozenset({"yes", "no", "yep", "nope"}),
        linking_verbs=frozenset({"be", "been", "being", "become", "becomes", "became", "remain", "remains", "seem",
                                 "seems"}),
        overviews=frozenset({"aspects", "plot", "storyline", "story", "overview", "summary", "synopsis", "profile",
                             "key facts", "at a glance"}),
        openers=frozenset({"The", "This", "These", "That", "It", "Its", "A", "An", "In", "On", "At", "For", "But",
                           "And", "If", "When", "He", "She", "They", "We", "There", "Then", "His", "Her", "Their",
                           "After", "Later", "Today", "However"}),
        abbreviations=frozenset({"e.g", "i.e", "cf", "approx", "appr", "ca", "vs", "dr", "mr", "mrs", "ms", "prof",
                                 "st", "jr", "sr", "fig", "figs", "vol", "vols", "pp", "esp", "resp", "incl", "excl",
                                 "max", "min", "lat", "engl", "dept", "govt", "mt", "ft", "jan", "feb", "apr",
                                 "aug", "sept", "oct", "nov", "dec", "mio", "bn", "mn", "sq", "chr"}),
    ),
    "de": LanguageWords(
        stamps=("stand", "letzte änderung", "zuletzt geändert", "zuletzt bearbeitet", "zuletzt aktualisiert",
                "aktualisiert", "geändert", "bearbeitet", "datum", "erstellt"),
        logistics=frozenset({"klausur", "klausuren", "prüfung", "prüfungen", "vl", "vorlesung", "vorlesungen",
                             "übung", "übungen", "übungsblatt", "tutorium", "seminar", "referat", "test", "abgabe",
                             "termin", "termine", "raum", "hs", "hörsaal", "sprechstunde", "anmeldung",
                             "nebenfach", "mo", "di", "mi", "do", "fr", "sa", "so", "uhr", "ws", "ss", "sose",
                             "wise", "semester", "wdh", "wdh.", "folien", "skript", "aufzeichnung", "notizen",
                             "noch", "anlegen", "bis", "ab", "am", "um"}),
        appointments=frozenset({"klausur", "klausuren", "prüfung", "prüfungen", "prüfungsanmeldung", "vl",
                                "vorlesung", "übung", "übungsblatt", "tutorium", "seminar", "referat", "abgabe",
                                "termin", "sprechstunde", "anmeldung", "praktikum", "fallbesprechung", "exkursion",
                                "abgeben", "testat", "kolloquium"}),
        events=frozenset({"klausur", "klausuren", "abgabe", "sprechstunde", "praktikum", "exkursion", "testat",
                          "kolloquium", "hausarbeit", "hausarbeiten", "hausaufgabe", "hausaufgaben", "referat"}),
        planning=frozenset({"klausuren", "klausurtermine", "prüfungen", "prüfungstermine", "termine", "fristen",
                            "abgaben", "deadlines", "todo", "todos", "to-do", "to-dos", "stundenplan",
                            "organisatorisches", "orga", "wochenplan", "lernplan", "diese woche", "nächste woche",
                            "to do"}),
        coursework=("kostet punkte", "kosten punkte", "punktabzug", "mit {title}{words} absprechen",
                    "mit {title}{words} abklären", "mit {title}{words} besprechen", "bei {title} nachfragen"),
        labels=frozenset({"f", "frage", "antwort", "kontext", "ergebnis", "ergebnisse", "bsp", "bsp.", "beispiel",
                          "beispiele", "z.b.", "z. b.", "zb", "hinweis", "notiz", "anmerkung", "merke", "merksatz",
                          "tipp", "achtung", "warnung", "zusammenfassung", "quelle", "quellen", "siehe", "vgl.",
                          "stand", "datum", "idee", "wichtig", "info", "def.", "definition", "fazit", "lösung",
                          "aufgabe", "eselsbrücke", "d.h.", "d. h.", "sonstige", "sonstiges", "andere", "weitere",
                          "übrige", "rest"}),
        question_tails=("kommt das in der klausur dran", "kommt das dran", "kommt das in der klausur",
                        "klausurrelevant", "prüfungsrelevant", "in der klausur", "warum", "wieso", "weshalb",
                        "nachfragen", "nachschauen", "prof fragen", "tutor fragen", "checken", "stimmt das", "sicher",
                        "??", "?"),
        asks=frozenset({"f", "frage"}), answers=frozenset({"a", "antwort"}), formula="Formel",
        formula_headings=frozenset({"formel", "formeln", "gleichungen", "wichtige formeln", "wichtige gleichungen",
                                    "formelsammlung", "die formeln", "die wichtigsten formeln"}),
        aspects=frozenset({"ursache", "ursachen", "grund", "gründe", "bedeutung", "einheit", "grenzen", "lage",
                           "folge", "folgen", "wirkung", "beispiel", "verwendung", "funktion", "zweck", "vorteil",
                           "vorteile", "nachteil", "nachteile", "ausnahme", "sonderfall", "regel", "faustregel",
                           "ergebnis", "merkwort", "merkhilfe", "merksatz", "eselsbrücke", "falle", "definition",
                           "formel", "symbol", "größe", "dauer", "herkunft", "wert", "bereich", "aufbau", "arten",
                           "eigenschaften", "zusammensetzung", "aufgaben", "rolle", "sitz", "mitglieder", "amtszeit",
                           "problem", "lösung", "therapie", "nebenwirkungen", "mechanismus", "dosis", "indikation",
                           "kontraindikation", "typ", "vorkommen", "entstehung", "kennzeichen", "merkmale",
                           "unterschied", "formeln", "prinzip", "grundregel", "grundprinzip", "ziel", "ziele",
                           "motiv", "motive", "themen", "inhalt", "inhalte", "kritik", "einschränkung",
                           "einschränkungen", "fehlerbehandlung", "gegenbeispiel", "geschwindigkeit", "tempo",
                           "beleg", "belege", "beweis", "beweise", "vertreter", "abgrenzung", "voraussetzung",
                           "voraussetzungen", "frist", "rechtsfolge", "rechtsfolgen", "bedarf", "auslöser", "anlass",
                           "lehre", "input", "output", "ort", "auswertung", "berechnung"}),
        qualities=frozenset({"schnell", "langsam", "billig", "teuer", "einfach", "leicht", "schwer", "schwierig",
                             "gut", "schlecht", "früh", "spät", "stark", "schwach", "hoch", "niedrig"}),
        false_friends=frozenset({"not", "rat", "räte", "kost", "karte", "karten", "kasten", "kurs", "kurse", "kursen",
                                 "made", "maden", "ware", "waren", "probe", "proben", "lage", "lagen", "sage",
                                 "sagen", "bande", "banden", "mode", "kante", "kanten", "welle", "wellen", "falle",
                                 "fallen", "zelt", "zelte", "bote", "boten", "fade", "wade", "waden", "hast",
                                 "quelle", "quellen", "kar", "kare", "tal", "täler", "daten", "saal", "säle", "los"}),
        function_words=frozenset({"der", "die", "das", "und", "ist", "sind", "nicht", "mit", "von", "zu", "den",
                                  "im", "auch", "bei", "ein", "eine", "für", "wird", "oder", "nur", "nach", "dem",
                                  "des", "auf", "sich", "wie", "bzw", "wenn"}),
        exercises=frozenset({"beispiele", "übungen", "aufgaben", "übungsaufgaben", "rechenbeispiele"}),
        glossaries=frozenset({"begriffe", "grundbegriffe", "fachbegriffe", "schlüsselbegriffe", "definitionen",
                              "glossar", "fachwörter", "konzepte"}),
        back_references=("umgekehrt", "andersherum", "das gegenteil", "wie oben", "siehe oben", "s. o.", "s.o.",
                         "dito", "ebenso", "genauso", "dasselbe", "das gleiche", "gleiches", "dies", "diese",
                         "dieser", "dieses"),
        chatter=("glaub ich", "ich glaube", "keine ahnung", "oder so", "hab ich", "nachlesen", "hmm", "lol",
                 "ok verstanden", "macht sinn", "in der klausur gibts", "gibts punkte"),
        ranks=frozenset({"größte", "größter", "größtes", "kleinste", "kleinster", "kleinstes", "höchste", "niedrigste",
                         "wichtigste", "wichtigster", "wichtigstes", "älteste", "neueste", "erste", "erster", "erstes",
                         "zweite", "letzte", "letzter", "aktuelle", "aktueller", "aktuelles"}),
        interjections=("richtig", "prima", "schön"),
        fillers=("also", "okay", "ok", "gut", "so", "na ja", "jetzt", "und", "aber", "genau", "dann", "eigentlich",
                 "im grunde", "kurz zur wiederholung", "wiederholung", "merken sie sich"),
        copulas=("ist", "sind", "war", "waren"), meaning_verbs=("bezeichnet", "bezeichnen", "bedeutet"),
        object_verbs=frozenset({"bezeichnet", "bezeichnen", "versteht man"}),
        not_defining=("nicht", "auch", "dabei", "nur", "jetzt", "bereits", "standardmäßig", "verfügbar", "immer",
                      "nie", "stets", "aktiviert", "deaktiviert"),
        called=("nennt man", "nannte man"), frames=("Unter {term} versteht man",),
        frame_idioms=frozenset({"Umständen"}),
        articles=("der", "die", "das", "den", "dem", "des", "ein", "eine", "einen", "einem", "einer", "eines"),
        inflections=("e", "en", "er", "es", "em"),
        verb_particles=frozenset({"ab", "an", "auf", "aus", "bei", "dar", "dazu", "durch", "ein", "fest", "fort",
                                  "frei", "her", "heraus", "herein", "herum", "hin", "hinaus", "hinein", "hinzu",
                                  "hoch", "los", "mit", "nach", "vor", "voran", "vorbei", "weg", "weiter", "wieder",
                                  "zu", "zurück", "zusammen", "um", "über", "unter", "statt", "teil"}),
        definition_openers=("der", "die", "das", "ein", "eine", "einer", "eines", "einem", "einen", "kein", "keine",
                            "derselbe", "dieselbe", "dasselbe", "dieselben"),
        qualifiers=("von", "für", "in", "im"), rules=frozenset({"immer", "stets", "nie", "niemals"}),
        course=frozenset({"klausur", "prüfung", "prüfungsrelevant", "klausurrelevant", "tutor", "tutorium", "prof",
                          "übung", "hausarbeit", "referat", "vl", "vorlesung", "folien"}),
        purposes=("wichtig für", "wichtig fürs", "relevant für", "brauche ich für", "brauche ich fürs",
                  "brauchen wir für", "nötig für", "benötigt für", "gebraucht für", "notwendig für"),
        todos=("todo", "to-do", "noch lernen", "nacharbeiten", "fehlt noch", "noch offen", "tbd"),
        unfinished=("todo", "to-do", "tbd", "fehlt noch", "noch offen", "kommt noch", "folgt noch", "noch lernen",
                    "nacharbeiten", "noch nicht behandelt", "noch nicht fertig", "noch ausarbeiten", "noch ergänzen"),
        passing=frozenset({"gibt", "existiert", "existieren", "auch", "verwandt", "verwandte", "verwandtes",
                           "ähnlich", "ähnliche", "ähnliches", "weitere", "weiteres", "andere", "anderes", "erwähnt",
                           "siehe", "enthalten", "enthält", "beinhalten", "beinhaltet", "viele", "einige", "manche",
                           "mehrere", "usw"}),
        definite_articles=frozenset({"der", "die", "das", "den", "dem", "des"}),
        months=frozenset({"januar", "jänner", "februar", "märz", "april", "mai", "juni", "juli", "august",
                          "september", "oktober", "november", "dezember"}),
        month_abbreviations=frozenset({"jan", "feb", "mär", "mrz", "apr", "jun", "jul", "aug", "sep", "sept", "okt",
                                       "nov", "dez"}),
        worked=frozenset({"rechenbeispiel", "beispielrechnung", "beispiel", "übungsaufgabe"}),
        announcements=("nächste woche", "nächstes mal", "nächste vorlesung", "in der nächsten vorlesung",
                       "nächste stunde", "das wars für heute", "das war's für heute", "das war es für heute"),
        conditions=("genau dann, wenn", "genau dann wenn", "wenn", "falls", "sofern"),
        definition_labels=("definition", "def"),
        laws=(("satz", "der"), ("hauptsatz", "der"), ("lehrsatz", "der"), ("gesetz", "das"), ("prinzip", "das"),
              ("theorem", "das"), ("lemma", "das"), ("axiom", "das"), ("postulat", "das")),
        # not "-satz" alone: "Zinssatz", "Umsatz", "Ansatz" name no law
        law_compounds=(("hauptsatz", "der"), ("erhaltungssatz", "der"), ("gesetz", "das"), ("prinzip", "das"),
                       ("theorem", "das"), ("axiom", "das"), ("postulat", "das")),
        states="Was besagt {law}?",
        deed_suffixes=("ung",),
        condition_openers=("wann", "ab wann", "ab welcher", "ab welchem", "ab welchen", "bei welcher", "bei welchem",
                           "bei welchen", "unter welchen bedingungen", "unter welcher bedingung"),
        condition_namings=("spricht man von", "spricht man vom", "redet man von", "gilt … als", "gelten … als",
                           "zählt … als", "zählen … als", "bezeichnet man … als"),
        thresholds=("ab", "über", "unter", "oberhalb", "unterhalb", "oder mehr", "oder weniger", "oder darüber",
                    "oder darunter", "oder höher", "oder niedriger", "höher als", "niedriger als"),
        target_forms=("als", "ins"), abilities=frozenset({"kann", "können", "könnte", "könnten"}),
        whether=frozenset({"kann", "können", "könnte", "könnten", "unterstützt", "funktioniert", "gibt", "lässt",
                           "geht", "ist"}),
        procedures=frozenset({"wie"}),
        outputs=("drucken", "ausdrucken", "exportieren", "herunterladen", "hochladen", "konvertieren", "umwandeln",
                 "mailen"),
        limits=("höchstens", "maximal", "maximale", "maximalen", "maximum", "max", "mindestens", "minimal",
                "minimale", "minimalen", "minimum", "limit", "limits", "grenze", "obergrenze", "begrenzt", "bis zu",
                "weniger als", "mehr als", "kleiner als", "größer als", "überschreiten", "überschreitet",
                "übersteigen", "übersteigt"),
        no_limits=("unbegrenzt", "unbegrenzte", "unbegrenzten", "unbeschränkt", "keine begrenzung", "kein limit",
                   "keine grenze", "ohne begrenzung", "ohne limit"),
        open_ends=frozenset({"wenn", "falls", "sofern", "weil", "dass", "ob", "obwohl", "und", "oder", "aber",
                             "sondern", "des", "dem", "eine", "einer", "eines", "einem", "einen", "für", "sodass"}),
        references=("§", "art.", "artikel"),
        instances=("ein", "eine", "einen", "jeder", "jede", "jedes"),
        relatives=("welche", "welcher", "welches", "welchen", "welchem", "deren", "dessen"),
        question_words=frozenset({"wann", "warum", "wieso", "weshalb", "wozu", "wie", "was", "welche", "wo", "wer"}),
        actions=("ung", "tion", "sion"), name_particles=frozenset({"von", "van", "de"}),
        transcripts=frozenset({"transkript", "transkription", "mitschrift", "aufzeichnung"}),
        hesitations=frozenset({"äh", "ähm", "öhm", "hm", "hmm", "ähh"}),
        hedges=("im grunde", "eigentlich", "grob gesagt", "ganz grob gesagt", "sozusagen", "quasi", "halt", "also",
                "so", "okay", "ok", "genau", "ja"),
        tag_questions=("ne", "nicht wahr", "oder", "gell", "okay", "ok", "ja", "nich"),
        shortenings=("oder kurz {abbr}", "kurz {abbr}", "abgekürzt {abbr}"),
        namings=("das nennt man", "das nennen wir", "man nennt das", "nennt man das", "dann nennt man das",
                 "das heißt dann", "dann heißt das", "heißt das", "das bezeichnet man als", "spricht man von",
                 "das ist der sogenannte", "das ist die sogenannte", "das ist das sogenannte",
                 "das sind die sogenannten"),
        speaker_titles=("prof", "dr", "herr", "frau"),
        speaker_roles=("dozent", "dozentin", "professor", "professorin", "prof", "lehrer", "lehrerin", "tutor",
                       "tutorin", "trainer", "trainerin", "kursleiter", "kursleiterin", "sprecher", "sprecherin",
                       "moderator", "moderatorin"),
        naming_demonstratives=("diesen", "diese", "dieser", "dieses", "diesem", "das", "dies"),
        naming_verbs=("nennt man", "nennen wir", "bezeichnen wir als", "bezeichnet man als"),
        resumptives=frozenset({"das", "dies"}),
        spoken_meanings=(("{term}, das heißt, {meaning}", "heißt"), ("{term}, das heißt {meaning}", "heißt"),
                         ("{term} heißt, {meaning}", "heißt"), ("{term}, das bedeutet, {meaning}", "bedeutet"),
                         ("{term} bedeutet, {meaning}", "bedeutet"), ("{term} ist, wenn {meaning}", "ist"),
                         ("was wir {term} nennen, ist {meaning}", "ist"),
                         ("was man {term} nennt, ist {meaning}", "ist")),
        spoken_sequels=(", also ",),
        student_questions=("frage aus dem publikum", "frage einer studentin", "frage eines studenten",
                           "eine studentin fragt", "ein student fragt", "studentin fragt", "student fragt",
                           "zwischenfrage", "studentin", "student", "frage"),
        praise=("gute frage", "sehr gute frage", "guter punkt"),
        ordinals=("und erstens", "erstens", "und zweitens", "zweitens", "und drittens", "drittens", "und viertens",
                  "viertens", "und dann", "dann", "und schließlich", "schließlich", "und zuletzt", "zuletzt",
                  "zum einen", "zum anderen"),
        describing_verbs={verb: verb for verb in ("misst", "beschreibt", "erfasst", "quantifiziert")},
        places=(("erstens", "zum ersten", "als erstes"), ("zweitens", "zum zweiten"), ("drittens", "zum dritten"),
                ("viertens",), ("fünftens",), ("sechstens",), ("siebtens",)),
        last_places=("schließlich", "zuletzt"),
        emphases=("und das ist wichtig", "das ist wichtig", "und das ist eine klassische klausurfrage",
                  "das ist eine klassische klausurfrage"),
        numbers=("zwei", "drei", "vier", "fünf", "sechs", "sieben", "acht", "neun", "zehn"),
        key_points=("merken sie sich", "merken sie sich bitte", "merkt euch", "merkt euch bitte", "wichtig ist",
                    "ganz wichtig", "das wichtigste ist", "und hier ist die falle", "die falle ist",
                    "und das ist wichtig für die klausur", "das ist wichtig für die klausur",
                    "und das kommt in der klausur", "das kommt in der klausur"),
        key_point_asked="Merksatz",
        roles=frozenset({"typische", "typischer", "typisches", "klassische", "klassischer", "klassisches", "übliche",
                         "einfachste", "einfachster", "bekannteste", "häufigste", "wichtige", "wichtigste"}),
        existentials=("es gibt", "es gab"),
        sessions=frozenset({"heute", "diese woche", "die vorlesung", "diese vorlesung", "das thema",
                            "das heutige thema", "nächste woche", "die klausur"}),
        subjects=frozenset({"er", "sie", "es", "wir", "ich", "man", "beide"}),
        quantifiers=frozenset({"manche", "viele", "einige", "alle", "wenige", "die meisten"}),
        causal=frozenset({"weil", "denn", "da"}),
        estimates=frozenset({"ungefähr", "etwa", "rund", "circa", "ca.", "fast", "knapp", "beinahe"}),
        adverbs=frozenset({"nicht", "nichts", "meist", "erst", "fast", "selbst", "jetzt", "bereits", "zuletzt",
                           "zuerst", "seit", "insgesamt", "direkt", "kaum", "oft", "stets", "überhaupt", "zumindest",
                           "oben", "unten", "innen", "außen", "hinten", "morgen", "gestern"}),
        prepositions=frozenset({"in", "im", "nach", "vor", "während", "mit", "bei", "seit", "durch", "am", "an",
                                "auf", "aus", "unter", "zum", "zur", "als", "bis"}),
        phrase_links=frozenset({"in", "im", "ins", "nach", "vor", "vorm", "während", "mit", "bei", "beim", "seit",
                                "durch", "am", "an", "ans", "auf", "aufs", "aus", "unter", "zum", "zur", "zu", "als",
                                "bis", "von", "vom", "zwischen", "über", "übers", "ohne", "für", "gegen", "um", "statt",
                                "anstatt", "samt", "nebst", "außer", "innerhalb", "außerhalb", "entlang", "gegenüber",
                                "hinter", "neben", "wegen", "trotz", "pro", "je", "wie", "per", "bzw", "bzw.", "plus",
                                "inkl", "inkl.", "z.", "b.", "z.b.", "ca.", "nicht", "kein", "keine"}),
        joiners=frozenset({"und", "oder", "sowie", "&"}),
        subordinators=frozenset({"was", "wie", "wo", "wer", "wenn", "dass", "ob", "weil", "warum", "wodurch",
                                 "womit", "wozu", "woraus", "nachdem", "bevor", "sobald", "falls", "obwohl"}),
        # ("Französische", "Kommerzielle", "Installierte", "Verschachtelte", "Ausgeschlossene", "Neue")
        adjective_endings=tuple(stem + ending for stem in ("sch", "ig", "al", "lich", "ell", "iert", "elt", "tet",
                                                           "en", "eu")
                                for ending in ("e", "er", "es", "en", "em")),
        commands=frozenset({"erkläre", "erklären", "erläutere", "erläutern", "nenne", "nennen", "definiere",
                            "definieren", "beschreibe", "beschreiben", "vergleiche", "vergleichen", "begründe",
                            "begründen", "grenze", "skizziere", "berechne", "bestimme", "stelle", "gib", "unterscheide",
                            "fasse", "zähle"}),
        auxiliaries=frozenset({"ist", "sind", "war", "waren", "bin", "bist", "seid", "hat", "haben", "hatte", "habe",
                               "hast", "kann", "können", "kannst", "könnte", "könnten", "wird", "werden", "werde",
                               "wirst", "würde", "würden", "wäre", "wären", "muss", "müssen", "darf", "dürfen", "soll",
                               "sollen", "sollte", "sollten", "will", "gibt", "gab", "gilt", "braucht", "geht"}),
        factors=("faktoren", "einflussgrößen", "determinanten", "einflüsse"),
        yes_no=frozenset({"ja", "nein", "jein", "doch"}),
        linking_verbs=frozenset({"wird", "werden", "wurde", "wurden", "bleibt", "bleiben", "scheint"}),
        overviews=frozenset({"aspekte", "inhalt", "inhaltsangabe", "handlung", "handlungsverlauf", "überblick",
                             "zusammenfassung", "steckbrief", "eckdaten", "auf einen blick"}),
        # "im re. Vorhof", "zw. den Wendekreisen", "Kap. 3" (rechts, zwischen, Kapitel); a law's "§ 1 Abs. 2",
        # "§§ 146 ff.", "Ziff. 3"; a book's "2. Aufl.", "Hrsg.", "Bd. 4"; "Alexander d. Gr.", "ca. 5 Mio. Menschen"
        openers=frozenset({"Der", "Die", "Das", "Es", "Sie", "Er", "Ein", "Eine", "Im", "Am", "Dies", "Diese", "Dieser",
                           "Dann", "Danach", "Dabei", "Daher", "Deshalb", "Später", "Heute", "Sein", "Seine", "Ihr",
                           "Ihre", "Wir", "Man", "Auch"}),
        abbreviations=frozenset({"z.b", "d.h", "u.a", "o.ä", "s.o", "s.u", "u.u", "v.a", "z.t", "i.d.r",
                                 "bzw", "ca", "vgl", "evtl", "ggf", "ggfs", "inkl", "insb", "nr", "bspw", "sog",
                                 "bzgl", "re", "li", "zw", "kap", "abb", "tab", "sem", "sup",
                                 "inf", "max", "min", "mind", "lat", "engl", "griech", "frz", "ital", "dt", "röm",
                                 "chr", "jh", "jhd", "jhdt", "abs", "ff", "ziff", "lit", "aufl", "hrsg", "bd",
                                 "anm", "gr", "hl", "st", "mio", "mrd", "tsd", "ggü", "gem", "lt", "urspr", "zzgl",
                                 "abzgl", "ehem", "geb", "gest", "allg", "eigtl", "einschl", "entspr", "gegr",
                                 "jew", "mögl", "näml", "std", "tägl", "vllt", "wg", "zus", "ugs", "prof", "dr",
                                 "hr", "str", "jan", "feb", "febr", "apr", "aug", "sept", "okt", "nov", "dez",
                                 "vs"}),
    ),
    "es": LanguageWords(stamps=("actualizado", "fecha"), logistics=frozenset({"examen", "clase", "lunes", "martes"}),
                        labels=frozenset({"p", "r", "pregunta", "respuesta", "ejemplo", "nota"}),
                        question_tails=("por qué", "?"), asks=frozenset({"p", "pregunta"}),
                        answers=frozenset({"r", "respuesta"}), formula="fórmula",
                        abbreviations=frozenset({"p.ej", "aprox", "sr", "sra", "srta", "ud", "uds", "pág", "núm",
                                                 "ej"})),
}

_ALL_STAMPS = tuple(sorted({s for words in WORDS.values() for s in words.stamps}, key=len, reverse=True))
_ALL_LOGISTICS = frozenset(w for words in WORDS.values() for w in words.logistics)
_ALL_LABELS = frozenset(w for words in WORDS.values() for w in words.labels)
_ALL_APPOINTMENTS = frozenset(w for words in WORDS.values() for w in words.appointments)
_ALL_EVENTS = frozenset(w for words in WORDS.values() for w in words.events)
_ALL_PLANNING = frozenset(w for words in WORDS.values() for w in words.planning)
_ALL_FUNCTION_WORDS = frozenset(w for words in WORDS.values() for w in words.function_words)
_PLANNING_PHRASES = sorted((w for w in _ALL_PLANNING if " " in w), key=len, reverse=True)  # "this week", "to do"
# callouts of tasks: over the student's planning when untitled or titled by it ("> [!todo] Diese Woche"); titled by
# an action ("> [!todo]- Bookmark a file") they are a procedure's steps
PLANNING_CALLOUTS = frozenset({"todo", "task", "tasks", "deadline", "deadlines"})
_HEADING_LINE_RE = re.compile(r"^(?P<marks>#{1,6})\s+(?P<text>.*)$")
_CALLOUT_TYPE_RE = re.compile(r"^\s*(?:>\s*)+\[!(?P<type>[\w-]+)\][+-]?(?P<title>.*)$")
_TITLE = r"(?:dr|prof|tutor|tutorin)\.?(?:\s+[\w.]+){1,2}?"  # "Dr. K.", "Prof. Grant", "tutor"
_WORDS_BETWEEN = r"(?:\s+\S+){0,3}?"  # "discuss the outline with …"


def _coursework_pattern(phrase: str) -> str:
    escaped = re.escape(phrase).replace(re.escape("{title}"), _TITLE).replace(re.escape("{words}"), _WORDS_BETWEEN)
    return rf"(?<!\w){escaped}(?!\w)"


_COURSEWORK_RE = re.compile("|".join(_coursework_pattern(phrase) for words in WORDS.values()
                                     for phrase in words.coursework))
# a line's label: its words before a colon, or a dash between spaces ("Praktikum: …", "Projektabgabe – …")
_LINE_LABEL_RE = re.compile(r"^(?P<label>[^:–—]{2,40}?)\s*(?::|\s[–—-]\s)")
_ALL_ASPECTS = frozenset(w.casefold() for words in WORDS.values() for w in words.aspects)  # read "größe" as "grösse"
_ALL_EXERCISES = frozenset(w for words in WORDS.values() for w in words.exercises)
_ALL_GLOSSARIES = frozenset(w for words in WORDS.values() for w in words.glossaries)
_ALL_RANKS = frozenset(w.casefold() for words in WORDS.values() for w in words.ranks)
_BACK_REFERENCES = "|".join(sorted({re.escape(w) for words in WORDS.values() for w in words.back_references},
                                   key=len, reverse=True))
_BACK_REFERENCE_RE = re.compile(rf"^(?:{_BACK_REFERENCES})(?!\w)")
_CHATTERS = "|".join(sorted({re.escape(w) for words in WORDS.values() for w in words.chatter}, key=len, reverse=True))
# the student's chatter, a "TODO" in capitals or a "??" on its own opening what is still unclear to them
_CHATTER_RE = re.compile(rf"(?<!\w)(?i:{_CHATTERS})(?!\w)|(?<!\w)TODO(?!\w)|(?<!\S)\?\?(?!\S)")
_CLAUSE_START_RE = re.compile(r"(?:[.!?…;,]\s|\s(?:→|->|=>|←|–|—)\s|\()")  # where a clause of a line begins
_ALL_TAILS = tuple(sorted({t for words in WORDS.values() for t in words.question_tails if t not in ("?", "??")},
                          key=len, reverse=True))

_ALL_TAIL_WORDS = frozenset(tail for tail in _ALL_TAILS if " " not in tail)
_ASKS = "|".join(sorted({re.escape(w) for words in WORDS.values() for w in words.asks}, key=len, reverse=True))
_ANSWERS = "|".join(sorted({re.escape(w) for words in WORDS.values() for w in words.answers}, key=len, reverse=True))
# "Q: … ?" on one line, "A: …" on the next (labels in bold or not): one question and its whole answer
_QA_RE = re.compile(rf"^\**(?i:{_ASKS})\**\s*[:.]\**\s*(?P<question>[^\n]+?)\s*\n"
                    rf"\**(?i:{_ANSWERS})\**\s*[:.]\**\s*(?P<answer>[\s\S]+?)\s*$")
# "el pan :: das Brot": a vocabulary line as the spaced-repetition plugin writes it (a "::" inside code is code)
_VOCAB_RE = re.compile(r"^(?P<word>[^:`\n]{1,80}?)\s+::\s+(?P<meaning>[^\n]+)$")

# dates and times as students write them: 12.01.2025, 20.10., 2025-01-12, 10–12, 18–19:30, 14:00
DATE_RE = re.compile(r"(?<![\w.])(?:\d{1,2}\.\d{1,2}\.(?:\d{2,4})?|\d{4}-\d{2}-\d{2}|\d{1,2}/\d{1,2}/\d{2,4})(?!\w)")
_TIME_RE = re.compile(r"(?<![\w:])\d{1,2}(?::\d{2})?\s*[–—-]\s*\d{1,2}(?::\d{2})?(?![\w:])"
                      r"|(?<![\w:])\d{1,2}:\d{2}(?![\w:])")
TIMESTAMP_RE = re.compile(r"\[(?:\d{1,2}:)?\d{1,2}:\d{2}\]")  # a transcript's [02:15] or [1:02:15]
_MD_LINK_RE = re.compile(r"!?\[[^\[\]\n]*\]\([^()\n]*\)")
_TAG_RE = re.compile(r"(?<![\w#])#([\w/-]+)")
_WORD_RE = re.compile(r"[^\W\d_][\w'’-]*")
_LINE_MARK_RE = re.compile(r"^\s*(?:>\s*)*(?:[-*+]\s+|\d+[.)]\s+)?")  # a list bullet or a quote marker
# a formula: $$…$$ (may span lines) or $…$ with no space inside its delimiters and not a price ("$5 and $10")
_DISPLAY_MATH_RE = re.compile(r"\$\$(?=\S)[\s\S]+?\$\$")
_INLINE_MATH_RE = re.compile(r"(?<![\\$\w])\$(?=[^\s$])(?:\\.|[^$\\\n])+?(?<=[^\s\\])\$(?![\w$])")
_CODE_SPAN_RE = re.compile(r"(?<!`)(`+)(?!`)[\s\S]+?(?<!`)\1(?!`)")
# the student's own question ending a line, after an arrow, a dash, in parentheses or brackets
_TAIL_MARK = r"\s*(?:→|->|=>|–|—|-|\(|\[)\s*"
_TAIL_LEAD = rf"(?:{_TAIL_MARK}|\s+)"
MIN_LINK_LINES = 4  # a hub links at least this many notes
HUB_SHARE = 0.75  # of its content lines, at least this share only link, date or tag


def normal(text: str) -> str:
    """NFC, casefolded, whitespace runs as one space: how a fact is compared with a note's text."""
    return " ".join(unicodedata.normalize("NFC", text).casefold().split())


def atom_spans(text: str) -> list[tuple[int, int]]:
    """The (start, end) of every code span and formula in ``text``, in order: text no reader may cut or re-space."""
    spans: list[tuple[int, int]] = []
    taken = [False] * (len(text) + 1)
    for pattern in (_CODE_SPAN_RE, _DISPLAY_MATH_RE, _INLINE_MATH_RE):  # code first: a "$" in code is code
        for match in pattern.finditer(text):
            if any(taken[match.start():match.end()]):
                continue
            spans.append((match.start(), match.end()))
            taken[match.start():match.end()] = [True] * (match.end() - match.start())
    return sorted(spans)


def math_spans(text: str) -> list[tuple[int, int]]:
    """The spans of the formulas alone (``$…$``, ``$$…$$``), code spans left out."""
    return [(start, end) for start, end in atom_spans(text) if text[start] == "$"]


def inside_atom(text: str, index: int) -> bool:
    """Whether a cut at ``index`` would fall inside a code span or a formula."""
    return any(start < index < end for start, end in atom_spans(text))


def _bare_line(line: str) -> str:
    return _LINE_MARK_RE.sub("", line).strip()


_TAGS_LABEL_RE = re.compile(r"^(?:tags?|schlagw(?:ö|oe)rter|stichw(?:ö|oe)rter)\s*:\s*", re.IGNORECASE)


def is_tag_line(line: str) -> bool:
    """A line of only tags (``#uni/ws25 #exam``, also labelled: "Tags: #semester"), or a ``#todo`` line: the
    student's filing, not the subject."""
    words = _TAGS_LABEL_RE.sub("", _bare_line(line)).split()
    if not words or not words[0].startswith("#") or not is_valid_tag(words[0][1:].rstrip(".,;:!")):
        return False
    tags = [word for word in words if word.startswith("#") and is_valid_tag(word[1:].rstrip(".,;:!"))]
    return len(tags) == len(words) or words[0][1:].casefold() in ("todo", "to-do", "task")


def is_stamp_line(line: str) -> bool:
    """A date stamp: "Stand: 12.01.2025", "last edited: 09.01.2026", "*letzte Änderung: 3.2.25*"."""
    bare = _bare_line(line).strip("*_ ").casefold()
    if not DATE_RE.search(bare) and not re.search(r"\d{4}", bare):
        return False
    return any(bare.startswith(stamp) and not bare[len(stamp):len(stamp) + 1].isalpha() for stamp in _ALL_STAMPS)


_SENTENCE_GAP_RE = re.compile(r"[.;·]\s+")


def without_filing(text: str) -> str:
    """``text`` (prose, a list item, a callout) without its tag lines and date stamps, nor a stamp closing a line
    after its last sentence ("bilingual history class (Q2). Stand: 12.01.2025"): what may be quoted as evidence.
    Lines are otherwise kept as written."""
    kept = []
    for line in text.split("\n"):
        if is_tag_line(line) or is_stamp_line(line):
            continue
        for gap in _SENTENCE_GAP_RE.finditer(line):
            rest = line[gap.end():]
            if rest.lstrip("*_")[:1].isalpha() and is_stamp_line(rest):
                line = line[:gap.start() + 1].rstrip()
                break
        kept.append(line)
    return "\n".join(kept)


_FILLERS = "|".join(sorted({re.escape(w) for words in WORDS.values() for w in words.fillers}, key=len, reverse=True))
_INTERJECTIONS = "|".join(sorted({re.escape(w) for words in WORDS.values() for w in words.interjections}, key=len,
                                 reverse=True))
# "So, …", "Okay …"; "Right, …", "Right — …" (never "Right ventricle …": an interjection stands apart)
_FILLER_RE = re.compile(rf"^(?:(?:{_FILLERS})(?:\s*[,—–]\s*|\s+)|(?:{_INTERJECTIONS})\s*[,—–]\s*)", re.IGNORECASE)
_SPOKEN_ASIDE_RE = re.compile(r"\s+[—–]\s+[^—–]{1,80}?\s+[—–]\s+")  # "Now — and this is an exam question — ACE …"
_OPENING_TIMESTAMP_RE = re.compile(rf"^\W*{TIMESTAMP_RE.pattern}\W*")
_SAID_AT_RE = re.compile(rf"^[\s*_]*{TIMESTAMP_RE.pattern}[\s*_]*")  # "**[11:20]** [student question: …]": the time


def is_spoken(text: str) -> bool:
    """A paragraph of a transcript: it opens with its timestamp ("**[05:40]** So, first class, …")."""
    return bool(_OPENING_TIMESTAMP_RE.match(text))


def without_fillers(sentence: str) -> str:
    """A spoken sentence as a statement: its timestamp, the speaker's openers ("So, quick recap — ", "Okay, ", "Now ")
    and an aside between dashes ("— and this is a classic exam question —") left out."""
    text = _SPOKEN_ASIDE_RE.sub(" ", _OPENING_TIMESTAMP_RE.sub("", sentence.strip()))
    while (found := _FILLER_RE.match(text)) and found.end() < len(text):
        text = text[found.end():]
    return text


def without_timestamps(text: str) -> str:
    """A transcript's text without its ``[02:15]`` marks (the words said stay)."""
    return " ".join(TIMESTAMP_RE.sub(" ", text).split()) if TIMESTAMP_RE.search(text) else text


def is_transcript_title(title: str) -> bool:
    """A note whose title says it is a lecture said aloud ("Lecture 3 (transcript)", "VL 05 (Mitschrift)"): its
    paragraphs are spoken even where no timestamp opens them."""
    said = set(re.findall(r"[^\W\d_]+", title.casefold()))
    return any(said & words.transcripts for words in WORDS.values())


_NEVER_RE = re.compile(r"(?!)")
_ABBREVIATION = r"(?-i:[a-z]?[A-ZÄÖÜ][A-Z0-9ÄÖÜ]+s?)"  # "GFR", "mRNA", "ACEs": capitals, whatever the flags


def _spoken_patterns(words: LanguageWords) -> dict[str, re.Pattern[str]]:
    asides = _choice(words.hedges + words.emphases)
    copulas = _choice(words.copulas)
    shortenings = _choice(words.shortenings).replace(re.escape("{abbr}"), _ABBREVIATION)
    return {
        "hesitation": re.compile(rf"(?:,\s*)?(?<!\w)(?:{_choice(words.hesitations)})(?!\w)(?:\s*,)?", re.IGNORECASE),
        "aside": re.compile(rf"(?:,|\s[—–])\s*(?:{asides})\s*(?:,|[—–]\s)", re.IGNORECASE),
        "copula": re.compile(rf"\s*(?:{copulas})\b", re.IGNORECASE),
        "shortening": re.compile(rf",\s*(?:{shortenings})\s*,", re.IGNORECASE) if words.shortenings else _NEVER_RE,
        # a verb right before a removed hedge ("is, basically, a …"): no comma between it and what it says
        "verb_before": re.compile(rf"(?<![\w-])(?:{_choice(words.copulas + words.meaning_verbs)})$", re.IGNORECASE),
        "tag": re.compile(rf",?\s*(?:{_choice(words.tag_questions)})\s*\?\s*$", re.IGNORECASE),
        # "Die Einkommenselastizität, das ist …", "Cancer, cancer is …": the term, taken up again before its verb
        "dislocated": re.compile(rf"^(?P<term>(?:(?!\b(?:{copulas})\b)[^,;:]){{2,60}})"
                                 rf"(?:,\s+(?:{_choice(words.resumptives)})|,?\s+(?P=term))"
                                 rf"\s+(?=(?:{copulas})\b)", re.IGNORECASE),
        "speaker": re.compile(rf"^(?:(?:{_choice(words.speaker_titles)})\.?\s+[^\W\d_][\w'’-]*(?:\s+[^\W\d_][\w'’-]*)?"
                              rf"|(?:{_choice(words.speaker_roles)})(?:\s+\d)?)\s*:\s+", re.IGNORECASE)
        if words.speaker_titles else _NEVER_RE,
        "naming": re.compile(rf"(?:^|(?<=[\s,]))(?P<naming>{_choice(words.namings)}|{_pointed_naming(words)})\s+"
                             rf"(?P<term>[^,;:.!?()—–]+?)\s*(?=[,;:.!?()—–]|$)", re.IGNORECASE),
        "ordinal": re.compile(rf"(?:^|,\s*|\s+)(?:{_choice(words.ordinals)})(?!\w)[\s,]*", re.IGNORECASE),
        "count": re.compile(rf"(?<!\w)(?P<count>{'|'.join(words.numbers)}|[2-9])\s+(?:[^\W\d_][\w-]*\s+){{0,2}}"
                            rf"[^\W\d_][\w-]*", re.IGNORECASE),
        # "Good question.", "Gute Frage – ungefähr zehn Milliarden Jahre": the praise and what sets it off
        "praise": re.compile(rf"^(?:{_choice(words.praise)})(?:\W*$|\s*[.!,:;]\s*|\s+[—–-]\s+)", re.IGNORECASE),
        "asked": re.compile(rf"^(?:\[\s*(?:{_choice(words.student_questions)})\s*:\s*(?P<bracketed>[^\]]+\?)\s*\]"
                            rf"|(?:{_choice(words.student_questions)})\s*:\s*(?P<said>[^?]+\?))\s*", re.IGNORECASE),
    } if words.namings else {}


MAX_POINTED_WORDS = 3


def _pointed_naming(words: LanguageWords) -> str:
    """The pattern of a naming that points at what was said in a few words of its own ("that kind of circulation we
    call", "those we call", "That process is called", "diesen Vorgang bezeichnen wir als")."""
    if not words.naming_demonstratives or not words.naming_verbs:
        return "(?!)"
    return rf"(?:{_choice(words.naming_demonstratives)})(?:\s+[^\W\d_][\w'’-]*){{0,{MAX_POINTED_WORDS}}}?\s+" \
        rf"(?:{_choice(words.naming_verbs)})"


@cache
def _spoken(lang: str) -> dict[str, re.Pattern[str]]:
    return _spoken_patterns(WORDS[lang]) if lang in WORDS else {}


def said_plainly(sentence: str, lang: str) -> str:
    """A spoken sentence as a student writes it down: without its timestamp, its opening fillers ("So, okay, "),
    the speaker's hesitations ("äh", "um"), hedges and emphases between commas or dashes ("is, basically, …",
    "Now, and this is important, …"), a closing tag question (", right?", ", ne?") and the term said twice
    ("Cancer, cancer is …", "Die Einkommenselastizität, das ist …")."""
    patterns = _spoken(lang)
    text = _SAID_AT_RE.sub("", sentence.strip())
    if not patterns:
        return without_fillers(text)
    text = patterns["speaker"].sub("", text, count=1)  # "Dr. Brandt: Wenn warme Luft …"
    def gap(found: re.Match[str]) -> str:
        """"A, um, and B" keeps its comma; "Containment, basically, is …" and "is, basically, a …" none (while
        "Wenn der Wasserstoff aufgebraucht ist, bläht …" keeps the comma that ends its clause)."""
        between = found[0].startswith(",") and found[0].rstrip().endswith(",")
        return "," if between and not patterns["copula"].match(found.string, found.end()) and \
            not patterns["verb_before"].search(found.string, 0, found.start()) else " "

    text = _SPOKEN_ASIDE_RE.sub(", ", text)  # "Right — and this is important — a prodrug …": "Right, a prodrug …"
    for name in ("hesitation", "aside", "shortening"):
        text = patterns[name].sub(gap, text)
    text = " ".join(text.split()).replace(" ,", ",").replace(" .", ".")
    if (tag := patterns["tag"].search(text)) and tag.start() > 0:
        text = text[:tag.start()].rstrip(" ,") + "."
    while (found := _FILLER_RE.match(text)) and found.end() < len(text) and not _verb_second(text[found.end():], lang):
        text = text[found.end():]
    for fused, written in WORDS[lang].resumed_copulas if lang in WORDS else ():
        text = re.sub(rf"^([^,;:]{{2,60}}),\s+{re.escape(fused)}\s", rf"\1, {written} ", text, count=1)
    if not patterns["naming"].search(text):  # "Der Bereich …, das ist der sogenannte Warmsektor" names, keeps "das"
        text = patterns["dislocated"].sub(r"\g<term> ", text)
    first = text.split()[0].strip(",.;:").replace("-", "") if text.split() else ""  # "p53", "mRNA" stay as said
    return text[:1].upper() + text[1:] if first.isalpha() and first.islower() else text


def _verb_second(rest: str, lang: str) -> bool:
    """"Jetzt unterscheiden wir drei Fälle": a German opener before its verb is the sentence's first part, left out
    it would open with the verb (a verb is lower case; an article, a pronoun or "wenn" opens a clause of its own)."""
    first = rest.split()[0] if rest.split() else ""
    words = WORDS.get(lang)
    return lang == "de" and words is not None and first.isalpha() and first.islower() \
        and first.endswith(("en", "t")) and first not in words.articles \
        and not any(first == phrase.split()[0] for phrase in words.conditions)


@dataclass(frozen=True, slots=True)
class Naming:
    """A term the speaker names ("…, we call this the restriction point"): where its words stand in the sentence,
    and whether anything before the naming says what is named (else the sentence before does: "We call this …")."""

    start: int
    end: int
    said_before: bool


def naming_in(sentence: str, lang: str) -> Naming | None:
    """The term a spoken sentence names ("we call this X", "what we call X", "das nennt man X", "dann heißt das X"),
    its article left out of it; None when none, or when what follows is no short term (a clause, a list)."""
    patterns = _spoken(lang)
    found = patterns["naming"].search(sentence) if patterns else None
    if found is None:
        return None
    start, term = found.start("term"), found.group("term")
    first = term.split()[0].casefold() if term.split() else ""
    if first in WORDS[lang].articles:
        start += len(term.split()[0]) + 1
        term = term.split(None, 1)[1] if len(term.split()) > 1 else ""
    words = term.split()
    if not words or len(words) > 5 or any(word.casefold() in WORDS[lang].copulas for word in words) \
            or words[0].casefold() in WORDS[lang].phrase_links:
        return None  # "That theory is called into question": no term named
    before = sentence[:found.start()].strip(" ,—–")
    said_before = len(_WORD_RE.findall(before)) >= 3
    return Naming(start, start + len(term), said_before)


def spoken_list(sentence: str, lang: str) -> tuple[str, list[str], str] | None:
    """A list said aloud after a colon: its lead, items and the words saying them ("Interphase has three phases:
    first G1, …, then S phase, …, and finally G2, …" → three items; "Typical side effects: ankle oedema, flushing,
    headache"). A lead counting its items must count as many as are said; counted off ("first …, then …") the items
    are each one's words after its ordinal, else the parts between commas and the last "and"."""
    patterns = _spoken(lang)
    lead, colon, said = sentence.partition(": ")
    if not patterns or not colon or not said.strip() or len(lead.split()) > 12:
        return None
    said = re.split(r"\s[—–]\s", said.strip().rstrip("."), maxsplit=1)[0]  # "… bronchoconstriction — so careful"
    ordinals = list(patterns["ordinal"].finditer(said))
    if len(ordinals) >= 2 and ordinals[0].start() == 0:
        items = [part.strip(" ,") for part in patterns["ordinal"].split(said)]
    else:
        joiners = r"\s+(?:and|und|or|oder)\s+" if lang in ("en", "de") else r"\s+y\s+"
        items = [part.strip() for part in re.split(rf",\s*(?:(?:and|und)\s+)?|{joiners}", said)]
    items = [item for item in items if item]
    if len(items) < 2:
        return None
    counted = patterns["count"].search(lead)
    if counted:
        number = counted.group("count").casefold()
        expected = WORDS[lang].numbers.index(number) + 2 if number in WORDS[lang].numbers else int(number)
        return (lead, items, said) if expected == len(items) else None
    return (lead, items, said) if len(items) >= 3 and all(len(item.split()) <= 8 for item in items) else None


def counted_in(sentence: str, lang: str) -> list[tuple[str, int]]:
    """The counts a spoken sentence says with what they count ("Durkheim distinguishes four types of suicide, and
    these depend on two dimensions" → [("four types of suicide", 4), ("two dimensions", 2)])."""
    patterns = _spoken(lang)
    counted = []
    for found in patterns["count"].finditer(sentence) if patterns else ():
        number = found.group("count").casefold()
        counted.append((found.group(0), WORDS[lang].numbers.index(number) + 2 if number in WORDS[lang].numbers
                        else int(number)))
    return counted


def student_question(paragraph: str, lang: str) -> tuple[str, str] | None:
    """A student's question in a recording and the rest of the paragraph, the lecturer's answer ("[student question:
    can you give it in pregnancy?] No. …", "Student: What about emails …? Good question. For emails …")."""
    patterns = _spoken(lang)
    said = _SAID_AT_RE.sub("", paragraph.strip())
    found = patterns["asked"].match(said) if patterns else None
    if found is None:
        return None
    question = (found.group("bracketed") or found.group("said")).strip()
    return question[:1].upper() + question[1:], said[found.end():]


def without_remarks_in_brackets(text: str) -> str:
    """A spoken paragraph without what stands in square brackets (the student's, not the lecturer's words:
    "[→ secondary = e.g. renal artery stenosis]", "[exam!!]"); timestamps, links and formulas stay."""
    return _BRACKETED_RE.sub(lambda match: match.group(0) if TIMESTAMP_RE.fullmatch(f"[{match.group('remark')}]")
                             or inside_atom(text, match.start() + 1) else "", text)


def key_point(sentence: str, lang: str) -> str | None:
    """The statement a lecturer stresses ("The key point for the exam is this: mitosis produces …" → "Mitosis
    produces …"; "Now — and this is a classic exam question — ACE also breaks down bradykinin." → "ACE also breaks
    down bradykinin."), written down plainly; None for a sentence stressing nothing."""
    words = WORDS.get(lang)
    patterns = _spoken(lang)
    if words is None or not patterns:
        return None
    opened = _SAID_AT_RE.sub("", sentence.strip())
    stressing = re.compile(rf"^\W*(?:{_choice(words.key_points)})\s*:\s*(?P<stated>.+)$", re.IGNORECASE)
    while not (stressed := stressing.match(opened)) and (filler := _FILLER_RE.match(opened)) \
            and filler.end() < len(opened):  # "Okay, and remember this for the exam: …"
        opened = opened[filler.end():]
    if stressed:
        return said_plainly(stressed.group("stated"), lang)
    aside = _SPOKEN_ASIDE_RE.search(sentence)
    if aside and re.search(rf"(?<!\w)(?:{_choice(words.emphases)})(?!\w)", aside.group(0), re.IGNORECASE):
        return said_plainly(sentence, lang)
    return None


def names_the_session(term: str, lang: str) -> bool:
    """"Today is monetary policy", "Today enzyme kinetics, this is …", "The main tool is the policy rate", "Typische
    Reaktion ist …": a spoken sentence's
    subject that is the lecture itself or a role of nothing named ("main tool" of what?), no term to learn."""
    bare = normal(term)
    words = WORDS.get(lang)
    if words is None:
        return False
    unarticled = bare.split(None, 1)[1] if len(bare.split()) > 1 and bare.split()[0] in words.articles else bare
    first = unarticled.split()[0] if unarticled.split() else ""
    # "Today enzyme kinetics, this is the part …": the session's topic announced, no term
    opened = any(unarticled.startswith(f"{session} ") for session in words.sessions if " " not in session)
    return bare in words.sessions or unarticled in words.sessions or opened or first in words.roles \
        or (first in _ALL_RANKS and unarticled.split()[-1] in _ALL_ASPECTS)  # "main tool", not "main sequence"


def without_praise(sentence: str, lang: str) -> str:
    """The sentence without the lecturer's praise for the student's question it opens with ("Good question.",
    "Gute Frage – ungefähr zehn Milliarden Jahre …" → "Ungefähr zehn Milliarden Jahre …"); "" when it is all praise."""
    patterns = _spoken(lang)
    found = patterns["praise"].match(sentence.strip()) if patterns else None
    if found is None:
        return sentence
    rest = sentence.strip()[found.end():]
    return rest[:1].upper() + rest[1:]


def opens_with_existential(lead: str, lang: str) -> bool:
    """"There are three …", "Es gibt drei …": the lead's first word points at nothing said before."""
    words = WORDS.get(lang)
    return words is not None and normal(lead).startswith(words.existentials)



_ANNOUNCEMENTS = "|".join(sorted({re.escape(w) for words in WORDS.values() for w in words.announcements},
                                key=len, reverse=True))
_SENTENCE_END_RE = re.compile(r"[.!?]\s+")
# an announcement opening a clause and saying what comes ("Next week: …", ", next week we …", "That's it for today")
_ANNOUNCEMENT_RE = re.compile(rf"(?:^\W*(?:{TIMESTAMP_RE.pattern}\W*)?|[.,;!?]\s+)(?P<phrase>{_ANNOUNCEMENTS})"
                              r"(?:\s*[:.!]|\s+(?:we|wir|i|ich)\b|\s*$)", re.IGNORECASE)
# a remark in brackets ("[→ definition will be on the exam!!]", "[exam!!]"): the student's, or the course's
_BRACKETED_RE = re.compile(r"\s*(?<!\[)\[(?!\[)(?P<remark>[^\[\]\n]{1,160})\](?![(\[\]])")


def announcement_start(text: str) -> int:
    """Where the sentence begins in which a lecturer announces a later session or ends this one ("[15:02] Next
    week: deflation and the liquidity trap.", "… Okay, that's it for today, next week: anticoagulants."): from there
    on the text names topics still to come, no fact of the subject; ``len(text)`` when it announces nothing."""
    found = next((match.start("phrase") for match in _ANNOUNCEMENT_RE.finditer(text)
                  if not inside_atom(text, match.start("phrase"))), None)
    if found is None:
        return len(text)
    ends = [match.end() for match in _SENTENCE_END_RE.finditer(text, 0, found)]
    start = ends[-1] if ends else 0
    return 0 if not text[:start].strip() or _OPENING_TIMESTAMP_RE.fullmatch(text[:start]) else start


def without_course_remarks_in(text: str) -> str:
    """``text`` without its remarks in square brackets on the course ("… the CPI. [→ definition will be on the
    exam!!]", "[exam!!]"): what the student noted about the exam, not about the subject. A remark on the subject
    ("[→ secondary = e.g. renal artery stenosis]"), a timestamp, a link or a formula stays."""
    def course(match: re.Match[str]) -> str:
        remark = match["remark"]
        if inside_atom(text, match.start()) or TIMESTAMP_RE.fullmatch(f"[{remark}]"):
            return match[0]
        said = {word.strip(".,;:!?()\"'“”„→") for word in normal(remark).split()}
        return "" if said & _ALL_COURSE else match[0]

    return _BRACKETED_RE.sub(course, text)


def _without_code(line: str) -> str:
    """A line with each code span as one word: a link or tag written in code is an example, not a link."""
    return _CODE_SPAN_RE.sub(" code ", line)


def _residual_words(line: str) -> list[str]:
    """The words of a line that are neither links, tags, dates, times nor course logistics."""
    rest = WIKILINK_RE.sub(" ", _MD_LINK_RE.sub(" ", _without_code(_bare_line(line))))
    rest = _TIME_RE.sub(" ", DATE_RE.sub(" ", _TAG_RE.sub(" ", rest)))
    return [word for word in _WORD_RE.findall(rest)
            if len(word) >= 3 and word.casefold().rstrip(".") not in _ALL_LOGISTICS]


def links_in(line: str) -> int:
    line = _without_code(line)
    return len(WIKILINK_RE.findall(line)) + len(_MD_LINK_RE.findall(line))


MAX_LINK_LINE_WORDS = 2  # "Anatomie-Wdh.: [[Herz]], [[Blutkreislauf]]": a link line; "[[X]] – what X does": content


def is_link_line(line: str) -> bool:
    """A line that only points elsewhere: links with at most a few words around them (a hub's entries)."""
    if _bare_line(line).startswith("|"):
        return False  # a table row: its cells are content even where one is a link
    return links_in(line) > 0 and len(_residual_words(line)) <= MAX_LINK_LINE_WORDS and not _is_linked_step(line)


_NUMBERED_RE = re.compile(r"^\s*(?:>\s*)*\d+[.)]\s+")


def _is_linked_step(line: str) -> bool:
    """A numbered step that does something with a link ("1. Open **[[Settings]]** → Sync"): words on both
    sides of its first link. A hub's numbered entry has words on one side at most ("3. VL: [[SQL Joins]]")."""
    if not _NUMBERED_RE.match(line):
        return False
    link = WIKILINK_RE.search(line) or _MD_LINK_RE.search(line)
    if link is None:
        return False
    return bool(_residual_words(line[:link.start()])) and bool(_residual_words(line[link.end():]))


MAX_APPOINTMENT_WORDS = 3  # "Praktikum Blattpigmente (Chromatographie) 16.06.": the event and what it is on


def _labelled_by_event(bare: str) -> bool:
    """Whether a line's label is one of the course's events, or a compound ending in one ("Praktikum: …",
    "Projektabgabe: …", "Prüfungsanmeldung – …")."""
    found = _LINE_LABEL_RE.match(normal(bare).strip("*_ "))
    label = found["label"].strip("*_ ").casefold() if found else ""
    return bool(label) and " " not in label and any(label.endswith(event) for event in _ALL_EVENTS)


def is_logistics_line(line: str) -> bool:
    """A date with course words and nothing else ("Klausur 17.02.2026", "Test Mi 19.11."), a date beside one of
    the course's events, whatever else the line names ("Praktikum Blattpigmente (Chromatographie) 16.06."), or a
    line an event labels ("Praktikum: Kittel + Schutzbrille mitbringen!!") or on the student's coursework ("Thema
    evtl. … mit Dr. K. absprechen", "Zitieren ohne Seitenzahl kostet Punkte!")."""
    bare = _bare_line(line)
    if _labelled_by_event(bare) or _COURSEWORK_RE.search(normal(bare)):
        return True
    dated = DATE_RE.search(bare) is not None
    if not (dated or _TIME_RE.search(bare)):
        return False
    residual = _residual_words(line)
    if not residual:
        return True
    if not dated or len(residual) > MAX_APPOINTMENT_WORDS:
        return False  # "Rechnernetze VL 2 (20.10.). OSI = Open Systems Interconnection, …": the lecture's content
    if _TIME_RE.search(DATE_RE.sub(" ", bare)):
        return True  # a date and a time of day: an appointment ("Micro I: 09.02.2027, 10:00, Audimax")
    words = {part for word in _WORD_RE.findall(normal(_without_code(bare))) for part in (word, *word.split("-"))}
    return bool(words & _ALL_APPOINTMENTS)  # "Projekt-Abgabe 30.06." too


_REMARK_RE = re.compile(r"\s*\(([^()]*)\)")


def without_course_remarks(heading: str) -> str:
    """A heading without its remarks in parentheses about the course ("Beispiele (aus Übung 3, 05.11.)" →
    "Beispiele"): a remark holding a date or a word of course logistics says where the text came from, not what it
    is about; other remarks stay ("Ordinary legislative procedure (Art. 294 TFEU)")."""
    def course(match: re.Match[str]) -> bool:
        remark = match.group(1)
        words = {word.casefold().rstrip(".") for word in _WORD_RE.findall(remark) if len(word) >= 4}
        return bool(DATE_RE.search(remark) or _TIME_RE.search(remark) or words & _ALL_LOGISTICS)

    kept = _REMARK_RE.sub(lambda match: "" if course(match) else match.group(0), heading).strip()
    return kept or heading


_TASK_RE = re.compile(r"^\s*(?:>\s*)*[-*+]\s+\[[ xX/-]\]\s")  # "- [ ] Übungsblatt 5 abgeben", "- [x] …"
MAX_CELL_WORDS = 3  # "| Genetik | 14.07.2027 | 10:00 | HS 1 |": an appointment's cells are short


def is_task_line(line: str) -> bool:
    """A task of the student's ("- [ ] Skript drucken", "- [x] Anmeldung Prüfungsamt"): planning, not the subject."""
    return _TASK_RE.match(line) is not None


def is_appointment_row(line: str) -> bool:
    """A table row of dates and times ("| Statistik | 21.07.2027 | 14:00 | Audimax |"): a date and a time of day, or
    a date beside a word of course logistics, in short cells (a history table's "| 15.03.44 v. Chr. | Caesar wird
    ermordet |" has no time and says what happened); or a weekly timetable's row, a time of day beside a weekday or a
    room ("| Genetik I | Mo 10–12 | HS 3 |", "| Micro II | Fri 8:30 | Room 2.14 |")."""
    bare = _bare_line(line)
    if not bare.startswith("|"):
        return False
    cells = [cell.strip() for cell in bare.strip("|").split("|")]
    # a cell's link is one note named, however many words its title has ("[[Lecture 04 - Adaptive Immunity]]")
    if any(len(_WORD_RE.findall(WIKILINK_RE.sub(" ", _MD_LINK_RE.sub(" ", cell)))) > MAX_CELL_WORDS for cell in cells):
        return False
    words = {word.casefold().rstrip(".") for word in _WORD_RE.findall(normal(bare))}
    timed = _TIME_RE.search(DATE_RE.sub(" ", bare)) is not None
    if not DATE_RE.search(bare):
        return timed and bool(words & _ALL_LOGISTICS)
    return timed or bool(words & _ALL_LOGISTICS)


def _files_or_plans(line: str) -> bool:
    """A tag, stamp, logistics or task line: bookkeeping, as links and appointment rows are (tested apart)."""
    return is_tag_line(line) or is_stamp_line(line) or is_logistics_line(line) or is_task_line(line)


def is_bookkeeping_line(line: str) -> bool:
    """A line a student keeps for filing and planning, with nothing of the subject to ask or quote."""
    return _files_or_plans(line) or is_link_line(line) or is_appointment_row(line)


_ALL_PURPOSES = tuple(sorted({p for words in WORDS.values() for p in words.purposes}, key=len, reverse=True))
_EMPHASIS_RE = re.compile(r"==|\*\*|__|\[\[|\]\]")
MAX_PURPOSE_WORDS = 12


def states_its_purpose(line: str) -> bool:
    """The student's exclaimed remark on what the note is needed for ("Needed for the ==fetch== project!",
    "Wichtig für das Praktikum nächste Woche!!"), in any language: no fact to ask. "Wichtig für die Stabilität ist
    die Doppelbindung." states one (no "!"), and so does "Important for the exam: …" (a colon introduces it)."""
    said = normal(_EMPHASIS_RE.sub("", line)).strip(" -*>")
    return said.endswith("!") and ":" not in said and len(said.split()) <= MAX_PURPOSE_WORDS \
        and said.startswith(_ALL_PURPOSES)


_ALL_QUALITIES = frozenset(w for words in WORDS.values() for w in words.qualities)


def names_a_quality(label: str) -> bool:
    """A list item's label that is an adjective for a quality of its section's subject ("fast", "schnell"), no term."""
    return normal(label).strip("*_:` ") in _ALL_QUALITIES


def is_label(term: str) -> bool:
    """A word that labels a line or item in any language ("Q", "Context", "Ergebnis", "Bsp."), not a term."""
    bare = normal(term).strip("*_:=` ")
    return bare in _ALL_LABELS or bare.rstrip(".") in _ALL_LABELS


_ALL_RULES = frozenset(word for words in WORDS.values() for word in words.rules)


def states_a_rule(label: str) -> bool:
    """A list item's label that is a rule to keep ("immer angeben: Station, Höhe, …", "T immer in Kelvin: T/K = …"):
    the label and what follows it state one fact together; asked as "immer angeben?" the label names nothing."""
    return any(word.strip("*_:=`()!,.") in _ALL_RULES for word in normal(label).split())


def is_bookkeeping_term(term: str) -> bool:
    """A "term" that is a label or a word of course logistics ("Klausur", "Exam", "Bsp."): nothing to learn."""
    words = [word.strip("*_:=`()") for word in normal(term).split()]
    return bool(words) and (is_label(term) or all(word.rstrip(".") in _ALL_LOGISTICS or word in _ALL_LABELS
                                                   for word in words if word))


@dataclass(frozen=True, slots=True)
class NoteShape:
    """What a note is as a whole: a hub (``reason`` says why nothing is asked about it) or a note with content."""

    content_lines: int
    bookkeeping_lines: int
    link_lines: int
    reason: str  # "" for a note to study

    @property
    def hub(self) -> bool:
        return bool(self.reason)


PLANNING_MARK = "planning"  # a line under a heading or in a callout over the course's planning


def _body_lines(text: str) -> list[str]:
    """The note's lines that say something (no frontmatter, blank lines or headings); a code block as one line,
    a query block as ``QUERY_MARK``, and each line of a planning section or callout as ``PLANNING_MARK``."""
    lines = text.replace("\r\n", "\n").split("\n")
    if lines and lines[0].strip() == "---":  # frontmatter: the note's properties, not its lines
        closing = next((i for i, line in enumerate(lines[1:], 1) if line.strip() in ("---", "...")), None)
        if closing is not None:
            lines = lines[closing + 1:]
    kept: list[str] = []
    fenced, query = False, False
    planning_level = 0  # the level of the planning heading whose section this is (0: none)
    in_planning_callout = False
    for line in lines:
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            if fenced:  # a code block is content; a query block ("```dataview", "```tasks") lists notes, as links do
                query = line.lstrip().lstrip("`~").strip().casefold() in QUERY_BLOCKS
                kept.append(QUERY_MARK if query else "```")
            elif not query:
                kept.append("```")
            continue
        if not line.strip():
            in_planning_callout = False  # a blank line ends a callout
        if fenced or not line.strip():
            continue
        heading = _HEADING_LINE_RE.match(line)
        if heading and not is_tag_line(line):
            level = len(heading["marks"])
            if planning_level and level <= planning_level:
                planning_level = 0
            if not planning_level and names_planning(heading["text"]):
                planning_level = level
            continue  # headings say what follows, they are not lines of it
        if opens_planning_callout(line):
            in_planning_callout = True
        elif in_planning_callout and not line.lstrip().startswith(">"):
            in_planning_callout = False
        kept.append(PLANNING_MARK if planning_level or in_planning_callout else line)
    return kept


QUERY_BLOCKS = frozenset({"dataview", "dataviewjs", "tasks", "query"})  # blocks of plugins that list notes
QUERY_MARK = "```query"  # such a block in a note's lines: bookkeeping, like a list of links


def _table_header_rows(lines: list[str], appointments: list[bool]) -> list[bool]:
    """For each line, whether it is the header or delimiter row of a table whose every data row is an appointment
    (``appointments``: ``is_appointment_row`` of each line): the exam dates' "| Fach | Datum | Uhrzeit | Raum |" says
    nothing to study either."""
    marks = [False] * len(lines)
    start = 0
    while start < len(lines):
        if not _bare_line(lines[start]).startswith("|"):
            start += 1
            continue
        end = start
        while end < len(lines) and _bare_line(lines[end]).startswith("|"):
            end += 1
        rows = appointments[start + 2:end]
        if rows and all(rows):
            marks[start] = marks[min(start + 1, end - 1)] = True
        start = end
    return marks


def sectioned_text(passages: Iterable[tuple[Sequence[str], str]]) -> str:
    """A note's text from its indexed passages (heading path, text), each under its section's heading line where
    the passage does not open with it: what :func:`note_shape` reads, planning headings included."""
    parts: list[str] = []
    last: Sequence[str] | None = None
    for heading_path, text in passages:
        level = max((depth for depth, heading in enumerate(heading_path, 1) if heading), default=0)
        if level and heading_path != last and not text.lstrip().startswith("#"):
            parts.append(f"{'#' * min(level, 6)} {heading_path[level - 1]}")
        parts.append(text)
        last = heading_path
    return "\n".join(parts)


def note_shape(text: str) -> NoteShape:
    """Read a whole note (frontmatter allowed): a hub of links, dates and tags, or a note to study."""
    lines = _body_lines(text)
    appointments = [is_appointment_row(line) for line in lines]
    # a timetable's row linking its course's note links as a line of links does
    links = [is_link_line(line) or line == QUERY_MARK or (appointment and links_in(line) > 0)
             for line, appointment in zip(lines, appointments, strict=True)]
    link_lines = sum(links)
    headers = _table_header_rows(lines, appointments)
    # is_bookkeeping_line, with each line's link and appointment tests taken from above rather than run again
    bookkeeping = sum(link or appointment or header or line == PLANNING_MARK or _files_or_plans(line)
                      for line, link, appointment, header in zip(lines, links, appointments, headers, strict=True))
    hub = link_lines >= MIN_LINK_LINES and bookkeeping >= HUB_SHARE * len(lines)
    reason = "it is a list of links, dates and tags" if hub else ""
    return NoteShape(len(lines), bookkeeping, link_lines, reason)


def question_tail(text: str) -> int:
    """Where the student's own question closing ``text`` starts ("… slow start → why?", "… (is this on the
    exam?)"), or ``len(text)`` when the line ends in none. The text before it still states a fact."""
    stripped = text.rstrip()
    end = stripped.rstrip(")]!").rstrip()
    if not end.endswith("?"):
        return len(text)
    folded = end.casefold()
    for tail in _ALL_TAILS:
        lead = _TAIL_LEAD if " " in tail else _TAIL_MARK  # "… know why?" asks in the sentence; "… → why?" after it
        match = re.search(lead + re.escape(tail) + r"[\s?!]*$", folded)
        if match and match.start() > 0 and not inside_atom(text, match.start()):
            return match.start()
    return len(text)


_CALLOUT_MARK_RE = re.compile(r"^\[![\w-]+\][+-]?\s*")
MAX_OWN_QUESTION_WORDS = 25


def asks_about_course(text: str) -> bool:
    """A line that is the student's own question on the course, not a fact of the subject: it asks ("?") and names
    the exam, the essay, the tutor or a date ("Kommt das in der Hausarbeit dran?", "Hausarbeit bis 15.7.?", "(is this
    on the exam?)", "> [!question] Wird Art. 48 in der Klausur gefragt?"). Nothing of it is asked on a card."""
    bare = _CALLOUT_MARK_RE.sub("", _bare_line(text)).strip("*_ ")
    if "?" not in bare or inside_atom(bare, bare.index("?")):
        return False
    words = [word.strip(".,;:!?()[]\"'“”„*_→–-") for word in normal(bare).split()]
    if len(words) > MAX_OWN_QUESTION_WORDS:
        return False
    # "> [!question] kommt das dran?", "is this on the exam?": a whole question that only asks what a student's own
    # question closing a line asks (``LanguageWords.question_tails``) names no subject of its own
    return " ".join(word for word in words if word) in _ALL_TAILS or bool(set(words) & (_ALL_COURSE | _ALL_EVENTS)) \
        or (DATE_RE.search(bare) is not None and bare.rstrip(")]! ").endswith("?"))


def leans_on_note(text: str) -> bool:
    """A description that means something only beside the lines around it ("the other way round (decapsulation)",
    "umgekehrt (bei uns)", "same as above", "this …"): on a card, read alone, it answers nothing."""
    return bool(_BACK_REFERENCE_RE.match(normal(text).lstrip("*_=\"“„'( ")))


def chatter_start(text: str) -> int | None:
    """Where the clause holding the student's chatter begins ("… → m3 + m3 = diminished. ok makes sense",
    "… → in der Klausur gibts Punkte dafür!!"): what comes before it still states the fact; ``len(text)`` when the
    text has none, None when the chatter opens the text (nothing before it is left to ask). Never inside a formula
    or code span."""
    found = next((match for match in _CHATTER_RE.finditer(text) if not inside_atom(text, match.start())), None)
    if found is None:
        return len(text)
    starts = [match.start() for match in _CLAUSE_START_RE.finditer(text, 0, found.start())
              if not inside_atom(text, match.start())]
    start = starts[-1] if starts else 0
    return start if start > 0 and text[:start].strip(" .,;:→–—-(") else None


_ALL_COURSE = frozenset(word for words in WORDS.values() for word in words.course)
_QUOTED_OR_REMARK_RE = re.compile(r"\([^()]*\)|\"[^\"]*\"|“[^”]*”|„[^“”]*[“”]")
_LAST_CLAUSE_RE = re.compile(r"\s(?:→|->|=>|–|—)\s(?!.*\s(?:→|->|=>|–|—)\s)")


def course_aside_start(text: str) -> int:
    """Where the student's note on the course closing ``text`` starts: its last clause after an arrow or a dash,
    naming the exam, the essay, the tutorial ("… vs. pessimists (housing, health) → use both sides in the essay!",
    "Aufwand ohne Auszahlung – prüfungsrelevant laut Tutor"); ``len(text)`` when the text ends in none. Never inside a
    formula or code span."""
    found = _LAST_CLAUSE_RE.search(text)
    clause = text[found.end():] if found else ""
    if found is None or inside_atom(text, found.start()) or clause.count(")") > clause.count("("):
        return len(text)  # "(incl. the plantation economy – don't forget this in the essay!), banks": inside a remark
    # an example in parentheses or quotes is the subject's ("gilt nur bedingt (z.B. "Wenn du die Klausur …")")
    said = _QUOTED_OR_REMARK_RE.sub(" ", clause)
    words = {word.strip(".,;:!?()\"'“”„") for word in normal(said).split()}
    return found.start() if words & _ALL_COURSE else len(text)


def qa_pair(text: str) -> tuple[str, str] | None:
    """A "Q: …" line with its "A: …" below it (any language's labels): (question, answer), else None."""
    match = _QA_RE.match(text.strip())
    if match is None:
        return None
    question = match.group("question")
    if question.endswith("**") and question.count("**") % 2:  # "**F: Was ist …?**": the bold opened before the label
        question = question[:-2].rstrip()
    return question, match.group("answer")


# "Was ist Photorespiration? – Die Reaktion …": a list item asking and answering on one line
_DASHED_QA_RE = re.compile(r"^(?P<question>[^\n?]{8,200}\?)\s+[–—-]\s+(?P<answer>[^\n]{2,})$")


def dashed_qa_pair(text: str) -> tuple[str, str] | None:
    """A numbered exam-prep item "question? – answer" (any language's question words opening the question, the
    answer no bare yes or no): (question, answer), else None. "Is this relevant? Yes – lecture 9" is no such pair."""
    match = _DASHED_QA_RE.match(text.strip())
    if match is None:
        return None
    opening = normal(match.group("question")).split()[0].strip("*_")
    replied = normal(match.group("answer")).split()[0].strip("*_,.;:!")
    if opening not in _ALL_QUESTION_WORDS | _MORE_QUESTION_WORDS or replied in _ALL_YES_NO:
        return None
    return match.group("question"), match.group("answer")


def is_question_label(label: str) -> bool:
    """A label opening a question of the student's own ("Q", "Frage")."""
    return normal(label).strip("*_:. ") in _ALL_ASK_LABELS


_ALL_ASK_LABELS = frozenset(word for words in WORDS.values() for word in words.asks)


def sets_a_task(question: str, lang: str) -> bool:
    """A Q/A pair's question set as an exam task, an order instead of a question ("Define Nash equilibrium.",
    "F: Erkläre den Unterschied zwischen …"): the note asks it all the same."""
    words = normal(question).split()
    return bool(words) and words[0].strip("*_,:") in WORDS.get(lang, WORDS["en"]).commands


def states_not_asks(question: str, answer: str = "") -> bool:
    """A statement the student closed with a question mark ("Haskell is purely functional?", "Schweigen ist
    Annahme?"): its subject stands before the verb, or its ``answer`` says yes or no ("Black holes emit nothing?" over
    "No, …"), and no question word opens it. On a card's front it gives the answer away or asks nothing; "Is Haskell
    purely functional?", "Why is …?", "In which phase …?" and "Difference between X and Y?" ask."""
    # "ACE inhibitors: can you give it in pregnancy?" asks after its label, "I have enabled 2FA. Will I be logged
    # out …?" in its last sentence
    asked = re.split(r"[.!?]\s+(?=\S)", question.rsplit(": ", 1)[-1].strip())[-1]
    said = [word.strip("*_,;:()\"“”„'?") for word in normal(asked).split()]
    said = [word for word in said if word]
    # every language's words: a note's German line in an English note ("was" asks in German: left alone)
    if not question.rstrip().endswith("?") or len(said) < 3 or said[0] in _ALL_AUXILIARIES | _ALL_COMMANDS \
            or any(word in _ALL_QUESTION_WORDS | _MORE_QUESTION_WORDS for word in (*said[:2], said[-1])):
        return False  # "In which …?", "interphase has three phases – which?"
    written = [word.strip("*_,;:()\"“”„'?") for word in asked.split()]  # "Waren" are goods, "waren" a verb
    replied = normal(answer).split()[:1]
    # "Verliere ich meine Daten?", "Braucht man …?": a verb before its subject asks, whatever the verb
    verb_first = said[1] in _ALL_SUBJECTS | ALL_ARTICLES | {"du", "you"}
    return any(word in _ALL_AUXILIARIES - _ALL_PREPOSITIONS for word in written[1:MAX_SUBJECT_WORDS + 1]) \
        or bool(replied and replied[0].strip(",.;:!–-") in _ALL_YES_NO and not verb_first)


MAX_SUBJECT_WORDS = 4  # "Caesar's army was …?": the verb of a statement stands after its subject
_ALL_AUXILIARIES = frozenset(word for words in WORDS.values() for word in words.auxiliaries)
_ALL_COMMANDS = frozenset(word for words in WORDS.values() for word in words.commands)
_ALL_SUBJECTS = frozenset(word for words in WORDS.values() for word in words.subjects)
_ALL_PREPOSITIONS = frozenset(word for words in WORDS.values() for word in words.prepositions)  # "Anteil am Budget"
_ALL_YES_NO = frozenset(word for words in WORDS.values() for word in words.yes_no)
_MORE_QUESTION_WORDS = frozenset({"whose", "whom", "welcher", "welches", "welchen", "wem", "wen", "wessen"})
_CLOSING_REMARK_RE = re.compile(r"\s*\((?P<remark>[^()]{1,80})\)\s*$")


def without_own_aside(line: str) -> str:
    """``line`` without the student's aside closing it in parentheses, a question or a note on the course ("Explain
    why … (klausurrelevant? ask tutor)", "Name the three levels … (Kotler – check slides)"); a remark of the subject
    ("(e.g. LPS)") stays."""
    found = _CLOSING_REMARK_RE.search(line)
    if found is None:
        return line
    own = _own_remark(found.group("remark"))
    return line[:found.start()].rstrip() if own and line[:found.start()].strip() else line


def _own_remark(remark: str) -> bool:
    """A remark (the text inside parentheses) that is the student's: a question, or a note on the course."""
    said = {word.strip(".,;:!?\"'“”„–—-") for word in normal(remark).split()}
    return bool(said & (_ALL_COURSE | _ALL_EVENTS | _ALL_TAIL_WORDS)) or asks_about_course(f"({remark})") \
        or remark.rstrip().endswith("?")


_WHOLE_REMARK_RE = re.compile(r"\s*\((?P<remark>[^()]*(?:\([^()]*\)[^()]*)*)\)[\s.!?]*")


def is_own_aside(text: str) -> bool:
    """A block that is all one remark in parentheses, the student's: on the course, a question, or chatter ("(is the
    Ansoff matrix klausurrelevant? not in slides I think)", "(Werther hab ich in der 11 gelesen …)"). It states no
    fact of the subject; a remark of the subject ("(also called "Council of Ministers")") is none."""
    found = _WHOLE_REMARK_RE.fullmatch(text)
    if found is None:
        return False
    remark = found.group("remark")
    return _own_remark(remark) or _CHATTER_RE.search(remark) is not None


# "TODO: …", "To do – …", "TODO - …"; not a compound naming to-dos ("TODO-Elemente: Konvertiert …")
_TODO_RE = re.compile(r"^\W*(?:{})\b(?:\s*[:!–—]|\s+-)".format(
    "|".join(sorted({re.escape(w) for words in WORDS.values() for w in words.todos}, key=len, reverse=True))),
    re.IGNORECASE)


_UNFINISHED_RE = re.compile(r"^(?:.*[:–—(-]\s*)?\W*(?:{})\W*$".format(
    "|".join(sorted({re.escape(w) for words in WORDS.values() for w in words.unfinished}, key=len, reverse=True))),
    re.IGNORECASE)


def is_todo(text: str) -> bool:
    """A block opening with the student's to-do label ("TODO: heapsort next week", "To do – Blackman-Kurve
    zeichnen", "fehlt noch: Superkondensator"), or a line saying what it names is not written yet ("fehlt noch",
    "Halbschluss – fehlt noch", "Thevenin (not covered yet)"): still to learn, no fact of it. (A callout's type,
    "> [!todo]-", marks nothing unfinished.)"""
    return _TODO_RE.match(text) is not None or "\n" not in text.strip() and "[!" not in text and \
        _UNFINISHED_RE.match(text.strip()) is not None


_ALL_DEFINITE = frozenset(w for words in WORDS.values() for w in words.definite_articles)
ALL_MONTHS = frozenset(w for words in WORDS.values() for w in words.months)
ALL_MONTH_ABBREVIATIONS = frozenset(w for words in WORDS.values() for w in words.month_abbreviations)
_ALL_WORKED = frozenset(w for words in WORDS.values() for w in words.worked)
_COMMON_NOUN_RE = re.compile(r"[^\W\d_][^\W\d_A-ZÄÖÜ]+")  # "enzyme", "Zellen": no "C3", "GuV-Konto", "IgM"


def names_no_subject(term: str, text: str) -> bool:
    """A term that is a definite article and one common noun ("the enzyme", "Die Zellen", "der Akkord") which
    ``text`` (the note's title and the headings above it) does not name: it points back at what its paragraph is
    about, and a card asking "What is the enzyme?" does not say which one."""
    words = term.split()
    if len(words) != 2 or words[0].casefold() not in _ALL_DEFINITE or not _COMMON_NOUN_RE.fullmatch(words[1]):
        return False
    stem = words[1].casefold()[:max(4, len(words[1]) - 2)]  # "Enzym" in "Enzyme", "Zelle" in "Zellen"
    return re.search(rf"(?<![^\W\d_]){re.escape(stem)}", text.casefold()) is None


MAX_NAME_WORDS = 2
_NAME_END_RE = re.compile(r"[,;(]|\s[–—-]\s")


_ALL_RELATIVES = frozenset(w for words in WORDS.values() for w in words.relatives)
_SYMBOL_RE = re.compile(r"\w*\d|\w[\w-]*[A-ZÄÖÜ]|`|\ue000")  # "CR1", "B-Zellen", "IgM", a code span


def opens_with_symbol(text: str) -> bool:
    """A text opening with a code, a number or letters in capitals ("APS-C, also kleiner …", "DATEV", "G2"): a
    value or a name, no description."""
    words = text.split()
    return bool(words) and _SYMBOL_RE.match(words[0]) is not None


def identifies(meaning: str) -> bool:
    """What a copula says its subject is, when that is a name rather than a description ("the C3 convertase, which
    …", "die AID (…)", "`forEach`, sie …", "CR1 on phagocytes"): no indefinite article, and at most two words before
    a comma or a remark, or a symbol first."""
    head, *rest = _NAME_END_RE.split(meaning, maxsplit=1)
    words = head.split()
    if words and words[0].casefold() in _ALL_DEFINITE:
        words = words[1:]
    if not words or words[0].casefold() in ALL_ARTICLES:
        return False
    if _SYMBOL_RE.match(words[0]):
        return True
    after = rest[0].split()[:1] if rest else []
    # "die Hülle, die die Zelle abgrenzt": a noun its relative clause describes (German's is the article's form)
    return len(words) <= MAX_NAME_WORDS and not (after and after[0].casefold() in _ALL_RELATIVES | _ALL_DEFINITE)


_MONTH_DATE_RE = re.compile(r"^(?:\d{1,2}\.?\s*)?(?P<month>[^\W\d_]{3,9})\.?(?:\s*\d{1,2}\.?)?$")


def month_alone(term: str) -> bool:
    """A timeline's entry dated by its month (and day) without a year ("Nov", "Okt.", "3. Oct"): asked alone, the
    month says nothing of when."""
    found = _MONTH_DATE_RE.match(term.strip(" *_=:"))
    return found is not None and found["month"].casefold() in ALL_MONTHS | ALL_MONTH_ABBREVIATIONS


def names_worked_example(heading: str) -> bool:
    """A heading over one calculation worked through ("Worked example", "Example calculation", "Rechenbeispiel",
    "Beispielrechnung"): its numbers are that exercise's values."""
    return any(word.strip(":()") in _ALL_WORKED for word in normal(heading).split()[:2])


_NUMBER_END_RE = re.compile(r"=\s*[-−+]?\d[\d.,\s]*(?:[^\W\d_]{1,3}[²³]?)?\s*\.?$")  # "= 24", "= 2 mA", "= 400"
_ARITHMETIC_RE = re.compile(r"\d\s*[-−+·×*/]\s*\w|\w\s*[-−+·×*/]\s*\d")  # "100 − 2p", "½ · 40"


def works_out(text: str) -> bool:
    """A calculation worked through ("df = n − 1 = 24", "I = U / R = 12 V / 6 kΩ = 2 mA", "100 − 2p = 3p − 50"),
    formulas and code aside: the values of one exercise, no fact of the subject."""
    spans = atom_spans(text)
    outside = "".join(text[end:start] for (_, end), (start, _) in zip([(0, 0), *spans], [*spans, (len(text), 0)],
                                                                      strict=True))
    sides = outside.split("=")
    if len(sides) < 2:
        return False
    if len(sides) >= 3 and _NUMBER_END_RE.search(outside.rstrip()):
        return True
    return _ARITHMETIC_RE.search(sides[0]) is not None and _ARITHMETIC_RE.search(sides[1]) is not None


def names_factors(heading: str) -> bool:
    """A heading over the factors that influence its subject ("Einflussfaktoren", "Factors affecting demand",
    "Determinanten der Nachfrage"): its items' labels are factors, each described by how it acts."""
    return any(word.strip(":()").endswith(_ALL_FACTORS) for word in normal(heading).split())


_ALL_FACTORS = tuple(sorted({normal(word) for words in WORDS.values() for word in words.factors}))  # "grössen"


def vocabulary(text: str) -> list[tuple[str, str]]:
    """The (word, translation) pairs of a block written ``word :: translation``, one per line; [] unless every line
    of the block is one (a prose line with "::" is no vocabulary list)."""
    pairs = [_VOCAB_RE.match(line.strip()) for line in text.strip().split("\n") if line.strip()]
    if not pairs or not all(pairs):
        return []
    return [(match.group("word").strip(), match.group("meaning").strip()) for match in pairs if match]


_DEFINITION_LINE_RE = re.compile(r"^:[ \t]+(?P<definition>\S.*)$")


def definition_list(text: str) -> list[tuple[str, str]]:
    """The (term, definition) pairs of a block written as a definition list (Pandoc, PHP Markdown Extra): a term on
    a line of its own, each of its definitions on a line below it opening with ": "; [] unless the whole block is
    one (a term without a definition, or a definition without its term, is no list)."""
    pairs: list[tuple[str, str]] = []
    term = ""
    for line in (line.strip() for line in text.strip().split("\n") if line.strip()):
        found = _DEFINITION_LINE_RE.match(line)
        if found is None and term and (not pairs or pairs[-1][0] != term):
            return []  # the line before had no definition
        if found is None:
            term = line
        elif not term:
            return []
        else:
            pairs.append((term, found.group("definition").strip()))
    return pairs if pairs and pairs[-1][0] == term else []


MAX_ASPECT_WORDS = 3


def is_aspect(term: str) -> bool:
    """A list item's label naming an aspect of its section's subject ("Ursache:", "unit:", "Merkwort:"), also with
    words before its noun ("primary objective:", "main tool:", "Treaty maximum:") or ranked ("biggest group:"): the
    card asks for that aspect
    ("Monsun: Ursache?", "European Central Bank: primary objective?"), not what the label means."""
    bare = normal(term).strip("*_:` ")
    words = bare.split()
    return bare in _ALL_ASPECTS or (1 < len(words) <= MAX_ASPECT_WORDS and all(word.isalpha() for word in words)
                                    and (words[-1] in _ALL_ASPECTS or words[0] in _ALL_RANKS))


def states_apart(description: str, lang: str) -> bool:
    """A list item's description that opens a sentence of its own, with a pronoun for its subject or a phrase
    before it ("Sie trat 1919 in Kraft", "In einer Sturmflut bricht der Deich", "Both confess"): it tells what happens
    under the item's label ("Verfassung:", "Höhepunkt:"), not what the label means. A description opening with what
    a term is ("eine Bassstimme …", "Stadt in Ägypten …", "a set of strategies …") states nothing apart."""
    words = WORDS.get(lang, WORDS["en"])
    bare = [token.strip("*_„“\"'") for token in description.split()]
    if not bare or not bare[0]:
        return False
    first = bare[0].casefold()
    return first in words.subjects or (first in words.prepositions and len(bare) > 1
                                       and (bare[1].casefold() in words.articles or bare[1][:1].isdigit())) \
        or opens_with_clause(description, lang)


MAX_CLAUSE_SUBJECT_WORDS = 3


def opens_with_clause(description: str, lang: str) -> bool:
    """A description opening with a subject of its own and its verb ("die Winter sind dort extrem kalt", "manche
    Messstationen haben …", "the reef is protected …", "die Gletscherfront bricht …"): an article or a quantifier,
    at most three words without a preposition or a comma (German: ending in its noun), then an auxiliary, or after
    one word a verb in the third person ("the river carries …"). "the part of the cell that …", "die Lücke zwischen
    …" define."""
    words = WORDS.get(lang, WORDS["en"])
    bare = [token.strip("*_„“\"'") for token in description.split()]
    if not bare or (bare[0].casefold() not in words.articles and bare[0].casefold() not in words.quantifiers):
        return False
    for end in range(2, min(len(bare), MAX_CLAUSE_SUBJECT_WORDS + 2)):
        word = bare[end - 1]
        if not word.isalpha() or word.casefold() in words.prepositions or word.casefold() in words.articles:
            return False
        verb = bare[end].casefold() if end < len(bare) else ""
        noun = lang != "de" or word[:1].isupper()
        if noun and (verb in words.auxiliaries or (end == 2 and verb.isalpha() and verb not in words.prepositions
                                                   and verb_in_person(verb, lang))):
            return True
    return False


OPENING_SUBJECT_WORDS = {"en": 3, "de": 6}  # German capitalises its nouns: a longer subject still shows where it ends


def subject_then_verb(description: str, lang: str) -> bool:
    """A description whose first clause is a subject of its own and then its finite verb, with or without an
    article: "die ältesten Inseln liegen im Nordwesten", "Enzyme sättigen bei hohem [S]", "große Unterschiede
    zwischen Tag und Nacht sprengen das Gestein", "the oldest islands lie furthest from …", "most islands sit less
    than …", "lower pH makes it harder …", "the barrier reef protects mangroves …". German: after a capitalised noun
    (and what links more nouns to it) a word in lower case that is an auxiliary or ends as a verb ("-t"; "-en" not
    before a noun, where it is an adjective). English: after at most three words, an auxiliary; a verb in "-s" after
    a singular; after a plural in "-s", a plain word not ending as a participle; either way not before a
    preposition ("species endemic to …", "patterns found in …") or a name. "Bereich des Gletschers, in dem …", "the
    probability of a result …", "symbiotic algae living in …" name what a term is."""
    words = WORDS.get(lang)
    if words is None or lang not in OPENING_SUBJECT_WORDS:
        return False
    clause = _CLAUSE_BREAK_RE.split(description, maxsplit=1)[0]
    tokens = [token.strip("*_„“\"'`") for token in clause.split()]
    tokens = [token for token in tokens if token]
    if not tokens or tokens[0].casefold() in words.subordinators:
        return False  # "„was der Körper mit dem Arzneistoff macht“: LADME"
    opening = 1 if tokens and (tokens[0].casefold() in words.articles or tokens[0].casefold() in words.quantifiers) \
        else 0
    if lang == "de":
        return _german_subject_then_verb(tokens, opening, words)
    if _placed_then_stated(description, words):
        return True
    if len(tokens) > opening and tokens[opening].casefold().endswith("ing"):
        return False  # "selling goods abroad below …": an activity, what the label means
    # "most cases end with …": a subject naming some of a kind is no term defined, whatever follows its verb
    quantified = opening > 0 and tokens[0].casefold() in words.quantifiers
    for end in range(opening + 1, min(len(tokens) - 1, opening + OPENING_SUBJECT_WORDS[lang] + 1)):
        subject = [token.casefold() for token in tokens[opening:end]]
        if not all(token.replace("-", "").replace("'", "").isalnum() for token in subject) \
                or any(token in words.phrase_links or token in words.auxiliaries or token in words.articles
                       or token in words.subordinators for token in subject):
            return False
        verb, after = tokens[end], tokens[end + 1]
        if subject[-1] in words.joiners or not verb.isalpha() or not verb.islower() or verb in words.articles \
                or verb in words.subordinators or verb in words.subjects or verb in words.resumptives \
                or verb in words.quantifiers:
            continue  # "adds an `airtable-id` property", "studies how speakers …": a verb opens, no subject
        if verb in words.auxiliaries:
            return True
        if (after.casefold() in words.phrase_links and not quantified) or after.endswith(("ing", "ed")) \
                or after[:1].isupper() \
                or verb in words.phrase_links or verb in words.joiners or verb in words.adverbs \
                or verb.endswith(_POSTPOSED_ADJECTIVE_ENDINGS):
            continue  # "numbers divisible only by 1 …"
        if verb_in_person(verb, lang) and not verb_in_person(subject[-1], lang):
            return True  # "the barrier reef protects mangroves …"
        if verb_in_person(subject[-1], lang) and not verb_in_person(verb, lang) and not verb.endswith(("ing", "ly")) \
                and not (verb.endswith("ed") and not verb.endswith("eed")):
            return True  # "most islands sit less than 1 m …", "reefs need 10–15 years …"
    return False


MAX_PLACED_WORDS = 10
_PLACED_END_RE = re.compile(r"[;:()=→]|\s[–—-]\s")


def _placed_then_stated(description: str, words: LanguageWords) -> bool:
    """An English description opening with a preposition and an article or a number, then a clause with its
    auxiliary ("on the Big Island the volcanoes are still active", "for over a decade the EU and the US were …"): it
    says what holds there, no relative or subordinate word ("at the mouth of a river where sediment is deposited") in
    between."""
    tokens = [token.strip("*_„“\"'`,").casefold() for token in _PLACED_END_RE.split(description, maxsplit=1)[0].split()]
    if len(tokens) < 4 or tokens[0] not in words.phrase_links or tokens[0] in words.subordinators \
            or tokens[0] in words.relatives \
            or not any(token in words.articles or token[:1].isdigit() for token in tokens[1:3]):
        return False  # ("for over a decade", "in 2019")
    for token in tokens[2:MAX_PLACED_WORDS]:
        if token in words.subordinators or token in words.relatives:
            return False
        if token in words.auxiliaries:
            return True
    return False


_POSTPOSED_ADJECTIVE_ENDINGS = ("ible", "able", "ous", "ical", "ial")
_CLAUSE_BREAK_RE = re.compile(r"[,;:()=→]|\s[–—-]\s")


def _german_subject_then_verb(tokens: list[str], opening: int, words: LanguageWords) -> bool:
    """The German side of :func:`subject_then_verb`: ``tokens`` from the ``opening`` word on, the noun phrase read by
    its capitals."""
    noun = False  # a noun was read, the next word in lower case goes on its phrase or is its verb
    for index in range(opening, min(len(tokens), opening + OPENING_SUBJECT_WORDS["de"] + 1)):
        token = tokens[index]
        bare = token.casefold()
        following = tokens[index + 1] if index + 1 < len(tokens) else ""
        if token[:1].isupper() or not token.replace("-", "").isalpha():
            noun = noun or token[:1].isupper()  # a noun, a name; a number or a formula stays inside the phrase
        elif not noun or bare in words.articles or bare in words.quantifiers:
            continue  # an adjective before its noun, an article after one ("Bereich des Gletschers")
        elif bare in words.phrase_links or bare in words.joiners:
            noun = False
        elif bare in words.auxiliaries:
            return True
        elif bare in words.adverbs:
            return False
        else:  # "-en" before a noun is an adjective; at the clause's end, or before "und", an infinitive
            return verb_in_person(bare, "de") or (bare.endswith("en") and bool(following)
                                                  and not following[:1].isupper()
                                                  and following.casefold() not in words.joiners)
    return False


_ALL_OVERVIEWS = frozenset(word for words in WORDS.values() for word in words.overviews)


def names_an_overview(heading: str) -> bool:
    """A heading over a subject's aspects or its story ("Aspekte des Staates", "Inhalt", "Plot summary"): what its
    list's labels name are aspects or parts, not terms."""
    bare = normal(without_course_remarks(heading)).strip("*_:` ")
    words = [word.strip(".,;:()") for word in bare.split()]
    return bare in _ALL_OVERVIEWS or any(word in _ALL_OVERVIEWS for word in words)


def _heading_words(heading: str) -> list[str]:
    """A heading's words, its course remarks left out and planning phrases ("to do", "diese Woche") as one word."""
    bare = normal(without_course_remarks(heading))
    for phrase in _PLANNING_PHRASES:
        bare = re.sub(rf"\b{phrase}\b", phrase.replace(" ", "_"), bare)
    return [word.replace("_", " ") for word in re.findall(r"[^\W\d]+(?:-[^\W\d]+)*", bare)]


def _of_the_course(word: str) -> bool:
    return word in _ALL_PLANNING or word in _ALL_LOGISTICS or word in _ALL_EVENTS or word in _ALL_FUNCTION_WORDS


def names_planning(heading: str) -> bool:
    """A heading over the course's planning ("Klausuren 📅", "Deadlines & Abgaben", "To do (this week)"): a planning
    word, and besides it only words of the course or the commonest words, so that "Key dates" or "Prüfungsschema"
    stay subject matter."""
    words = _heading_words(heading)
    return any(word in _ALL_PLANNING for word in words) and all(map(_of_the_course, words))


def opens_planning_callout(line: str) -> bool:
    """The first line of a callout over the course's planning ("> [!info] Termine"), or of the student's tasks
    untitled or titled by the course ("> [!todo]", "> [!todo] Für die Hausarbeit"), not of a procedure's steps
    ("> [!todo]- Bookmark a file")."""
    found = _CALLOUT_TYPE_RE.match(line)
    if found is None:
        return False
    title = found["title"].strip()
    return names_planning(title) or found["type"].casefold() in PLANNING_CALLOUTS and all(
        map(_of_the_course, _heading_words(title)))


def names_exercises(heading: str) -> bool:
    """A heading over worked tasks ("Beispiele (aus Übung 3)", "Exercises"): each numbered task has its solution
    nested below it."""
    words = normal(heading).split()
    return bool(words) and words[0].strip(":") in _ALL_EXERCISES


def names_terms(heading: str) -> bool:
    """A heading over the subject's terms ("Zentrale Begriffe", "Key terms", "Glossar"), not over a study or an
    outing whose lines are labelled the same way ("Durkheims Studie", "Observation night")."""
    return any(word.strip(":") in _ALL_GLOSSARIES for word in normal(heading).split())


def prose_language(text: str) -> str | None:
    """"en" or "de" by the commoner function words of the prose, None when neither stands out (a table of
    Spanish forms, a formula sheet): for a note whose own language tag names neither."""
    words = re.findall(r"[^\W\d_]+", text.casefold())
    counts = {lang: sum(word in WORDS[lang].function_words for word in words) for lang in ("en", "de")}
    best = max(counts, key=lambda lang: counts[lang])
    return best if counts[best] >= 3 and counts[best] >= 2 * min(counts.values()) else None


def formula_word(lang: str) -> str:
    """What a card in ``lang`` calls a formula."""
    return WORDS.get(lang, WORDS["en"]).formula


_ALL_FORMULA_HEADINGS = frozenset(heading for words in WORDS.values() for heading in words.formula_headings)


def names_no_formula(heading: str) -> bool:
    """A heading over formulas that names none of them ("Formeln", "Key equations:"), in any language."""
    return normal(heading).strip(" :*_#") in _ALL_FORMULA_HEADINGS


def is_formula(text: str) -> bool:
    """Text that is one formula and nothing else (``$$E_k = \\frac{1}{2}mv^2$$``)."""
    stripped = text.strip()
    spans = math_spans(stripped)
    return len(spans) == 1 and spans[0] == (0, len(stripped))


@dataclass(frozen=True, slots=True)
class Definition:
    """A sentence read as a definition: what it defines (``term``), its verb as written ("is", "refers to",
    "versteht man", "nennt" of "nennt man") and what it says the term is (``meaning``)."""

    term: str
    verb: str
    meaning: str


def _phrase(words: str) -> str:
    """A phrase of the data as a pattern, any whitespace between its words."""
    return r"\s+".join(re.escape(word) for word in words.split())


def _choice(phrases: tuple[str, ...] | frozenset[str]) -> str:
    return "|".join(_phrase(phrase) for phrase in phrases)


_NOUN_START = r"(?=[A-ZÄÖÜ\ue000])"  # a bare noun (German capitalises every one) or an atom standing for a name


def _copula_pattern(words: LanguageWords) -> re.Pattern[str]:
    """"X is a …", "Der X bezeichnet …": the term before the verb, what it is after it."""
    articles = "|".join(re.escape(article.capitalize()) for article in words.articles)
    return re.compile(rf"^(?P<term>(?:(?:{articles})\s+)?[^,;:]{{2,70}}?)\s+"
                      rf"(?P<verb>{_choice(words.copulas + words.meaning_verbs)})\s+"
                      rf"(?P<def>(?!(?i:{_choice(words.not_defining)})\b)[^\n]{{6,}})$")


def _frame_pattern(frame: str, idioms: frozenset[str]) -> re.Pattern[str]:
    """"Unter X versteht man …": a bare noun inside the frame (one with an article stands in another case, which no
    quiz option would match), what it means after it."""
    before, after = (part.strip() for part in frame.split("{term}"))
    idiom = rf"(?!(?:{_choice(idioms)})\b)" if idioms else ""
    return re.compile(rf"^{_phrase(before)}\s+(?P<term>{_NOUN_START}{idiom}[^,;:]{{2,70}}?)\s+"
                      rf"(?P<verb>{_phrase(after)})\s+(?P<def>[^\n]{{6,}})$")


def _called_pattern(words: LanguageWords) -> re.Pattern[str]:
    """"… is called X", "… nennt man X": what the term is first, the term after."""
    return re.compile(rf"^(?P<def>.{{6,}}?)\s+(?P<called>{_choice(words.called)})\s+(?P<term>.+)$")


_DEFINITION_PATTERNS = {lang: tuple(_frame_pattern(frame, words.frame_idioms) for frame in words.frames)
                        + ((_copula_pattern(words),) if words.copulas else ())
                        for lang, words in WORDS.items()}
_CALLED_PATTERNS = {lang: _called_pattern(words) for lang, words in WORDS.items() if words.called}


def definition_in(sentence: str, lang: str) -> Definition | None:
    """``sentence`` (one sentence, without its full stop) read as "X is a …", "X refers to …", "Unter X versteht man
    …" in ``lang``, or None. Whether what follows the verb says what X *is* (an article, a noun) is the reader's
    check: :func:`opens_definition`."""
    for pattern in _DEFINITION_PATTERNS.get(lang, ()):
        if found := pattern.match(sentence):
            return Definition(found.group("term"), found.group("verb"), found.group("def"))
    return None


MAX_SPOKEN_TERM_WORDS = 4


@cache
def _spoken_meaning_patterns(lang: str) -> tuple[tuple[re.Pattern[str], str], ...]:
    words = WORDS.get(lang)
    if words is None:
        return ()
    patterns = []
    for frame, verb in words.spoken_meanings:
        pattern = re.escape(frame).replace(re.escape("{term}"), r"(?P<term>[^,;:]{2,60}?)") \
            .replace(re.escape("{meaning}"), r"(?P<def>\S.{5,})")
        patterns.append((re.compile(rf"^{pattern}$", re.IGNORECASE), verb))
    return tuple(patterns)


def _frame_condition(frame: str, lang: str) -> str:
    """The condition word a spoken meaning's frame ends on before its meaning ("is basically when {meaning}"): it
    opens what the card answers ("When you turn the bow through the wind …")."""
    before = frame.split("{meaning}")[0].split()
    return before[-1] if before and before[-1] in WORDS[lang].conditions else ""


def spoken_meaning(sentence: str, lang: str) -> Definition | None:
    """What a lecturer says a term means in one of ``LanguageWords.spoken_meanings`` ("A lahar, that means a mudflow
    of volcanic debris and water" → "A lahar" means "a mudflow …"; "Also Fianchetto heißt, der Läufer wird …"; "What
    we call viscosity is the resistance of a liquid to flow, so honey …" → up to its sequel), in ``sentence`` said
    plainly, without its full stop; None when none, or when what stands for the term is no short noun phrase ("We
    did it, that means …", "Die Königin paart sich einmal, das heißt …")."""
    words = WORDS.get(lang)
    if words is None:
        return None
    for (pattern, verb), (frame, _) in zip(_spoken_meaning_patterns(lang), words.spoken_meanings, strict=True):
        found = pattern.match(sentence.strip())
        if found is None:
            continue
        term, meaning = found.group("term").strip(), found.group("def").strip()
        named = [word.casefold() for word in term.split()]
        unarticled = named[1:] if named and named[0] in words.articles else named
        if not unarticled or len(named) > MAX_SPOKEN_TERM_WORDS \
                or not all(re.fullmatch(r"[^\W\d_]+(?:-[^\W\d_]+)*", word) for word in unarticled) \
                or unarticled[0] in words.subjects | words.prepositions | words.quantifiers | words.resumptives \
                or unarticled[0] in words.naming_demonstratives \
                or any(word in words.copulas or word in words.articles for word in unarticled) \
                or (lang == "de" and not term.split()[-1][:1].isupper()):
            return None
        for sequel in words.spoken_sequels:
            meaning = meaning.split(sequel, 1)[0]
        condition = _frame_condition(frame, lang)
        clause = condition or frame.split("{meaning}")[0].rstrip().endswith(",")  # "heißt, der Läufer wird …"
        opening = meaning.split()[0].casefold() if meaning.split() and not clause else ""
        # "A lahar, that means a mudflow …" says what a lahar is: "What is a lahar?", not "What does a lahar mean?"
        asked = words.copulas[0] if opening in words.definition_openers or opening in words.articles else verb
        return Definition(term, asked, f"{condition} {meaning}".strip(" ,"))
    return None


def names_by_pro_form(meaning: str, lang: str) -> bool:
    """A description whose head word stands for a noun said before ("the classic one", "one, it's filled with water
    now", "the one that hurts"): alone on a card it says nothing of what the term is."""
    words = WORDS.get(lang)
    if words is None or not words.pro_forms:
        return False
    head = re.split(rf"[,;:(]|\s(?:{_choice(words.relatives)})\s", normal(meaning), maxsplit=1)[0].split()
    return bool(head) and head[-1].strip(".!?") in words.pro_forms


def described_in(sentence: str, lang: str) -> Definition | None:
    """``sentence`` read as a term in bold, its subject, and a verb saying what it captures ("Die **Preiselastizität
    der Nachfrage** misst, um wie viel Prozent …", "The **Gini coefficient** measures how unequally …"): the term with
    its article, the verb, what follows it; None otherwise."""
    words = WORDS.get(lang)
    if words is None or not words.describing_verbs:
        return None
    found = re.match(rf"^(?P<term>(?:(?:{_choice(words.articles)})\s+)?\*\*[^*\n]{{2,60}}\*\*)\s+"
                     rf"(?P<verb>{_choice(tuple(words.describing_verbs))})\b,?\s+(?P<def>\S.{{10,}})$", sentence,
                     re.IGNORECASE)
    if found is None:
        return None
    return Definition(found.group("term").replace("**", ""), found.group("verb"), found.group("def"))


def called_in(sentence: str, lang: str) -> Definition | None:
    """``sentence`` read as "… is called X", "… nennt man X" in ``lang``: the term after the verb (and whatever
    follows it in the sentence), its verb the first word ("is", "nennt")."""
    pattern = _CALLED_PATTERNS.get(lang)
    found = pattern.match(sentence) if pattern else None
    if found is None:
        return None
    return Definition(found.group("term"), found.group("called").split()[0], found.group("def"))


MAX_NAMED_CLAUSE_WORDS = 4


def names_a_clause_after_a_sentence(meaning: str, lang: str) -> bool:
    """What "… nennt man X" names is its last clause alone when a sentence of its own stands before it ("Im Glomerulus
    wird das Blut filtriert, das Filtrat nennt man Primärharn"): asked whole, the card's question runs the two
    together ("Wie nennt man Im Glomerulus wird …, das Filtrat?")."""
    before, comma, last = meaning.rpartition(", ")
    words = WORDS.get(lang, WORDS["en"])
    return bool(comma) and len(last.split()) <= MAX_NAMED_CLAUSE_WORDS \
        and any(word.strip(",;:") in words.auxiliaries for word in normal(before).split())


def opens_definition(meaning: str, verb: str, lang: str) -> bool:
    """Whether what a copula joins to a term opens as what the term is: an article or a word like "one", "kein", a
    capitalised noun or name, after a verb taking an object ("bezeichnet", "versteht man") also that object's
    article ("den Anstieg …"). "X is tied to …", "X sind davon nicht betroffen" only say something about X."""
    words = WORDS.get(lang, WORDS["en"])
    first = meaning.split()[0].strip(",") if meaning.split() else ""
    return bool(re.match(rf"(?:{_choice(words.definition_openers)})\b|[A-ZÄÖÜ\ue000]", first)) \
        or (verb in words.object_verbs and first in words.articles)


def verb_in_person(word: str, lang: str) -> bool:
    """A word (casefolded) ending as a verb in the third person ("carries", "creates", "bricht", "erstellt"): "s" in
    English (not "ss", "us", "is"), "t" in German; not an adverb ending so (``LanguageWords.adverbs``: "always",
    "nicht")."""
    words = WORDS.get(lang, WORDS["en"])
    if len(word) <= 3 or word in words.adverbs:
        return False
    if lang == "de":  # German nouns are capitalised: a word in lower case after one is no noun
        return word.endswith("t")
    return word.endswith("s") and not word.endswith(("ss", "us", "is"))


def gives_an_estimate(meaning: str, lang: str) -> bool:
    """What follows "X is" opening with an estimate ("about four point six billion years old", "ungefähr 500.000
    Jahre alt"): a measure of X, not what X is."""
    first = meaning.split()[0].casefold() if meaning.split() else ""
    return first in WORDS.get(lang, WORDS["en"]).estimates


MAX_REMARK_WORDS = 3


def gives_a_reason(meaning: str, lang: str) -> bool:
    """What follows "X is" as a short phrase and a reason ("the end, because fusing iron costs energy", "das Ende,
    weil …"): a remark on X's place in a story, not what X is."""
    head, comma, rest = meaning.partition(", ")
    first = rest.split()[0].casefold() if rest.split() else ""
    return bool(comma) and len(head.split()) <= MAX_REMARK_WORDS and first in WORDS.get(lang, WORDS["en"]).causal


def is_free_relative(term: str, lang: str) -> bool:
    """A sentence's subject opening with a question word ("What's left when a glacier retreats", "Was übrig
    bleibt"): it names no term, so "What is what's left?" asks nothing."""
    first = term.split()[0].casefold().removesuffix("'s").removesuffix("’s") if term.split() else ""
    return first in WORDS.get(lang, WORDS["en"]).question_words


ALL_ARTICLES = frozenset(article for words in WORDS.values() for article in words.articles)


_ALL_COPULAS = frozenset(copula for words in WORDS.values() for copula in words.copulas)


def is_copula(word: str) -> bool:
    """Whether ``word`` is a copula of any language ("is", "sind"): what follows it is said of its subject."""
    return word.casefold() in _ALL_COPULAS


def states_something(phrase: str) -> bool:
    """A phrase holding a copula ("assuming H₀ is true", "is not", "ist leer"): a clause, not a term that could fill
    a term's place in a sentence (a code span's words are code)."""
    return any(word in _ALL_COPULAS for word in normal(_without_code(phrase)).split())


def names_an_action(term: str, lang: str, description: str = "") -> bool:
    """Whether a term's head noun names an action or a process ("Konjugation", "Signal amplification"), not a thing;
    a description opening with an article and a noun of another kind says otherwise ("Compensation was the rule
    that …", "Die Sozialversicherung war ein System …")."""
    endings = WORDS[lang].actions if lang in WORDS else ()

    def acts(word: str) -> bool:
        head = re.split(r"[\s-]+", word.strip().rstrip(".,;:"))[-1].casefold()
        return len(head) >= 6 and head.endswith(endings)

    opening = description.split()[:4]
    if opening and opening[0].casefold() in WORDS[lang].definition_openers:
        # its noun: German writes it capitalised after any adjectives ("Eine künstliche Immunisierung")
        nouns = [word for word in opening[1:] if word[:1].isupper()] if lang == "de" else opening[1:2]
        if nouns and not acts(nouns[0]):
            return False
    return bool(term.split()) and acts(term)


_ROMAN_RE = re.compile(r"^[IVX]+\.?$")
_ADJECTIVE_ENDINGS = ("e", "er", "es", "en", "em")  # "Klonale Selektion", "Wiener Kongress": no first name


def written_as_name(term: str, lang: str) -> bool:
    """A term written as a name: two to four capitalised words, particles and a ruler's number among them ("Emil
    von Behring", "Wilhelm II.", "Milton Friedman"), none of them an action; "Konkurrenz zu SN" (letters in capitals
    are an abbreviation), "Code civil", "Phillips curve" are none."""
    words = WORDS.get(lang)
    names = term.strip().split()
    return words is not None and 2 <= len(names) <= 4 and not names_an_action(term, lang) \
        and not is_article(names[0], lang) and names[0].casefold() not in words.name_particles and all(
            name.casefold() in words.name_particles or (name[:1].isupper() and name.rstrip(".").isalpha()
                                                        and (not name.isupper() or bool(_ROMAN_RE.match(name))))
            for name in names)


MIN_ADJECTIVE = 5  # "Hal", "Val": too short to tell by the ending


def names_someone(term: str, lang: str) -> bool:
    """A term written as a person's name (``written_as_name``) whose first word is no adjective nor rank: "Milton
    Friedman", "Maximilien de Robespierre", "Ludwig XVI."; never "Third Estate", "National Assembly",
    "Französische Revolution"."""
    words = WORDS.get(lang)
    if words is None or not written_as_name(term, lang):
        return False
    first = term.split()[0].casefold()
    return first not in words.ranks and first not in words.function_words \
        and not (len(first) >= MIN_ADJECTIVE and first.endswith(words.adjective_endings))


def names_a_person(term: str, description: str, lang: str, stated: bool = False) -> bool:
    """Whether a term is a person's name by how the note describes it: "Nikita Khrushchev: Soviet leader who …",
    "Gustav Stresemann war Außenminister …" (``stated``: after a copula, a German predicate noun with no article
    is a role or an office; a list item's description may open with a verb: "Obsidian Sync: Wird zum …");
    a name of two to four capitalised words ("Emil von Behring", "Wilhelm II."), none of them an action."""
    words = WORDS.get(lang)
    names = term.strip().split()
    opening = description.split(",")[0].split()
    if words is None or not opening or not written_as_name(term, lang):
        return False
    if lang == "de":
        first = opening[0].strip("„“\"")
        return stated and not names[0].endswith(_ADJECTIVE_ENDINGS) and first[:1].isupper() and first.isalpha() \
            and first.casefold() not in words.definition_openers
    # "Soviet leader who …", never "commoners who …" (a group the term names)
    return any(word.casefold() in words.person_relatives and not before.endswith("s") and before != "people"
               for before, word in zip(opening, opening[1:], strict=False))


def links_a_predicate(word: str, lang: str | None) -> bool:
    """Whether ``word`` is a copula or another linking verb ("is", "be", "become", "wird"): what follows it is said of
    its subject, an adjective or a noun's predicate, not a thing named."""
    folded = word.casefold()
    return is_copula(folded) or any(folded in words.linking_verbs for key, words in WORDS.items()
                                    if lang in (None, key))


def is_article(word: str, lang: str | None) -> bool:
    """Whether ``word`` is an article of ``lang`` ("a", "the", "den"), of any language when ``lang`` is unknown."""
    folded = word.casefold()
    return folded in WORDS[lang].articles if lang in WORDS else folded in ALL_ARTICLES


def _definition_opening() -> re.Pattern[str]:
    """A sentence opening as a definition in any language: a subject of up to three words, maybe with what it is
    of or for, before a copula or a meaning verb; or a student's "X = what it is"."""
    every = WORDS.values()
    articles = "|".join(sorted({re.escape(a) for words in every for a in words.articles}, key=len, reverse=True))
    qualifiers = "|".join(sorted({re.escape(q) for words in every for q in words.qualifiers}))
    verbs = "|".join(sorted({re.escape(verb.split()[0]) for words in every
                             for verb in words.copulas + words.meaning_verbs}))
    article = rf"(?:(?:{articles})\s+)?"
    return re.compile(rf"{article}(?P<subject>[\w()-]+(?:\s+[\w()-]+){{0,2}}?)"
                      rf"(?:\s+(?:{qualifiers})\s+{article}[\w-]+)?\s+(?:{verbs})\b|"
                      rf"{article}(?P<equated>[\w()-]+(?:\s+[\w()-]+){{0,2}}?)\s+=\s+(?=[^\W\d])", re.IGNORECASE)


_DEFINITION_OPENING = _definition_opening()


def definition_subject(sentence: str) -> str:
    """What a sentence opening as a definition, in any language, defines: "Stomata are pores …" → "Stomata", "A
    backlink for a note is …" → "backlink", "Monsun = großräumiges Windsystem" → "Monsun"; "" for another
    sentence. Only the subject is read: an answer checks that it names the term asked about."""
    opening = _DEFINITION_OPENING.match(sentence)
    return (opening.group("subject") or opening.group("equated") or "") if opening else ""


def _definition_label_patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """A definition's label opening a line, in any language, in bold or not: naming its term ("Def. Heimtücke:",
    "**Def. (Relaxation):**", "Def. Habgier =") and naming none ("**Def.**", "Def.:", "Definition.")."""
    labels = "|".join(sorted({re.escape(label) for words in WORDS.values() for label in words.definition_labels},
                             key=len, reverse=True))
    opening = rf"^(?:\*\*|__)?(?:{labels})(?![\w-])\.?"
    named = re.compile(rf"{opening}\s*(?:\((?P<paren>[^()\n]{{2,60}})\)\s*[:.]?|"
                       rf"(?P<name>[^\s:=*()_.][^:=*()\n]{{0,58}}?)\s*[:=])\s*(?:\*\*|__)?\s*(?P<rest>\S.*)$",
                       re.IGNORECASE | re.DOTALL)
    bare = re.compile(rf"{opening}\s*[:.]?\s*(?:\*\*|__)?\s*[:.]?\s+(?P<rest>\S.*)$", re.IGNORECASE | re.DOTALL)
    return named, bare


_NAMED_DEFINITION_RE, _BARE_DEFINITION_RE = _definition_label_patterns()
MAX_LABELLED_TERM_WORDS = 4
_ALL_COPULAS = frozenset(verb for words in WORDS.values() for verb in words.copulas)
_LABEL_LINKS = frozenset(word for words in WORDS.values() for word in words.prepositions) | {"of", "des", "der"}


def labelled_definition(text: str) -> tuple[str, str] | None:
    """A line the student labelled as a definition, in any language: (the term its label names, what follows),
    with "" for the term when the label names none ("**Def.** Die Distanz ist …": the sentence after it names its
    term itself); None for any other line. "Def. Heimtücke: Heimtückisch handelt, wer …" → ("Heimtücke",
    "Heimtückisch handelt, wer …"), "**Def. (Relaxation):** Eine Kante …" → ("Relaxation", "Eine Kante …")."""
    named = _NAMED_DEFINITION_RE.match(text.strip())
    if named is not None:
        term = (named.group("paren") or named.group("name")).strip()
        words = term.split()
        # not "Definition of done: …", "Def. nach Kant: …": a phrase going on the label, no term
        if len(words) <= MAX_LABELLED_TERM_WORDS and not any(word.casefold() in _ALL_COPULAS for word in words) \
                and words[0].casefold() not in _LABEL_LINKS:
            return term, named.group("rest").strip()
    bare = _BARE_DEFINITION_RE.match(text.strip())
    if bare is None or bare.group("rest").split()[0].casefold() in _LABEL_LINKS:
        return None
    return "", bare.group("rest").strip()


_POSSESSIVE_RE = re.compile(r"\w['’]s?(?:\s|$)")  # "Newton's second law", "Bayes' theorem": named by whose it is
_LAW_LINKS = frozenset({"of", "des", "der", "von", "vom"})  # "Law of total probability", "Satz des Fermat"


def _law_article(name: str, words: LanguageWords) -> str | None:
    """The article of the law or theorem ``name`` names ("Satz des Fermat" → "der", "Reflexionsgesetz" → "das",
    "Gauss-Markov theorem" → "the"), None when it names none: its law noun closes it or comes before what it is of,
    and a bare noun ("Satz", "Principle") names no law."""
    tokens = [token.casefold().strip(".,:;!?") for token in name.split()]
    laws, compounds = dict(words.laws), words.law_compounds
    for index, token in enumerate(tokens):
        if index + 1 < len(tokens) and tokens[index + 1] not in _LAW_LINKS:
            continue
        if token in laws and len(tokens) >= 2:
            return laws[token]
        compound = next((article for noun, article in compounds if token.endswith(noun) and len(token) > len(noun)),
                        None)
        if compound is not None:
            return compound
    return None


def law_question(heading: str, lang: str) -> str:
    """The question asking what the law or theorem a heading names states, in ``lang``: "Satz des Fermat" → "Was
    besagt der Satz des Fermat?", "1. Hauptsatz" → "Was besagt der 1. Hauptsatz?", "Snelliussches Brechungsgesetz" →
    "Was besagt das Snelliussche Brechungsgesetz?", "Satz (Optimalitätsprinzip)" → "Was besagt das
    Optimalitätsprinzip?", "Newton's second law" → "What does Newton's second law state?"; "" when it names none
    ("Zinssatz", "Design principles", "Newton's Laws")."""
    words = WORDS.get(lang)
    if words is None or not words.states:
        return ""
    heading = heading.strip()
    # "Satz (Optimalitätsprinzip)": the remark may name it; "1st law – inertia": the gloss after a dash does not
    remark = re.fullmatch(r"(?P<outer>[^()]+?)\s*\((?P<inner>[^()]+)\)", heading)
    glossed = re.split(r"\s[–—-]\s", heading, maxsplit=1)
    names = [remark.group("inner").strip(), remark.group("outer").strip()] if remark \
        else [glossed[0].strip()] if len(glossed) == 2 else [heading]
    found = next(((name, article) for name in names if (article := _law_article(name, words)) is not None), None)
    if found is None:
        return ""
    name, article = found
    tokens = name.split()
    if tokens[0].casefold() in words.articles or _POSSESSIVE_RE.search(name):
        article = ""  # "The Peter Principle", "Newton's second law": no article before it
    elif lang == "de":  # "Snelliussches Brechungsgesetz" after "das": "Snelliussche"; "Zweiter Hauptsatz": "Zweite"
        ending = "s" if article == "das" else "r"
        tokens = [token[:-1] if index < len(tokens) - 1 and token.endswith("e" + ending) and token[:1].isupper()
                  and token.casefold() not in dict(words.laws) else token for index, token in enumerate(tokens)]
    elif tokens[0].casefold() in dict(words.laws) and tokens[0][1:].islower():
        tokens[0] = tokens[0].casefold()  # "Law of total probability" → "the law of total probability"
    return words.states.format(law=" ".join([article, *tokens]).strip())


def _words_pattern(phrases: frozenset[str] | tuple[str, ...]) -> str:
    return "|".join(_phrase(phrase) for phrase in sorted(phrases, key=len, reverse=True))


_CONDITION_RES = {lang: re.compile(rf"(?:^|[\s,])(?:{_words_pattern(words.conditions)})(?=[\s,]|$)", re.IGNORECASE)
                  for lang, words in WORDS.items() if words.conditions}


def condition_start(text: str, lang: str) -> int | None:
    """Where a condition opens in ``text`` ("an eigenvector of $A$ if $A\\vec{v} = …$", "linear, wenn …"), outside
    formulas and code, in ``lang``; None when it states none. A sentence "X is (called) Y if …" defines Y by the
    condition: it says neither what X is nor what X is called."""
    pattern = _CONDITION_RES.get(lang)
    found = next((match for match in pattern.finditer(text) if not inside_atom(text, match.start() + 1)), None) \
        if pattern else None
    return found.start() if found else None


def defines_by_condition(subject: str, predicate: str, lang: str) -> bool:
    """"A vector $v \\neq 0$ is (called) an eigenvector of $A$ if …", "Ein Vektor … ist ein Eigenvektor von $f$, wenn
    …": a subject naming any instance and a condition after the verb define the predicate's noun by the condition;
    read as "what is a vector?" or "what is a vector called?" the card teaches something false."""
    words = subject.split()
    if lang not in WORDS or not words or words[0].casefold() not in WORDS[lang].instances:
        return False
    start = condition_start(predicate, lang)
    described = [word.strip(",;").casefold() for word in predicate[:start].split()] if start is not None else []
    # the condition right after the predicate's noun ("an eigenvector of $A$ if"), not inside its description
    return start is not None and len(described) <= MAX_DEFINED_WORDS \
        and not any(word in WORDS[lang].relatives for word in described)


MAX_DEFINED_WORDS = 6  # "called an eigenvector of $A$": the noun defined and what it is of


def ends_open(text: str, lang: str) -> bool:
    """A text that stops mid-clause, on a word no sentence of ``lang`` ends on ("… eigenvector of $A$ if.", "…
    erwarten darf, wenn."): it was cut, and read alone it says something else. German ends on a verb's particle
    ("… zeigt die Datei an."), so each language's own words."""
    bare = text.rstrip().rstrip(".…").rstrip()
    if not bare or bare.endswith(("$", "`", ")")) or lang not in WORDS:
        return False
    return bare.split()[-1].casefold() in WORDS[lang].open_ends


_ALL_QUESTION_WORDS = frozenset(word for words in WORDS.values() for word in words.question_words)


def asks(heading: str) -> bool:
    """A heading that asks a question ("Why Britain first?", "When to use", "Wozu Plasmide?"): the items under it are
    its answers, not terms to define."""
    words = normal(heading).split()
    return heading.rstrip().endswith("?") or (bool(words) and words[0].strip("*_:") in _ALL_QUESTION_WORDS)


# the student's remark in square brackets ("[→ he will ask about Metternich in the exam!]", "[I think this is
# different from …?]"): an arrow, a question, the course or the student speaking; a link, a timestamp or a task box
# in brackets is none
_BRACKETED_RE = re.compile(r"\s*\[(?!\[)(?P<remark>[^\[\]\n]{3,200})\](?![(\]])")
_FIRST_PERSON = frozenset({"i", "ich", "my", "mein", "meine"})


def without_bracketed_remarks(text: str) -> str:
    """``text`` without the student's remarks in square brackets (see above); other brackets stay."""
    def remark(match: re.Match[str]) -> bool:
        said = match.group("remark")
        words = {word.strip(".,;:!?()\"'“”„") for word in normal(said).split()}
        return said.lstrip().startswith(("→", "->", "=>")) or said.rstrip().endswith("?") \
            or bool(words & (_ALL_COURSE | _FIRST_PERSON))

    return _BRACKETED_RE.sub(lambda match: "" if remark(match) and not inside_atom(text, match.start() + 1)
                             else match.group(0), text)


_NAMING_WORD_RE = re.compile(r"[^\W_]+")


def naming_words(text: str) -> tuple[str, ...]:
    """The words of a term or an option in order, casefolded, a leading article left out (a code span's or formula's
    words count): "Ein Plasmid" → (plasmid,), "`.then/.catch/.finally`" → (then, catch, finally)."""
    words = _NAMING_WORD_RE.findall(text.casefold())
    return tuple(words[1:] if len(words) > 1 and words[0] in ALL_ARTICLES else words)


def part_of(first: str, second: str) -> bool:
    """Whether one of two options says, word for word, only part of what the other says ("`.then()`" and
    "`.then/.catch/.finally`", "Ein Plasmid" and "F-Plasmid", "A root of $\\chi_A$" and "how often $\\lambda$ is a
    root of $\\chi_A$"): beside each other both may be right, or they differ only in form. "Lag-Phase" and
    "Log-Phase", "C–E–G" and "C–E♭–G", "major 3rd + minor 3rd" and "minor 3rd + major 3rd" are different answers."""
    short, long = sorted((naming_words(first), naming_words(second)), key=len)
    return 0 < len(short) < len(long) and any(long[start:start + len(short)] == short
                                              for start in range(len(long) - len(short) + 1))
