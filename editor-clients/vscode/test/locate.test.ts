import { describe, expect, it } from "vitest";

import { candidates, locateCognivault } from "../../shared/locate";

const where = (existing: string[], env: Record<string, string> = { PATH: "/usr/bin:/bin" }) => ({
  folders: ["/work/vault", "/work/other"], env, home: "/home/ada", platform: "linux" as const,
  isExecutable: (file: string) => Promise.resolve(existing.includes(file)),
});

describe("locating cognivault", () => {
  it("looks in each workspace .venv, then pipx's bin folder, then PATH, in that order", () => {
    expect(candidates(where([])).map((c) => `${c.from} ${c.command}`)).toEqual([
      "venv /work/vault/.venv/bin/cognivault", "venv /work/other/.venv/bin/cognivault",
      "pipx /home/ada/.local/bin/cognivault", "path /usr/bin/cognivault", "path /bin/cognivault"]);
    expect(candidates(where([], { PIPX_BIN_DIR: "/opt/pipx/bin" })).map((c) => c.command))
      .toEqual(["/work/vault/.venv/bin/cognivault", "/work/other/.venv/bin/cognivault", "/opt/pipx/bin/cognivault"]);
  });

  it("takes the first that exists", async () => {
    const all = ["/work/other/.venv/bin/cognivault", "/home/ada/.local/bin/cognivault", "/usr/bin/cognivault"];
    expect(await locateCognivault(null, where(all))).toEqual({ command: all[0], from: "venv" });
    expect(await locateCognivault(null, where(all.slice(1)))).toEqual({ command: all[1], from: "pipx" });
    expect(await locateCognivault(null, where(all.slice(2)))).toEqual({ command: all[2], from: "path" });
    expect(await locateCognivault(null, where([]))).toBeNull();
  });

  it("uses a command the user set as given", async () => {
    expect(await locateCognivault("/opt/cv/cognivault", where(["/work/vault/.venv/bin/cognivault"])))
      .toEqual({ command: "/opt/cv/cognivault", from: "setting" });
  });

  it("knows Windows' layout", () => {
    const found = candidates({ folders: ["C:\\vault"], env: { Path: "C:\\bin" }, home: "C:\\Users\\ada", platform: "win32" });
    expect(found.map((c) => c.command)).toEqual(["C:\\vault\\.venv\\Scripts\\cognivault.exe",
      "C:\\Users\\ada\\.local\\bin\\cognivault.exe", "C:\\bin\\cognivault.exe"]);
  });
});
