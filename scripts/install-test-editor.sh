#!/usr/bin/env bash
# Install the real VS Code build the end-to-end test drives (tests/clients/test_vscode_real.py):
# code-server 4.100.3 (VS Code 1.100.3, the last release whose engines allow Node 20) and
# puppeteer-core, from the npm registry only. code-server's own postinstall downloads from
# GitHub, so this reproduces its offline parts: the VS Code dependencies without scripts, the
# native modules rebuilt from source against the system Node's headers, Debian's ripgrep where
# @vscode/ripgrep expects its binary, the node_modules.asar and bin links, and the built-in
# extensions' production dependencies.
#
# Needs Node 20 with npm, a C++ toolchain, libkrb5-dev (kerberos) and ripgrep: `setup.sh --test`
# installs them. Cached under ${COGNIVAULT_TEST_CACHE:-${XDG_CACHE_HOME:-~/.cache}/cognivault-test}
# (outside the checkout, so later runs and fresh clones reuse it); a finished install is stamped
# with this script's hash, and an unfinished one is redone. Prints the install folder.
set -euo pipefail

CODE_SERVER_VERSION=4.100.3
PUPPETEER_VERSION=24.43.1
here="$(cd "$(dirname "$0")" && pwd)"
cache="${COGNIVAULT_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cognivault-test}"
dest="$cache/code-server-$CODE_SERVER_VERSION"
stamp="$(sha256sum "$here/install-test-editor.sh" | cut -c1-64)"

if [[ -f "$dest/.installed" && "$(cat "$dest/.installed")" == "$stamp" ]]; then
  echo "$dest"
  exit 0
fi
for tool in node npm rg c++ make; do
  command -v "$tool" >/dev/null || { echo "install-test-editor: '$tool' is missing (run scripts/setup.sh --test)" >&2; exit 1; }
done
node_major="$(node -p 'process.versions.node.split(".")[0]')"
[[ "$node_major" == 20 ]] || echo "install-test-editor: warning: code-server $CODE_SERVER_VERSION wants Node 20, this is $node_major" >&2
# node-gyp builds against the installed Node's headers instead of downloading them.
nodedir="$(dirname "$(dirname "$(command -v node)")")"
[[ -f "$nodedir/include/node/node.h" ]] || { echo "install-test-editor: no Node headers under $nodedir/include/node (Debian: libnode-dev)" >&2; exit 1; }
node_gyp="$(npm root -g)/npm/node_modules/node-gyp/bin/node-gyp.js"  # the one npm ships

work="$dest.partial"
rm -rf "$work"
mkdir -p "$work"
cd "$work"
export npm_config_nodedir="$nodedir" npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false
cat > package.json <<EOF
{"name": "cognivault-test-editor", "private": true,
 "dependencies": {"code-server": "$CODE_SERVER_VERSION", "puppeteer-core": "$PUPPETEER_VERSION"}}
EOF
echo "install-test-editor: code-server $CODE_SERVER_VERSION and puppeteer-core $PUPPETEER_VERSION into $dest" >&2
npm install --ignore-scripts --no-package-lock >&2
# argon2 (code-server's password hashing, loaded at start) from source: its prebuilt is on GitHub.
npm_config_build_from_source=true npm rebuild argon2 >&2

vscode="$work/node_modules/code-server/lib/vscode"
cd "$vscode"
npm install --omit=dev --ignore-scripts >&2
npm_config_build_from_source=true npm rebuild kerberos @vscode/spdlog native-watchdog @vscode/deviceid --ignore-scripts=false >&2
# node-pty's own postinstall ends by running `npx node-gyp` (a download); only its build is needed.
(cd node_modules/node-pty && node "$node_gyp" rebuild >&2)
mkdir -p node_modules/@vscode/ripgrep/bin
cp "$(command -v rg)" node_modules/@vscode/ripgrep/bin/rg
ln -sfn node_modules node_modules.asar
ln -sfn code-linux.sh bin/remote-cli/code-server
ln -sfn browser-linux.sh bin/helpers/browser.sh
cd extensions
npm install --omit=dev --ignore-scripts >&2
node postinstall.mjs >/dev/null

cd "$cache"
rm -rf "$dest"
mv "$work" "$dest"
echo "$stamp" > "$dest/.installed"
echo "$dest"
