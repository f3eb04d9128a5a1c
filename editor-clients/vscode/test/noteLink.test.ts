/**
 * Where an answer's `[[Note#Heading]]` link goes: the vault's note it names (a path from the root,
 * else the note of that name nearest the root, never a hidden folder's) at its heading or block.
 */

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";

import { openNoteLink, resolveNote, subpathLine } from "../src/noteLink";

const NOTE = ["# Photosynthesis", "", "## Light reactions", "Water is split.", "", "## Calvin cycle",
  "### Light reactions", "Fixes CO2. ^fixing", "", "^table-block"].join("\n");

describe("subpathLine", () => {
  it("finds a heading, a heading under another, and a block", () => {
    expect(subpathLine(NOTE, "Light reactions")).toBe(3);
    expect(subpathLine(NOTE, "light  REACTIONS ")).toBe(3);
    expect(subpathLine(NOTE, "Calvin cycle#Light reactions")).toBe(7);
    expect(subpathLine(NOTE, "^fixing")).toBe(8);
    expect(subpathLine(NOTE, "^table-block")).toBe(10);
    expect(subpathLine(NOTE, "Nowhere")).toBe(1);
  });
});

describe("resolveNote", () => {
  let vault = "";
  afterEach(() => rmSync(vault, { recursive: true, force: true }));

  function makeVault(files: string[]): string {
    vault = mkdtempSync(path.join(tmpdir(), "cv-links-"));
    for (const file of files) {
      mkdirSync(path.dirname(path.join(vault, file)), { recursive: true });
      writeFileSync(path.join(vault, file), NOTE);
    }
    return vault;
  }

  it("takes a path from the root, else the nearest note of that name, never a hidden folder's", async () => {
    makeVault(["Biology/Deep/Cells.md", "Biology/Cells.md", ".trash/Photosynthesis.md", "Plants/Photosynthesis.md"]);
    expect(await resolveNote(vault, "Biology/Deep/Cells")).toBe("Biology/Deep/Cells.md");
    expect(await resolveNote(vault, "cells")).toBe("Biology/Cells.md");
    expect(await resolveNote(vault, "Deep/Cells.md")).toBe("Biology/Deep/Cells.md");
    expect(await resolveNote(vault, "Photosynthesis")).toBe("Plants/Photosynthesis.md");
    expect(await resolveNote(vault, "../outside")).toBeNull();
    expect(await resolveNote(vault, "Missing")).toBeNull();
  });

  it("opens the note at the linked heading", async () => {
    makeVault(["Plants/Photosynthesis.md"]);
    const opened: unknown[] = [];
    const open = (relative: string, start: number, end: number) => Promise.resolve(void opened.push([relative, start, end]));
    expect(await openNoteLink(vault, "Photosynthesis", "Calvin cycle", open)).toBe(true);
    expect(await openNoteLink(vault, "Nothing", "", open)).toBe(false);
    expect(opened).toEqual([["Plants/Photosynthesis.md", 6, 6]]);
  });
});
