/**
 * Content-Security-Policy for the extension's own webviews: nothing loads but the extension's
 * bundled script (by nonce) and stylesheet, and the only origin a page may connect to is the
 * companion's loopback origin (or none at all).
 */

import { loopbackOrigin } from "../../shared/companion";

export function webviewCsp(options: { cspSource: string; nonce: string; connectOrigin?: string | null }): string {
  const connect = options.connectOrigin ? loopbackOrigin(options.connectOrigin) : null;
  if (options.connectOrigin && !connect) {
    throw new Error("webviews may only connect to the companion's loopback origin");
  }
  return [
    "default-src 'none'",
    `style-src ${options.cspSource}`,
    `script-src 'nonce-${options.nonce}'`,
    `img-src ${options.cspSource} data:`,
    `font-src ${options.cspSource}`,
    `connect-src ${connect ?? "'none'"}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-src 'none'",
  ].join("; ");
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c);
}
