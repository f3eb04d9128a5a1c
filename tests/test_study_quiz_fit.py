"""Quiz questions a student can answer only from the note: order questions on sequences only, no wrong option that is
the key in another form, wrong options that fit the gap, no gap the quiz gives away (issue 25)."""

from __future__ import annotations

from pathlib import Path

from cognivault.study.list_wording import in_sequence
from cognivault.study.quiz import _formed_otherwise, _inflected_alike, parse_quiz
from cognivault.study.sources import GenerationError
from test_study_extractive import generate, indexed_vault

PRICING = """# Marketing-Mix

## Einflussfaktoren auf die Preiselastizität
1. Verfügbarkeit von Substituten – viele Substitute → elastisch
2. Anteil am Budget – großer Anteil → elastischer
3. Dringlichkeit des Bedarfs – lebensnotwendig → unelastisch
4. Zeithorizont – langfristig elastischer

## Factors influencing buying behaviour
1. Cultural factors – culture, subculture, social class
2. Social factors – reference groups, family, roles
3. Personal factors – age, occupation, lifestyle
4. Psychological factors – motivation, perception, beliefs

## Ablauf einer Marktforschung
1. Problem und Ziel der Studie festlegen
2. Fragebogen entwerfen und testen
3. Stichprobe ziehen und befragen
4. Antworten auswerten und berichten
"""

PREDATORS = """# Predator–prey dynamics

## Lotka–Volterra model
The model was proposed by **Lotka** and **Volterra** independently in the 1920s.
It assumes that prey grow **exponentially** without predators.
The cycles of the two populations are shifted by a **quarter period**.

## Selection strategies
Species are often sorted into **r and K** strategists by their life history.
**Density-dependent factors** grow stronger as a population gets denser, e.g. competition.
**Density-independent factors** act regardless of density, e.g. a cold winter.
A **keystone species** has a large effect on its ecosystem relative to its abundance.
**Competitive exclusion** means two species with the same niche cannot coexist for long.
"""

OWNERSHIP = """# Rust ownership

## The three rules
1. Each value has an owner.
2. There can only be one owner at a time.
3. When the owner goes out of scope, the value is dropped.

## Borrowing
- `&T` – a shared reference, any number at once
- `&mut T` – a mutable reference, only one at a time
- References must never outlive the value (the **borrow checker** enforces this)

```rust
fn main() {
    let s = String::from("hi");
    let r = &s;
    println!("{}", r);
}
```

## Smart pointers
| Type | Use | Thread-safe |
|---|---|---|
| `Box<T>` | heap allocation, single owner | yes if T is |
| `Rc<T>` | shared ownership, reference counted | no |
| `Arc<T>` | shared ownership across threads | yes |
| `RefCell<T>` | interior mutability, checked at runtime | no |

A type that implements the **Copy** trait is copied instead of moved, e.g. `i32` and `bool`.
**Lifetimes** tell the compiler how long references are valid; `'static` lives for the whole program.
Moving a `String` into a function makes the original variable unusable: this is a **move**.

## Pattern matching
Patterns in a `match` are tried from top to bottom, first match wins.
The `_` pattern matches anything and is used as a catch-all.
A `match` must be **exhaustive**: every possible value has to be covered.
"""

ERRORS = """# Error handling in Rust

Rust has no exceptions. Recoverable errors use `Result<T, E>`, unrecoverable ones `panic!`.

## Ways to handle a Result
- `match` – handle `Ok` and `Err` explicitly
- `unwrap()` – returns the value or panics
- `expect("msg")` – like unwrap, with a custom message
- `?` – returns the error early from the current function

## Steps to define your own error type
1. Create an enum with one variant per error case
2. Implement `std::fmt::Display` for it
3. Implement `std::error::Error`
4. Add `From` impls so `?` can convert other errors

`Option<T>` is used when a value may be absent: `Some(v)` or `None`.
The crate **anyhow** is common in applications, **thiserror** in libraries.
Calling `unwrap()` on `None` causes a **panic**.
"""

