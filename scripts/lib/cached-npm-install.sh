# Sourced by scripts/install-test-*.sh: install npm packages once into a folder of the test cache,
# ${COGNIVAULT_TEST_CACHE:-${XDG_CACHE_HOME:-~/.cache}/cognivault-test} (outside the checkout, so later
# runs and fresh clones reuse it), from the npm registry only and without install scripts.
#
# cached_npm_install SCRIPT NAME PACKAGE_JSON [--installed]
#   Prints the folder ($cache/NAME). A finished install is stamped with the hashes of SCRIPT and of this
#   file, and an unfinished or outdated one is redone; with --installed, only prints the folder when it
#   is installed (status 1 when not), without installing: what the tests call.
cached_npm_install() {
  local script="$1" name="$2" manifest="$3" mode="${4:-}"
  local cache="${COGNIVAULT_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cognivault-test}"
  local dest="$cache/$name" stamp tool
  stamp="$(cat "$script" "${BASH_SOURCE[0]}" | sha256sum | cut -c1-64)"
  if [[ -f "$dest/.installed" && "$(cat "$dest/.installed")" == "$stamp" ]]; then
    echo "$dest"
    return 0
  fi
  [[ "$mode" == "--installed" ]] && return 1
  for tool in node npm; do
    command -v "$tool" >/dev/null || { echo "$(basename "$script"): '$tool' is missing (run scripts/setup.sh --test)" >&2; return 1; }
  done
  rm -rf "$dest.partial"
  mkdir -p "$dest.partial"
  printf '%s\n' "$manifest" > "$dest.partial/package.json"
  echo "$(basename "$script"): $name into $dest" >&2
  (cd "$dest.partial" && npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false \
    npm_config_engine_strict=false npm install --ignore-scripts --no-package-lock >&2)
  rm -rf "$dest"
  mv "$dest.partial" "$dest"
  echo "$stamp" > "$dest/.installed"
  echo "$dest"
}
