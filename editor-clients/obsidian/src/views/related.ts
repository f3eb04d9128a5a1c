/** The related-notes pane: follows the active file and lists notes related to it (meaning, links, tags). */

import { ItemView, type TFile, type WorkspaceLeaf } from "obsidian";

import type { RelatedNote } from "../../../shared/companion";
import { h, internalLink } from "../dom";
import type CogniVaultPlugin from "../main";

export const VIEW_RELATED = "cognivault-related";

export class RelatedView extends ItemView {
  private request = 0;
  current: string | null = null;

  constructor(leaf: WorkspaceLeaf, private readonly plugin: CogniVaultPlugin) {
    super(leaf);
  }

  getViewType(): string {
    return VIEW_RELATED;
  }

  getDisplayText(): string {
    return "Related notes";
  }

  override getIcon(): string {
    return "git-fork";
  }

  override async onOpen(): Promise<void> {
    this.contentEl.classList.add("cognivault-related");
    await this.show(this.app.workspace.getActiveFile());
  }

  private message(text: string): void {
    this.contentEl.replaceChildren();
    h(this.contentEl, "div", "cv-empty", text);
  }

  /** Lists the notes related to `file`; returns them (empty on errors, which are shown). */
  async show(file: TFile | null): Promise<RelatedNote[]> {
    if (!file || file.extension !== "md") {
      this.current = null;
      this.message("Open a note to see related notes.");
      return [];
    }
    this.current = file.path;
    const mine = ++this.request;
    try {
      const client = await this.plugin.companion();
      const related = await client.related(file.path, this.plugin.settings.relatedCount);
      if (mine === this.request) {
        this.render(file, related);
      }
      return related;
    } catch (error) {
      if (mine === this.request) {
        this.message(this.plugin.describeError(error));
      }
      return [];
    }
  }

  private render(file: TFile, related: RelatedNote[]): void {
    const root = this.contentEl;
    root.replaceChildren();
    h(root, "div", "cv-related-title", `Related to ${file.basename}`);
    if (related.length === 0) {
      h(root, "div", "cv-empty", "No related notes found.");
      return;
    }
    const list = h(root, "ul", "cv-related-list");
    for (const note of related) {
      const item = h(list, "li", "cv-related-item");
      item.append(internalLink(root, note.path, note.title || note.path, () => void this.plugin.openNote(note.path)));
      h(item, "div", "cv-reasons", note.reasons.join(" · "));
    }
  }
}
