// @vitest-environment happy-dom
/**
 * The chat webview's page script in a DOM: turns render streamed envelopes, sources are links
 * that ask the extension to open the note at the cited lines, nothing is injected as HTML.
 */

import { describe, expect, it } from "vitest";

import type { HostMessage, WebviewMessage } from "../src/chatPanel";
import { start } from "../src/webview/chat";

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
    expect(turn.querySelector(".cv-answer")?.textContent).toBe("Light to sugar [S1]");
    expect(turn.querySelector(".cv-answer")?.classList.contains("cv-streaming")).toBe(false);
    const inline = turn.querySelector(".cv-answer a.cv-source-link") as HTMLAnchorElement;
    expect(inline.textContent).toBe("[S1]");
    inline.click();
    expect(sent.at(-1)).toEqual({ type: "open", path: "Photosynthesis/Photosynthesis.md", lineStart: 23, lineEnd: 25 });
    const listed = turn.querySelector(".cv-sources a.cv-source-link") as HTMLAnchorElement;
    expect(listed.textContent).toBe("Photosynthesis › Where it happens");
  });

  it("shows citation comments as source chips, never as raw text, also while they stream in pieces", () => {
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
      expect(answer().textContent).not.toMatch(/<!--|cv:cite|<!-?$|\[\[Photosynthesis/);
    }
    deliver({ type: "envelope", id: 1, envelope: { type: "done", data: {} } });
    expect(answer().textContent).toBe("In the stroma. Photosynthesis › Calvin cycle Also Cells and .");
    const chips = [...answer().querySelectorAll(".cv-cite")] as HTMLElement[];
    expect(chips.map((chip) => chip.textContent)).toEqual(["Photosynthesis › Calvin cycle", "Cells"]);
    (chips[0] as HTMLAnchorElement).click(); // cites a source of the answer: opens it
    expect(sent.at(-1)).toEqual({ type: "open", path: "Biology/Photosynthesis.md", lineStart: 12, lineEnd: 14 });
    expect(chips[1].tagName).toBe("SPAN"); // a note the answer did not list: a chip naming it
    expect(chips[1].title).toBe("Cells");
    expect(document.querySelector(".cv-snippet")?.textContent).toBe("Fixes CO2. Calvin cycle"); // snippets too
  });

  it("drops a citation comment that lost its closing -->", () => {
    const { deliver } = page();
    deliver({ type: "turn", id: 1, question: "What does chlorophyll absorb?" });
    deliver({ type: "envelope", id: 1, envelope: { type: "done", data: {
      answer: "Red and blue light. Photosynthesis › Light reactions<!--cv:cite id=0123456789abcdef h=89abcdef. [S1]\n" +
        "Also <!--cv:cite id=fedcba9876543210 h=01234567" } } });
    expect(document.querySelector(".cv-answer")?.textContent)
      .toBe("Red and blue light. Photosynthesis › Light reactions. [S1]\nAlso ");
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