PUNIC = """# Punic Wars

Three wars between Rome and **Carthage** (264–146 BC).

## Timeline
- 264 BC – First Punic War begins over Sicily
- 241 BC – Rome wins the naval battle of the Aegates Islands
- 218 BC – Hannibal crosses the Alps with elephants
- 216 BC – Battle of Cannae, Rome's worst defeat
- 202 BC – Scipio defeats Hannibal at Zama
- 146 BC – Carthage is destroyed

## Why Rome won
- Larger reserves of manpower from its Italian allies
- The **corvus**, a boarding bridge, turned sea battles into land battles
- Hannibal got too few reinforcements from Carthage

Hannibal's tactic at Cannae was a **double envelopment**: the weak centre gave way, the wings closed around.
Fabius Maximus was called **Cunctator** ("the delayer") because he avoided open battle.
Cato ended his speeches with "Ceterum censeo Carthaginem esse delendam".
"""

CONTRACT = """# Vertragsschluss (BGB)

Ein Vertrag kommt durch zwei übereinstimmende **Willenserklärungen** zustande: Angebot und Annahme.

## Prüfung eines Anspruchs aus Vertrag
1. Anspruch entstanden (wirksamer Vertrag)
2. Anspruch nicht untergegangen (z.B. Erfüllung)
3. Anspruch durchsetzbar (keine Einrede, z.B. Verjährung)

## Gründe für die Nichtigkeit
- Geschäftsunfähigkeit (§ 105 BGB)
- Formmangel (§ 125 BGB)
- Verstoß gegen ein gesetzliches Verbot (§ 134 BGB)
- Sittenwidrigkeit (§ 138 BGB)

## Begriffe
- **Invitatio ad offerendum** – Aufforderung zur Abgabe eines Angebots, z.B. Schaufensterauslage
- **Willenserklärung** – Äußerung eines Willens, der auf eine Rechtsfolge gerichtet ist
- **Anfechtung** – rückwirkende Vernichtung einer Willenserklärung wegen Irrtums oder Täuschung
- **Geschäftsfähigkeit** – Fähigkeit, wirksam Rechtsgeschäfte abzuschließen

Schweigen gilt grundsätzlich **nicht** als Annahme.
Die regelmäßige Verjährungsfrist beträgt **drei Jahre** (§ 195 BGB).
Eine Anfechtung wegen Irrtums muss **unverzüglich** erfolgen (§ 121 BGB).
"""

DECLARATION = """# Willenserklärung

Verträge entstehen durch zwei **Willenserklärungen**, Angebot und Annahme.
Eine empfangsbedürftige **Willenserklärung** wird mit **Zugang** wirksam (§ 130 BGB).
Ein Angebot erlischt, wenn es **abgelehnt** wird.
Die **Anfechtung** beseitigt eine Willenserklärung rückwirkend.
Ein **Minderjähriger** braucht für nachteilige Geschäfte die Einwilligung der Eltern.
Die **Stellvertretung** erlaubt es, im Namen eines anderen zu handeln (§ 164 BGB).

## Begriffe
- **Angebot** – Willenserklärung, die auf einen Vertragsschluss gerichtet ist
- **Annahme** – Zustimmung zum Angebot
- **Vollmacht** – durch Rechtsgeschäft erteilte Vertretungsmacht
- **Zugang** – die Erklärung gelangt so in den Machtbereich des Empfängers, dass er sie zur Kenntnis nehmen kann
"""


def _questions(tmp_path: Path, path: str, notes: dict[str, str]) -> list[tuple[str, list[str], str]]:
    """(stem, options, right option) of every question of the quiz on ``path`` in a vault of ``notes``; none when
    the note gives none."""
    with indexed_vault(tmp_path, notes) as engine:
        try:
            _, quiz = generate(engine, "quiz", path)
        except GenerationError as error:
            assert "no usable quiz questions" in str(error)
            return []
    return [(q.question, q.options, q.options[q.correct_index]) for q in parse_quiz(quiz).questions]


def test_order_is_asked_on_sequences_never_on_numbered_factors(tmp_path: Path) -> None:
    questions = _questions(tmp_path, "BWL/Marketing-Mix.md", {"BWL/Marketing-Mix.md": PRICING})
    steps = [stem for stem, _, _ in questions if "Schritt folgt" in stem or "step comes" in stem]
    assert steps, questions  # the market research's course is a sequence
    assert all("Anteil am Budget" not in stem and "factors" not in stem for stem in steps), steps
    assert any("Fragebogen" in stem for stem in steps), steps


