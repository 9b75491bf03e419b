import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Where the built scripts go (git-ignored); the Worker imports them as `#browser/<name>.js` (package.json "imports"). */
export const browserBuildDir = join(root, ".build", "browser");

/**
 * Every script the browser runs: its TypeScript source, in a `browser/` folder of the room
 * that serves it (type-checked by tsconfig.browser.json with the DOM lib, linted by Biome),
 * and the name the Worker imports it by (`#browser/<name>.js`, each listed in wrangler.toml's
 * `[[rules]]`). `inline`: the script goes into a page's `<script>` element (allowed by its
 * hash), so it must not contain what would end that element. `expression`: the script is a
 * function expression (the capture's, which the capture station calls in the tab with its
 * arguments), built from the source's default export. `keeps`: text the Worker replaces when
 * it serves the script (the embed element's placeholder for the service's origin).
 */
export const browserScripts = [
  { name: "frame", source: "src/http/browser/frame.ts", inline: true },
  { name: "subscribe-control", source: "src/dashboards/browser/subscribe-control.ts", inline: true },
  { name: "clicks", source: "src/dashboards/browser/clicks.ts", inline: true },
  { name: "embed-element", source: "src/dashboards/browser/embed-script.ts", keeps: '"__EMBED_SERVICE_ORIGIN__"' },
  { name: "report-builder", source: "src/report-builder/browser/builder.ts" },
  { name: "console", source: "src/console/browser/console.ts" },
  { name: "capture", source: "src/delivery/run/browser/capture.ts", expression: true },
];

/**
 * Bundles each script with esbuild into `.build/browser/<name>.js`: an IIFE (nothing leaks
 * into the page's globals); a script served as a file is not minified (what a browser runs
 * stays readable in its developer tools, no source map needed; gzip takes most of what
 * minifying would, and the versioned embed script's hash stays the same), an inline one is
 * (it is part of every page's own bytes: the embed page stays within 5 % of its size before
 * charts became readable, docs/accessibility.md; developer tools pretty-print it), ASCII only (the bytes a CSP hash is
 * taken of survive any charset the page is read in). A file is rewritten only when its bytes
 * change, so `wrangler dev`, which watches what the Worker imports, reloads only for a real
 * change.
 * Returns the built scripts' names, paths and sizes in bytes.
 */
export async function buildBrowserScripts() {
  const wranglerToml = readFileSync(join(root, "wrangler.toml"), "utf8");
  for (const { name } of browserScripts) {
    if (!wranglerToml.includes(`"#browser/${name}.js"`))
      throw new Error(`wrangler.toml: [[rules]] type "Text" must list "#browser/${name}.js"`);
  }
  mkdirSync(browserBuildDir, { recursive: true });
  return Promise.all(
    browserScripts.map(async ({ name, source, inline, expression, keeps }) => {
      const result = await build({
        entryPoints: [join(root, source)],
        // Paths in the bundle's comments are relative to the checkout, whatever directory the build
        // was started in: the same sources give the same bytes (the versioned embed script's SRI hash).
        absWorkingDir: root,
        bundle: true,
        format: "iife",
        // The built function expression: the IIFE's exports, kept in a local, give their default.
        ...(expression ? { globalName: "exported", banner: { js: "(()=>{" }, footer: { js: "return exported.default})()" } } : {}),
        target: "es2020",
        minify: inline === true,
        charset: "ascii",
        legalComments: "none",
        tsconfig: join(root, "tsconfig.browser.json"),
        write: false,
        logLevel: "error",
      });
      const text = result.outputFiles[0].text.trimEnd();
      if (inline && /<\/script|<!--/i.test(text)) throw new Error(`${source}: the built script would end its <script> element early`);
      if (keeps && !text.includes(keeps)) throw new Error(`${source}: the built script lost ${keeps}, which the Worker replaces`);
      const path = join(browserBuildDir, `${name}.js`);
      let before;
      try {
        before = readFileSync(path, "utf8");
      } catch {
        before = undefined;
      }
      if (before !== text) writeFileSync(path, text);
      return { name, path, bytes: Buffer.byteLength(text) };
    }),
  );
}

/** The built text of script `name`, as the Worker serves it (after buildBrowserScripts). */
export function builtBrowserScript(name) {
  return readFileSync(join(browserBuildDir, `${name}.js`), "utf8");
}

const builtScriptPath = /[\\/]\.build[\\/]browser[\\/][^\\/]+\.js$/;

/**
 * A Vite plugin for the vitest pool (vitest.config.mts): the built scripts are imported as
 * their text, as wrangler.toml's `[[rules]]` make the Worker do. (The pool applies wrangler's
 * rules to the path an import resolves to, not to the `#browser/…` name the rules list.)
 */
export const browserScriptsAsTextForVite = {
  name: "browser-scripts-as-text",
  enforce: "pre",
  load(id) {
    return builtScriptPath.test(id) ? `export default ${JSON.stringify(readFileSync(id, "utf8"))};` : undefined;
  },
};

/**
 * An esbuild plugin for bundles of src/ made outside wrangler (bench/render.mjs): the built
 * scripts are imported as their text, as wrangler.toml's `[[rules]]` make the Worker do.
 */
export const browserScriptsAsText = {
  name: "browser-scripts-as-text",
  setup(pluginBuild) {
    pluginBuild.onLoad({ filter: builtScriptPath }, async (args) => ({
      contents: await readFile(args.path, "utf8"),
      loader: "text",
    }));
  },
};
