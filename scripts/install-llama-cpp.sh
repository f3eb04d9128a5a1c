#!/usr/bin/env bash
# Install llama-cpp-python (the `llamacpp` extra) into PYTHON's environment, built to run on any CPU of
# this kind: llama.cpp's native build enables AMX on recent Xeons and segfaults on the first token
# there (see server/cognivault/models/llamacpp_build.py, which chooses the CMAKE_ARGS; a CMAKE_ARGS
# of your own, e.g. for a GPU, wins). Building takes ~6 min on 2 cores, so the wheel is cached under
# ${COGNIVAULT_BUILD_CACHE:-${XDG_CACHE_HOME:-~/.cache}/cognivault}/llama-cpp-python/KEY, KEY being a
# hash of the requirement, the CMAKE_ARGS and the Python: pip's own wheel cache does not key on
# CMAKE_ARGS, and would hand back a native build made earlier. Usage: scripts/install-llama-cpp.sh [PYTHON]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
python="${1:-$root/.venv/bin/python}"

requirement="$("$python" - "$root/pyproject.toml" <<'EOF'
import sys, tomllib
with open(sys.argv[1], "rb") as file:
    print(tomllib.load(file)["project"]["optional-dependencies"]["llamacpp"][0])
EOF
)"
cmake_args="${CMAKE_ARGS:-$(PYTHONPATH="$root/server" "$python" -m cognivault.models.llamacpp_build)}"
python_tag="$("$python" -c 'import sys, sysconfig; print(sys.implementation.cache_tag, sysconfig.get_platform())')"
key="$(printf '%s\n' "$requirement" "$cmake_args" "$python_tag" | sha256sum | cut -c1-16)"
cache="${COGNIVAULT_BUILD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cognivault}/llama-cpp-python/$key"

if ! compgen -G "$cache/*.whl" >/dev/null; then
  echo "building $requirement with CMAKE_ARGS=\"$cmake_args\" (once; cached in $cache)"
  rm -rf "$cache.partial"
  CMAKE_ARGS="$cmake_args" "$python" -m pip wheel -q --no-deps --no-cache-dir --no-binary llama-cpp-python \
    -w "$cache.partial" "$requirement"
  mv "$cache.partial" "$cache"
fi
wheel="$(compgen -G "$cache/*.whl" | head -1)"
stamp="$("$python" -c 'import sys; print(sys.prefix)')/.cognivault-llama-cpp-build"
if [[ ! -f "$stamp" || "$(cat "$stamp")" != "$key" ]]; then
  # The same version built with other flags counts as installed for pip: replace it, then add what it needs.
  "$python" -m pip install -q --force-reinstall --no-deps "$wheel"
  "$python" -m pip install -q "$wheel"
  echo "$key" >"$stamp"
fi
