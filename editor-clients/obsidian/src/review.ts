/** Review due cards in a modal: front, reveal the back, grade 1-4 (keys work too). */

import { type App, Modal, Notice } from "obsidian";

import type { CompanionClient, DueCard } from "../../shared/companion";
import { h } from "./dom";

const GRADES: { label: string; rating: 1 | 2 | 3 | 4 }[] = [
  { label: "1 · Again", rating: 1 }, { label: "2 · Hard", rating: 2 }, { label: "3 · Good", rating: 3 }, { label: "4 · Easy", rating: 4 },
];

export class ReviewModal extends Modal {
  index = 0;
  graded = 0;
  revealed = false;
  private readonly onKey = (event: KeyboardEvent): void => {
    if (!this.revealed && (event.key === " " || event.key === "Enter")) {
      event.preventDefault();
      this.reveal();
    } else if (this.revealed && ["1", "2", "3", "4"].includes(event.key)) {
      event.preventDefault();
      void this.grade(Number(event.key) as 1 | 2 | 3 | 4);
    }
  };

  constructor(app: App, private readonly client: CompanionClient, readonly cards: DueCard[]) {
    super(app);
  }

  override onOpen(): void {
    this.contentEl.classList.add("cognivault-review");
    this.contentEl.addEventListener("keydown", this.onKey);
    this.show();
  }

  override onClose(): void {
    this.contentEl.removeEventListener("keydown", this.onKey);
    this.contentEl.replaceChildren();
    if (this.graded > 0) {
      new Notice(`CogniVault: ${this.graded} card${this.graded === 1 ? "" : "s"} reviewed`);
    }
  }

  private show(): void {
    const root = this.contentEl;
    root.replaceChildren();
    const card = this.cards[this.index];
    if (!card) {
      h(root, "div", "cv-review-done", `Done: ${this.graded} card${this.graded === 1 ? "" : "s"} reviewed.`);
      return;
    }
    this.revealed = false;
    h(root, "div", "cv-review-meta", `${this.index + 1} / ${this.cards.length} · ${card.title ?? card.path}`);
    h(root, "div", "cv-review-front", card.front);
    const back = h(root, "div", "cv-review-back", card.back);
    back.hidden = true;
    const actions = h(root, "div", "cv-review-actions");
    const reveal = h(actions, "button", "mod-cta cv-reveal", "Show answer");
    reveal.addEventListener("click", () => this.reveal());
    const grades = h(actions, "div", "cv-grades");
    grades.hidden = true;
    for (const grade of GRADES) {
      const button = h(grades, "button", `cv-grade cv-grade-${grade.rating}`, grade.label);
      button.addEventListener("click", () => void this.grade(grade.rating));
    }
    reveal.focus?.();
  }

  reveal(): void {
    this.revealed = true;
    (this.contentEl.querySelector(".cv-review-back") as HTMLElement).hidden = false;
    (this.contentEl.querySelector(".cv-grades") as HTMLElement).hidden = false;
    (this.contentEl.querySelector(".cv-reveal") as HTMLElement).hidden = true;
  }

  async grade(rating: 1 | 2 | 3 | 4): Promise<void> {
    const card = this.cards[this.index];
    if (!card || !this.revealed) {
      return;
    }
    this.revealed = false;
    try {
      await this.client.grade(card, rating);
      this.graded += 1;
      this.index += 1;
      this.show();
    } catch (error) {
      this.revealed = true;
      new Notice(`CogniVault: grading failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
