// Bundles the extension (Node, CommonJS, `vscode` external) and the chat webview script (browser),
// and copies KaTeX's stylesheet and fonts next to it (the webview's CSP loads nothing remote).
import { cpSync, mkdirSync } from "node:fs";
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

const katex = new URL("./node_modules/katex/dist/", import.meta.url);
mkdirSync(new URL("./dist/webview/katex/", import.meta.url), { recursive: true });
cpSync(new URL("katex.min.css", katex), new URL("./dist/webview/katex/katex.min.css", import.meta.url));
cpSync(new URL("fonts/", katex), new URL("./dist/webview/katex/fonts/", import.meta.url), {
  recursive: true, filter: (source) => !source.endsWith(".ttf"), // woff2, and woff should one fail to load
});
