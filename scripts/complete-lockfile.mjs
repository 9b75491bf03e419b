#!/usr/bin/env node
// The npm registry reachable here serves only the Linux builds of some platform packages
// (e.g. @cloudflare/workerd-darwin-64 answers 404), so `npm install` writes a lockfile
// without the other platforms' optional packages and `npm ci` then refuses it as out of
// sync. This adds the missing optional entries (name, version, os/cpu, no download
// address); npm skips them on other platforms and fetches them by name where they match.
// Run after every `npm install` that changes dependencies.
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const lockPath = join(dirname(fileURLToPath(import.meta.url)), "..", "package-lock.json");
const lock = JSON.parse(readFileSync(lockPath, "utf8"));
const packages = lock.packages;

function platformOf(name) {
  const os = /darwin/.test(name)
    ? "darwin"
    : /win(dows|32)/.test(name)
      ? "win32"
      : /linux/.test(name)
        ? "linux"
        : /freebsd/.test(name)
          ? "freebsd"
          : undefined;
  const cpu = /arm64|aarch64/.test(name) ? "arm64" : /(x64|-64)$/.test(name) ? "x64" : /ia32/.test(name) ? "ia32" : undefined;
  return { ...(os ? { os: [os] } : {}), ...(cpu ? { cpu: [cpu] } : {}) };
}

/** Where npm resolves `name` from the package at `from`: the nearest node_modules up the tree. */
function resolvedPath(from, name) {
  let base = from;
  for (;;) {
    const candidate = `${base ? `${base}/` : ""}node_modules/${name}`;
    if (packages[candidate]) return candidate;
    if (!base) return undefined;
    const index = base.lastIndexOf("/node_modules/");
    base = index >= 0 ? base.slice(0, index) : "";
  }
}

let added = 0;
for (const [path, meta] of Object.entries(packages)) {
  const optional = meta.optionalDependencies ?? {};
  const matching = (name) => {
    const found = resolvedPath(path, name);
    return found && packages[found].version === optional[name] ? found : undefined;
  };
  const present = Object.keys(optional).map(matching).find(Boolean);
  for (const [name, version] of Object.entries(optional)) {
    // Only pinned versions can be recorded without asking the registry.
    if (matching(name) || !/^\d+\.\d+\.\d+(-[\w.]+)?$/.test(version)) continue;
    const dir = present ? present.slice(0, present.lastIndexOf("node_modules/") + "node_modules/".length) : `${path}/node_modules/`;
    packages[`${dir}${name}`] = { version, optional: true, ...platformOf(name) };
    added++;
  }
}
writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`complete-lockfile: added ${added} optional platform entries`);
