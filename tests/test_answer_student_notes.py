"""Answers from notes written the way students write them (issue 25 classes of misses).

Each test pins one class seen in more than one note of the student dev vault: code quoted with its
indentation, the student's tag lines and date stamps never quoted as evidence, a list item closed by the
student's own question still quoted, a hedging adverb in the question never turning an answer into a refusal,
a near miss (the topic is there, the name asked about is in no quote) refused, and the section whose heading
names what is asked leading the answer; and a low answer saying in its first line that it may not answer.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest

from cognivault.answer import confidence
from cognivault.answer.evidence import FALLBACK_ANALYZER, Concept, Evidence, EvidencePack, text_terms
from cognivault.answer.extractive import answer_extractively, nearest_only, passage_answer, units_of
from cognivault.answer.retrieval import build_pack
from cognivault.engine import Engine
from cognivault.vault.reading import without_filing

ECHO_SERVER = '''```python
import socket

with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
    s.bind(("0.0.0.0", 5000))
    s.listen()
    conn, addr = s.accept()          # blocks until a client connects
    with conn:
        while True:
            data = conn.recv(1024)
            if not data:             # empty bytes = client closed the connection
                break
            conn.sendall(data)
```'''

NETWORKS = {
    "Networks/TCP.md": "# TCP vs UDP\n\nTransport layer protocols, both use ports.\n\n"
                       "## TCP three-way handshake\n1. client → server: **SYN**\n2. server → client: **SYN-ACK**\n"
                       "3. client → server: **ACK**\n\n→ in short: SYN, SYN-ACK, ACK – then data can flow\n\n"
                       "## CLI stuff from the lab\n```bash\n# watch the TCP handshake\nsudo tcpdump -i lo tcp\n```\n\n"
                       "## Minimal echo server\nA TCP echo server with a socket of type `SOCK_STREAM`:\n"
                       f"{ECHO_SERVER}\n",
    "History/Industry.md": "# Industrial Revolution\n\n## Inventions\n"
                           "- 1764 – Hargreaves: spinning jenny\n"
                           "- 1712 – Thomas Newcomen: atmospheric steam engine → pumps water out of mines → why?\n"
                           "\n## Capital\n"
                           "- profits from trade and colonies financed the first factories\n",
    "Geo/Monsoon.md": "# Monsoon\n#geo #climate\nStand: 12.01.2025\n\n"
                      "The monsoon brings heavy rain because moist air from the ocean rises over the hot land.\n\n"
                      "- other monsoon regions: West Africa, northern Australia, East Asia\n",
}


def passage(label: str, path: str, text: str) -> Evidence:
    return Evidence(label, label, path, path, [], 1, 3, "", text, "", 0.0, lang="en",
                    terms=text_terms(FALLBACK_ANALYZER, text, "en"))


def ask(engine: Engine, question: str) -> str:
    answer = answer_extractively(engine, question)
    return answer.text if answer.answered else ""


def test_quoted_code_keeps_its_indentation(indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    engine = indexed_notes(NETWORKS)
    assert ECHO_SERVER in ask(engine, "How do I write a minimal TCP echo server with SOCK_STREAM?")


def test_tag_lines_and_date_stamps_are_never_quoted(indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    engine = indexed_notes(NETWORKS)
    answer = ask(engine, "Monsoon")
    assert "heavy rain" in answer
    assert "#geo" not in answer and "Stand:" not in answer


def test_an_item_closed_by_the_students_own_question_is_evidence(
        indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    engine = indexed_notes(NETWORKS)
    assert "atmospheric steam engine" in ask(engine, "Which engine did Thomas Newcomen build?")


def test_a_hedging_adverb_does_not_turn_an_answer_into_a_refusal(
        indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    engine = indexed_notes(NETWORKS)
    plain = ask(engine, "What happens in a monsoon?")
    assert "moist air" in plain
    assert ask(engine, "What typically happens in a monsoon?") == plain


def test_a_near_miss_on_a_name_no_quote_states_is_refused() -> None:
    # the passages say "capital" (of a firm), none says "Australia": what is asked about is in no quote
    capital = [passage(f"S{number}", f"Economics/Capital {number}.md", f"Capital {kind} means money invested in "
                       f"{kind} to earn a return later.") for number, kind in enumerate(("markets", "goods"), 1)]
    concepts = {"capit": Concept("capit", "capital", frozenset({"capit"})),
                "australia": Concept("australia", "australia", frozenset({"australia"}), name=True)}
    pack = EvidencePack(items=capital, question_terms=list(concepts), concepts=concepts,
                        term_weights={"capit": 2.0, "australia": 3.0}, lang="en")
    assert passage_answer(pack, FALLBACK_ANALYZER, "What's the capital of Australia?").quotes == []
    pack.term_weights = {"capit": 3.0, "australia": 1.0}  # a question mostly answered is not refused for a name
    assert passage_answer(pack, FALLBACK_ANALYZER, "What's the capital of Australia?").quotes


def test_the_section_whose_heading_names_the_question_leads(indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    engine = indexed_notes(NETWORKS)
    answer = ask(engine, "TCP handshake")
    assert answer.startswith("**TCP three-way handshake**")
    assert "SYN, SYN-ACK, ACK" in answer


def test_a_low_answer_says_so_in_its_first_line(indexed_notes: Callable[[dict[str, str]], Engine],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    engine = indexed_notes(NETWORKS)
    sure = answer_extractively(engine, "TCP handshake")
    assert sure.confidence != "low" and not sure.text.startswith(nearest_only("en"))
    monkeypatch.setattr(confidence, "cap_by_citations", lambda found, *_: replace(found, label="low"))
    unsure = answer_extractively(engine, "TCP handshake")
    assert unsure.answered and unsure.text.split("\n", 1)[0] == nearest_only("en")
    assert unsure.text.endswith(sure.text)


@pytest.mark.parametrize("text, kept", [
    ("#kunst #abi\nStand: 12.01.2025\nZeitraum: ca. 1860er–1880er", "Zeitraum: ca. 1860er–1880er"),
    ("bilingual history class (Q2). Stand: 12.01.2025", "bilingual history class (Q2)."),
    ("Rechnungswesen I, Kap. 2. Stand: 12.01.2026", "Rechnungswesen I, Kap. 2."),
    ("- 1825 – Stockton & Darlington Railway", "- 1825 – Stockton & Darlington Railway"),
    ("the state of 12.01.2025 is what counts", "the state of 12.01.2025 is what counts"),
])
def test_filing_lines_leave_the_text_they_stand_in(text: str, kept: str) -> None:
    assert without_filing(text) == kept


KEPLER = {
    "Astro/Kepler.md": "---\naliases: [Keplersche Gesetze]\n---\n# Kepler's laws\n\nPlanetary motion, lecture 4.\n\n"
                       "## 1st law – orbits\n- every planet moves on an ellipse with the Sun at one focus\n\n"
                       "## 2nd law – areas\n- the line Sun–planet sweeps out equal areas in equal times\n"
                       "- so a planet is fastest at perihelion\n\n"
                       "## 3rd law – periods\n- $T^2 \\propto a^3$ for every planet of one system\n",
    "Astro/Fernrohre.md": "# Fernrohre\n\nEin Linsenfernrohr bricht das Licht mit Linsen, ein Spiegelteleskop nutzt "
                          "dafür Spiegel. Die Vergrößerung ist das Verhältnis der beiden Brennweiten.\n",
}


@pytest.mark.parametrize("question", ["Explain Kepler's second law", "Was besagt das zweite Keplersche Gesetz?"])
def test_an_ordinal_picks_the_section_a_note_numbers_so(indexed_notes: Callable[[dict[str, str]], Engine],
                                                        question: str) -> None:
    # "second"/"zweite" is "2nd" to a reader, though no index term links them; "Keplersche Gesetze" is the note's
    # alias, so the German answer is not labelled low either (its first line is the section's title)
    answer = ask(indexed_notes(KEPLER), question)
    # (the note's description "Planetary motion, lecture 4." is no longer quoted after it: it says nothing asked)
    assert answer.startswith("**2nd law – areas**")
    assert "Planetary motion" not in answer
    assert "equal areas" in answer and "ellipse" not in answer


PRINTING = {
    "History/Printing.md": "# The printing press\n\n## Timeline\n"
                           "- c. 1450 – Gutenberg starts printing with movable type\n"
                           "- 1455 – the Gutenberg Bible is finished\n\n"
                           "## Why Mainz first?\n"
                           "1. **Metalwork**: goldsmiths who could cast small letters of lead, tin and antimony "
                           "alloys precisely enough to be reused thousands of times\n"
                           "2. **Money**: merchants and lenders such as Johann Fust who advanced the large sums a "
                           "workshop needed long before the first book was sold\n"
                           "3. **Paper**: mills along the Rhine that made paper cheaper than parchment, so that a "
                           "run of hundreds of copies became affordable at all\n"
                           "4. **Readers**: the Church, universities and a growing urban class who wanted more "
                           "books than scribes could copy by hand\n"
                           "5. **Presses**: the screw presses of the Rhine valley's wine makers, adapted for "
                           "printing with little change\n",
    "History/Scribes.md": "# Scribes\n\nMonks copied books by hand in the scriptorium of a monastery.\n",
}


def test_a_why_question_gets_the_reasons_section_with_its_whole_ordered_list(
        indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    # the heading asks "why" as the question does; the list of reasons is one answer, not its one matching item
    answer = ask(indexed_notes(PRINTING), "Why did printing start in Mainz?")
    assert answer.startswith("**Why Mainz first?**")
    assert all(f"{number}. **" in answer for number in range(1, 6))


FRENCH = {
    "French/Passé composé.md": "# Passé composé\n\n"
                               "**avoir** → the auxiliary of most verbs in the passé composé:\n"
                               "- *J'ai mangé une pomme.* – regular -er verbs, the past participle ends in -é\n"
                               "- *Tu as fini tes devoirs.* – regular -ir verbs, the participle ends in -i\n"
                               "- *Il a vendu sa voiture.* – regular -re verbs, the participle ends in -u\n"
                               "- *Nous avons pris le train.* – irregular participles must be learnt by heart\n\n"
                               "> [!warning] Exception: movement\n"
                               "> aller, venir, partir and arriver go with the other one: *Je suis allé au cinéma.*\n\n"
                               "**être** → the auxiliary of reflexive verbs in the passé composé:\n"
                               "- *Je me suis levé tôt.* – the participle agrees with the subject\n"
                               "- *Elle s'est lavée.* – feminine subject, so the participle takes -e\n"
                               "- *Nous nous sommes promenés.* – plural subject, so the participle takes -s\n",
    "French/Vocabulaire.md": "# Vocabulaire\n\n- le cinéma – the cinema\n- la voiture – the car\n",
}


def test_an_exception_right_after_a_rule_is_quoted_with_it(indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    # the exception sits next to the rule the question's words match: the answer states both
    answer = ask(indexed_notes(FRENCH), "avoir or être for most verbs in the passé composé?")
    assert "*J'ai mangé une pomme.*" in answer
    rule, exception = answer.index("*J'ai mangé"), answer.index("> [!warning] Exception: movement")
    assert rule < exception


def test_a_name_said_only_in_passing_apart_from_the_rest_of_the_question_is_refused() -> None:
    # "Australia" in a list of monsoon regions, "capital" in a note on markets: no quote answers on Australia
    monsoon = passage("S1", "Geo/Monsoon.md", "Other monsoon regions: West Africa, northern Australia, East Asia.")
    markets = passage("S2", "Economics/Markets.md", "Firms raise capital on the capital markets by issuing bonds.")
    concepts = {"capit": Concept("capit", "capital", frozenset({"capit"})),
                "australia": Concept("australia", "australia", frozenset({"australia"}), name=True)}
    pack = EvidencePack(items=[monsoon, markets], question_terms=list(concepts), concepts=concepts,
                        term_weights={"capit": 2.0, "australia": 2.0}, lang="en")
    refused = passage_answer(pack, FALLBACK_ANALYZER, "What's the capital of Australia?")
    assert refused.quotes == [] and refused.named_elsewhere == ["Australia"]  # the vault names it, but in passing
    pack.items.append(passage("S3", "Geo/Australia.md", "Canberra is the capital of Australia, not Sydney."))
    answered = passage_answer(pack, FALLBACK_ANALYZER, "What's the capital of Australia?")
    assert "Canberra" in answered.quotes[0].text


JOINS = {
    "DB/Joins.md": "# Joins\n\nAn inner join keeps only the rows that have a match in both tables.\n\n"
                   "A condition on the right table in the WHERE clause turns an outer join into an inner join, "
                   "since it throws away the rows without a match.\n",
    "DB/Keys.md": "# Keys\n\nA foreign key points to the primary key of another table, so the rows can be joined.\n",
    "Geo/Flüsse.md": "# Flüsse\n\nDer Rhein ist ein Fluss in Europa. Er fließt durch die Schweiz, Deutschland und die "
                     "Niederlande in die Nordsee.\n",
}


def test_a_name_of_two_words_is_found_side_by_side_in_a_passage_of_another_language(
        indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    # German stems "Inner" as "inn", the English passage says "inner join": the same two words side by side
    answer = ask(indexed_notes(JOINS), "Warum wird mein Outer Join zum Inner Join, wenn ich im WHERE filtere?")
    assert "turns an outer join into an inner join" in answer


DNA = {
    "Bio/DNA.md": "# DNA\n\nDNA (deoxyribonucleic acid) carries the genetic code.\n\n## Structure\n\n"
                  "The DNA molecule is built from **4 bases**: adenine, thymine, guanine and cytosine. Watson and "
                  "Crick published the model in 1953.\n\n## Replication\n\n"
                  "Each strand serves as the template for a new one, so every copy keeps one old strand.\n",
    "Geo/Flüsse.md": "# Flüsse\n\nDer Rhein ist ein Fluss in Europa. Er fließt durch die Schweiz, Deutschland und die "
                     "Niederlande in die Nordsee.\n\n## Donau\n\n"
                     "Die Donau ist der zweitlängste Fluss Europas und mündet ins Schwarze Meer.\n",
}


def test_a_word_the_vault_says_only_in_another_language_is_no_refusal(
        indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    # "Basen" is in no note, but the English note that has the question's "DNA" counts its "4 bases"
    engine = indexed_notes(DNA)
    assert "**4 bases**" in ask(engine, "Wie viele Basen hat die DNA?")
    # no such anchor, no answer: an acronym the vault never uses is the same in every language, and a year
    # is in many notes
    assert ask(engine, "Wie viele Basen hat die RNA?") == ""
    assert ask(engine, "Wer entdeckte 1953 die Doppelhelix?") == ""
    # "Basen" is the note's "bases" spelled alike (``evidence.short_cognate``); "Bausteine" is said in other words
    assert build_pack(engine, "Wie viele Basen hat die DNA?")[0].concepts["bas"].cognate == "base"
    assert "**4 bases**" in ask(engine, "Wie viele Bausteine hat die DNA?")
    assert build_pack(engine, "Wie viele Bausteine hat die DNA?")[0].gaps == {"baustein"}
    # a note in the question's language on the same thing would say "Basen" if the vault had it
    engine.close()
    twin = indexed_notes({**DNA, "Bio/Erbgut.md": "# Erbgut\n\nDie DNA trägt den genetischen Code jeder Zelle.\n"})
    assert build_pack(twin, "Wie viele Basen hat die DNA?")[0].gaps == set()


CELLS = {
    "Bio/Cell division.md": "# Cell division\n\n## Mitosis vs. meiosis\n"
                            "| | mitosis | meiosis |\n|---|---|---|\n"
                            "| divisions | one | two in a row |\n"
                            "| daughter cells | 2, diploid | 4, haploid |\n"
                            "| genetics | identical copies | new combinations by crossing-over |\n"
                            "| purpose | growth and repair | gametes for sexual reproduction |\n"
                            "| where | body cells | germ cells in ovaries and testes |\n",
    "Bio/Cells.md": "# Cells\n\nA cell is the smallest unit of life; its nucleus holds the DNA.\n",
}


def test_a_question_comparing_the_columns_of_a_table_gets_the_whole_table(
        indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    engine = indexed_notes(CELLS)
    compared = ask(engine, "What's the difference between mitosis and meiosis?")
    assert all(row in compared for row in ("| divisions |", "| daughter cells |", "| genetics |", "| purpose |",
                                           "| where |"))
    # a question on one row is answered by that row
    assert "| purpose |" not in ask(engine, "How many daughter cells does meiosis give?")


WAR = {
    "History/World War I.md": "# World War I\n\n## 1. Causes\n- the alliance system tied the great powers together\n"
                              "- the assassination in Sarajevo in June 1914 set it off\n\n"
                              "## 2. Course of the war\n"
                              "- the first battle of the Marne in 1914 stopped the advance on Paris\n"
                              "- then trench warfare on the Western Front for four years\n",
    "History/Treaties.md": "# Treaties\n\nThe Treaty of Versailles ended the war with Germany in 1919.\n",
}


def test_an_ordinal_said_in_passing_leaves_the_sections_of_another_series(
        indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    # "first" picks "1. Causes" of the note's numbered sections, but "2. Course of the war" counts something else
    assert "Marne" in ask(indexed_notes(WAR), "Which was the first battle on the Western Front?")


def test_a_list_of_links_is_no_unit_of_an_answer_even_whole() -> None:
    # a hub's lines point to notes: neither an item nor the whole list says anything of its own
    hub = passage("S1", "00 Semester.md", "## Physics (Fri 10–12)\n- [[Newton's laws]], [[Energy and work]]\n"
                                          "- [[Thermodynamics]]\n- [[Thermodynamics sheet 3]] ← still to write\n")
    assert "list" not in [unit.kind for unit in units_of(hub, 0)]
    steps = passage("S2", "Physics/Thermodynamics.md", "- heat flows from warm to cold by itself\n"
                                                       "- the entropy of a closed system never decreases\n")
    assert "list" in [unit.kind for unit in units_of(steps, 0)]


# a German note, so that German is one of the vault's languages
BERLIN_WALL = {"Geschichte/Mauer.md": "# Berliner Mauer\n\nDie Mauer wurde 1961 gebaut und fiel am 9. November 1989.\n"}


def test_the_next_entry_of_a_glossary_is_no_part_of_the_answer(
        indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    # a block right after the answer is quoted when it goes on with it ("It means …"), not when it is the next entry
    engine = indexed_notes({
        "Bio/Glossar.md": "# Glossar Zellbiologie\n\n"
                          "**Osmose** – Diffusion von Wasser durch eine semipermeable Membran zur höheren "
                          "Konzentration hin\n\n"
                          "**Turgor** – Innendruck der Zelle gegen die Zellwand, hält krautige Pflanzen aufrecht\n\n"
                          "**Plasmolyse** – Ablösen des Protoplasten von der Zellwand in konzentrierter Lösung\n",
        "Bio/Zelle.md": "# Zelle\n\nDie Zelle ist die kleinste Einheit des Lebens.\n",
        "Chem/Errors.md": "# Lab log\n\nOn the scale this reading shows as the following error:\n`E-04 overload`\n\n"
                          "It means the sample is heavier than the scale's range.\n"})
    answer = ask(engine, "Osmose")
    assert "semipermeable Membran" in answer and "Turgor" not in answer
    assert "heavier than the scale's range" in ask(engine, "What does the scale error `E-04 overload` mean?")


def test_what_is_a_term_is_answered_by_its_definition_alone(indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    # the German glossary defines the "Doppler-Effekt" asked about as the "Doppler effect" (k for c); the other note
    # only mentions it in passing, which says where it shows, not what it is
    engine = indexed_notes({
        "Physik/Glossar.md": "# Glossar Physik\n\n"
                             "**Doppler-Effekt** – Änderung der wahrgenommenen Frequenz, wenn sich Quelle und "
                             "Beobachter relativ zueinander bewegen\n\n"
                             "**Resonanz** – starkes Mitschwingen bei der Eigenfrequenz eines Systems\n",
        "Physik/Wellen.md": "# Wellen\n\n## Schall\n- ein Martinshorn klingt höher, wenn es näher kommt "
                            "(→ Doppler-Effekt, siehe [[Glossar]])\n- Schall braucht ein Medium\n"})
    answer = ask(engine, "What is the Doppler effect?")
    assert answer.startswith("**Glossar Physik**\n\n**Doppler-Effekt** –")
    assert "Martinshorn" not in answer


REVOLUTIONS = {
    "History/Revolutions.md": "# Revolutions\n\n## Phases of the French Revolution\n"
                              "1. moderate phase (1789–92): constitutional monarchy\n"
                              "2. radical phase (1792–94): the Terror\n3. Directory (1795–99)\n",
    "Bio/Mitose.md": "# Mitose\n\n## Phasen\n- Prophase, Metaphase, Anaphase und Telophase folgen aufeinander\n",
    **BERLIN_WALL,
}


def test_a_german_question_finds_the_english_passage_its_words_stem_otherwise_in(
        indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    """German reads "Revolution" as "revolution", the English index has "revolut": the search in German finds only
    the German note with "Phasen"; read as English, the question finds the note that has both its words."""
    vault = indexed_notes(REVOLUTIONS)
    pack, _ = build_pack(vault, "Welche Phasen hatte die Revolution?")
    assert [item.path for item in pack.items][:1] == ["History/Revolutions.md"]
    answer = answer_extractively(vault, pack.query).text
    assert "radical phase (1792–94)" in answer and "Telophase" not in answer


SPRINGS = {
    "Physics/Forces.md": "# Forces\n\n## Common forces\n| force | formula | direction |\n|---|---|---|\n"
                         "| elastic force | $F = -kx$ | back to the rest position |\n"
                         "| weight | $F_G = mg$ | down |\n",
    "Physics/Energy.md": "# Energy\n\n## Elastic energy\n$$E_{el} = \\frac{1}{2}kx^2$$\n"
                         "- stored in a stretched or compressed spring\n\n## Heat\n- energy of disordered motion\n",
}


def test_a_question_for_a_formula_is_answered_by_the_math_the_note_writes(
        indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    # the energy note never says "formula": its display math is one; the force table only has the word in its header
    answer = ask(indexed_notes(SPRINGS), "What's the formula for elastic energy?")
    assert answer.startswith("**Elastic energy**\n\n$$E_{el} = \\frac{1}{2}kx^2$$")
    assert "| elastic force |" not in answer


def test_a_question_whose_words_the_notes_say_only_apart_is_refused(
        indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    # "telephone" only in a database note's example, "invented" only in the textiles timeline: each passage is on
    # something else, so together they answer nothing
    engine = indexed_notes({
        "DB/Normal forms.md": "# Normal forms\n\n## First normal form\n- every attribute is atomic, no lists\n"
                              "- ✗ `telephone = '0176…, 030…'` in one cell\n",
        "History/Textiles.md": "# Textiles\n\n- 1764 – Hargreaves invented the spinning jenny\n"
                               "- 1785 – Cartwright invented the power loom\n"})
    assert ask(engine, "Who invented the telephone?") == ""
    assert "Hargreaves" in ask(engine, "Who invented the spinning jenny?")


def test_a_question_whose_words_one_note_says_in_two_sections_is_answered_from_it(
        indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    # "Parteien" only in the section on the constitution's weaknesses, "Reichstag" only in the one on its founding:
    # one note on the subject, its sections each saying a part, is on what the student asks in their own words
    engine = indexed_notes({
        "Geschichte/Weimar.md": "# Weimarer Republik\n\n## Entstehung\n- 9. Nov 1918: Scheidemann ruft vom "
                                "Reichstag die Republik aus\n\n## Schwächen der Verfassung\n"
                                "- Verhältniswahlrecht ohne Sperrklausel → viele Splitterparteien\n",
        "Bio/Zelle.md": "# Zelle\n\n- Mitochondrien = Kraftwerke der Zelle\n"})
    assert "ohne Sperrklausel" in ask(engine, "Warum saßen damals so viele winzige Parteien im Reichstag?")


def test_a_german_verb_made_from_a_noun_finds_the_noun(indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    # "formatiere" is "Format" with a verb's ending: the section on the date's format answers, not the one that
    # only shares "Datum"
    engine = indexed_notes({
        "Kalender.md": "# Kalender\n\n## Datum einfügen\nMit `Strg+D` fügst du das heutige Datum an der Cursorposition "
                       "ein.\n\n## Format\nDas Format eines Datums legst du in den Einstellungen unter "
                       "**Datumsformat** fest, etwa `TT.MM.JJJJ`.\n",
        "Aufgaben.md": "# Aufgaben\n\nEine Aufgabe schreibst du als `- [ ]` an den Anfang einer Zeile.\n"})
    answer = ask(engine, "Wie formatiere ich ein Datum?")
    assert answer.startswith("Das Format eines Datums") and "Strg+D" not in answer


@pytest.mark.parametrize("notes, question, open_question", [
    ({"Bio/Photosynthese.md": "# Photosynthese\n\n## Calvin-Zyklus (Dunkelreaktion)\n"
                              "- findet im **Stroma** statt\n- Rubisco fixiert CO₂\n\n"
                              "> [!question] Warum heißt der Calvin-Zyklus Dunkelreaktion, wenn er auch bei Licht "
                              "läuft?? → Tutor fragen\n"},
     "Wo läuft der Calvin-Zyklus ab?", "Tutor fragen"),
    ({"Art/Renaissance.md": "# Renaissance\n\n## Mannerism\n"
                            "Mannerism follows the High Renaissance, with elongated figures and artificial poses.\n\n"
                            "> [!question] Is Mannerism still part of the Renaissance? → ask in the tutorial\n"},
     "What is Mannerism in the Renaissance?", "ask in the tutorial"),
])
def test_the_students_open_question_closed_by_a_course_aside_is_no_evidence(
        indexed_notes: Callable[[dict[str, str]], Engine], notes: dict[str, str], question: str,
        open_question: str) -> None:
    answer = ask(indexed_notes(notes), question)
    assert answer and open_question not in answer
