"""The shapes offline study notes are made from (issue 17): each shape in a note of its own, the cards and
questions it gives as the plugin and the scorer read them, and the validator's verdict on them.

Notes of our own, indexed for real (keyword index), generated with no model."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from cognivault.engine import Engine
from cognivault.study.extract import all_facts, form_of
from cognivault.study.mindmap import parse_mindmap
from cognivault.study.quiz import parse_quiz
from cognivault.study.sources import _make_sources
from cognivault.study.validate import cloze_problems, mask_answer_words, question_problems
from test_study_extractive import assert_cards_valid, cards_of, generate, indexed_vault

TROUBLESHOOTING = """# Publish help

This page lists the common problems you may run into when you publish a site.

## Syncing tools and services

Obsidian offers an official service called Obsidian Sync which provides encrypted syncing for small teams.

## Obsidian Sync for teams

With Obsidian Sync you can share a vault with the people you work with every day.

## Publishing notes

**I am receiving a hash error when trying to publish a note.**

A community plugin may be changing the modified time of the file. Please report it to the plugin developer.

**I am receiving a network error on a very large site.**

The database of the site needs a check. Please contact the support team for assistance.

## CSS and themes

**My CSS in my configuration folder does not work on Publish. Why?**

Publish does not read from the configuration folder. Instead, create a `publish.css` file in the top-level folder.

**My CSS does not look the same on Publish as in the app. Why?**

The CSS of Publish is not the same as in the app. Develop your theme for Publish from the ground up.

**Can I use a community theme on my site?**

Yes, in two steps:

1. Download the theme from the community list.
2. Copy its CSS into the `publish.css` file.

## Migration

**Always back up your vault before you migrate it to a new region.**

When you migrate a remote vault your data will be replaced. This means:

1. Remote data is removed from the servers of the service.
2. The version history of the vault is lost.
"""

NOTES = {
    "Help/Sync for teams.md": """# Sync for teams

Obsidian works online and offline and gives your team total control over its data.

## Frequently asked questions

**Can I purchase one Sync subscription and use it for my team?**
If you are a team of one person, yes, you can use the subscription for that member. Larger teams need one per member.

**Do you have an on-premises Sync server?**

Obsidian Sync does not have an on-premises solution at this time.

**I am receiving a hash error.**

A community plugin may be changing the file's modified time.

## Images

When uploading images directly to Publish, it's best to use `.svg`, `.webp`, and `.png` formats.

## Export

Save every picture as a `.png` file before you import the folder into the vault.
Save each animation as a `.webp` file so that it keeps playing in the note.

## Tax exemption

1. Log into your Obsidian account.
2. Navigate to the Billing section.
3. In the pop-up window:
   - Enter the number of your exemption certificate.
4. Select Save to finish.
""",
    "Help/File explorer.md": """---
description: Manage the files and folders of your vault
---
File explorer is a core plugin that lets you manage the files and folders inside your vault.

## Create a new note

To create a new note in the default location:

