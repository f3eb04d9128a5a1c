#!/usr/bin/env bash
# Install the real renderers our written formats are judged by in tests (tests/test_mermaid_render.py):
# mermaid (the library Obsidian renders ```mermaid blocks with) and puppeteer-core to drive the system
# Chromium, from the npm registry only, without install scripts (neither needs one: mermaid ships a
# browser bundle, and puppeteer-core downloads no browser).
#
# Needs Node with npm: `setup.sh --test` installs them. Cached outside the checkout (see
# scripts/lib/cached-npm-install.sh). Prints the install folder. With --installed, only prints it when
# it is installed (exit status 1 when not), without installing: what the tests call.
set -euo pipefail

MERMAID_VERSION=11.17.2
PUPPETEER_VERSION=24.43.1  # the one scripts/install-test-editor.sh installs
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/lib/cached-npm-install.sh"
cached_npm_install "$here/install-test-renderers.sh" "renderers-mermaid-$MERMAID_VERSION" \
  "{\"name\": \"cognivault-test-renderers\", \"private\": true,
    \"dependencies\": {\"mermaid\": \"$MERMAID_VERSION\", \"puppeteer-core\": \"$PUPPETEER_VERSION\"}}" "${1:-}"
