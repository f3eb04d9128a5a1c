"""Answers that quote what answers the question, not a collage of the note around it (issue 25: a held-out student
vault had 8 of 18 answers padded with the exam Q&A's next pairs or the transcript's next timestamps, and a near-miss
answered as sure from neighbouring pairs).

- a block quoted after the lead states a part of the question in its own words (or the heading of a section it alone
  fills), not only the words every block of its note shares from the note's title; a block around the quotes states
  a part they do not state yet;
- an exam pair whose question is the user's question word for word is its answer, not an example of asking it;
- the next entry of a series (a transcript's next timestamp, an exam's next question-answer pair) is no part of the
  one before, so it is not quoted as what the quoted one leads to;
- an answer is ``high`` only where one quoted block states most of the question itself: two blocks each stating a
  part ("E[X] = np" of the binomial distribution, "Var(X) = E[X²] − E[X]²" in general) are no answer to the variance
  of a binomial distribution, however much of the question they state together.
"""

from __future__ import annotations

from collections.abc import Callable

from cognivault.answer.confidence import HIGH_RULE, HighRule, QuoteMeasures, assess, cap_by_citations
from cognivault.answer.evidence import Evidence, EvidencePack
from cognivault.answer.extractive import _same_series, answer_extractively
from cognivault.engine import Engine

EXAM = {
    "Statistik/Stochastik exam prep.md": (
        "# Stochastik exam prep\n\n"
        "Questions from old exams with the answers the tutor accepted.\n\n"
        "## Q&A\n\n"
        "**Q: How do you compute a conditional probability with Bayes?**\n"
        "A: Bayes' formula turns P(B|A) around: P(A|B) = P(B|A) · P(A) / P(B), the prior P(A) weighted by the "
        "likelihood.\n\n"
        "**Q: Why is the birthday paradox surprising?**\n"
        "A: Already 23 people give a probability above one half that two share a birthday.\n\n"
        "**Q: What does the law of large numbers say?**\n"
        "A: The mean of many independent trials approaches the expected value.\n\n"
        "**Q: What is the expected value of a geometric distribution?**\n"
        "A: For X ~ Geo(p) the expected value is E[X] = 1 / p trials until the first success.\n\n"
        "**Q: How is the variance defined?**\n"
        "A: Var(X) = E[X²] − E[X]², the mean squared deviation from the expected value.\n"),
    "Informatik/Vorlesung 4 Graphen (Transkript).md": (
        "# Vorlesung 4 – Graphen (Transkript)\n\n"
        "[00:01:10] Gut, fangen wir an, heute geht es um Graphen und ihre Darstellung.\n\n"
        "[00:03:25] Eine Adjazenzmatrix speichert für jedes Knotenpaar, ob eine Kante besteht; sie braucht "
        "quadratisch viel Speicher in der Zahl der Knoten.\n\n"
        "[00:06:50] Die Abgabe für das Graphen-Übungsblatt ist am Freitag, bitte im Portal hochladen.\n\n"
        "[00:09:05] Eine Adjazenzliste speichert zu jedem Knoten nur seine Nachbarn und ist für dünne Graphen "
        "sparsamer.\n"),
    "Algorithms/Lecture 9 shortest paths (transcript).md": (
        "# Lecture 9 – shortest paths (transcript)\n\n"
        "[00:02:10] Dijkstra's algorithm finds shortest paths from one source when no edge weight is negative; it "
        "always settles the unvisited node with the smallest tentative distance.\n\n"
        "[00:05:40] With a binary heap as the priority queue Dijkstra runs in O((V + E) log V), fine for sparse "
        "road networks.\n"),
}


