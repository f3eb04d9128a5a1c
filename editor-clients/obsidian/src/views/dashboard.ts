/**
 * The study dashboard view: the companion's /dashboard page in an iframe (srcdoc), with a
 * Content-Security-Policy naming only the companion's loopback origin and the token handed to the
 * page in memory (never in a URL). The page calls the API from app://obsidian.md, which the
 * companion allows.
 */

import { ItemView, type WorkspaceLeaf } from "obsidian";

import { embedDashboard, makeNonce } from "../../../shared/companion";
import { h } from "../dom";
import type CogniVaultPlugin from "../main";

export const VIEW_DASHBOARD = "cognivault-dashboard";

export class DashboardView extends ItemView {
  frame: HTMLIFrameElement | null = null;

  constructor(leaf: WorkspaceLeaf, private readonly plugin: CogniVaultPlugin) {
    super(leaf);
  }

  getViewType(): string {
    return VIEW_DASHBOARD;
  }

  getDisplayText(): string {
    return "Study dashboard";
  }

  override getIcon(): string {
    return "layout-dashboard";
  }

  override async onOpen(): Promise<void> {
    this.contentEl.classList.add("cognivault-dashboard");
    await this.reload();
  }

  async reload(): Promise<void> {
    const root = this.contentEl;
    root.replaceChildren();
    try {
      const client = await this.plugin.companion();
      const html = await client.dashboardHtml();
      const frame = h(root, "iframe", "cv-dashboard-frame");
      frame.title = "CogniVault study dashboard";
      frame.setAttribute("referrerpolicy", "no-referrer");
      frame.srcdoc = embedDashboard(html, { origin: client.origin, token: client.token, nonce: makeNonce() });
      this.frame = frame;
    } catch (error) {
      this.frame = null;
      h(root, "div", "cv-empty", this.plugin.describeError(error));
      const retry = h(root, "button", "mod-cta", "Retry");
      retry.addEventListener("click", () => void this.reload());
    }
  }
}
