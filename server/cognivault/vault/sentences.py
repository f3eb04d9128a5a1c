"""Where a sentence of a note ends, one rule for every place that quotes or asks about a sentence.

A period is no sentence end after a date's ordinal ("am 9. November 1918", "im 19. Jahrhundert", "the 4. of
July"), a common abbreviation ("z. B.", "d. h.", "e.g.", "Dr.") or a name's initial ("J. S. Bach"): study cards,
quiz stems and quoted answers split a paragraph into sentences, and cutting there gave a card whose back was
"Nach der Novemberrevolution rief Philipp Scheidemann am 9." The splitters keep their own patterns;
``shield`` hides the periods that end nothing behind a character none of them splits at (same length, so
positions stay valid) and ``unshield`` brings them back in each piece.
"""

from __future__ import annotations

import re

_SHIELDED = "\ue006"  # a period that ends no sentence, while a text is split

_MONTHS = (r"january|february|march|april|may|june|july|august|september|october|november|december|"
           r"januar|jänner|februar|märz|mai|juni|juli|oktober|dezember")
# words before an ordinal in German dates and counts: "am 9.", "im 19.", "der 1.", "vom 3. bis 5."
_ORDINAL_LEAD = r"am|im|vom|zum|bis|seit|ab|ans|der|die|das|den|dem|des|jeden|jedem"
_ABBREVIATIONS = (r"[vn]\. ?chr|[vn]\. ?u\. ?z|"
                  r"z\. ?b|d\. ?h|u\. ?a|o\. ?ä|s\. ?o|s\. ?u|u\. ?u|bzw|ca|vgl|evtl|ggf|inkl|insb|nr|bspw|sog|"
                  r"v\. ?a|e\. ?g|i\. ?e|cf|approx|vs|dr|mr|mrs|ms|prof|st|jr|sr|fig|"
                  r"re|li|zw|kap|abb|tab|sem|sup|inf|max|min|mind|usw|etc|lat|engl|griech|chr|jh|jhd|"
                  r"abs|ff|ziff|lit|aufl|hrsg|bd|anm")
# (a student's "im re. Vorhof", "zw. den Wendekreisen", "Kap. 3": rechts, zwischen, Kapitel; a law's citation
# "§ 1 Abs. 2", "§§ 146 ff.", "Ziff. 3", and a book's "2. Aufl.", "Hrsg.", "Bd. 4")
# (the era's two parts: "384 v. Chr.", "100 v.u.Z."; and a page, "S. 45", only before its number)
# words that open a sentence: "Vitamin C. The …" ends one, "John F. Kennedy" does not
_OPENERS = (r"The|This|These|That|It|Its|A|An|In|On|At|For|But|And|If|When|"
            r"Der|Die|Das|Es|Sie|Er|Ein|Eine|Im|Am|Dies|Dann")
_NOT_AN_END = re.compile(
    rf"(?<!\w)(?:{_ABBREVIATIONS})\.(?=[\s),;:])"  # an abbreviation, "(384–322 v. Chr.):" too
    rf"|(?<!\w)s\.(?=\s*\d)"  # a page: "S. 45"
    rf"|(?<!\w)\d{{1,2}}\.(?=\s+(?:{_MONTHS})\b)"  # a day before its month
    rf"|(?<!\w)(?:{_ORDINAL_LEAD})\s+\d{{1,3}}\.(?=\s+\w)"  # an ordinal after its article or preposition
    rf"|(?-i:(?<![\w.])[A-ZÄÖÜ]\.(?=\s+(?!(?:{_OPENERS})\b)[A-ZÄÖÜ]))",  # an initial: "J. S. Bach"
    re.IGNORECASE)


def shield(text: str) -> str:
    """``text`` with the periods that end no sentence hidden (the same length)."""
    if "." not in text:
        return text
    return _NOT_AN_END.sub(lambda match: match.group(0).replace(".", _SHIELDED), text)


def unshield(text: str) -> str:
    """A piece of a shielded text as the note writes it."""
    return text.replace(_SHIELDED, ".")
