import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Debian's and Ubuntu's Chromium: the first choice when installed. */
const systemChromiums = ["/usr/bin/chromium", "/usr/lib/chromium/chromium", "/usr/bin/chromium-browser"];

/**
 * The Chromium that comes from the npm registry (@sparticuz/chromium ships the binary,
 * compressed, inside the package). Unpacked once per install, with the fonts the package
 * ships, next to a small wrapper that points it at a fontconfig file of ours.
 */
const registryDir = join(root, "node_modules", ".cache", "registry-chromium");
const registryChromium = join(registryDir, "chrome");
/** The package's fonts (Open Sans) unpack here. */
const registryFonts = join(registryDir, "fonts");
/** Our fontconfig file: the package's own one lists only Lambda folders (/tmp/fonts, /opt/fonts…). */
export const registryFontsConf = join(registryDir, "fonts.conf");

/** The system's font folders, used as well where they exist (Debian's fonts-* packages). */
const systemFontDirs = ["/usr/share/fonts", "/usr/local/share/fonts"];

const xmlText = (text) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/**
 * The fontconfig file of the registry's Chromium: the package's fonts plus the system's,
 * a font cache inside the checkout, and the CSS generic families (sans-serif, system-ui,
 * serif, monospace) bound to fonts that exist, the package's Open Sans first for sans-serif,
 * so a capture looks the same whether or not the machine has fonts of its own. (The
 * package's file has no such rules, and fontconfig then picks an arbitrary font.)
 */
export function fontsConfXml() {
  const dirs = [registryFonts, ...systemFontDirs].map((dir) => `  <dir>${xmlText(dir)}</dir>`).join("\n");
  const alias = (families, prefer) =>
    families
      .map(
        (family) =>
          `  <alias binding="same"><family>${family}</family><prefer>${prefer.map((p) => `<family>${p}</family>`).join("")}</prefer></alias>`,
      )
      .join("\n");
  return `<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<!-- Written by scripts/lib/chromium.mjs for the Chromium from the npm registry. -->
<fontconfig>
${dirs}
  <cachedir>${xmlText(join(registryDir, "fontconfig-cache"))}</cachedir>
${alias(["sans-serif", "system-ui", "-apple-system", "BlinkMacSystemFont"], ["Open Sans", "DejaVu Sans", "Liberation Sans"])}
${alias(["serif"], ["DejaVu Serif", "Liberation Serif", "Open Sans"])}
${alias(["monospace", "ui-monospace"], ["DejaVu Sans Mono", "Liberation Mono", "Open Sans"])}
</fontconfig>
`;
}

/** The wrapper Chromium is started through: our fonts, and no sandbox (none ships with it). */
function wrapperScript(binary) {
  return `#!/bin/sh\nexport FONTCONFIG_FILE="${registryFontsConf}"\nunset FONTCONFIG_PATH\nexec "${binary}" --no-sandbox "$@"\n`;
}

/**
 * The local Chromium: $CHROMIUM_PATH, else the system's, else the registry's (once
 * `ensureChromium()` unpacked it). CHROMIUM_SYSTEM=none skips the system's, which is
 * how a machine without Chromium is played on one that has it. Null when there is none.
 */
export function findChromium() {
  const system = process.env.CHROMIUM_SYSTEM === "none" ? [] : systemChromiums;
  return [process.env.CHROMIUM_PATH, ...system, registryChromium].filter(Boolean).find((p) => existsSync(p)) ?? null;
}

/**
 * findChromium(), unpacking the registry's Chromium first when no other is found. The
 * registry's is checked piece by piece each time (binary, fonts, fontconfig file, wrapper)
 * and whatever is missing or stale is made again, so nothing depends on what an earlier
 * run or an older version of this script left.
 */
export async function ensureChromium() {
  const system = process.env.CHROMIUM_SYSTEM === "none" ? [] : systemChromiums;
  const other = [process.env.CHROMIUM_PATH, ...system].filter(Boolean).find((p) => existsSync(p));
  if (other) return other;
  let chromium, inflate;
  try {
    ({ default: chromium, inflate } = await import("@sparticuz/chromium"));
  } catch {
    return existsSync(registryChromium) ? registryChromium : null;
  }
  // The package unpacks into os.tmpdir(); pointing that at our folder keeps the binary
  // and its fonts per checkout and out of a shared /tmp.
  mkdirSync(registryDir, { recursive: true });
  const tmp = process.env.TMPDIR;
  process.env.TMPDIR = registryDir;
  let binary;
  try {
    binary = await chromium.executablePath();
    // executablePath() skips every other archive when the binary is already there.
    await inflate(join(dirname(fileURLToPath(import.meta.resolve("@sparticuz/chromium"))), "..", "bin", "fonts.tar.br"));
  } finally {
    if (tmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = tmp;
  }
  writeIfChanged(registryFontsConf, fontsConfXml(), 0o644);
  writeIfChanged(registryChromium, wrapperScript(binary), 0o755);
  return registryChromium;
}

function writeIfChanged(path, text, mode) {
  if (existsSync(path) && readFileSync(path, "utf8") === text) return;
  writeFileSync(path, text);
  chmodSync(path, mode);
}

/**
 * Flags for a headless Chromium on an offline machine: no sandbox when root, and no
 * background networking (its connections would only be refused here). No profile folder:
 * puppeteer makes a temporary one and removes it when the browser closes (one made here
 * stayed behind in TMPDIR after every run).
 */
export function chromiumArgs() {
  return [
    "--headless=new",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    ...(process.getuid?.() === 0 ? ["--no-sandbox"] : []),
  ];
}

/** puppeteer-core on the local Chromium. */
export async function launchBrowser() {
  const executablePath = await ensureChromium();
  if (!executablePath) throw new Error("No Chromium found: set CHROMIUM_PATH, install Debian's chromium, or run npm install.");
  const { default: puppeteer } = await import("puppeteer-core");
  return puppeteer.launch({ executablePath, headless: true, args: chromiumArgs() });
}
