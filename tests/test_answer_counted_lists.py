"""A question counting what it asks for ("What are the *four* stages of …?", "Aus welchen *vier* Instrumenten …?").

The count is the same in digits and words ("## The 4 types"); a list of that many things whose heading names them
leads a list of other things that names them ("Key terms"); things a paragraph announces by their count and gives
in the blocks after it, each opening with its ordinal ("[00:07:45] First, …", "Zweitens …"), are quoted with it;
where no quote gives that many, the answer says it is the nearest the notes come (issue 25).
"""

from __future__ import annotations

from collections.abc import Callable

from cognivault.answer.extractive import answer_extractively
from cognivault.answer.ordinals import asked_count, cardinal_of, opening_ordinal, says_count
from cognivault.answer.retrieval import build_pack
from cognivault.engine import Engine

NOTES = {
    "Immunology/Hypersensitivity.md": "---\nlang: en\n---\n# Hypersensitivity reactions\n\nHypersensitivity means the "
    "immune system damages tissue while reacting to harmless antigens.\n\n## Key terms\n\n"
    "- allergen: an antigen that triggers an allergy\n- mast cell: tissue cell with histamine\n"
    "- IgE: the antibody class of type I reactions\n- immune complex: antigen and antibody clumped\n"
    "- sensitisation: the first contact\n\n## The 4 types (Gell and Coombs)\n\n1. Type I – immediate, IgE-mediated\n"
    "2. Type II – cytotoxic\n3. Type III – immune-complex deposits\n4. Type IV – delayed, T-cell mediated\n",
    "Rome/Army.md": "---\nlang: en\n---\n# Roman army\n\n## Key terms\n\n- legion: about 5,000 soldiers\n"
                    "- cohort: a tenth of a legion\n- century: 80 men under a centurion\n"
                    "- triplex acies: the three battle lines of a legion\n\n## Battle lines\n\n"
                    "1. hastati – the youngest in front\n2. principes – men in their prime\n3. triarii – veterans\n",
    "Linguistics/Lecture 05.md": "---\nlang: en\n---\n# Lecture 05 – Pragmatics (Transcript)\n\n"
    "[00:04:10] The key idea comes from Paul Grice. Grice breaks the cooperative principle down and gives you four "
    "maxims.\n\n[00:07:45] First, the maxim of quantity: be as informative as required.\n\n"
    "[00:10:20] Second, the maxim of quality: do not say what you believe to be false.\n\n"
    "[00:13:05] Third, the maxim of relation: be relevant.\n\n"
    "[00:16:40] Fourth, the maxim of manner: be clear and orderly.\n\n[00:27:30] Next week: speech acts.\n",
    "Marketing/Preispolitik.md": "# Preispolitik\n\n## Marketing-Mix\n\nDer Marketing-Mix besteht aus vier "
    "Instrumenten.\n\nErstens die Produktpolitik: Sortiment, Qualität.\n\nZweitens die Preispolitik: Rabatte.\n\n"
    "Drittens die Distributionspolitik: Absatzwege.\n\nViertens die Kommunikationspolitik: Werbung.\n",
}


def test_counts_in_words_and_digits() -> None:
    assert cardinal_of("Four") == 4 and cardinal_of("vier") == 4 and cardinal_of("first") is None
    assert asked_count("What are the four stages of grief?", {"stages", "grief"}) == 4
    assert asked_count("Aus welchen vier Instrumenten besteht der Mix?", {"instrumenten", "mix"}) == 4
    assert asked_count("Kann ich zwei Tastenkombinationen zuweisen?", {"tastenkombinationen"}) is None
    assert says_count("## The 4 types", 4) and says_count("gives you four maxims", 4) and not says_count("1914", 4)
    assert opening_ordinal("[00:07:45] First, the maxim") == 1 and opening_ordinal("Zweitens die Preispolitik") == 2
    assert opening_ordinal("The maxim of manner") is None


