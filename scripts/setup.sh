#!/usr/bin/env bash
# Set up CogniVault in ./.venv. Usage: scripts/setup.sh [--system]
#   --system  also install the OS packages the full test suite uses (tesseract OCR with
#             English and German data, espeak-ng, DejaVu fonts, headless Chromium for the
#             dashboard test), with apt-get when it is available.
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ "${1:-}" == "--system" ]]; then
  missing=()
  command -v tesseract >/dev/null || missing+=(tesseract-ocr tesseract-ocr-eng tesseract-ocr-deu)
  if command -v tesseract >/dev/null && ! tesseract --list-langs 2>/dev/null | grep -qx deu; then
    missing+=(tesseract-ocr-deu)
  fi
  command -v espeak-ng >/dev/null || missing+=(espeak-ng)
  [[ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ]] || missing+=(fonts-dejavu-core)
  command -v chromium >/dev/null || missing+=(chromium)
  command -v curl >/dev/null || missing+=(curl)
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
[[ -x .venv/bin/python ]] || "$PYTHON" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
# torch is pinned to the CPU build in the [embedded] extra; the rest comes from the registry.
.venv/bin/python -m pip install -q -e ".[embedded,audio,test]"
if [[ "${1:-}" == "--system" ]]; then
  # llama.cpp builds from source (~6 min on 2 cores; pip caches the wheel): only for the full test run.
  .venv/bin/python -m pip install -q -e ".[llamacpp]"
fi
