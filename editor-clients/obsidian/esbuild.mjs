// Bundles the plugin into main.js (CommonJS, as Obsidian loads it), against the `obsidian` API
// package (external: Obsidian provides it at runtime, like electron and CodeMirror).
import { builtinModules } from "node:module";
import * as esbuild from "esbuild";

const production = process.argv.includes("--production");
const options = {
  entryPoints: ["src/main.ts"],
  outfile: "main.js",
  bundle: true,
  format: "cjs",
  platform: "browser",
  target: "es2020",
  external: ["obsidian", "electron", "@codemirror/*", "@lezer/*", ...builtinModules, ...builtinModules.map((m) => `node:${m}`)],
  sourcemap: production ? false : "inline",
  minify: production,
  treeShaking: true,
  logLevel: "warning",
  banner: { js: "/* CogniVault for Obsidian: bundled by esbuild from editor-clients/obsidian (see its README). */" },
};

if (process.argv.includes("--watch")) {
  const context = await esbuild.context(options);
  await context.watch();
} else {
  await esbuild.build(options);
}
