"""How much a word the vault never uses says about a question's topic, by how common it is in its language.

Rarity in the vault (IDF) cannot weigh a word no note uses: every such word would weigh most, and a small vault
lacks most everyday words ("Where do the reactions take *place*?", "Which stars *finish* with a *huge* explosion?"),
so an answerable question was read as one on something the vault never mentions. A word common in its language says
little about which subject is asked about; a rare one (a term of a subject, "RuBisCO", "Sauerteigbrot") says much.
The language's word frequencies are data (the ``wordfreq`` package: Zipf scale, log10 of a word's occurrences per
billion words, about 7 for "the", 1 for the rarest words it lists), not a model.
"""

from __future__ import annotations

from functools import lru_cache

# A word at least this common in its language (Zipf 6; "place" and "another" are 5.7) weighs ``LEAST`` of what an
# unseen word weighs, one at most this rare (Zipf 4; "photosynthesis" is 3.0, "Bundeskanzler" 3.9) all of it, linearly
# between. Chosen on the tune halves of both dev vaults (the unanswerable questions' off-topic shares kept farthest
# above the threshold; no dev answerable question is refused for an everyday word) among the settings answering as
# many questions in everyday words on notes unlike the dev vaults' (common 5 to 6.5, rare 3 to 4.5 tried).
COMMON_ZIPF, RARE_ZIPF = 6.0, 4.0
LEAST = 0.1



@lru_cache(maxsize=1)
def _languages() -> frozenset[str]:
    # imported on first use: the package and each language's table take about a second to load
    from wordfreq import available_languages

    return frozenset(available_languages())


@lru_cache(maxsize=8192)
def rarity(word: str, lang: str | None) -> float:
    """The share of an unseen word's weight that ``word`` (as written, casefolded) keeps in language ``lang``: 1
    for a rare word or one of a language without word frequencies, down to ``LEAST`` for the most common ones."""
    if lang is None or not word.isalpha() or lang not in _languages():
        return 1.0
    from wordfreq import zipf_frequency

    zipf = zipf_frequency(word, lang)
    return min(1.0, max(LEAST, (COMMON_ZIPF - zipf) / (COMMON_ZIPF - RARE_ZIPF)))
