/**
 * Study commands on the companion: generate flashcards / a quiz / a mind map from the current
 * note (or its selection) and open the new note; review the cards that are due.
 */

import * as vscode from "vscode";

import { type CompanionClient, CompanionError, type DueCard, type GenerateKind, type GenerateRequest }
  from "../../shared/companion";
import { vaultRelative } from "./vault";

export const KIND_LABEL: Record<GenerateKind, string> = { flashcards: "flashcards", quiz: "a quiz", mindmap: "a mind map" };

/** What to generate from: the note, and the selection with its 1-based line span when there is one. */
export function generateRequest(vault: string, editor: vscode.TextEditor | undefined): GenerateRequest | string {
  if (!editor || editor.document.uri.scheme !== "file") {
    return "Open a Markdown note of the vault first.";
  }
  const note = vaultRelative(vault, editor.document.uri.fsPath);
  if (!note || !note.toLowerCase().endsWith(".md")) {
    return "The active file is not a Markdown note of the vault.";
  }
  const request: GenerateRequest = { note };
  const selection = editor.selection;
  if (!selection.isEmpty) {
    const text = editor.document.getText(selection);
    if (text.trim()) {
      request.selection = text.slice(0, 20000);
      request.lines = [selection.start.line + 1, Math.max(selection.start.line + 1, selection.end.line + 1)];
    }
  }
  return request;
}

export async function generate(kind: GenerateKind, vault: string, client: () => Promise<CompanionClient>,
  log: (line: string) => void): Promise<string | undefined> {
  const request = generateRequest(vault, vscode.window.activeTextEditor);
  if (typeof request === "string") {
    void vscode.window.showWarningMessage(request);
    return undefined;
  }
  const what = request.selection ? "the selection" : request.note;
  try {
    const result = await vscode.window.withProgress({
      location: vscode.ProgressLocation.Notification,
      title: `CogniVault: generating ${KIND_LABEL[kind]} from ${what}`,
      cancellable: true,
    }, async (progress, token) => {
      const abort = new AbortController();
      token.onCancellationRequested(() => abort.abort());
      const companion = await client();
      return companion.generateNote(kind, request, (message) => progress.report({ message }), abort.signal);
    });
    for (const warning of result.warnings ?? []) {
      log(`${kind}: ${warning}`);
    }
    const document = await vscode.workspace.openTextDocument(vscode.Uri.joinPath(vscode.Uri.file(vault), ...result.path.split("/")));
    await vscode.window.showTextDocument(document, { preview: false });
    return result.path;
  } catch (error) {
    if (error instanceof CompanionError && error.code === "cancelled") {
      return undefined;
    }
    const message = error instanceof Error ? error.message : String(error);
    log(`generate ${kind} failed: ${message}`);
    void vscode.window.showErrorMessage(`CogniVault could not generate ${KIND_LABEL[kind]}: ${message}`);
    return undefined;
  }
}

const GRADES: { label: string; rating: 1 | 2 | 3 | 4; description: string }[] = [
  { label: "$(close) Again", rating: 1, description: "I did not remember" },
  { label: "$(dash) Hard", rating: 2, description: "with effort" },
  { label: "$(check) Good", rating: 3, description: "remembered" },
  { label: "$(star-full) Easy", rating: 4, description: "instantly" },
];

/** Goes through the due cards with quick picks: front, then back with the four grades. */
export async function reviewDue(client: () => Promise<CompanionClient>, log: (line: string) => void): Promise<number> {
  let companion: CompanionClient;
  let due: DueCard[];
  try {
    companion = await client();
    due = await companion.reviewDue(100);
  } catch (error) {
    void vscode.window.showErrorMessage(`CogniVault: ${error instanceof Error ? error.message : String(error)}`);
    return 0;
  }
  if (due.length === 0) {
    void vscode.window.showInformationMessage("CogniVault: no cards are due. Generate flashcards from a note to start.");
    return 0;
  }
  let graded = 0;
  for (const [index, card] of due.entries()) {
    const where = `${index + 1}/${due.length} · ${card.title ?? card.path}`;
    const reveal = await vscode.window.showQuickPick([{ label: "$(eye) Show answer" }, { label: "$(debug-stop) Stop reviewing" }],
      { title: `Review ${where}`, placeHolder: card.front, ignoreFocusOut: true });
    if (!reveal || reveal.label.includes("Stop")) {
      break;
    }
    const grade = await vscode.window.showQuickPick(GRADES.map((g) => ({ ...g, detail: undefined })),
      { title: `Answer ${where}`, placeHolder: card.back, ignoreFocusOut: true });
    if (!grade) {
      break;
    }
    try {
      await companion.grade(card, grade.rating);
      graded += 1;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      log(`grading ${card.id} failed: ${message}`);
      void vscode.window.showErrorMessage(`CogniVault: grading failed: ${message}`);
      break;
    }
  }
  void vscode.window.showInformationMessage(`CogniVault: ${graded} card${graded === 1 ? "" : "s"} reviewed.`);
  return graded;
}
