"""A word the vault never uses weighs by how rare it is in its language (issue 25: answerable questions refused on
unseen notes for everyday words).

A small vault lacks most everyday words: "Why do all the lights go off when a *single* bulb *breaks*?" was refused
with "The vault doesn't say anything about “single”, “breaks”" although the note on circuits says why all bulbs go
dark. Such a word now weighs little (``word_rarity.rarity``); a rare one (a term of a subject, "Chandrasekhar")
weighs all an unseen word does, a question made of words the vault never uses stays refused however ordinary they
are, and so does one whose common word the vault lacks beside the one word of it the quotes state. A word of a note's
title, aliases or tags is the vault's subject, though its text may never say it ("What is a fuse in *electronics*?"
of a note tagged #electronics).
"""

from __future__ import annotations

from typing import Any

import pytest

from answer_support import ask_offline as ask
from answer_support import make_vault
from cognivault.engine import Engine
from cognivault.index.word_rarity import LEAST, rarity

NOTES = {
    "Astro/stars.md": """---
tags: [astronomy]
---
# The life cycle of stars

A star forms when a cloud of gas and dust (a nebula) collapses under its own gravity. When the core becomes hot
enough, hydrogen fuses into helium and the star enters the main sequence, where it spends about 90 % of its life.
Our Sun has been on the main sequence for about 4.6 billion years and will stay there for roughly 5 billion more.

## The end of a star
When the hydrogen in the core runs out, a star like the Sun swells into a red giant and later sheds its outer
layers as a planetary nebula; the remaining core is a white dwarf. Stars with more than about eight solar masses
end in a supernova explosion and leave a neutron star or a black hole.

## Light years
A light year is the distance light travels in one year, about 9.46 trillion kilometres. The nearest star after the
Sun, Proxima Centauri, is 4.24 light years away.
""",
    "Physics/circuits.md": """---
tags: [electronics, physics]
---
# Simple electric circuits

## Ohm's law
Ohm's law states that the voltage across a resistor equals the current times the resistance: U = R · I. Doubling
the voltage across a fixed resistor doubles the current.

## Series and parallel
In a series circuit the same current flows through every component and the resistances add up. If one bulb in a
series string fails, the circuit is broken and all bulbs go dark. In a parallel circuit every branch has the full
voltage of the source; the total resistance is smaller than the smallest branch resistance. Household sockets are
wired in parallel, so each device gets 230 V.

## Fuses
A fuse protects a circuit from too much current: its thin wire melts when the current exceeds its rating, which
opens the circuit before the cables overheat.
""",
    "Code/javascript-variables.md": """---
tags: [javascript, programming]
---
# Variables and references in JavaScript

## let, const and var
`let` declares a block-scoped variable that can be reassigned. `const` declares a block-scoped binding that cannot
be reassigned, although an object it refers to can still be changed. `var` is function-scoped and hoisted; modern
code avoids it.

## Objects are shared by reference
Primitive values (numbers, strings, booleans) are copied when assigned. Objects and arrays are not: after `const b
= a`, both names refer to the same object, so a change made through `b` is visible through `a` as well. To get an
independent copy, use `structuredClone(a)` or the spread syntax `{...a}` for a shallow copy.

## Equality
`===` compares without type conversion, `==` converts types first, so `0 == ""` is true. Prefer `===`.
""",
    "Bio/vaccines.md": """---
tags: [immunology]
---
# Vaccination and antibodies

Vaccines train the adaptive immune system without causing the disease. They contain an antigen: a weakened or
inactivated pathogen, a protein subunit, or mRNA that makes the body's cells produce the protein.

## Primary and secondary response
After the first contact, B cells need about one to two weeks to produce enough antibodies (primary response).
Memory cells remain in the blood for years. At a second contact with the same antigen, the secondary response
starts within days and produces far more antibodies. This is why a booster shot is given months after the first
dose.

## Herd immunity
When a large enough share of a population is immune, the pathogen can no longer spread, which also protects people
who cannot be vaccinated, such as newborns. For measles the threshold is about 95 %.

## Antibodies
Antibodies (immunoglobulins) are Y-shaped proteins. They bind antigens and mark them for destruction by phagocytes.
IgM appears first in an infection, IgG later and lasts longer.
""",
    "Econ/price-elasticity.md": """---
tags: [microeconomics, pricing]
---
# Price elasticity and price discrimination

## Price elasticity of demand
The price elasticity of demand measures how strongly the quantity demanded reacts to a change in price. It is the
percentage change in quantity divided by the percentage change in price. Demand is elastic when the absolute value
is above 1: a small price increase makes buyers drop the good. Goods with many substitutes, such as a particular
brand of coffee, tend to be elastic. Necessities like insulin or tap water are inelastic.

## Price discrimination
A firm practises price discrimination when it charges different buyers different prices for the same good. The
cinema in our example offers a 40 % discount for students and pensioners, because these groups react more strongly
to the ticket price. Airlines sell the same seat at many prices depending on when it is booked.

## Consumer surplus
Consumer surplus is the difference between what a buyer would be willing to pay and the price actually paid.
Perfect price discrimination turns the whole consumer surplus into profit for the seller.
""",
    "Bio/Nahrungsnetze.md": """---
tags: [ökologie, biologie]
---
# Nahrungsnetze und Schlüsselarten

## Trophiestufen
Produzenten (Pflanzen, Algen) bauen durch Fotosynthese Biomasse auf. Primärkonsumenten fressen Pflanzen,
Sekundärkonsumenten fressen Pflanzenfresser. Destruenten wie Pilze und Bakterien zersetzen tote Biomasse und führen
Mineralstoffe in den Boden zurück. Von einer Stufe zur nächsten gelangen nur etwa 10 % der Energie.

## Schlüsselarten
Eine Schlüsselart hat einen viel größeren Einfluss auf ihr Ökosystem, als ihre Häufigkeit vermuten lässt. Nachdem
Wölfe 1995 im Yellowstone-Nationalpark wieder angesiedelt wurden, ging die Zahl der Wapitihirsche zurück, und an
den Flussufern wuchsen wieder Weiden und Pappeln.

## Neophyten
Neophyten sind Pflanzen, die nach 1492 durch den Menschen eingeschleppt wurden, etwa das Drüsige Springkraut.
Manche verdrängen heimische Arten.
""",
    "Recht/Kaufvertrag.md": """---
tags: [vertragsrecht, recht]
---
# Kaufvertrag und Widerruf

## Zustandekommen
Ein Vertrag kommt durch zwei übereinstimmende Willenserklärungen zustande: Angebot und Annahme. Die Auslage im
Schaufenster ist noch kein Angebot, sondern eine Aufforderung zur Abgabe eines Angebots (invitatio ad offerendum).

## Widerrufsrecht
Bei einem Kauf im Internet (Fernabsatzvertrag) hat der Verbraucher ein Widerrufsrecht von 14 Tagen ab Erhalt der
Ware. Er muss den Widerruf nicht begründen. Der Händler muss den Kaufpreis innerhalb von 14 Tagen nach dem Widerruf
erstatten.

## Gewährleistung
Ist die Ware mangelhaft, kann der Käufer zuerst Nacherfüllung verlangen, also Reparatur oder Ersatz. Die
Gewährleistungsfrist beträgt zwei Jahre ab Übergabe.

## Minderjährige
Verträge von Minderjährigen zwischen 7 und 18 Jahren sind schwebend unwirksam, bis die Eltern zustimmen. Nach dem
Taschengeldparagraphen ist ein Kauf wirksam, wenn er mit eigenem Taschengeld bezahlt wird.
""",
}


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Any:
    vault, settings = make_vault(tmp_path_factory.mktemp("common-words"), NOTES)
    with Engine(vault, settings, embedder=None, writable=False) as opened:
        yield opened


