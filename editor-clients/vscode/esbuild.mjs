// Bundles the extension (Node, CommonJS, `vscode` external) and the chat webview script (browser).
import * as esbuild from "esbuild";

const production = process.argv.includes("--production");
const common = { bundle: true, sourcemap: !production, minify: production, logLevel: "warning" };

await Promise.all([
  esbuild.build({
    ...common,
    entryPoints: ["src/extension.ts"],
    outfile: "dist/extension.js",
    platform: "node",
    format: "cjs",
    target: "node18",
    external: ["vscode"],
  }),
  esbuild.build({
    ...common,
    entryPoints: ["src/webview/chat.ts"],
    outfile: "dist/webview/chat.js",
    platform: "browser",
    format: "iife",
    target: "es2022",
  }),
]);