def test_the_list_of_as_many_things_as_asked_leads(indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    engine = indexed_notes(NOTES)
    types = answer_extractively(engine, "What are the four types of hypersensitivity reactions?")
    assert types.answered and types.confidence != "low" and types.text.startswith("**The 4 types")
    lines = answer_extractively(engine, "What were the three battle lines of a legion?")
    assert lines.answered and lines.text.startswith("**Battle lines**\n\n1. hastati") and "cohort" not in lines.text


def test_things_announced_by_their_count_are_quoted_with_the_announcement(
        indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    engine = indexed_notes(NOTES)
    maxims = answer_extractively(engine, "What are the four maxims of Grice?")
    assert maxims.answered
    assert all(f"maxim of {name}" in maxims.text for name in ("quantity", "quality", "relation", "manner"))
    assert "speech acts" not in maxims.text
    mix = answer_extractively(engine, "Aus welchen vier Instrumenten besteht der Marketing-Mix?")
    assert mix.answered and "Produktpolitik" in mix.text and "Kommunikationspolitik" in mix.text


FILLER = "He went through clippings and court records of the period and asked the room to compare them. " * 7
FALL = "---\nlang: en\n---\n# Lecture 09 – Fall of the West (Transcript)\n\n[00:00:40] Why did the Western Empire " \
    "fall? Historians name three causes, one by one.\n\n" + "".join(
        f"[00:{minute}:10] {ordinal}, {cause}. {FILLER}\n\n" for minute, ordinal, cause in (
            (10, "First", "political instability with twenty emperors in fifty years"),
            (20, "Second", "economic decline through debased coinage"),
            (30, "Third", "pressure on the frontiers by Goths and Huns"))) + "[00:41:10] Read chapter four.\n"
LOANS = "---\nlang: en\n---\n# Borrowing\n\nLinguists distinguish three kinds of loanwords.\n\nThe first are " \
    "direct loans, like kindergarten.\n\nThe second are calques, translated part by part.\n\nThe third are " \
    "hybrids of a borrowed and a native part.\n"


def test_announced_things_are_found_over_long_paragraphs_and_after_an_article(
        indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    engine = indexed_notes({**NOTES, "Rome/Lecture 09.md": FALL, "Linguistics/Borrowing.md": LOANS})
    causes = answer_extractively(engine, "What are the three causes of the fall of the Western Empire?")
    assert all(cause in causes.text for cause in ("political instability", "economic decline", "the frontiers"))
    assert "compare them" not in causes.text  # a long paragraph's first sentence names the cause
    kinds = answer_extractively(engine, "What are the three kinds of loanwords?")
    assert all(kind in kinds.text for kind in ("direct loans", "calques", "hybrids"))


PHASES = "# Spracherwerb\n\n## Die 4 Phasen des Erstspracherwerbs\n\n" + "".join(
    f"- {phase}: {'Das Kind zeigt dabei typische Muster der Umgebungssprache, die man beobachten kann. ' * 2}\n"
    for phase in ("Lallphase", "Einwortphase", "Zweiwortphase", "Mehrwortphase"))


def test_a_long_list_of_as_many_things_as_asked_is_quoted_whole(
        indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    engine = indexed_notes({**NOTES, "Linguistik/Spracherwerb.md": PHASES})
    answer = answer_extractively(engine, "Welche vier Phasen hat der Erstspracherwerb?")
    assert all(phase in answer.text for phase in ("Lallphase", "Einwortphase", "Zweiwortphase", "Mehrwortphase"))


def test_how_many_things_a_question_asks_for_says_nothing_of_what_they_are(
        indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    # the vault writes "6" (a baby babbles at 6–10 months): the count is no word of the topic it knows
    engine = indexed_notes({**NOTES, "Linguistik/Lallen.md": "# Lallen\n\nMit ca. 6–10 Monaten lallt ein Kind.\n"})
    counted, _ = build_pack(engine, "What are the six ranks of a centurion?")
    uncounted, _ = build_pack(engine, "What are the ranks of a centurion?")
    assert counted.unknown == ["ranks"] and counted.unknown_share == uncounted.unknown_share


def test_no_list_of_as_many_things_as_asked_is_said(indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    engine = indexed_notes(NOTES)
    answer = answer_extractively(engine, "What are the three types of hypersensitivity reactions?")
    assert answer.confidence == "low" and answer.text.startswith("The notes give no list of three types")
