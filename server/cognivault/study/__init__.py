"""The study hub: flashcards, quizzes, mind maps and workshops written into the vault; review; progress.

- ``cards``: the spaced-repetition plugin's card syntax (parse, stable ids, schedule comments)
- ``scheduler``: FSRS over the plugin's ``<!--SR:!date,interval,ease-->`` values
- ``review``: due cards across the vault, safe grading, the terminal review
- ``progress`` / ``badges``: the event log, sessions, streaks, heatmap, the 25 badges
- ``sources``, ``extract``, ``common``: retrieval within a scope, extractive facts, the defensive model path
- ``flashcards``, ``quiz``, ``mindmap``, ``workshop``, ``generate``: the generators (model or extractive)
- ``citations``: the one citation syntax (``vault_schema/citation.md``); ``schema``: frontmatter validation
- ``commands`` (CLI), ``routes`` (companion) and ``dashboard/`` (the page)
"""