def test_an_exam_pair_is_quoted_without_the_next_pairs(indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    answer = answer_extractively(indexed_notes(EXAM), "What is Bayes' formula for a conditional probability?")
    assert answer.answered and "P(A|B) = P(B|A)" in answer.text
    assert "birthday" not in answer.text and "large numbers" not in answer.text


def test_a_transcripts_next_timestamp_is_not_quoted_for_its_topic_word(
        indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    answer = answer_extractively(indexed_notes(EXAM), "Wie viel Speicher braucht eine Adjazenzmatrix?")
    assert answer.answered and "quadratisch viel Speicher" in answer.text
    assert "Übungsblatt" not in answer.text and "fangen wir an" not in answer.text


def test_a_block_around_the_quote_saying_only_what_it_states_is_left_out(
        indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    answer = answer_extractively(indexed_notes(EXAM), "How fast is Dijkstra with a binary heap?")
    assert answer.answered and "O((V + E) log V)" in answer.text
    assert "tentative distance" not in answer.text  # it names Dijkstra too, but says nothing of the heap


def test_a_pair_per_part_of_the_question_is_not_a_sure_answer(
        indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    engine = indexed_notes(EXAM)
    near_miss = answer_extractively(engine, "What is the variance of a geometric distribution?")
    assert near_miss.confidence != "high"
    stated = answer_extractively(engine, "What is the expected value of a geometric distribution?")
    assert stated.answered and "E[X] = 1 / p" in stated.text and stated.confidence == "high"


def test_a_sure_answer_pieced_from_blocks_is_capped_with_its_reason() -> None:
    pack = EvidencePack(question_terms=["variance", "binomial"], term_weights={"variance": 1.0, "binomial": 1.0})
    pack.add(Evidence("", "c1", "a.md", "A", [], 1, 2, "", "variance binomial", "", 1.0,
                      terms=frozenset({"variance", "binomial"})))
    whole = assess(pack)
    assert whole.label == "high"
    pieced = cap_by_citations(whole, pack, ["S1"], QuoteMeasures(1.0, 1.0, block_share=0.5))
    assert pieced.label == "medium" and "no quoted block states more than 50%" in pieced.reason
    assert pieced.to_dict()["block_share"] == 0.5


def test_high_needs_one_block_stating_most_of_the_question() -> None:
    measures = {"coverage": 1.0, "best": 1.0, "answer_share": 1.0, "lead_share": 1.0}
    assert not HIGH_RULE.holds({**measures, "block_share": HIGH_RULE.block / 2})
    assert HIGH_RULE.holds({**measures, "block_share": 1.0})
    assert HighRule(answer=0.5, lead=0.5).holds({**measures, "block_share": 0.0})


def test_entries_of_one_series_open_with_the_same_marker() -> None:
    assert _same_series("[00:02:10] Dijkstra takes …", "[00:05:40] With a binary heap …")
    assert _same_series("**Q: What is Bayes?**\nA: …", "**Q: Why 23 people?**\nA: …")
    assert _same_series("**[02:15]** Hypertension …", "**[05:40]** ACE inhibitors …")
    assert not _same_series("On iOS, this message displays as the following error:", "It means exactly the same")
    assert not _same_series("1. Open settings", "→ in short: SYN, SYN-ACK, ACK")


STUDENT_ASIDES = {
    "Geschichte/Cold War.md": (
        "# Cold War\n\n"
        "## Berlin Blockade\n"
        "In 1948–49 the Soviets blocked all land routes to West Berlin. The Western allies answered with the "
        "**Berlin Airlift**, flying in food and coal for almost a year.\n\n"
        "> [!warning] Dates\n> Blockade began June 1948, ended May 1949. Don't mix up with the Berlin Wall (1961)!\n\n"
        "(was the Comecon the Soviet answer to this? ask in tutorial)\n\n"
        "## Marshall Plan\n"
        "The European Recovery Program gave about 13 billion dollars to rebuild Western Europe after the war.\n"),
    "Literatur/Epochen.md": (
        "# Epochen\n\n"
        "## Sturm und Drang\n"
        "Jugendliche Protestbewegung gegen die Vernunftbetonung der Aufklärung. Im Mittelpunkt stehen **Gefühl, "
        "Natur und das Genie**.\n\n"
        "(Werther hab ich in der 11 gelesen, fand ich furchtbar anstrengend)\n\n"
        "## Weimarer Klassik\n"
        "Beginnt mit Goethes Italienreise 1786. Ideal ist die Harmonie von Gefühl und Vernunft.\n\n"
        "> [!warning] Klausur\n> Klassik endet mit Schillers Tod 1805 – Jahreszahl merken!\n\n"
        "TODO: Gedichtvergleich Prometheus üben\n"),
}


def test_an_answer_stops_before_the_students_aside_and_callout(
        indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    engine = indexed_notes(STUDENT_ASIDES)
    airlift = answer_extractively(engine, "How did the Western allies respond to the Berlin Blockade?")
    assert airlift.answered and "Berlin Airlift" in airlift.text
    assert "[!warning]" not in airlift.text and "Comecon" not in airlift.text
    genie = answer_extractively(engine, "Was steht im Mittelpunkt des Sturm und Drang?")
    assert genie.answered and "Genie" in genie.text and "Werther" not in genie.text
    klassik = answer_extractively(engine, "Womit beginnt die Weimarer Klassik?")
    assert klassik.answered and "Italienreise" in klassik.text and "[!warning]" not in klassik.text


def test_a_callout_stating_what_is_asked_is_still_quoted(indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    engine = indexed_notes(STUDENT_ASIDES)
    dates = answer_extractively(engine, "When did the Berlin Blockade end?")
    assert dates.answered and "May 1949" in dates.text


def test_an_aside_or_todo_naming_a_thing_is_no_answer_on_it(
        indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    engine = indexed_notes(STUDENT_ASIDES)
    for question in ("What was the Comecon?", "Was besagt der Gedichtvergleich Prometheus?"):
        answer = answer_extractively(engine, question)
        assert not answer.answered, answer.text
