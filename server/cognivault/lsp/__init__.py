"""The CogniVault language server (pygls 2): the vault's index inside any editor.

Run it with ``cognivault lsp`` (stdio; ``--tcp 127.0.0.1:PORT`` for debugging,
loopback only). The workspace root, or ``initializationOptions.vault``, is the
vault; settings are documented in ``vault_schema/lsp-settings.schema.json``.

One module per feature, each a pure function over a
:class:`~cognivault.lsp.server.Context` plus a ``register(server)``:

=====================  =================================================================
``lifecycle``          initialize, document sync, watched files, settings, shutdown
``indexing``           opening the engine, ``$/progress`` for index passes, diagnostics
                       after edits, the warm-up (the live vault's events)
``symbols``            ``textDocument/documentSymbol``: the heading outline
``definition``         ``textDocument/definition``: links, embeds, headings, blocks, citations
``hover``              ``textDocument/hover``: link targets, tags, citations
``references``         ``textDocument/references``: backlinks to a note, heading or block; tags
``completion``         ``textDocument/completion``: notes after ``[[`` ranked by the paragraph,
                       headings after ``#``, blocks after ``^``, tags
``diagnostics``        pushed diagnostics: broken links and embeds, missing headings and
                       blocks, changed or missing citation sources
``code_actions``       quick fixes, "insert link to related note", ask / generate commands
``code_lens``          "N related notes" and "N backlinks"
``workspace_symbols``  ``workspace/symbol``: notes and headings by name and meaning
``rename``             ``prepareRename`` / ``rename`` / ``workspace/willRenameFiles``
``custom``             ``cognivault/search``, ``cognivault/related``, ``cognivault/status``,
                       ``cognivault/reindex``
``study``              ``cognivault/reviewDue``, ``reviewGrade``, ``quizAttempt``, ``generate``;
                       asks and (throttled) note edits recorded as study progress
``citations``          the citation syntax of generated notes (``vault_schema/citation.md``)
=====================  =================================================================

Commands (``workspace/executeCommand``): ``cognivault.createNote``,
``cognivault.ask``, ``cognivault.generate`` (flashcards / quiz / mindmap / workshop, as ``cognivault/generate``),
``cognivault.showRelated``, ``cognivault.showReferences``.

Supporting modules: ``server`` (document sync, worker threads, thin handlers; the
index writer, debounced updates and the note graph are :mod:`cognivault.live`'s),
``model`` (open buffers over the note graph, :mod:`cognivault.graph`), ``documents``
(parsing open buffers and files on disk), ``positions`` (the only
place columns are converted: UTF-16 unless the client negotiated UTF-8 or
UTF-32), ``uris``, ``options``, ``transport`` (a JSON-RPC loop that answers
malformed messages instead of ignoring them), ``common``, ``commands`` (CLI).
"""
