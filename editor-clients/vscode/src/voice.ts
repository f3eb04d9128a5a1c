/**
 * "Ask by voice": record a question with the machine's recorder (`rec` from sox, else `arecord`)
 * until the user presses Stop, or, with neither installed, take an audio file; the companion's
 * /api/transcribe turns it into text, which is asked in the chat panel like a typed question.
 * The recording lives in a private temp folder and is deleted once transcribed.
 */

import { type ChildProcess, spawn } from "node:child_process";
import { promises as fs, statSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as vscode from "vscode";

import type { CompanionClient } from "../../shared/companion";

/** The longest recording, in seconds (the recorder stops by itself then). */
export const MAX_SECONDS = 120;
export const AUDIO_EXTENSIONS = ["wav", "mp3", "ogg", "oga", "opus", "m4a", "flac", "webm"];

export interface Recorder {
  command: string;
  args: string[];
}

/** How to record 16 kHz mono WAV into `file` with what is installed (`which` finds a program), or null. */
export function recorderFor(file: string, which: (program: string) => string | null): Recorder | null {
  const rec = which("rec");
  if (rec) {
    return { command: rec, args: ["-q", "-c", "1", "-r", "16000", "-b", "16", file, "trim", "0", String(MAX_SECONDS)] };
  }
  const arecord = which("arecord");
  if (arecord) {
    return { command: arecord, args: ["-q", "-f", "S16_LE", "-c", "1", "-r", "16000", "-d", String(MAX_SECONDS), file] };
  }
  return null;
}

/** The first executable called `program` on PATH (synchronously, from the given folders). */
export function onPath(program: string, pathVariable: string | undefined, isFile: (file: string) => boolean): string | null {
  for (const folder of (pathVariable ?? "").split(path.delimiter).filter(Boolean)) {
    const candidate = path.join(folder, program);
    if (isFile(candidate)) {
      return candidate;
    }
  }
  return null;
}

export interface VoiceDeps {
  which: (program: string) => string | null;
  spawn: (command: string, args: string[]) => ChildProcess;
}

/** Records until the user presses Stop (or the recorder ends); resolves with the WAV's bytes. */
async function record(recorder: Recorder, file: string, deps: VoiceDeps): Promise<Uint8Array> {
  const child = deps.spawn(recorder.command, recorder.args);
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString("utf-8")).slice(-2000);
  });
  const ended = new Promise<number | null>((resolve, reject) => {
    child.on("error", reject);
    child.on("exit", (code) => resolve(code));
  });
  const stopped = await vscode.window.withProgress({
    location: vscode.ProgressLocation.Notification, cancellable: true,
    title: `CogniVault: recording your question with ${path.basename(recorder.command)} (Cancel stops recording)`,
  }, (_progress, token) => new Promise<"user" | "recorder">((resolve) => {
    token.onCancellationRequested(() => resolve("user"));
    void ended.then(() => resolve("recorder"), () => resolve("recorder"));
  }));
  if (stopped === "user" && child.exitCode === null) {
    child.kill("SIGINT"); // both recorders finish the WAV header on SIGINT
  }
  const code = await ended;
  const bytes = await fs.readFile(file).catch(() => undefined);
  if (!bytes || bytes.length <= 44) {
    throw new Error(`the recorder made no audio (exit ${code ?? "?"}${stderr.trim() ? `: ${stderr.trim().split("\n").pop()}` : ""})`);
  }
  return bytes;
}

/** Asks for an audio file (no recorder installed); resolves with its name and bytes. */
async function pickAudioFile(): Promise<{ name: string; bytes: Uint8Array } | undefined> {
  const picked = await vscode.window.showOpenDialog({
    title: "Ask by voice: no recorder (sox's rec or arecord) is installed; choose a recording of your question",
    openLabel: "Transcribe and ask", canSelectMany: false, filters: { Audio: AUDIO_EXTENSIONS },
  });
  const file = picked?.[0];
  return file ? { name: path.basename(file.fsPath), bytes: await fs.readFile(file.fsPath) } : undefined;
}

/** The spoken question as text (undefined when the user chose no file). */
export async function voiceQuestion(companion: () => Promise<CompanionClient>, deps: VoiceDeps): Promise<string | undefined> {
  const folder = await fs.mkdtemp(path.join(os.tmpdir(), "cognivault-voice-"));
  try {
    const file = path.join(folder, "question.wav");
    const recorder = recorderFor(file, deps.which);
    const audio = recorder
      ? { name: "question.wav", bytes: await record(recorder, file, deps) }
      : await pickAudioFile();
    if (!audio) {
      return undefined;
    }
    const client = await companion();
    const transcript = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification,
      title: "CogniVault: transcribing your question" },
    () => client.transcribe(new Blob([new Uint8Array(audio.bytes)]), audio.name));
    return transcript.text.trim();
  } finally {
    await fs.rm(folder, { recursive: true, force: true });
  }
}

export const defaultVoiceDeps: VoiceDeps = {
  which: (program) => onPath(program, process.env.PATH, (file) => statSync(file, { throwIfNoEntry: false })?.isFile() ?? false),
  spawn: (command, args) => spawn(command, args, { stdio: ["ignore", "ignore", "pipe"] }),
};
