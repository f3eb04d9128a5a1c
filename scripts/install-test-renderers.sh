#!/usr/bin/env bash
# Install the real renderers our written formats are judged by in tests (tests/test_mermaid_render.py):
# mermaid (the library Obsidian renders ```mermaid blocks with) and puppeteer-core to drive the system
# Chromium, from the npm registry only, without install scripts (neither needs one: mermaid ships a
# browser bundle, and puppeteer-core downloads no browser).
#
# Needs Node with npm: `setup.sh --test` installs them. Cached under
# ${COGNIVAULT_TEST_CACHE:-${XDG_CACHE_HOME:-~/.cache}/cognivault-test} (outside the checkout, so later
# runs and fresh clones reuse it); a finished install is stamped with this script's hash, and an
# unfinished one is redone. Prints the install folder. With --installed, only prints it when it is
# installed (exit status 1 when not), without installing: what the tests call.
set -euo pipefail

MERMAID_VERSION=11.17.2
PUPPETEER_VERSION=24.43.1  # the one scripts/install-test-editor.sh installs
here="$(cd "$(dirname "$0")" && pwd)"
cache="${COGNIVAULT_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cognivault-test}"
dest="$cache/renderers-mermaid-$MERMAID_VERSION"
stamp="$(sha256sum "$here/install-test-renderers.sh" | cut -c1-64)"

if [[ -f "$dest/.installed" && "$(cat "$dest/.installed")" == "$stamp" ]]; then
  echo "$dest"
  exit 0
fi
[[ "${1:-}" == "--installed" ]] && exit 1
for tool in node npm; do
  command -v "$tool" >/dev/null || { echo "install-test-renderers: '$tool' is missing (run scripts/setup.sh --test)" >&2; exit 1; }
done

work="$dest.partial"
rm -rf "$work"
mkdir -p "$work"
cd "$work"
export npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false
cat > package.json <<JSON
{"name": "cognivault-test-renderers", "private": true,
 "dependencies": {"mermaid": "$MERMAID_VERSION", "puppeteer-core": "$PUPPETEER_VERSION"}}
JSON
echo "install-test-renderers: mermaid $MERMAID_VERSION and puppeteer-core $PUPPETEER_VERSION into $dest" >&2
npm install --ignore-scripts --no-package-lock >&2

cd "$cache"
rm -rf "$dest"
mv "$work" "$dest"
echo "$stamp" > "$dest/.installed"
echo "$dest"
