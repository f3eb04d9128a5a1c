#!/usr/bin/env bash
# Install the MCP Inspector, the protocol's own reference client, whose CLI mode the tests drive
# `cognivault mcp` with as a third-party client (tests/test_mcp_inspector.py). 0.22.0: the last 0.x
# release, whose `--cli` runs on the Node 20 the editor tests need (its engines ask for Node 22, which
# its CLI does not use; the 2.x line does need it).
#
# Needs Node with npm: `setup.sh --test` installs it. Cached outside the checkout (see
# scripts/lib/cached-npm-install.sh). Prints the install folder; with --installed, only prints it when
# it is installed (exit status 1 when not), without installing: what the tests call.
set -euo pipefail

INSPECTOR_VERSION=0.22.0
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/lib/cached-npm-install.sh"
cached_npm_install "$here/install-test-mcp-inspector.sh" "mcp-inspector-$INSPECTOR_VERSION" \
  "{\"name\": \"cognivault-test-mcp-inspector\", \"private\": true,
    \"dependencies\": {\"@modelcontextprotocol/inspector\": \"$INSPECTOR_VERSION\"}}" "${1:-}"
