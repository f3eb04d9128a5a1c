/** Tiny DOM helpers (standard DOM only, so the views run the same in Obsidian and in tests). */

export function h<K extends keyof HTMLElementTagNameMap>(parent: HTMLElement, tag: K, className?: string, text?: string):
  HTMLElementTagNameMap[K] {
  const node = parent.ownerDocument.createElement(tag);
  if (className) {
    node.className = className;
  }
  if (text !== undefined) {
    node.textContent = text;
  }
  parent.append(node);
  return node;
}

/** An Obsidian-style internal link to a vault note; `open` decides where it goes. */
export function internalLink(parent: HTMLElement, path: string, text: string, open: (event: MouseEvent) => void): HTMLAnchorElement {
  const link = parent.ownerDocument.createElement("a");
  link.className = "internal-link cv-source-link";
  link.textContent = text;
  link.dataset.href = path;
  link.href = path;
  link.addEventListener("click", (event) => {
    event.preventDefault();
    open(event);
  });
  return link;
}
