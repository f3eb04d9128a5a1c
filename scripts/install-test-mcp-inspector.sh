#!/usr/bin/env bash
# Install the MCP Inspector, the protocol's own reference client, whose CLI mode the tests drive
# `cognivault mcp` with as a third-party client (tests/test_mcp_clients.py): from the npm registry
# only, without install scripts (it needs none to run its CLI).
#
# 0.22.0: the last 0.x release, whose `--cli` runs on the Node 20 the editor tests need (it declares
# Node 22 in its engines, but its CLI does not use anything newer; the 2.x line needs Node 22).
# Needs Node with npm: `setup.sh --test` installs it. Cached under
# ${COGNIVAULT_TEST_CACHE:-${XDG_CACHE_HOME:-~/.cache}/cognivault-test} (outside the checkout, so later
# runs and fresh clones reuse it); a finished install is stamped with this script's hash, and an
# unfinished one is redone. Prints the install folder. With --installed, only prints it when it is
# installed (exit status 1 when not), without installing: what the tests call.
set -euo pipefail

INSPECTOR_VERSION=0.22.0
here="$(cd "$(dirname "$0")" && pwd)"
cache="${COGNIVAULT_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cognivault-test}"
dest="$cache/mcp-inspector-$INSPECTOR_VERSION"
stamp="$(sha256sum "$here/install-test-mcp-inspector.sh" | cut -c1-64)"

if [[ -f "$dest/.installed" && "$(cat "$dest/.installed")" == "$stamp" ]]; then
  echo "$dest"
  exit 0
fi
[[ "${1:-}" == "--installed" ]] && exit 1
for tool in node npm; do
  command -v "$tool" >/dev/null || { echo "install-test-mcp-inspector: '$tool' is missing (run scripts/setup.sh --test)" >&2; exit 1; }
done

work="$dest.partial"
rm -rf "$work"
mkdir -p "$work"
cd "$work"
export npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false npm_config_engine_strict=false
cat > package.json <<JSON
{"name": "cognivault-test-mcp-inspector", "private": true,
 "dependencies": {"@modelcontextprotocol/inspector": "$INSPECTOR_VERSION"}}
JSON
echo "install-test-mcp-inspector: @modelcontextprotocol/inspector $INSPECTOR_VERSION into $dest" >&2
npm install --ignore-scripts --no-package-lock >&2

cd "$cache"
rm -rf "$dest"
mv "$work" "$dest"
echo "$stamp" > "$dest/.installed"
echo "$dest"
