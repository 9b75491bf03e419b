import { chmodSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Debian's and Ubuntu's Chromium: the first choice when installed. */
const systemChromiums = ["/usr/bin/chromium", "/usr/lib/chromium/chromium", "/usr/bin/chromium-browser"];

/**
 * The Chromium that comes from the npm registry (@sparticuz/chromium ships the binary,
 * compressed, inside the package). Unpacked once per install next to a small wrapper
 * that points it at its own fonts.
 */
const registryDir = join(root, "node_modules", ".cache", "registry-chromium");
const registryChromium = join(registryDir, "chrome");

/**
 * The local Chromium: $CHROMIUM_PATH, else the system's, else the registry's (once
 * `ensureChromium()` unpacked it). CHROMIUM_SYSTEM=none skips the system's, which is
 * how a machine without Chromium is played on one that has it. Null when there is none.
 */
export function findChromium() {
  const system = process.env.CHROMIUM_SYSTEM === "none" ? [] : systemChromiums;
  return [process.env.CHROMIUM_PATH, ...system, registryChromium].filter(Boolean).find((p) => existsSync(p)) ?? null;
}

/** findChromium(), unpacking the registry's Chromium first when no other is found. */
export async function ensureChromium() {
  const found = findChromium();
  if (found) return found;
  let chromium;
  try {
    ({ default: chromium } = await import("@sparticuz/chromium"));
  } catch {
    return null;
  }
  // The package unpacks into os.tmpdir(); pointing that at our folder keeps the binary
  // per checkout and out of a shared /tmp.
  mkdirSync(registryDir, { recursive: true });
  const tmp = process.env.TMPDIR;
  process.env.TMPDIR = registryDir;
  let binary;
  try {
    binary = await chromium.executablePath();
  } finally {
    if (tmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = tmp;
  }
  // No setuid sandbox ships with it, so it runs unsandboxed (it only renders our own pages).
  writeFileSync(
    registryChromium,
    `#!/bin/sh\nexport FONTCONFIG_PATH="\${FONTCONFIG_PATH:-${join(registryDir, "fonts")}}"\nexec "${binary}" --no-sandbox "$@"\n`,
  );
  chmodSync(registryChromium, 0o755);
  return registryChromium;
}

/**
 * Flags for a headless Chromium on an offline machine: no sandbox when root, and no
 * background networking (its connections would only be refused here).
 */
export function chromiumArgs() {
  return [
    "--headless=new", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--hide-scrollbars",
    ...(process.getuid?.() === 0 ? ["--no-sandbox"] : []),
    `--user-data-dir=${mkdtempSync(join(tmpdir(), "chromium-"))}`,
  ];
}

/** puppeteer-core on the local Chromium. */
export async function launchBrowser() {
  const executablePath = await ensureChromium();
  if (!executablePath) throw new Error("No Chromium found: set CHROMIUM_PATH, install Debian's chromium, or run npm install.");
  const { default: puppeteer } = await import("puppeteer-core");
  return puppeteer.launch({ executablePath, headless: true, args: chromiumArgs() });
}