1. Click **New note** ![[lucide-pen-line.svg#icon]] at the top of the File explorer.
2. Type the name of the note, and then press Enter.

## Pin a command

1. Open **Settings**.
2. In the sidebar, click **Command palette** under **Plugin options**.
3. Next to **New pinned command**, click **Select a command**.

## Open the palette

Press `Ctrl+P` to open the Command palette. You can also open it from the ribbon ![[Ribbon#Actions]] on the left.
Typing "scf" finds the **S**ave **c**urrent **f**ile command in the list of commands.

## Embed a base

You can embed base files in any other note using the `![[File.base]]` syntax. It also accepts a view name
after `#` in the link. To turn it off, open **Appearance** in the settings of the vault.
Instead, you can create a `publish.css` file in the top-level folder of the vault.

## Create a new base

**Command palette:**

1. Open the **Command palette** from the ribbon.
2. Select
   - **Bases: Create new base** to create a base in the same folder as the active file.
   - **Bases: Insert new base** to create a base and embed it in the current file.

**Ribbon:**

1. Right-click the folder you want to create the base in.
2. Select **New base** in the menu.

## Headless

Obsidian Headless **(open beta)** is a command line client for the services of Obsidian.
""",
    "Help/Import from Craft.md": """# Import from Craft

Obsidian lets you migrate your notes from Craft into durable Markdown files.

## Export your data from Craft

Open the Craft app on your desktop computer and export every document as Markdown, then wait until it is done.

1. Go to the "Organize", or "All Documents" view.
2. Click on the three-dot menu.
3. Select the Export option.
4. Choose Markdown.

## Import your data

Follow the [[Import Markdown files]] instructions.

## Troubleshooting

Craft Docs uses non-standard syntax for certain links, which the importer turns into plain text.
""",
    "Help/Developers.md": """If you are a developer you can contribute to Obsidian.

## Plugins and themes

You can develop community plugins and themes using TypeScript and CSS, and learn more in the documentation online.

## Documentation

To help improve the documentation, submit a pull request to the repository of the help site on GitHub today.
""",
    "Help/Pigments.md": """# Pigments

Leaves hold several pigments that absorb light of different colours.

## Chlorophylls

Chlorophyll a is the main pigment of the reaction centres; chlorophyll b is an accessory pigment of the antenna.

## Stroma

The stroma is the fluid around the thylakoids, where the **Calvin cycle** fixes carbon dioxide.

## Turns of the cycle

| Molecule | Amount |
| --- | --- |
| CO₂ fixed | 3 |
| ATP used | 9 |
| NADPH used | 6 |
""",
    "Hilfe/Synchronisierung.md": """---
lang: de
---
# Synchronisierung

Obsidian speichert deine Notizen als Dateien auf deinem Gerät.

## Häufige Fragen

**Warum solltest du deine Daten sichern?**
Obsidian speichert deine Notizen **lokal** auf deinem Gerät, nicht in der Cloud. Die Daten gehören vollständig dir.

## Einstellungen

Du kannst die Sprache der Bedienung unter **Einstellungen** → Allgemein ändern, bevor du einen Vault erstellst.
Um es zu deaktivieren, öffne **Darstellung** und schalte die Option aus.
Wenn sie alle in einer Reihe stehen, kannst du **Umschalt-Klick** für die ganze Reihe verwenden.
Stattdessen sind die Aktionen der Werkzeugleiste im Menü der Navigationsleiste verfügbar.

## Dateien löschen

Um eine Notiz zu löschen, wähle **Weitere Optionen** oben rechts in einer aktiven Notiz.
""",
}


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    with indexed_vault(tmp_path_factory.mktemp("shapes"), NOTES) as engine:
        yield engine


def section_openings(engine: Engine, note: str) -> set[tuple[str, str]]:
    """(section, its opening text) as the extractive reader reads the note's passages: no card asks "what does the
    note say under …" (a layout prompt), but a section's own text is what its facts and citations stand on."""
    sources = _make_sources(engine, engine.store.catalog.chunks_of(note), budget=False)
    return {(fact.term, fact.definition) for fact in all_facts(sources, "en") if fact.kind == "heading"}


def cards(engine: Engine, note: str) -> list[tuple[str, str, str]]:
    found = cards_of(generate(engine, "flashcards", note, count=40)[1])
    assert_cards_valid(found, NOTES[note])  # the validator passes every card written
    return found


def test_a_question_in_bold_is_asked_with_the_answer_below_it(engine: Engine) -> None:
    found = cards(engine, "Help/Sync for teams.md")
    assert ("qa", "Can I purchase one Sync subscription and use it for my team?",
            "If you are a team of one person, yes, you can use the subscription for that member. Larger teams "
            "need one per member.") in found  # the answer on the lines below, two sentences
    assert ("qa", "Do you have an on-premises Sync server?",
            "Obsidian Sync does not have an on-premises solution at this time.") in found  # in the next paragraph
    assert not any("hash error" in front for _, front, _ in found)  # a lone statement in bold asks nothing
    assert not any("under “Frequently asked questions”" in front for _, front, _ in found)  # not twice
    german = cards(engine, "Hilfe/Synchronisierung.md")
    assert ("qa", "Warum solltest du deine Daten sichern?", "Obsidian speichert deine Notizen lokal auf deinem "
            "Gerät, nicht in der Cloud. Die Daten gehören vollständig dir.") in german


def test_icons_are_decoration_and_a_section_opening_with_steps_gets_them_as_its_card(engine: Engine) -> None:
    found = cards(engine, "Help/File explorer.md")
    assert ("qa", "“File explorer” › “Create a new note”: which steps, in order?",
            "To create a new note in the default location: Click New note at the top of the File explorer; "
            "Type the name of the note, and then press Enter.") in found  # no step left out for its icon
    assert ("qa", "“File explorer” › “Pin a command”: which steps, in order?",
            "Open Settings; In the sidebar, click Command palette under Plugin options; Next to New "
            "pinned command, click Select a command.") in found
    # the steps' card asks each step already: no cloze on one of them beside it (a duplicate within the note)
    assert not [front for kind, front, _ in found if kind == "cloze" and "top of the File explorer" in front]


def test_an_embed_takes_its_sentence_not_its_paragraph(engine: Engine) -> None:
    found = cards(engine, "Help/File explorer.md")
    clozes = [front for kind, front, _ in found if kind == "cloze"]
    assert "Press ==`Ctrl+P`== to open the Command palette." in clozes
    assert not any("ribbon on the left" in front + back for _, front, back in found)


def test_a_sentence_may_open_with_you_but_not_lean_on_the_one_before(engine: Engine) -> None:
    found = cards(engine, "Help/File explorer.md")
    clozes = [front for kind, front, _ in found if kind == "cloze"]
    assert "You can embed base files in any other note using the ==`![[File.base]]`== syntax." in clozes
    assert not any("It also accepts" in c or "To turn it off" in c for c in clozes)
    assert "Instead, you can create a ==`publish.css`== file in the top-level folder of the vault." in clozes
    german = [front for kind, front, _ in cards(engine, "Hilfe/Synchronisierung.md") if kind == "cloze"]
    assert "Um eine Notiz zu löschen, wähle ==Weitere Optionen== oben rechts in einer aktiven Notiz." in german
    assert not any("Um es zu deaktivieren" in c or "Wenn sie alle" in c for c in german)
    assert not any("Stattdessen?" in front for _, front, _ in cards(engine, "Hilfe/Synchronisierung.md"))  # no term


def test_a_label_in_bold_over_a_list_gets_its_steps(engine: Engine) -> None:
    found = cards(engine, "Help/File explorer.md")
    assert ("qa", "“File explorer” › “Create a new base” › “Ribbon”: which steps, in order?",
            "Right-click the folder you want to create the base in; Select New base in the menu.") in found
    # a list whose second step goes on in nested items would be cut after one step: no card
    assert not any("› “Command palette”" in front for _, front, _ in found)


def test_labels_remarks_and_steps_are_no_terms(engine: Engine) -> None:
    found = cards(engine, "Help/File explorer.md")
    everything = "\n".join(f"{front}::{back}" for _, front, back in found)
    assert "**Command palette:**." not in everything  # a label over a list is no section opening
    assert "“Select”" not in everything  # "2. Select" with named options below is a step, not a term
    assert "==(open beta)==" not in everything  # a remark in bold
    assert "urrent" not in everything.replace("**S**ave **c**urrent **f**ile", "")  # letters in bold are no term
    assert "vault File explorer" not in everything  # the description line is a sentence of its own: its card,
    title = [back for _, front, back in found if front == "What is “File explorer” about?"]
    assert title == [], title  # "Manage the files and folders of your vault.", says what "What is file explorer?" does


def test_quiz_questions_from_the_new_shapes_are_fair(engine: Engine) -> None:
    note = "Help/File explorer.md"
    questions = parse_quiz(generate(engine, "quiz", note, count=20)[1]).questions
    for question in questions:
        assert not question_problems(question.question, question.options, question.correct_index, NOTES[note])
        assert "scf" not in question.question and "(open beta)" not in question.options
    stems = [q.question for q in questions]
    assert "Which term completes the sentence: “Click … at the top of the File explorer”?" in stems, stems


def test_a_small_section_carried_into_the_next_leaves_it_its_own_text(engine: Engine) -> None:
    note = "Help/Import from Craft.md"
    carried = [c for c in engine.store.catalog.chunks_of(note) if c.heading_path[-1:] == ("Troubleshooting",)]
    assert carried and carried[0].text == ("## Import your data\n\nFollow the [[Import Markdown files]] instructions."
                                           "\n\n## Troubleshooting\n\nCraft Docs uses non-standard syntax for certain "
                                           "links, which the importer turns into plain text."), \
        "the chunker carries the small section and keeps both headings"
    openings = section_openings(engine, note)
    assert ("Troubleshooting",
            "Craft Docs uses non-standard syntax for certain links, which the importer turns into plain text.") \
        in openings
    assert ("Import your data", "Follow the Import Markdown files instructions.") in openings
    assert not [front for _, front, _ in cards(engine, note) if "say under" in front]  # no layout prompt


def test_an_option_going_by_the_short_name_the_stem_spells_out_is_given_away() -> None:
    # "International Phonetic Alphabet, …" in the stem and "IPA?" among the options: the initials point at it
    spelled = "Which question does the note answer like this: “International Phonetic Alphabet, one symbol per sound”?"
    assert "answer_in_stem" in question_problems(spelled, ["IPA?", "Minimal pair?", "Allophone?"], 0, "")
    german = "Welcher Begriff gehört zu „Bürgerliches Recht, seit 1900 im Bürgerlichen Gesetz Buch“?"
    assert "answer_in_stem" in question_problems(german, ["BGB", "StGB", "HGB"], 0, "", "de")
    # initials that are no run of capitalised words say nothing: "does not answer" is no "DNA"
    unspelled = "Which molecule does not answer to the enzyme, unlike the Ribosome?"
    assert "answer_in_stem" not in question_problems(unspelled, ["DNA", "RNA", "ATP"], 0, "")
    # a short name every option goes by (or none) points at no one option
    assert "answer_in_stem" not in question_problems(spelled, ["IPA chart?", "IPA vowels?", "IPA symbols?"], 0, "")


def test_a_cloze_whose_hidden_text_stays_in_its_sentence_is_rejected() -> None:
    source = "A site with the ID `my-site` is available from publish.obsidian.md/my-site."
    assert cloze_problems("A site with the ID ==`my-site`== is available from publish.obsidian.md/my-site.",
                          source) == ["answer_in_stem"]
    source = "Press `Ctrl+P` (or `Cmd+P` on macOS) to open the palette."
    assert cloze_problems("Press ==`Ctrl+P`== (or `Cmd+P` on macOS) to open the palette.", source) == []


def test_no_wrong_option_is_shown_in_its_stem(engine: Engine) -> None:
    questions = parse_quiz(generate(engine, "quiz", "Help/Sync for teams.md", count=20)[1]).questions
    assert questions
    # "it's best to use `.svg`, `.webp`, and `.png`" gives no gap: one of formats named side by side, nothing said of
    # it alone (extract.fair_gap), whose cloze card any of the three would fill
    assert not [q for q in questions if "it's best to use …, `.webp`, and `.png`" in q.question]
    for question in questions:
        wrong = [o for i, o in enumerate(question.options) if i != question.correct_index]
        assert not any(option in question.question for option in wrong), (question.question, wrong)


def test_a_key_joined_by_a_hyphen_is_a_shortcut_among_shortcuts() -> None:
    assert [form_of(t) for t in ("`Alt-Click`", "`Umschalt-Klick`", "`Ctrl++`", "`Ctrl+P`")] == ["shortcut"] * 4
    assert form_of("`Alt-text`") == "code"  # a hyphenated word, no key


def test_a_numbered_list_asks_which_step_comes_next_among_its_own_steps(engine: Engine) -> None:
    note = "Help/Import from Craft.md"
    questions = parse_quiz(generate(engine, "quiz", note, count=20)[1]).questions
    steps = ['Go to the "Organize", or "All Documents" view', "Click on the three-dot menu",
             "Select the Export option", "Choose Markdown"]
    asked = {q.question: q for q in questions if "which step comes right after" in q.question}
    question = asked["“Import from Craft”: which step comes right after “Click on the three-dot menu”?"]
    assert question.options[question.correct_index] == "Select the Export option"
    assert sorted(question.options) == sorted(s for s in steps if s != "Click on the three-dot menu")
    first = asked['“Import from Craft”: which step comes right after “Go to the "Organize", or "All Documents" view”?']
    assert first.options[first.correct_index] == "Click on the three-dot menu"  # quotes inside a step kept
    for question in asked.values():
        assert not question_problems(question.question, question.options, question.correct_index, NOTES[note])
    found = cards(engine, note)  # a card asks it too, after every other kind of card
    after = [(front, back) for _, front, back in found if "comes right after" in front]
    assert after == [(f"“Import from Craft” › “Export your data from Craft”: what comes right after “{before}”?",
                      f"{step}.") for before, step in zip(steps, steps[1:], strict=False)]
    assert [front for _, front, _ in found[len(found) - len(after):]] == [front for front, _ in after]
    others = parse_quiz(generate(engine, "quiz", "Help/Sync for teams.md", count=20)[1]).questions
    assert not any("comes right after" in q.question for q in others)  # a step that goes on below is no option


def test_a_short_opening_carried_into_the_first_section_stays_the_notes_opening(engine: Engine) -> None:
    note = "Help/Developers.md"
    first = engine.store.catalog.chunks_of(note)[0]
    assert first.heading_path == ("Plugins and themes",) and first.text.startswith("If you are a developer")
    openings = section_openings(engine, note)
    assert ("Developers", "If you are a developer you can contribute to Obsidian.") in openings
    assert ("Plugins and themes", "You can develop community plugins and themes using TypeScript and CSS, and learn "
            "more in the documentation online.") in openings


def test_a_problem_stated_in_bold_is_a_card_and_a_quiz_hides_only_the_words_that_give_its_answer_away(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """A troubleshooting note states its problems in bold with the fix below (the help vault's "Troubleshoot
    Obsidian Publish" had 3 cards from 4 sections); a quoted opening hides only the words no wrong option shares."""
    note = "Publish/Publish help.md"
    neighbour = """# Publish setup

## Questions

**Can I move files from one folder to another within the navigation?**

Yes, drag them in the navigation of the site settings.

**Can I use my own domain name for the site?**

Yes, a custom domain is set in the site options.

## Files

Add a `netlify.toml` file to the root of the repository before you deploy the site.
Keep a `vercel.json` file next to it when the site is hosted on another service.
"""
    notes = {note: TROUBLESHOOTING, "Publish/Publish setup.md": neighbour}
    with indexed_vault(tmp_path_factory.mktemp("troubleshooting"), notes) as engine:
        found = cards_of(generate(engine, "flashcards", note, count=20)[1])
        questions = parse_quiz(generate(engine, "quiz", note, count=20)[1]).questions
    assert_cards_valid(found, TROUBLESHOOTING)
    assert ("qa", "What does “Publish help” say about “I am receiving a hash error when trying to publish a note”?",
            "A community plugin may be changing the modified time of the file. Please report it to the plugin "
            "developer.") in found
    assert len(found) >= 4
    assert not any("back up" in front or "community theme" in front for _, front, _ in found), found  # a lone
    assert not any(back.endswith("This means.") for _, _, back in found), found  # warning; an answer cut before a list
    stems = [q.question for q in questions]
    for question in questions:
        assert not question_problems(question.question, question.options, question.correct_index, TROUBLESHOOTING,
                                     "en")
    assert not [stem for stem in stems if "begins like this" in stem], stems  # no question on the note's layout
    # the sentence a cloze asks is not quoted again as the answer to "which question does the note answer"
    assert sum("create a" in stem and "top-level folder" in stem for stem in stems) == 1, stems
    assert len(questions) >= 3


def test_a_masked_word_takes_its_hyphenated_compound_with_it() -> None:
    sentence = "The enzyme attaches CO₂ to the five-carbon sugar, and the product splits."
    assert mask_answer_words(sentence, "Carbon fixation", "en") == \
        "The enzyme attaches CO₂ to the … sugar, and the product splits."
    assert mask_answer_words("Indem ein `base`-Quelltext-Block verwendet wird.", "Quelltext-Block einbetten", "de") \
        == "Indem ein … verwendet wird."


def test_a_quiz_quotes_each_sentence_of_the_note_once(tmp_path_factory: pytest.TempPathFactory) -> None:
    """A sentence asked as a definition or a cloze is not quoted again as a section's opening, nor is a section
    opening with list items already asked about ("The … is the fluid around the thylakoids" after "Which term is
    described here: “The fluid around the thylakoids”?")."""
    notes = {"Cells/Chloroplast.md": """# Chloroplast

Chloroplasts are the organelles in which photosynthesis takes place.

## Stroma

The stroma is the fluid around the thylakoids inside the envelope.

## Thylakoids

Inside lies a system of flattened membrane sacs, the **thylakoids**, stacked into grana.

## Envelope

Two membranes, the outer and the inner membrane, enclose the chloroplast.

## Stages

- **Glycolysis** in the cytoplasm: glucose is split into two molecules of pyruvate.
- **Link reaction** in the matrix: pyruvate becomes acetyl-CoA and carbon dioxide is released.
- **Krebs cycle** in the matrix: acetyl groups are oxidised to carbon dioxide.
""", "Cells/Mitochondrion.md": """# Mitochondrion

The matrix is the fluid inside the inner membrane of a mitochondrion.
The cristae are the folds of the inner membrane that carry the transport chain.
A ribosome is the particle that makes the proteins of the cell from amino acids.

## Parts

Each cell holds many **mitochondria**, and every one of them has its own ring of DNA.
Proteins cross the membrane through the **porins** that sit in the outer membrane.
Every cell keeps its genes in the **nucleus** behind a double envelope.
"""}
    with indexed_vault(tmp_path_factory.mktemp("quoted"), notes) as engine:
        questions = parse_quiz(generate(engine, "quiz", "Cells/Chloroplast.md", count=20)[1]).questions
    stems = [q.question for q in questions]
    assert sum("fluid around the thylakoids" in stem for stem in stems) <= 1, stems
    assert sum("flattened membrane sacs" in stem for stem in stems) <= 1, stems
    assert sum("split into two molecules of pyruvate" in stem for stem in stems) == 1, stems
    assert not any("begins like this" in stem for stem in stems), stems  # a section's layout is not asked


def test_a_definition_ends_where_a_semicolon_starts_another_clause(engine: Engine) -> None:
    found = cards(engine, "Help/Pigments.md")
    assert ("qa", "What is chlorophyll a?", "The main pigment of the reaction centres.") in found, found


def test_a_mind_map_leaf_never_repeats_its_heading(engine: Engine) -> None:
    """"Stroma" › "The stroma" (the section's definition) said nothing the heading does not."""
    root = parse_mindmap(generate(engine, "mindmap", "Help/Pigments.md")[1])["root"]
    stroma = next(node for node in root["children"] if node["label"] == "Stroma")
    assert [leaf["label"] for leaf in stroma["children"]] == ["Calvin cycle"], stroma


def test_a_table_cell_is_the_answer_as_the_table_shows_it(engine: Engine) -> None:
    found = cards(engine, "Help/Pigments.md")
    assert ("qa", "Turns of the cycle: “ATP used” – Amount?", "9") in found, [c for c in found if "Amount" in c[1]]
