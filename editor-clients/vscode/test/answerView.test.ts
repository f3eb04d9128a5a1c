// @vitest-environment jsdom
/**
 * The shared answer view, whatever renders its Markdown: CogniVault comments never reach the
 * renderer (also cut off mid-stream), `[S1]` in prose becomes a source chip (not in code, math or
 * links), a re-render keeps the unchanged blocks, and an async renderer's late result is dropped.
 */

import { describe, expect, it } from "vitest";

import { type AnswerHost, answerMarkdown, createTurn, decorateAnswer, morphChildren, readableText, renderTurn }
  from "../../shared/answerView";
import { type Source, newAnswer } from "../../shared/companion";

const SOURCE: Source = { label: "S1", path: "Biology/Cells.md", title: "Cells", headingPath: ["Cells"], lineStart: 4,
  lineEnd: 6, snippet: "Cells have a **membrane** [[Membrane|membrane]]<!--cv:cite id=0123456789abcdef h=89abcdef-->." };

function link(source: Source, text: string): HTMLElement {
  const anchor = document.createElement("a");
  anchor.className = "cv-source-link";
  anchor.textContent = text;
  anchor.dataset.path = source.path;
  return anchor;
}

function html(markup: string): HTMLElement {
  const root = document.createElement("div");
  root.innerHTML = markup;
  return root;
}

describe("answerMarkdown", () => {
  it("drops CogniVault comments and keeps a citation's link", () => {
    expect(answerMarkdown("A [[Cells#Wall|Cells › Wall]] <!--cv:cite id=0123456789abcdef h=89abcdef-->. B <!--cv:note x-->!"))
      .toBe("A [[Cells#Wall|Cells › Wall]]. B !");
    expect(answerMarkdown("Red light. [[Photosynthesis]]<!--cv:cite id=0123456789abcdef h=89abcdef. [S1]"))
      .toBe("Red light. [[Photosynthesis]]. [S1]"); // a comment that lost its -->
  });

  it("keeps a formula on a line of its own a formula, with its marker after it", () => {
    expect(answerMarkdown("**Energy**\n\n$$E = \\frac{hc}{\\lambda}$$ [S1]\n\nMore [S2]"))
      .toBe("**Energy**\n\n$$E = \\frac{hc}{\\lambda}$$\n[S1]\n\nMore [S2]");
    expect(answerMarkdown("$$\nb\n$$ [S1][S2].\nCosts $5 [S3]")).toBe("$$\nb\n$$\n[S1][S2].\nCosts $5 [S3]");
  });

  it("holds back a comment still streaming in", () => {
    for (const cut of ["<", "<!", "<!-", "<!--c", "<!--cv:ci", "[[Cells]] <!--cv:cite id=01"]) {
      expect(answerMarkdown(`Text ${cut}`, true)).toBe("Text ");
    }
    expect(answerMarkdown("a < b", true)).toBe("a < b");
  });

  it("reads a passage as plain text for previews", () => {
    expect(readableText(SOURCE.snippet)).toBe("Cells have a membrane membrane.");
    expect(readableText("*one* and _two_ and `x_y` and 2*3*4")).toBe("one and two and x_y and 2*3*4");
  });
});

describe("decorateAnswer", () => {
  it("turns [S1] in prose into a chip with the passage, never in code, math or links", () => {
    const root = html("<p>Cells [S1] and [S2] [S1].</p><pre><code>x = a[S1]</code></pre><p><code>[S1]</code>"
      + "<span class=\"katex\">[S1]</span><a href=\"#\">[S1]</a></p>");
    decorateAnswer(root, [SOURCE], link);
    const chips = [...root.querySelectorAll(".cv-chip")] as HTMLElement[];
    expect(chips).toHaveLength(2);
    expect(chips[0].dataset.path).toBe("Biology/Cells.md");
    expect(chips[0].firstChild?.textContent).toBe("S1");
    expect(chips[0].querySelector(".cv-chip-passage")?.textContent).toBe("Cells have a membrane membrane.");
    expect(chips[0].getAttribute("aria-label")).toBe("S1: Cells");
    expect(root.querySelector("p")?.childNodes[2].textContent).toBe(" and [S2] "); // no such source: text
    expect(root.querySelector("pre")?.textContent).toBe("x = a[S1]");
    expect(root.querySelectorAll("p")[1].textContent).toBe("[S1][S1][S1]");
  });
});

describe("morphChildren", () => {
  it("keeps the children that did not change and replaces or drops the rest", () => {
    const target = html("<p>one</p><p>two</p><p>three</p>");
    const [one, two] = [...target.children];
    morphChildren(target, html("<p>one</p><p>two, longer</p>"));
    expect(target.innerHTML).toBe("<p>one</p><p>two, longer</p>");
    expect(target.children[0]).toBe(one);
    expect(target.children[1]).not.toBe(two);
    morphChildren(target, html("<p>one</p><p>two, longer</p><ul><li>new</li></ul>"));
    expect(target.innerHTML).toBe("<p>one</p><p>two, longer</p><ul><li>new</li></ul>");
  });
});

describe("renderTurn with an async renderer", () => {
  it("shows the last state's render, never an older one that finished later", async () => {
    const pending: { text: string; done: () => void }[] = [];
    const host: AnswerHost = {
      link,
      render: (target, markdown) => new Promise<void>((resolve) => {
        pending.push({ text: markdown, done: () => {
          target.append(Object.assign(document.createElement("p"), { textContent: markdown }));
          resolve();
        } });
      }),
    };
    const turn = createTurn(document, "Q");
    const state = { ...newAnswer(), text: "first" };
    const older = renderTurn(turn, state, host);
    const newer = renderTurn(turn, { ...state, text: "first and second", done: true }, host);
    pending[1].done();
    await newer;
    pending[0].done();
    await older;
    expect(turn.querySelector(".cv-answer")?.textContent).toBe("first and second");
    expect(turn.querySelector(".cv-answer")?.classList.contains("cv-streaming")).toBe(false);
  });
});
