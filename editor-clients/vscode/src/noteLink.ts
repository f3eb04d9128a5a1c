/**
 * Where a `[[Note#Heading]]` or `[[Note#^block]]` link of an answer goes: the vault's note it
 * names (a path from the vault's root, else the note of that name nearest the root, as Obsidian
 * resolves it) and the line of the heading (a chain `A#B` is B under A) or block it points at.
 */

import { promises as fs } from "node:fs";
import * as path from "node:path";

import { vaultRelative } from "./vault";

function words(text: string): string {
  return text.trim().replace(/\s+/g, " ").toLowerCase();
}

/** The 1-based line `subpath` (`Heading`, `Parent#Heading`, `^block-id`) points at in `text`; 1 when not found. */
export function subpathLine(text: string, subpath: string): number {
  const lines = text.split(/\r?\n/);
  const wanted = subpath.trim();
  if (wanted.startsWith("^")) {
    const index = lines.findIndex((line) => line.trimEnd().endsWith(` ${wanted}`) || line.trim() === wanted);
    return index + 1 || 1;
  }
  let from = 0;
  let found = -1;
  for (const part of wanted.split("#").map(words).filter(Boolean)) {
    const index = lines.findIndex((line, at) => at >= from && /^#{1,6}\s/.test(line)
      && words(line.replace(/^#{1,6}\s+/, "").replace(/\s+#+\s*$/, "")) === part);
    if (index < 0) {
      break;
    }
    found = index;
    from = index + 1;
  }
  return found + 1 || 1;
}

/** The vault-relative path of the note `target` names, or null when the vault has none. */
export async function resolveNote(vault: string, target: string): Promise<string | null> {
  const name = target.trim().replace(/\\/g, "/").replace(/\.md$/i, "");
  const direct = vaultRelative(vault, path.join(vault, `${name}.md`));
  if (direct && await fs.stat(path.join(vault, direct)).then((s) => s.isFile(), () => false)) {
    return direct;
  }
  const tail = `/${name.toLowerCase()}.md`;
  const candidates = (await fs.readdir(vault, { recursive: true }))
    .map((entry) => entry.split(path.sep).join("/"))
    .filter((relative) => !relative.split("/").some((part) => part.startsWith("."))
      && `/${relative.toLowerCase()}`.endsWith(tail));
  candidates.sort((a, b) => a.split("/").length - b.split("/").length || a.localeCompare(b));
  return candidates[0] ?? null;
}

/** Opens the note `target` names at `subpath` with `open` (vault-relative path and lines); false when there is no such note. */
export async function openNoteLink(vault: string, target: string, subpath: string,
  open: (relative: string, lineStart: number, lineEnd: number) => Promise<void>): Promise<boolean> {
  const relative = await resolveNote(vault, target);
  if (!relative) {
    return false;
  }
  const line = subpath ? subpathLine(await fs.readFile(path.join(vault, relative), "utf-8"), subpath) : 1;
  await open(relative, line, line);
  return true;
}
