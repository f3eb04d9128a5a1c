/**
 * "Open study dashboard": the companion's /dashboard page in a webview.
 *
 * The page is fetched by the extension host (Bearer header) and given to the webview as its HTML,
 * with a Content-Security-Policy whose only connectable origin is the companion's loopback origin
 * and a nonce on the page's inline script. The page then calls the API from the
 * `vscode-webview://` origin, which the companion allows, with the token it was handed.
 */

import * as vscode from "vscode";

import { type CompanionClient, embedDashboard, makeNonce } from "../../shared/companion";

export const DASHBOARD_VIEW_TYPE = "cognivault.dashboard";

export function dashboardDocument(html: string, client: CompanionClient, nonce: string): string {
  return embedDashboard(html, { origin: client.origin, token: client.token, nonce });
}

export class DashboardPanel {
  static current: DashboardPanel | undefined;

  static async show(client: CompanionClient): Promise<DashboardPanel> {
    const html = await client.dashboardHtml();
    let current = DashboardPanel.current;
    if (!current) {
      const panel = vscode.window.createWebviewPanel(DASHBOARD_VIEW_TYPE, "Study dashboard", vscode.ViewColumn.Active,
        { enableScripts: true, retainContextWhenHidden: true, localResourceRoots: [] });
      current = new DashboardPanel(panel);
      DashboardPanel.current = current;
    } else {
      current.panel.reveal();
    }
    current.panel.webview.html = dashboardDocument(html, client, makeNonce());
    return current;
  }

  private constructor(readonly panel: vscode.WebviewPanel) {
    panel.onDidDispose(() => {
      if (DashboardPanel.current === this) {
        DashboardPanel.current = undefined;
      }
    });
  }
}
