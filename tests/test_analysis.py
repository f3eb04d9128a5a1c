"""Tokenization, stemming, language detection and German decompounding."""

from collections import Counter

from cognivault.index.analysis import (
    Analyzer,
    cognate_key,
    declared_languages,
    detect_language,
    normalize_language,
    passage_language,
    spelling_key,
    words,
)


def test_words_are_casefolded_unicode_words():
    assert words("Größe der Datei: ÄPFEL & Birnen_2") == ["grösse", "der", "datei", "äpfel", "birnen_2"]


def test_a_symbol_in_math_is_the_word_a_question_writes_flat():
    # "How does a competitive inhibitor change Km and Vmax?" was refused ("nothing about Vmax") on a note writing
    # "$V_{max}$" and "$K_M$"; "ΔG" and "delta G" met no "$\\Delta G$"
    assert words("$V_{max}$ steigt, $K_M$ bleibt, $k_{cat}$ und $E_a$") == words("Vmax steigt, Km bleibt, kcat und Ea")
    assert words(r"wenn $\Delta G < 0$") == words("wenn ΔG < 0") == words("wenn delta G < 0")
    assert words(r"angle $\theta_c$ and $\varepsilon_{xy} > 0$") == words("angle θc and εxy > 0")
    # the symbol is one word: ΔS is no ΔH, and no stemmer cuts it to "delta"
    assert words("ΔS") != words("ΔH")
    assert Analyzer().terms(words("ΔS"), "en") == ["δs"]
    # a word opening with a Greek letter's name is no symbol: "NUR", "NUL" are no "νr", "νl"
    assert words("nie NUR als Mittel, pi") == ["nie", "nur", "als", "mittel", "pi"]
    # a product is no symbol: "$ma_x$" is m times a_x, no "max"
    assert "max" not in words("$\\sum F_x = ma_x$")
    # a small letter before a capital is one base with it ("$pK_a$": "pKa", "$pK_{S}$": "pKS"), and a subscript in
    # upright type is the same subscript ("$k_\\text{cat}$", "$K_{\\mathrm{M}}$"): "What is the pKa of acetic
    # acid?" was refused ("nothing about “pKa”") on a note writing "Acetic acid has a $pK_a$ of 4.76"
    assert words("$pK_a$ of 4.76") == words("pKa of 4.76")
    assert "pks" in words("der $pK_{S}$-Wert")
    assert words(r"$k_\text{cat}$ und $K_{\mathrm{M}}$ und $K_\mathrm{M}$") == words("kcat und KM und KM")
    # two small letters are no base: "$dx_i$" stays as written, no "dxi"
    assert "dxi" not in words("$dx_i$")
    # prices are no math, and underscores outside math stay as written
    assert words("costs $5 and $10, see file_name") == ["costs", "5", "and", "10", "see", "file_name"]
    # a formula is what the note reader calls one: a "$" inside code is code, written as typed
    assert words("run `echo $V_{max}$` then $V_{max}$").count("vmax") == 1


def test_unspaced_scripts_become_bigrams():
    assert words("日本語") == ["日本", "本語"]
    assert words("ok 中") == ["ok", "中"]


def test_english_and_german_stemming():
    analyzer = Analyzer()
    assert analyzer.terms(words("embedding embedded notes"), "en") == ["embed", "embed", "note"]
    assert analyzer.terms(["notes"], "en") == analyzer.terms(["note"], "en")
    assert analyzer.terms(words("Einstellungen Einstellung"), "de") == ["einstell", "einstell"]


def test_every_form_of_a_german_ieren_verb_is_one_term():
    # Snowball leaves the participle and the "du" form whole ("definiert", "migrierst"): the notes' "wird
    # denaturiert" and the help's "wenn du migrierst" must meet a question's "denaturieren", "wenn ich migriere".
    analyzer = Analyzer()
    for forms in (("migriere", "migrierst", "migriert", "migrieren", "migrierte", "migrierten"),
                  ("denaturiert", "denaturieren", "denaturierte"), ("installierst", "installiert", "installieren")):
        assert len({analyzer.terms_of_word(form, "de") for form in forms}) == 1, forms
    # no noun ends in "-iert": other words keep their stems
    assert analyzer.terms_of_word("tiere", "de") == analyzer.terms_of_word("tier", "de") != \
        analyzer.terms_of_word("tiert", "de")
    assert analyzer.terms_of_word("viert", "de") == ("viert",)


def test_stopwords_dropped_per_language():
    analyzer = Analyzer()
    assert analyzer.terms(words("how do I embed a note"), "en") == analyzer.terms(["embed", "note"], "en")
    assert len(analyzer.terms(words("how do I embed a note"), "en")) == 2
    assert analyzer.terms(words("wie kann ich die Notiz einbetten"), "de") == analyzer.terms(
        ["notiz", "einbetten"], "de")


