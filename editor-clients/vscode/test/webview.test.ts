// @vitest-environment jsdom
/**
 * The chat webview's page script in a DOM: turns render streamed envelopes as Markdown (bold,
 * code, math, tables, callouts, wikilinks), `[S1]` markers are source chips that ask the extension
 * to open the note at the cited lines, nothing from an answer is injected as HTML.
 */

import { describe, expect, it } from "vitest";

import type { HostMessage, WebviewMessage } from "../src/chatPanel";
import { refetchFailedFonts, start } from "../src/webview/chat";

function page(): { sent: WebviewMessage[]; deliver(message: HostMessage): void } {
  document.body.innerHTML = `<main id="log"></main><form id="ask-form"><textarea id="question"></textarea>
    <button type="submit" id="ask">Ask</button><button type="button" id="stop" hidden>Stop</button></form>`;
  const sent: WebviewMessage[] = [];
  start({ postMessage: (message) => sent.push(message) });
  return {
    sent,
    deliver: (message) => window.dispatchEvent(new MessageEvent("message", { data: message })),
  };
}

/** The text a reader sees (not KaTeX's MathML for screen readers, nor a chip's passage before hover). */
function visibleText(root: HTMLElement): string {
  const copy = root.cloneNode(true) as HTMLElement;
  copy.querySelectorAll(".katex-mathml, .cv-chip-passage").forEach((node) => node.remove());
  return copy.textContent ?? "";
}

