/**
 * Does a workspace folder look like a Markdown vault? (Pure: the caller lists the folder.)
 *
 * Yes when it has `.obsidian/` or `.cognivault/`, or at least MIN_NOTES Markdown notes and none
 * of the files that mark a code project (a README in a repository is not a vault).
 */

import * as path from "node:path";

export const VAULT_MARKERS = [".obsidian", ".cognivault"];
export const PROJECT_MARKERS = ["package.json", "pyproject.toml", "setup.py", "Cargo.toml", "go.mod", "pom.xml",
  "build.gradle", "Makefile", "CMakeLists.txt", "Gemfile", "composer.json", "mix.exs"];
export const MIN_NOTES = 3;

export interface FolderSummary {
  /** Names of the folder's top-level entries. */
  entries: string[];
  /** How many Markdown files it holds (counting can stop at MIN_NOTES). */
  markdownFiles: number;
}

export function looksLikeVault(folder: FolderSummary): boolean {
  const names = new Set(folder.entries);
  if (VAULT_MARKERS.some((marker) => names.has(marker))) {
    return true;
  }
  if (PROJECT_MARKERS.some((marker) => names.has(marker))) {
    return false;
  }
  return folder.markdownFiles >= MIN_NOTES;
}

/** The note's path relative to the vault with forward slashes, or null when it is outside. */
export function vaultRelative(vault: string, file: string): string | null {
  const relative = path.relative(vault, file);
  if (!relative || relative.startsWith("..") || path.isAbsolute(relative)) {
    return null;
  }
  return relative.split(path.sep).join("/");
}