def test_german_question_words_are_stopwords_like_their_english_counterparts():
    analyzer = Analyzer()
    assert analyzer.terms(words("Why is the note hidden?"), "en") == analyzer.terms(["note", "hidden"], "en")
    assert analyzer.terms(words("Warum ist die Notiz versteckt?"), "de") == analyzer.terms(
        ["notiz", "versteckt"], "de")
    assert analyzer.terms(words("Wozu dient die Werkbank? Wann speichert sie?"), "de") == analyzer.terms(
        ["dient", "werkbank", "speichert"], "de")


def test_sentence_punctuation_runs_are_not_search_words_but_syntax_runs_are():
    assert words("„Zu Obsidian hinzufügen“, dann (siehe oben).") == [
        "zu", "obsidian", "hinzufügen", "dann", "siehe", "oben"]
    assert words('Is it "done"? Yes...') == ["is", "it", "done", "yes"]
    assert words("Text in %% and [[^^block]] and key:: value") == [
        "%%", "[[^^", "]]", "::", "text", "in", "and", "block", "and", "key", "value"]


def test_german_compound_matches_its_parts():
    lexicon = Analyzer.build_lexicon(Counter({"einstellungen": 3, "synchronisierung": 2, "datei": 5}))
    analyzer = Analyzer(lexicon)
    compound = analyzer.terms(words("Synchronisierungseinstellungen"), "de")
    part = analyzer.terms(words("Einstellungen"), "de")
    assert set(part) <= set(compound)
    assert "synchronisier" in compound


def test_compound_split_needs_known_parts():
    analyzer = Analyzer(Analyzer.build_lexicon(Counter({"einstellungen": 3})))
    assert analyzer.split_compound("bearbeitungsleiste") == []
    assert analyzer.split_compound("tabelle") == []


def test_three_part_compound():
    analyzer = Analyzer(frozenset({"kohlenstoff", "dioxid", "aufnahme"}))
    assert analyzer.split_compound("kohlenstoffdioxidaufnahme") == ["kohlenstoff", "dioxid", "aufnahme"]


def test_english_words_are_not_decompounded():
    analyzer = Analyzer(frozenset({"note", "book"}))
    assert analyzer.terms(["notebook"], "en") == ["notebook"]


def test_language_detection_with_vault_languages():
    vault_languages = frozenset({"en", "de"})
    assert detect_language("Wie gelangt CO2 in das Blatt", vault_languages) == "de"
    assert detect_language("sync conflicts", vault_languages) == "en"
    assert detect_language("x") is None


def test_normalize_language():
    assert normalize_language("de-DE") == "de"
    assert normalize_language("German") == "de"
    assert normalize_language(None) is None


def test_accepted_spelling_variants_share_a_key():
    for one, other in [("delphin", "delfin"), ("photosynthes", "fotosynthes"), ("strasse", "straße"),
                       ("aerzt", "ärzt"), ("schiffahrt", "schifffahrt"), ("thema", "tema")]:
        assert spelling_key(one) == spelling_key(other)
    assert spelling_key("zelle") != spelling_key("kelle")


def test_a_learned_word_stemmed_in_english_and_in_german_shares_a_cognate_key():
    analyzer = Analyzer()
    for english, german in [("mitosis", "Mitose"), ("glucose", "Glukose"), ("molecule", "Molekül"),
                            ("cytoplasm", "Zytoplasma"), ("hypothesis", "Hypothese"), ("reaction", "Reaktion")]:
        [english_term], [german_term] = analyzer.terms([english], "en"), analyzer.terms(words(german), "de")
        assert cognate_key(english_term) == cognate_key(german_term) is not None
    assert cognate_key("zell") is None  # too short to tell unrelated words apart
    assert cognate_key("mitos") != cognate_key("osmos")


def test_a_note_in_several_languages_reads_each_passage_in_its_own():
    assert declared_languages("de/en") == {"de", "en"}
    assert declared_languages("Deutsch und Englisch") == {"de", "en"}
    assert declared_languages("en, de-DE") == {"en", "de"}
    assert normalize_language("de/en") is None
    assert passage_language("de/en", "Die Glykolyse ist der Abbau von Glucose im Zytoplasma der Zelle.", "en") == "de"
    assert passage_language("de/en", "The electron transport chain pumps protons across the membrane.", "de") == "en"
    assert passage_language("de-DE", "The electron transport chain pumps protons.", None) == "de"
    assert passage_language(None, "The electron transport chain pumps protons.", "en") == "en"
