#!/usr/bin/env node
// Wrangler's local Browser Rendering launches Chrome from its own cache and downloads it
// when absent. Offline machines use the system Chromium instead: we place an executable
// wrapper at the cached path (DESIGN.md section 0). Does nothing when Chrome is already there.
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync, chmodSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";

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

const systemChromium = [process.env.CHROMIUM_PATH, "/usr/lib/chromium/chromium", "/usr/bin/chromium", "/usr/bin/chromium-browser"]
  .filter(Boolean)
  .find((path) => existsSync(path));

const cacheHome = process.env.XDG_CACHE_HOME || join(homedir(), ".cache");
for (const version of versions) {
  const target = join(cacheHome, ".wrangler", "chrome", `linux-${version}`, "chrome-linux64", "chrome");
  if (existsSync(target)) continue;
  if (!systemChromium) {
    console.warn(`ensure-chrome: no Chrome ${version} in the wrangler cache and no system Chromium (apt-get install chromium); browser rendering will not work.`);
    continue;
  }
  mkdirSync(dirname(target), { recursive: true });
  const sandbox = process.getuid?.() === 0 ? " --no-sandbox" : "";
  writeFileSync(target, `#!/bin/sh\nexec ${systemChromium}${sandbox} "$@"\n`);
  chmodSync(target, 0o755);
  console.log(`ensure-chrome: ${target} -> ${systemChromium}`);
}
