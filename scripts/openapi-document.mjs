#!/usr/bin/env node
// Writes the OpenAPI document the Worker serves at /openapi.json without starting a server:
// the app (src/assemble-app.ts) is bundled for Node with esbuild and asked, in process, for the
// document /openapi.json answers (openApiDocument). The workerd-only modules (cloudflare:*) and
// the browser's scripts are stand-ins: building the document uses none of them. `npm run lint` lints what this writes (scripts/lint-openapi.mjs).
// Usage: node scripts/openapi-document.mjs [out.json] [origin]  (default: stdout, http://localhost:8787)
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** The document /openapi.json answers for `origin`, as parsed JSON. */
export async function openApiDocument(origin = "http://localhost:8787") {
  return inProcess(
    `import { createApp, openApiDocument } from ${JSON.stringify(join(root, "src", "assemble-app.ts"))};\n` +
      `export const document = openApiDocument(createApp(), ${JSON.stringify(origin)});\n`,
  );
}

/** The `document` that `source` (a TypeScript module importing from src/) exports, built for Node and run here. */
export async function inProcess(source) {
  const dir = mkdtempSync(join(tmpdir(), "openapi-document-"));
  try {
    const entry = join(dir, "entry.ts");
    writeFileSync(entry, source);
    const outfile = join(dir, "entry.mjs");
    await build({
      entryPoints: [entry],
      bundle: true,
      platform: "node",
      format: "esm",
      outfile,
      absWorkingDir: root,
      logLevel: "error",
      // CommonJS packages in the bundle (pg) require Node's built-ins.
      banner: { js: 'import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);' },
      plugins: [
        {
          name: "worker-modules",
          setup(b) {
            // The browser's scripts (wrangler.toml's [[rules]]: text) are served, not documented:
            // empty text here, so no build of them (scripts/build-browser.mjs) is needed first.
            b.onResolve({ filter: /^#browser\// }, (args) => ({ path: args.path, namespace: "browser-script" }));
            b.onLoad({ filter: /.*/, namespace: "browser-script" }, () => ({ contents: "", loader: "text" }));
            // A CommonJS stand-in, so any name imported from it resolves (to an empty class).
            b.onResolve({ filter: /^cloudflare:/ }, (args) => ({ path: args.path, namespace: "workerd-stand-in" }));
            b.onLoad({ filter: /.*/, namespace: "workerd-stand-in" }, () => ({
              contents: "module.exports = new Proxy({}, { get: (_, name) => name === '__esModule' ? false : class {} });",
              loader: "js",
            }));
          },
        },
      ],
    });
    return (await import(pathToFileURL(outfile).href)).document;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [out, origin] = process.argv.slice(2);
  const text = `${JSON.stringify(await openApiDocument(origin), null, 2)}\n`;
  if (out) writeFileSync(out, text);
  else process.stdout.write(text);
}
