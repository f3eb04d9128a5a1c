#!/usr/bin/env bash
# Build the editor clients from the npm registry: the VS Code extension (dist/extension.js, the chat
# webview's bundle with markdown-it, DOMPurify, KaTeX and highlight.js, and KaTeX's CSS and fonts,
# which the webview's strict CSP loads from the extension only) and the Obsidian plugin (main.js).
# `npm ci` runs only when node_modules was not installed from the current lockfile (the stamp the
# client tests check, tests/clients/test_vscode.py). Needs Node 20 with npm; `setup.sh --test` runs it.
set -euo pipefail
cd "$(dirname "$0")/../editor-clients"

for client in vscode obsidian; do
  (
    cd "$client"
    lock="$(sha256sum package-lock.json | cut -c1-64)"
    if [[ ! -d node_modules/.bin || "$(cat node_modules/.cognivault-lock.sha256 2>/dev/null)" != "$lock" ]]; then
      npm ci --no-audit --no-fund --prefer-offline >&2
      echo "$lock" > node_modules/.cognivault-lock.sha256
    fi
    npm run --silent build >&2
  )
done
echo "build-clients: editor-clients/vscode/dist and editor-clients/obsidian/main.js built" >&2
