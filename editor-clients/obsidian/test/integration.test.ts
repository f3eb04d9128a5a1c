// @vitest-environment node
/**
 * The plugin against a real companion: `cognivault serve --keyword-only` on a temp copy of
 * examples/vault, started by tests/clients/test_obsidian.py, which passes
 * COGNIVAULT_TEST_VAULT (and COGNIVAULT_TEST_URL) here. Skipped when they are not set.
 *
 * Companion discovery (companion.json), a streamed answer in the chat view, related notes,
 * generation writing a note that then opens, due cards, and the dashboard.
 *
 * Node's own fetch talks to the companion (happy-dom's would treat the page as an opaque origin);
 * every request carries `Origin: app://obsidian.md` as Obsidian's do, so the companion's Origin
 * and CORS checks are exercised. The views get a DOM from a happy-dom Window.
 */

import { existsSync, readFileSync } from "node:fs";
import * as path from "node:path";
import { Window } from "happy-dom";
import { beforeAll, describe, expect, it } from "vitest";

import CogniVaultPlugin from "../src/main";
import { type ChatView, VIEW_CHAT } from "../src/views/chat";
import { type DashboardView, VIEW_DASHBOARD } from "../src/views/dashboard";
import { type RelatedView, VIEW_RELATED } from "../src/views/related";
import { App, TFile, notices } from "./mocks/obsidian";

const VAULT = process.env.COGNIVAULT_TEST_VAULT ?? "";
const URL_EXPECTED = process.env.COGNIVAULT_TEST_URL ?? "";
const NOTE = "Photosynthesis/Light-dependent reactions.md";

describe.skipIf(!VAULT)("against a real companion", () => {
  let app: App;
  let plugin: CogniVaultPlugin;
  let token = "";
  const envelopes: string[] = [];
  const allowOrigin: (string | null)[] = [];

  beforeAll(async () => {
    const window = new Window({ url: "https://obsidian.invalid/" });
    globalThis.document = window.document as unknown as Document;
    app = new App(VAULT);
    plugin = new CogniVaultPlugin(app as never, { id: "cognivault", version: "0.1.0" } as never);
    plugin.fetchImpl = async (url, init) => {
      const response = await fetch(url, { ...init, headers: { ...(init?.headers as Record<string, string>), Origin: "app://obsidian.md" } });
      allowOrigin.push(response.headers.get("Access-Control-Allow-Origin"));
      return response;
    };
    await plugin.onload();
    token = (JSON.parse(readFileSync(path.join(VAULT, ".cognivault", "companion.json"), "utf-8")) as { token: string }).token;
    // wait until the companion's first index run has every note searchable
    const client = await plugin.companion();
    const deadline = Date.now() + 60_000;
    for (;;) {
      const status = await client.status() as { stages?: { lexical?: { up_to_date?: boolean } } };
      if (status.stages?.lexical?.up_to_date) {
        break;
      }
      if (Date.now() > deadline) {
        throw new Error(`the companion did not finish indexing: ${JSON.stringify(status)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  });

  it("discovers the companion through .cognivault/companion.json", async () => {
    const client = await plugin.companion();
    expect(client.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    if (URL_EXPECTED) {
      expect(client.url).toBe(URL_EXPECTED);
    }
    // the companion accepted Obsidian's Origin and named it for CORS
    expect(allowOrigin.length).toBeGreaterThan(0);
    expect(new Set(allowOrigin)).toEqual(new Set(["app://obsidian.md"]));
  });

  it("streams an answer into the chat view with sources as internal links", async () => {
    const leaf = await plugin.openView(VIEW_CHAT);
    const view = leaf?.view as ChatView;
    const client = await plugin.companion();
    for await (const envelope of client.ask("What is photosynthesis?")) {
      envelopes.push(envelope.type);
    }
    expect(envelopes.filter((t) => t === "text").length).toBeGreaterThan(1); // streamed in pieces
    expect(envelopes.at(-1)).toBe("done");

    const state = await view.ask("What is photosynthesis?");
    expect(state.error).toBeNull();
    expect(state.done).toBe(true);
    expect(state.text.toLowerCase()).toContain("photosynthesis");
    expect(state.sources.length).toBeGreaterThan(0);
    for (const source of state.sources) {
      expect(existsSync(path.join(VAULT, source.path)), source.path).toBe(true);
    }
    const links = [...view.contentEl.querySelectorAll<HTMLAnchorElement>(".cv-sources a.internal-link")];
    expect(links.map((a) => a.dataset.href)).toEqual(state.sources.map((s) => s.path));
    links[0].click();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(app.workspace.mainLeaf.opened.at(-1)?.file.path).toBe(state.sources[0].path);
  });

  it("lists related notes for the active file", async () => {
    app.workspace.activeFile = new TFile("Photosynthesis/Photosynthesis.md");
    const view = (await plugin.openView(VIEW_RELATED))?.view as RelatedView;
    const items = [...view.contentEl.querySelectorAll<HTMLAnchorElement>(".cv-related-item a")];
    expect(items.length).toBeGreaterThan(0);
    for (const item of items) {
      expect(existsSync(path.join(VAULT, item.dataset.href ?? "")), item.dataset.href).toBe(true);
    }
  });

  it.each(["flashcards", "mindmap"] as const)("generates %s: the note is written and opened", async (kind) => {
    app.workspace.activeFile = new TFile(NOTE);
    const written = await plugin.generate(kind, new TFile(NOTE) as never);
    expect(written, notices.map((n) => n.message).join("\n")).toBeTruthy();
    const file = path.join(VAULT, written ?? "");
    expect(existsSync(file)).toBe(true);
    expect(readFileSync(file, "utf-8").length).toBeGreaterThan(50);
    expect(app.workspace.mainLeaf.opened.at(-1)?.file.path).toBe(written);
  });

  it("finds the new flashcards due for review", async () => {
    const due = await (await plugin.companion()).reviewDue(50);
    expect(due.length).toBeGreaterThan(0);
    expect(due[0].front.length).toBeGreaterThan(0);
  });

  it("embeds the real dashboard page", async () => {
    const view = (await plugin.openView(VIEW_DASHBOARD, "tab"))?.view as DashboardView;
    const srcdoc = view.frame?.srcdoc ?? "";
    expect(srcdoc).toContain("CogniVault");
    expect(srcdoc).toContain(`connect-src ${(await plugin.companion()).origin};`);
    expect(srcdoc).not.toMatch(/<script(?![^>]*nonce=)/);
  });

  it("never shows the token to the user", () => {
    expect(token.length).toBeGreaterThan(10);
    for (const notice of notices) {
      expect(notice.message).not.toContain(token);
    }
  });
});