def test_a_gap_another_question_shows_whole_is_not_asked(tmp_path: Path) -> None:
    note = """# Go concurrency

A **goroutine** is a lightweight thread managed by the Go runtime.
**Channels** let goroutines send values to each other.
An unbuffered channel **blocks** until both sender and receiver are ready.
The `select` statement waits on several channel operations at once.
A `sync.WaitGroup` waits for a collection of goroutines to finish.
The **race detector** is enabled with the `-race` flag.

## Steps to shut down workers cleanly
1. Close the jobs channel
2. Workers finish the remaining jobs
3. Each worker calls `wg.Done()`
4. The main goroutine returns from `wg.Wait()`

## Common mistakes
1. Forgetting to close a channel – range loops never end
2. Capturing the loop variable – all goroutines see the last value
3. Writing to a closed channel – causes a panic

Q: What happens when you read from a closed channel?
A: You get the zero value immediately.
"""
    questions = _questions(tmp_path, "Go/Concurrency.md", {"Go/Concurrency.md": note})
    steps = [options for stem, options, _ in questions if "step comes" in stem]
    assert steps and any("The main goroutine returns from `wg.Wait()`" in options for options in steps), questions
    assert not [stem for stem, _, _ in questions if "The main goroutine returns from …" in stem], questions


def test_items_described_alike_are_not_asked_back_from_their_description(tmp_path: Path) -> None:
    note = """# Hypothesentests

## Teststärke
1. Stichprobengröße – größer → mehr Power
2. Effektstärke – größer → mehr Power
3. Signifikanzniveau – größer → mehr Power
4. Streuung – kleiner → mehr Power

## Fehlerarten
- **Fehler 1. Art** – H₀ abgelehnt, obwohl sie wahr ist
- **Fehler 2. Art** – H₀ beibehalten, obwohl sie falsch ist
- **Alpha-Fehler** – anderer Name für den Fehler 1. Art, der Forscher sieht einen Effekt, wo keiner ist
"""
    questions = _questions(tmp_path, "Stat/Tests.md", {"Stat/Tests.md": note})
    assert questions, questions
    assert not [stem for stem, _, _ in questions if "größer → mehr Power" in stem], questions  # three keys fit


def test_a_list_is_a_sequence_by_its_heading_its_dates_or_its_order_words() -> None:
    factors = ["Alter – Kinder reagieren schwächer", "Adjuvans – verstärkt die Antwort", "Dosis – Abstand"]
    offices = ["Quästor – Finanzverwaltung", "Ädil – Märkte, Spiele", "Prätor – Rechtsprechung"]
    assert not in_sequence("Faktoren, die die Impfantwort beeinflussen", "", factors, german=True)
    assert not in_sequence("Ämter", "", offices, german=True)  # labels with descriptions: counted, not ordered
    # what holds at once (a model's assumptions, a theorem's conditions): numbered, never in an order
    assert not in_sequence("Modellannahmen", "", ["Linearität in den Parametern", "Homoskedastizität",
                                                  "Keine Autokorrelation der Residuen"], german=True)
    license_steps = ["Open the Obsidian app.", "Go to Settings → General → Commercial license.",
                     "Click Activate and enter your license key."]
    assert in_sequence("Apply a commercial license", "To apply a license follow the steps below. Note that it does "
                       "not provide any functional benefits.", license_steps, german=False)
    assert in_sequence("Eine kommerzielle Lizenz anwenden", "Folge dazu den untenstehenden Schritten. Beachte, dass "
                       "sie keine funktionalen Vorteile bietet.", ["Öffne die Obsidian-App.", "Gehe zu Einstellungen.",
                                                                   "Klicke auf Aktivieren."], german=True)
    solow = ["Constant returns to scale", "Exogenous saving rate", "No government"]
    assert not in_sequence("Assumptions of the Solow model", "", solow, german=False)
    assert in_sequence("Ämter", "Die Ämter in ihrer Reihenfolge:", offices, german=True)
    assert in_sequence("Produktlebenszyklus", "", ["Einführung – wenig Umsatz", "Wachstum – Umsatz steigt",
                                                    "Reife – Maximum"], german=True)
    assert not in_sequence("The three rules", "", ["Each value has an owner.", "One owner at a time.",
                                                   "Out of scope, dropped."], german=False)
    assert not in_sequence("Constituency tests", "", ["Replace the group with a pronoun", "Move it to the front",
                                                      "Join it with a similar group"], german=False)
    assert in_sequence("How a central bank fights inflation", "",
                       ["It raises the rate", "Banks then charge more", "Finally prices slow"], german=False)
    assert in_sequence("Activation of a T cell", "", ["A dendritic cell picks up antigen",
                                                      "It migrates to the lymph node", "It presents the peptide"],
                       german=False)