def test_a_common_word_of_its_language_weighs_less_than_a_term() -> None:
    assert LEAST <= rarity("place", "en") < 0.2
    assert rarity("place", "en") < rarity("cheaper", "en") < rarity("chloroplast", "en") == 1.0
    assert rarity("gestern", "de") < rarity("Sauerteigbrot".casefold(), "de") == 1.0
    # a language without word frequencies, or no word: as any unseen term
    assert rarity("place", None) == rarity("x86", "en") == 1.0


@pytest.mark.parametrize(("question", "stated"), [
    # before: "The vault doesn't say anything about “single”, “breaks”: no note covers it."
    ("Why do all the lights go off when a single bulb breaks?", "all bulbs go dark"),
    # before: "… about “left”"
    ("What is left over after a star like ours dies?", "white dwarf"),
    # before: "… about “keyword”, “never”"
    ("What keyword should I use for a variable I never reassign?", "cannot be reassigned"),
])
async def test_an_everyday_word_the_vault_never_uses_does_not_refuse(engine: Any, question: str,
                                                                      stated: str) -> None:
    done = await ask(engine, question)
    assert done["answered"] and stated in " ".join(done["answer"].split()), done["answer"]


@pytest.mark.parametrize(("question", "stated"), [
    # before: "The vault doesn't say anything about “electronics”: no note covers it."
    ("What is a fuse in electronics?", "its thin wire melts"),
    # before: "Zu “Ökologie” steht nichts im Vault: keine Notiz behandelt es."
    ("Was ist in der Ökologie eine Schlüsselart?", "viel größeren Einfluss"),
])
async def test_a_word_a_note_is_tagged_with_is_the_vaults_subject(engine: Any, question: str, stated: str) -> None:
    # the notes are tagged #electronics and #ökologie; their text never says either word
    done = await ask(engine, question)
    assert done["answered"] and stated in " ".join(done["answer"].split()), done["answer"]


@pytest.mark.parametrize("question", [
    "How do I change the oil filter of my car?",  # everyday words, none of them in the vault
    "Where is the best electronics shop in Berlin?",  # a tag's word beside what the vault never mentions
    "How much money does a pilot earn?",
    "Wie backe ich ein Sauerteigbrot?",
    "What is the Chandrasekhar limit of a white dwarf?",  # a term of the subject the vault never names
    # a common word the vault never uses beside the one word of the question it has: the quotes name light, not
    # its speed
    "What is the speed of light?",
])
async def test_what_the_vault_does_not_cover_stays_refused(engine: Any, question: str) -> None:
    done = await ask(engine, question)
    assert not done["answered"], done["answer"]
