#!/usr/bin/env bash
# Index the bundled example vault offline, search it, and answer a question with sources.
set -euo pipefail
cd "$(dirname "$0")/.."
export COGNIVAULT_EMBEDDING_PROVIDER=embedded HF_HUB_OFFLINE=1
cv=.venv/bin/cognivault
vault=examples/vault
echo "== cognivault index --vault $vault"
$cv index --vault "$vault"
echo
echo "== cognivault search --vault $vault \"how do plants turn light into chemical energy\""
$cv search --vault "$vault" "how do plants turn light into chemical energy" -k 3
echo
echo "== cognivault ask --vault $vault \"Wie gelangt CO2 in das Blatt?\""
$cv ask --vault "$vault" "Wie gelangt CO2 in das Blatt?"