def test_an_option_in_another_form_or_of_another_form_is_left_out() -> None:
    assert _inflected_alike("colony", "colonies") and _inflected_alike("Cash-Cow", "Cash Cow")
    assert _inflected_alike("the schwa", "Schwa") and _inflected_alike("e-mail", "email")
    assert not _inflected_alike("density-dependent factors", "density-independent factors")
    assert _formed_otherwise("density-dependent factors", "r and K")  # two symbols among terms
    assert _formed_otherwise("Spaltungsregel", "Ein Allel") and not _formed_otherwise("Der Genotyp", "Ein Allel")
    assert not _formed_otherwise("Konsul", "Prätor")


def test_wrong_options_fit_the_gap_and_no_gap_is_given_away(tmp_path: Path) -> None:
    questions = _questions(tmp_path, "Oeko/Predators.md", {"Oeko/Predators.md": PREDATORS})
    for stem, options, right in questions:
        assert right not in ("Lotka", "Volterra", "r and K"), (stem, options)  # its heading, its form give it away
        assert not any(option.casefold() == "exponentially" for option in options if option != right), options
        if right == "Competitive exclusion":
            assert not {"Lotka", "Volterra"} & set(options), options  # names for a common noun's place


def test_a_predicate_or_a_name_fills_no_other_gap(tmp_path: Path) -> None:
    rust = {"Rust/Ownership.md": OWNERSHIP, "Rust/Error-Handling.md": ERRORS}
    asked = []
    for path in rust:
        for stem, options, right in _questions(tmp_path / path, path, rust):
            asked.append(right)
            assert "exhaustive" not in {o.casefold() for o in options} - {right.casefold()}, (stem, options)
            assert right.casefold() != "exhaustive" or options == [], options  # "must be …" takes no noun
            assert not (right == "Lifetimes" and "Borrow checker" in options), options  # a plural's place
            assert right != "anyhow", (stem, options)  # "The crate …": only crates fit, "thiserror" is shown
    assert "`Result<T, E>`" in asked, asked  # "Recoverable errors use …": types among types
    punic = _questions(tmp_path / "punic", "Rom/Punic-Wars.md", {"Rom/Punic-Wars.md": PUNIC})
    assert punic and all(right != "Carthage" for _, _, right in punic), punic  # a city among a bridge and a tactic
    law = {"Recht/Vertragsschluss.md": CONTRACT, "Recht/Willenserklaerung.md": DECLARATION}
    for path in law:
        for stem, options, right in _questions(tmp_path / path, path, law):
            # "wenn es … wird" takes a participle, "zwei übereinstimmende …" a plural: no noun, no "drei Jahre"
            assert right not in ("abgelehnt", "Willenserklärungen"), (stem, options)


def test_a_german_gap_takes_options_declined_as_its_answer(tmp_path: Path) -> None:
    # "Viele Anbieter, aber ==heterogene== Güter": an adjective before its noun; "gegenseitiger Abhängigkeit" or
    # "vollkommenen Marktes" cannot stand there, nor can "vollkommenen Marktes" after "mit" for "gegenseitiger
    # Abhängigkeit": a question left with no such option is not asked
    note = """# Wettbewerbsformen

## Monopolistische Konkurrenz
Viele Anbieter, aber ==heterogene== Güter → jeder Anbieter hat einen kleinen Preisspielraum.

## Oligopol
Wenige Anbieter mit ==gegenseitiger Abhängigkeit== → Preiskämpfe oder Absprachen (Kartell).

## Polypol
Voraussetzungen des ==vollkommenen Marktes==: homogene Güter, vollständige Markttransparenz, keine Präferenzen.

## Vollkommener Markt
Im Polypol auf dem vollkommenen Markt gibt es ==homogene== Güter, und alle Anbieter sind Mengenanpasser.

## Heterogenes Oligopol
Im heterogenen Oligopol verkaufen wenige Anbieter ==differenzierte== Produkte mit Markennamen.
"""
    questions = _questions(tmp_path, "Mikro/Wettbewerb.md", {"Mikro/Wettbewerb.md": note})
    assert any("… Güter" in stem for stem, _, _ in questions), questions
    for stem, options, _ in questions:
        assert len({len(option.split()) for option in options}) == 1, (stem, options)
        if "… Güter" in stem or "… Produkte" in stem:
            assert all(option.islower() and option.endswith("e") for option in options), (stem, options)
