"""The localhost companion HTTP server (aiohttp) for editors that do not speak LSP well.

- ``app.create_app(engine, settings, token)``: the application (routes from route modules,
  each with ``setup_routes(app)`` registering through ``api.add_route``);
- ``security``: the Host / Origin / rate-limit / token / body-cap middlewares;
- ``runner.start_companion`` (in-process, e.g. from the language server) and
  ``runner.serve_forever`` (``cognivault serve``);
- ``commands``: the ``serve``, ``import-url`` and ``audit`` CLI commands.

Nothing is imported here, so ``cognivault <command>`` does not pay for aiohttp.
"""