describe("chat webview", () => {
  it("renders reasoning, answer, confidence and clickable sources", () => {
    const { sent, deliver } = page();
    expect(sent).toEqual([{ type: "ready" }]);
    deliver({ type: "turn", id: 1, question: "What is <b>photosynthesis</b>?" });
    deliver({ type: "busy", busy: true });
    for (const envelope of [
      { type: "thinking", data: { text: "Looking at S1" } },
      { type: "confidence", data: { label: "high", reason: "covered" } },
      { type: "text", data: { text: "Light to sugar <img src=x onerror=alert(1)> " } },
      { type: "metadata", data: { label: "S1", path: "Photosynthesis/Photosynthesis.md", title: "Photosynthesis",
        heading_path: ["Photosynthesis", "Where it happens"], line_start: 23, line_end: 25, snippet: "In plants…" } },
      { type: "text", data: { text: "[S1]" } },
    ]) {
      deliver({ type: "envelope", id: 1, envelope });
    }
    const turn = document.querySelector(".cv-turn") as HTMLElement;
    expect(turn.querySelector(".cv-question")?.textContent).toBe("What is <b>photosynthesis</b>?");
    expect(turn.querySelector("b, img")).toBeNull();
    expect((turn.querySelector(".cv-reasoning") as HTMLElement).hidden).toBe(false);
    expect(turn.querySelector(".cv-thinking")?.textContent).toBe("Looking at S1");
    expect(turn.querySelector(".cv-confidence")?.textContent).toBe("High confidence");
    expect(turn.querySelector(".cv-answer")?.classList.contains("cv-streaming")).toBe(true);
    // a later confidence (what the answer cites supports less) replaces the chip
    deliver({ type: "envelope", id: 1, envelope: { type: "confidence", data: { label: "medium", reason: "cites S1" } } });
    expect(turn.querySelector(".cv-confidence")?.textContent).toBe("Medium confidence");
    expect((turn.querySelector(".cv-confidence") as HTMLElement).title).toBe("cites S1");
    expect((document.getElementById("stop") as HTMLElement).hidden).toBe(false);

    deliver({ type: "envelope", id: 1, envelope: { type: "done", data: { answer: "Light to sugar [S1]" } } });
    deliver({ type: "busy", busy: false });
    expect(turn.querySelector(".cv-answer")?.textContent?.trim()).toBe("Light to sugar S1In plants…");
    expect(turn.querySelector(".cv-answer")?.classList.contains("cv-streaming")).toBe(false);
    const inline = turn.querySelector(".cv-answer a.cv-source-link.cv-chip") as HTMLAnchorElement;
    expect(inline.firstChild?.textContent).toBe("S1");
    expect(inline.querySelector(".cv-chip-passage")?.textContent).toBe("In plants…"); // shown on hover
    inline.click();
    expect(sent.at(-1)).toEqual({ type: "open", path: "Photosynthesis/Photosynthesis.md", lineStart: 23, lineEnd: 25 });
    const listed = turn.querySelector(".cv-sources a.cv-source-link") as HTMLAnchorElement;
    expect(listed.textContent).toBe("Photosynthesis › Where it happens");
  });

  it("shows citation comments never as raw text, also while they stream in pieces; their links open the note", () => {
    const { sent, deliver } = page();
    deliver({ type: "turn", id: 1, question: "Where does the Calvin cycle run?" });
    deliver({ type: "envelope", id: 1, envelope: { type: "metadata", data: { label: "S1", path: "Biology/Photosynthesis.md",
      title: "Photosynthesis", heading_path: ["Photosynthesis"], line_start: 12, line_end: 14,
      snippet: "Fixes CO2. [[Photosynthesis#Calvin cycle|Calvin cycle]]<!--cv:cite id=63e8b4962cfd15c8 h=fe49eb37-->" } } });
    const answer = () => document.querySelector(".cv-turn .cv-answer") as HTMLElement;
    const cite = "[[Photosynthesis#Calvin cycle|Photosynthesis › Calvin cycle]]<!--cv:cite id=63e8b4962cfd15c8 h=fe49eb37-->";
    const chunks = ["In the stroma. ", cite.slice(0, 70), cite.slice(70), " Also [[Cells|Cells]] <!--cv:cite id=0123456789abcdef h=89abcdef--> and <!--cv:note x-->."];
    for (const chunk of chunks) {
      deliver({ type: "envelope", id: 1, envelope: { type: "text", data: { text: chunk } } });
      expect(answer().textContent).not.toMatch(/<!--|cv:cite|<!-?$|\[\[/);
    }
    deliver({ type: "envelope", id: 1, envelope: { type: "done", data: {} } });
    expect(answer().textContent?.trim()).toBe("In the stroma. Photosynthesis › Calvin cycle Also Cells and .");
    const links = [...answer().querySelectorAll("a.cv-wikilink")] as HTMLAnchorElement[];
    expect(links.map((link) => link.textContent)).toEqual(["Photosynthesis › Calvin cycle", "Cells"]);
    links[0].click(); // a heading of a note: the extension opens the note there
    expect(sent.at(-1)).toEqual({ type: "openNote", target: "Photosynthesis", subpath: "Calvin cycle" });
    links[1].click(); // a note the answer did not list: opened by its name
    expect(sent.at(-1)).toEqual({ type: "openNote", target: "Cells", subpath: "" });
    expect(document.querySelector(".cv-snippet")?.textContent).toBe("Fixes CO2. Calvin cycle"); // snippets too
  });

  it("drops a citation comment that lost its closing -->", () => {
    const { deliver } = page();
    deliver({ type: "turn", id: 1, question: "What does chlorophyll absorb?" });
    deliver({ type: "envelope", id: 1, envelope: { type: "done", data: {
      answer: "Red and blue light. Photosynthesis › Light reactions<!--cv:cite id=0123456789abcdef h=89abcdef. [S1]\n" +
        "Also <!--cv:cite id=fedcba9876543210 h=01234567" } } });
    expect(document.querySelector(".cv-answer")?.textContent?.trim())
      .toBe("Red and blue light. Photosynthesis › Light reactions. [S1]\nAlso");
  });

  it("renders Markdown as a person reads it: bold, lists, tables, code, math, callouts, links", () => {
    const { sent, deliver } = page();
    deliver({ type: "turn", id: 1, question: "Photosynthesis?" });
    deliver({ type: "envelope", id: 1, envelope: { type: "metadata", data: { label: "S1", path: "Photosynthesis.md",
      title: "Photosynthesis", heading_path: ["Photosynthesis"], line_start: 3, line_end: 4, snippet: "Light to **sugar**." } } });
    const answer = [
      "**Light reactions** run in the [[Photosynthesis#Light reactions|thylakoids]] [S1].", "",
      "- water is split", "- ATP is made", "",
      "| Stage | Place |", "| --- | --- |", "| Calvin cycle | stroma |", "",
      "```python", "def rate(light):", "    return 2 * light", "```", "",
      "Energy of a photon: $E = h\\nu$, and", "", "$$\\frac{a}{b}$$", "",
      "> [!tip] Remember", "> Plants are green.", "",
      "<img src=x onerror=alert(1)> <!--cv:note x--> [link](javascript:alert(1))",
    ].join("\n");
    deliver({ type: "envelope", id: 1, envelope: { type: "done", data: { answer } } });
    const root = document.querySelector(".cv-answer") as HTMLElement;
    expect(root.querySelector("p > strong")?.textContent).toBe("Light reactions");
    expect([...root.querySelectorAll("ul > li")].map((li) => li.textContent)).toEqual(["water is split", "ATP is made"]);
    expect([...root.querySelectorAll("table td")].map((td) => td.textContent)).toEqual(["Calvin cycle", "stroma"]);
    const code = root.querySelector("pre > code.language-python") as HTMLElement;
    expect(code.textContent).toBe("def rate(light):\n    return 2 * light\n");
    expect(code.querySelector(".hljs-keyword")?.textContent).toBe("def");
    expect(root.querySelectorAll(".katex").length).toBe(2);
    expect(root.querySelector(".katex-display .katex-html .mfrac")).not.toBeNull();
    const callout = root.querySelector(".callout[data-callout=tip]") as HTMLElement;
    expect(callout.querySelector(".callout-title")?.textContent).toBe("Remember");
    expect(callout.querySelector(".callout-content")?.textContent?.trim()).toBe("Plants are green.");
    expect(root.querySelector("img, script, [onerror], a[href^=javascript]")).toBeNull();
    expect(root.textContent).toContain("<img src=x onerror=alert(1)>"); // raw HTML stays text
    expect(visibleText(root)).not.toMatch(/\*\*|\[\[|<!--|\$/);
    const chip = root.querySelector(".cv-chip") as HTMLAnchorElement;
    expect(chip.querySelector(".cv-chip-passage")?.textContent).toBe("Light to sugar.");
    chip.click();
    expect(sent.at(-1)).toEqual({ type: "open", path: "Photosynthesis.md", lineStart: 3, lineEnd: 4 });
    (root.querySelector("a.cv-wikilink") as HTMLAnchorElement).click();
    expect(sent.at(-1)).toEqual({ type: "openNote", target: "Photosynthesis", subpath: "Light reactions" });
  });

  it("re-renders a streaming answer without replacing the blocks above its end", () => {
    const { deliver } = page();
    deliver({ type: "turn", id: 1, question: "Q" });
    const text = (chunk: string) => deliver({ type: "envelope", id: 1, envelope: { type: "text", data: { text: chunk } } });
    text("First **para**graph.\n\nSecond ");
    const root = document.querySelector(".cv-answer") as HTMLElement;
    const first = root.firstElementChild;
    expect(first?.innerHTML).toBe("First <strong>para</strong>graph.");
    text("one, with `code");
    text("` in it.");
    expect(root.firstElementChild).toBe(first); // the same node: a selection or hover in it survives
    expect(root.lastElementChild?.innerHTML).toBe("Second one, with <code>code</code> in it.");
    expect(root.classList.contains("cv-streaming")).toBe(true);
  });

  it("shows an error envelope and sends questions", () => {
    const { sent, deliver } = page();
    deliver({ type: "turn", id: 7, question: "Q" });
    deliver({ type: "envelope", id: 7, envelope: { type: "error", data: { code: "no_model", message: "Start Ollama" } } });
    const error = document.querySelector(".cv-error") as HTMLElement;
    expect(error.hidden).toBe(false);
    expect(error.textContent).toBe("Start Ollama");
    (document.getElementById("question") as HTMLTextAreaElement).value = "  Why?  ";
    (document.getElementById("ask-form") as HTMLFormElement).dispatchEvent(new Event("submit", { cancelable: true }));
    expect(sent.at(-1)).toEqual({ type: "ask", question: "Why?" });
  });
});

describe("formula fonts", () => {
  it("are fetched once more, from a fresh copy of their stylesheet, after one failed", () => {
    document.head.innerHTML = `<link rel="stylesheet" data-fonts href="https://resource.test/katex/katex.min.css">
      <link rel="stylesheet" href="https://resource.test/media/chat.css">`;
    const fonts = new EventTarget();
    Object.defineProperty(document, "fonts", { value: fonts, configurable: true });
    try {
      refetchFailedFonts(document);
      const sheets = () => [...document.querySelectorAll<HTMLLinkElement>("link[data-fonts]")].map((link) => link.href);
      expect(sheets()).toEqual(["https://resource.test/katex/katex.min.css"]);
      fonts.dispatchEvent(new Event("loadingerror"));
      expect(sheets()).toEqual(["https://resource.test/katex/katex.min.css",
        "https://resource.test/katex/katex.min.css?retry=1"]);
      fonts.dispatchEvent(new Event("loadingerror")); // a second failure: no endless refetching
      expect(sheets()).toHaveLength(2);
      document.querySelectorAll("link[data-fonts]")[1].dispatchEvent(new Event("load"));
      expect(sheets()).toEqual(["https://resource.test/katex/katex.min.css?retry=1"]);
      expect(document.querySelector("link:not([data-fonts])")).not.toBeNull();
    } finally {
      Reflect.deleteProperty(document, "fonts");
      document.head.innerHTML = "";
    }
  });
});
