/**
 * Finding the `cognivault` executable the way it is usually installed, whatever PATH the editor
 * got (an editor started from the desktop has the login shell's PATH, not the terminal's venv):
 *
 * 1. a command the user set (in VS Code `cognivault.server.command` other than the default, or
 *    `cognivault.server.pythonPath`; in Obsidian the plugin's setting): used as given;
 * 2. the workspace's virtual environment: `<folder>/.venv/bin/cognivault` for each workspace folder;
 * 3. pipx's bin folder: `$PIPX_BIN_DIR/cognivault`, else `~/.local/bin/cognivault`;
 * 4. `cognivault` on PATH (the setting's default).
 *
 * Nothing found: `null`, and the editor offers to choose the executable.
 * Pure apart from `isExecutable` (injected), so it is tested without a file system.
 */

export type Found = { command: string; from: "setting" | "venv" | "pipx" | "path" };

export interface LocateEnvironment {
  folders: readonly string[];
  env: Record<string, string | undefined>;
  home: string;
  platform: string;
  isExecutable(file: string): Promise<boolean>;
}

function executableName(platform: string): string {
  return platform === "win32" ? "cognivault.exe" : "cognivault";
}

function joiner(platform: string): (...parts: string[]) => string {
  const separator = platform === "win32" ? "\\" : "/";
  return (...parts) => parts.map((part, index) => (index === 0 ? part.replace(/[\\/]+$/, "") : part))
    .join(separator);
}

/** The candidates of steps 2 to 4, in order, each with where it came from. */
export function candidates(where: Omit<LocateEnvironment, "isExecutable">): Found[] {
  const name = executableName(where.platform);
  const join = joiner(where.platform);
  const venvBin = where.platform === "win32" ? "Scripts" : "bin";
  const found: Found[] = where.folders.map((folder) => ({ command: join(folder, ".venv", venvBin, name), from: "venv" }));
  const pipxBin = where.env.PIPX_BIN_DIR || join(where.home, ".local", "bin");
  found.push({ command: join(pipxBin, name), from: "pipx" });
  const separator = where.platform === "win32" ? ";" : ":";
  for (const folder of (where.env.PATH ?? where.env.Path ?? "").split(separator).filter(Boolean)) {
    found.push({ command: join(folder, name), from: "path" });
  }
  return found;
}

/** `configured`: the command the user set, if any (used as given). */
export async function locateCognivault(configured: string | null, where: LocateEnvironment): Promise<Found | null> {
  if (configured) {
    return { command: configured, from: "setting" };
  }
  for (const candidate of candidates(where)) {
    if (await where.isExecutable(candidate.command)) {
      return candidate;
    }
  }
  return null;
}
