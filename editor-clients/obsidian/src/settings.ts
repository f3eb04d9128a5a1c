/** The plugin's settings and their tab. */

import { type App, PluginSettingTab, Setting } from "obsidian";

import type CogniVaultPlugin from "./main";

export interface CogniVaultSettings {
  /** Empty: find the companion through `<vault>/.cognivault/companion.json`. */
  companionUrl: string;
  companionToken: string;
  relatedCount: number;
  openGeneratedNote: boolean;
  /** Cards / questions per generation; 0 lets the companion decide. */
  generationCount: number;
  /** Start `cognivault serve` when none runs for the vault (desktop), and stop it on unload. */
  startCompanion: boolean;
  /** The `cognivault` executable; empty: the vault's .venv, pipx's bin folder, then PATH. */
  cognivaultPath: string;
}

export const DEFAULT_SETTINGS: CogniVaultSettings = {
  companionUrl: "",
  companionToken: "",
  relatedCount: 10,
  openGeneratedNote: true,
  generationCount: 0,
  startCompanion: true,
  cognivaultPath: "",
};

export function mergeSettings(saved: unknown): CogniVaultSettings {
  const out = { ...DEFAULT_SETTINGS };
  if (!saved || typeof saved !== "object") {
    return out;
  }
  const record = saved as Record<string, unknown>;
  if (typeof record.companionUrl === "string") out.companionUrl = record.companionUrl.trim();
  if (typeof record.companionToken === "string") out.companionToken = record.companionToken.trim();
  if (typeof record.relatedCount === "number" && record.relatedCount >= 1) out.relatedCount = Math.min(50, Math.floor(record.relatedCount));
  if (typeof record.openGeneratedNote === "boolean") out.openGeneratedNote = record.openGeneratedNote;
  if (typeof record.generationCount === "number" && record.generationCount >= 0) out.generationCount = Math.min(100, Math.floor(record.generationCount));
  if (typeof record.startCompanion === "boolean") out.startCompanion = record.startCompanion;
  if (typeof record.cognivaultPath === "string") out.cognivaultPath = record.cognivaultPath.trim();
  return out;
}

export class CogniVaultSettingTab extends PluginSettingTab {
  constructor(app: App, private readonly plugin: CogniVaultPlugin) {
    super(app, plugin);
  }

  override display(): void {
    const { containerEl } = this;
    containerEl.replaceChildren();
    const intro = containerEl.ownerDocument.createElement("p");
    intro.textContent = "CogniVault talks to the companion running on this machine: the plugin finds it through " +
      ".cognivault/companion.json, or starts one itself (below). To run it yourself: " +
      `\`cognivault serve --vault ${this.plugin.vaultPath()}\`. Nothing leaves your computer.`;
    containerEl.append(intro);

    new Setting(containerEl)
      .setName("Start the companion")
      .setDesc("Start `cognivault serve` when none runs for this vault, and stop it when Obsidian closes.")
      .addToggle((toggle) => toggle.setValue(this.plugin.settings.startCompanion).onChange(async (value) => {
        this.plugin.settings.startCompanion = value;
        await this.plugin.saveSettings();
      }));
    new Setting(containerEl)
      .setName("cognivault executable")
      .setDesc("Empty: the vault's .venv, then pipx's bin folder (~/.local/bin), then PATH.")
      .addText((text) => text.setPlaceholder("/home/me/.local/bin/cognivault").setValue(this.plugin.settings.cognivaultPath)
        .onChange(async (value) => {
          this.plugin.settings.cognivaultPath = value.trim();
          await this.plugin.saveSettings();
        }));

    new Setting(containerEl)
      .setName("Companion URL")
      .setDesc("Leave empty to find the running companion automatically. Otherwise http://127.0.0.1:PORT (loopback only).")
      .addText((text) => text.setPlaceholder("http://127.0.0.1:8765").setValue(this.plugin.settings.companionUrl)
        .onChange(async (value) => {
          this.plugin.settings.companionUrl = value.trim();
          await this.plugin.saveSettings();
        }));
    new Setting(containerEl)
      .setName("Companion token")
      .setDesc("Only with a configured URL: the token `cognivault serve` printed. Stored in this vault's plugin data.")
      .addText((text) => {
        text.inputEl.type = "password";
        text.setValue(this.plugin.settings.companionToken).onChange(async (value) => {
          this.plugin.settings.companionToken = value.trim();
          await this.plugin.saveSettings();
        });
      });
    new Setting(containerEl)
      .setName("Related notes")
      .setDesc("How many related notes the pane lists (1-50).")
      .addText((text) => text.setValue(String(this.plugin.settings.relatedCount)).onChange(async (value) => {
        const count = Number.parseInt(value, 10);
        if (Number.isFinite(count) && count >= 1) {
          this.plugin.settings.relatedCount = Math.min(50, count);
          await this.plugin.saveSettings();
        }
      }));
    new Setting(containerEl)
      .setName("Items per generation")
      .setDesc("Flashcards or quiz questions to generate at once; 0 lets CogniVault decide.")
      .addText((text) => text.setValue(String(this.plugin.settings.generationCount)).onChange(async (value) => {
        const count = Number.parseInt(value, 10);
        if (Number.isFinite(count) && count >= 0) {
          this.plugin.settings.generationCount = Math.min(100, count);
          await this.plugin.saveSettings();
        }
      }));
    new Setting(containerEl)
      .setName("Open generated notes")
      .setDesc("Open the new flashcard, quiz or mind-map note when it is written.")
      .addToggle((toggle) => toggle.setValue(this.plugin.settings.openGeneratedNote).onChange(async (value) => {
        this.plugin.settings.openGeneratedNote = value;
        await this.plugin.saveSettings();
      }));
  }
}
