import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The local Chromium: $CHROMIUM_PATH, else Debian's. Null when there is none. */
export function findChromium() {
  return [process.env.CHROMIUM_PATH, "/usr/bin/chromium", "/usr/lib/chromium/chromium"].filter(Boolean).find((p) => existsSync(p)) ?? null;
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
  const executablePath = findChromium();
  if (!executablePath) throw new Error("No Chromium found: set CHROMIUM_PATH or install Debian's chromium.");
  const { default: puppeteer } = await import("puppeteer-core");
  return puppeteer.launch({ executablePath, headless: true, args: chromiumArgs() });
}
