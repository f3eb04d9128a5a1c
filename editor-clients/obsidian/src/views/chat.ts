/**
 * The chat view: ask the vault, the answer streams in with its reasoning fold and its sources,
 * rendered by Obsidian's own MarkdownRenderer (so links, embeds, callouts and math behave as in a
 * note; a `[[Note#Heading]]` link opens there, `[S1]` is a chip that opens its source).
 * The microphone button records a spoken question (getUserMedia + MediaRecorder) until pressed
 * again; the companion's /api/transcribe turns it into text, which is asked like a typed question.
 */

import { ItemView, MarkdownRenderer, type WorkspaceLeaf } from "obsidian";

import { type AnswerHost, createTurn, renderTurn } from "../../../shared/answerView";
import { applyEnvelope, makeNonce, newAnswer, type AnswerState, type Source } from "../../../shared/companion";
import { h, internalLink } from "../dom";
import type CogniVaultPlugin from "../main";

export const VIEW_CHAT = "cognivault-chat";

export class ChatView extends ItemView {
  private log!: HTMLElement;
  private input!: HTMLTextAreaElement;
  private askButton!: HTMLButtonElement;
  private stopButton!: HTMLButtonElement;
  private micButton!: HTMLButtonElement;
  private recording: MediaRecorder | null = null;
  private abort: AbortController | null = null;
  private readonly sessionId = `obsidian-${makeNonce().slice(0, 16)}`;

  constructor(leaf: WorkspaceLeaf, private readonly plugin: CogniVaultPlugin) {
    super(leaf);
  }

  getViewType(): string {
    return VIEW_CHAT;
  }

  getDisplayText(): string {
    return "Ask the vault";
  }

  override getIcon(): string {
    return "message-circle";
  }

  override async onOpen(): Promise<void> {
    const root = this.contentEl;
    root.replaceChildren();
    root.classList.add("cognivault-chat");
    this.log = h(root, "div", "cv-log");
    this.log.addEventListener("click", (event) => {
      // The answer's own links (MarkdownRenderer's internal links); source chips open themselves.
      const link = (event.target as Element | null)?.closest?.("a.internal-link:not(.cv-source-link)");
      const target = (link as HTMLElement | null)?.dataset.href;
      if (target) {
        event.preventDefault();
        void this.app.workspace.openLinkText(target, "", event.ctrlKey || event.metaKey);
      }
    });
    const form = h(root, "form", "cv-ask");
    this.input = h(form, "textarea", "cv-question-input");
    this.input.rows = 3;
    this.input.placeholder = "Ask your notes…";
    const actions = h(form, "div", "cv-actions");
    this.askButton = h(actions, "button", "mod-cta", "Ask");
    this.askButton.type = "submit";
    this.stopButton = h(actions, "button", "cv-stop", "Stop");
    this.stopButton.type = "button";
    this.stopButton.hidden = true;
    this.stopButton.addEventListener("click", () => this.abort?.abort());
    this.micButton = h(actions, "button", "cv-mic", "🎤 Speak");
    this.micButton.type = "button";
    this.micButton.setAttribute("aria-label", "Ask by voice");
    this.micButton.addEventListener("click", () => void (this.recording ? this.stopRecording() : this.record()));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const question = this.input.value;
      this.input.value = "";
      void this.ask(question);
    });
    this.input.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.shiftKey) {
        event.preventDefault();
        form.requestSubmit();
      }
    });
    await Promise.resolve();
  }

  override async onClose(): Promise<void> {
    this.abort?.abort();
    this.stopRecording();
    await Promise.resolve();
  }

  private link = (source: Source, text: string): HTMLElement => internalLink(this.contentEl, source.path, text,
    () => void this.plugin.openNote(source.path, source.lineStart));

  private readonly host: AnswerHost = {
    render: (target, markdown) => MarkdownRenderer.render(this.app, markdown, target, "", this),
    link: this.link,
  };

  /** Streams one answer into the view; resolves with the final state. */
  async ask(question: string): Promise<AnswerState> {
    const state = newAnswer();
    const text = question.trim();
    if (!text) {
      return state;
    }
    this.abort?.abort();
    const abort = new AbortController();
    this.abort = abort;
    const turn = createTurn(this.contentEl.ownerDocument, text);
    this.log.append(turn);
    let rendered = renderTurn(turn, state, this.host);
    this.setBusy(true);
    try {
      const client = await this.plugin.companion();
      for await (const envelope of client.ask(text, { sessionId: this.sessionId }, abort.signal)) {
        rendered = renderTurn(turn, applyEnvelope(state, envelope), this.host);
        turn.scrollIntoView?.({ block: "end" });
      }
    } catch (error) {
      applyEnvelope(state, { type: "error", data: { code: "failed", message: this.plugin.describeError(error) } });
      rendered = renderTurn(turn, state, this.host);
    } finally {
      if (this.abort === abort) {
        this.abort = null;
        this.setBusy(false);
      }
    }
    await rendered;
    return state;
  }

  /** Starts recording from the microphone; the recording is transcribed and asked when it stops. */
  async record(): Promise<void> {
    const media = globalThis.navigator?.mediaDevices;
    if (!media?.getUserMedia || typeof MediaRecorder === "undefined") {
      this.showVoiceError("this Obsidian cannot record audio (no microphone access)");
      return;
    }
    let stream: MediaStream;
    try {
      stream = await media.getUserMedia({ audio: true });
    } catch (error) {
      this.showVoiceError(`no microphone: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    const recorder = new MediaRecorder(stream);
    const chunks: Blob[] = [];
    recorder.addEventListener("dataavailable", (event) => chunks.push(event.data));
    recorder.addEventListener("stop", () => {
      for (const track of stream.getTracks()) {
        track.stop();
      }
      void this.askRecording(new Blob(chunks, { type: recorder.mimeType || "audio/webm" }));
    });
    this.recording = recorder;
    recorder.start();
    this.micButton.textContent = "■ Stop recording";
    this.micButton.classList.add("cv-recording");
  }

  stopRecording(): void {
    const recorder = this.recording;
    this.recording = null;
    this.micButton?.classList.remove("cv-recording");
    if (this.micButton) {
      this.micButton.textContent = "🎤 Speak";
    }
    if (recorder && recorder.state !== "inactive") {
      recorder.stop();
    }
  }

  /** Transcribes a recorded question and asks it (resolves when the answer has streamed). */
  async askRecording(audio: Blob): Promise<AnswerState | null> {
    this.micButton.disabled = true;
    try {
      const client = await this.plugin.companion();
      const extension = /ogg/.test(audio.type) ? "ogg" : /mp4|m4a|aac/.test(audio.type) ? "m4a" : "webm";
      const transcript = await client.transcribe(audio, `question.${extension}`);
      if (!transcript.text.trim()) {
        this.showVoiceError("no words were heard in the recording");
        return null;
      }
      return await this.ask(transcript.text);
    } catch (error) {
      this.showVoiceError(this.plugin.describeError(error));
      return null;
    } finally {
      this.micButton.disabled = false;
    }
  }

  private showVoiceError(message: string): void {
    this.plugin.fail("ask by voice", new Error(message));
  }

  private setBusy(busy: boolean): void {
    this.askButton.disabled = busy;
    this.stopButton.hidden = !busy;
  }
}
