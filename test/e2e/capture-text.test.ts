// Text in every capture (docs/delivery.md, "Text in every capture"): Browser Rendering on the Chromium from the
// npm registry, with a fresh XDG_CACHE_HOME and TMPDIR and — where the machine allows a private
// mount namespace — an empty /tmp, so no font folder an earlier run left (/tmp/fonts, the
// package's own Lambda paths) can help. When the checkout itself lives under /tmp (a clone in
// /tmp/x), the empty /tmp holds that checkout and nothing else: the server needs its own files,
// and an earlier run's folders stay hidden all the same. A dashboard with known text is captured
// through the API at 360 and 1280 px; the PNG must have dark glyph pixels where the title and the KPI are.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join, relative, sep } from "node:path";
import type { Browser } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminClient, pushDashboard } from "../../scripts/lib/admin-client.mjs";
import { projectCacheHome } from "../../scripts/lib/cache-home.mjs";
import { launchBrowser, registryFontsConf } from "../../scripts/lib/chromium.mjs";
import { freePort, startLocalServer } from "../../scripts/lib/local-server.mjs";
import { darkPixels, decodePng, textBoxes } from "./pixels";
import { capturedFile, devApi } from "./service-api";

const root = join(import.meta.dirname, "..", "..");
const results = join(root, "test-results");
const fresh = mkdtempSync(join(tmpdir(), "capture-text-"));
// Root on Linux: the server runs in its own mount namespace with an empty tmpfs on /tmp.
const privateTmp = process.platform === "linux" && spawnSync("unshare", ["-m", "true"]).status === 0;
// The checkout's path inside /tmp ("x" for /tmp/x), or null when it lives elsewhere.
const tmpToRoot = privateTmp ? relative(realpathSync("/tmp"), realpathSync(root)) : "";
const checkoutInTmp = tmpToRoot !== "" && tmpToRoot.split(sep)[0] !== ".." && !isAbsolute(tmpToRoot) ? tmpToRoot : null;
/**
 * The shell that gives the server its empty /tmp, then runs it. A checkout under /tmp is kept:
 * the fresh tmpfs is made on a folder of its own first, the checkout bound into it at its
 * place, and only then is the whole moved over /tmp (a tmpfs laid straight on /tmp would hide
 * the checkout before it could be bound back).
 */
function emptyTmp(): string {
  const mountTmp = checkoutInTmp
    ? [
        `mount -t tmpfs tmpfs "$EMPTY_TMP"`,
        `mkdir -p "$EMPTY_TMP/$CHECKOUT_IN_TMP"`,
        `mount --rbind "/tmp/$CHECKOUT_IN_TMP" "$EMPTY_TMP/$CHECKOUT_IN_TMP"`,
        `mount --move "$EMPTY_TMP" /tmp`,
      ]
    : ["mount -t tmpfs tmpfs /tmp"];
  return [...mountTmp, 'mkdir -p "$TMPDIR" "$STATE_DIR"', 'exec "$0" "$@"'].join(" && ");
}
let server: Awaited<ReturnType<typeof startLocalServer>>;
let browser: Browser;

const known = {
  embed_id: "known-text",
  name: "Known text",
  definition: {
    title: "Quarterly Figures",
    panels: [
      { id: "revenue", type: "kpi", title: "Revenue", schema_id: 1, sql: "SELECT 48210 AS value", layout: { x: 0, y: 0, w: 6, h: 2 } },
      { id: "note", type: "text", title: "Note", text: "Known text for the pixel test.", layout: { x: 6, y: 0, w: 6, h: 2 } },
    ],
  },
};

beforeAll(async () => {
  if (checkoutInTmp) mkdirSync(join(fresh, "empty-tmp"));
  server = await startLocalServer({
    port: await freePort(),
    env: {
      CHROMIUM_SYSTEM: "none",
      CHROMIUM_PATH: undefined,
      XDG_CACHE_HOME: join(fresh, "cache"),
      TMPDIR: privateTmp ? "/tmp/capture-text" : join(fresh, "tmp"),
      ...(checkoutInTmp ? { EMPTY_TMP: join(fresh, "empty-tmp"), CHECKOUT_IN_TMP: checkoutInTmp } : {}),
    },
    command: privateTmp ? ["unshare", "-m", "sh", "-c", emptyTmp()] : [],
  });
  if (!privateTmp) mkdirSync(join(fresh, "tmp"), { recursive: true });
  const pushed = await pushDashboard(adminClient(server.base, server.vars.ADMIN_TOKEN), known, { tags: ["production"] });
  expect(pushed.success, JSON.stringify(pushed)).toBe(1);
  browser = await launchBrowser();
  mkdirSync(results, { recursive: true });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  rmSync(fresh, { recursive: true, force: true });
});

const api = (path: string, body: unknown) => devApi(server.base, server.vars.DEV_API_TOKEN)(path, body);
const capture = (width: number, exportType: "image" | "pdf" = "image") =>
  capturedFile(server.base, server.vars.DEV_API_TOKEN, {
    provided_id: "acme-berlin",
    dashboard_embed_id: known.embed_id,
    width,
    export_type: exportType,
  });

describe("text in every capture (registry Chromium, fresh cache and temp folders)", () => {
  it("Browser Rendering starts the registry's Chromium through this checkout's wrapper, with the project's fontconfig file", () => {
    const wrapper = spawnSync("sh", ["-c", `cat "${projectCacheHome}"/.wrangler/chrome/*/chrome-linux64/chrome`], {
      encoding: "utf8",
    }).stdout;
    expect(wrapper).toContain(join(root, "node_modules", ".cache", "registry-chromium", "chrome"));
    const registryWrapper = readFileSync(join(root, "node_modules", ".cache", "registry-chromium", "chrome"), "utf8");
    expect(registryWrapper).toContain(`FONTCONFIG_FILE="${registryFontsConf}"`);
    const conf = readFileSync(registryFontsConf, "utf8");
    expect(conf).toContain(`<dir>${join(root, "node_modules", ".cache", "registry-chromium", "fonts")}</dir>`);
    expect(conf).toContain("<dir>/usr/share/fonts</dir>");
    // No folder of /tmp, /opt/fonts or /var/task but this checkout's own (which may itself be under /tmp).
    expect(conf.replaceAll(root, "<checkout>")).not.toMatch(/\/tmp|\/opt\/fonts|\/var\/task/);
  });

  for (const width of [360, 1280]) {
    it(`a ${width} px screenshot shows the title and the KPI value in dark glyph pixels (and none in the empty margin)`, async () => {
      const bytes = await capture(width);
      writeFileSync(join(results, `capture-text-${width}.png`), bytes);
      const png = decodePng(bytes);
      expect(png.width).toBe(width);
      const minted = await api("/api/generate_embed_token/", { provided_id: "acme-berlin", dashboard_embed_id: known.embed_id });
      const boxes = await textBoxes(
        browser,
        `${minted.body.embed_url}&width=${width}`.replace("http://localhost", "http://127.0.0.1"),
        width,
      );
      expect(png.height).toBeGreaterThanOrEqual(boxes.kpi.y + boxes.kpi.height);
      // "Quarterly Figures" at 22 px and "48,210" at 34 px: hundreds of glyph pixels each.
      expect(darkPixels(png, boxes.title)).toBeGreaterThan(150);
      expect(darkPixels(png, boxes.kpi)).toBeGreaterThan(150);
      // Control: the page's bottom margin, as wide as the page, has no dark pixel.
      expect(darkPixels(png, { x: 0, y: png.height - 20, width: png.width, height: 20 })).toBe(0);
    });
  }

  it("a PDF draws its text in the fonts the package ships (embedded Open Sans)", async () => {
    const pdf = Buffer.from(await capture(1280, "pdf")).toString("latin1");
    expect(pdf.startsWith("%PDF-")).toBe(true);
    // Font objects name the font they embed (subset prefix + PostScript name); a PDF drawn
    // without any font has none.
    expect(pdf).toMatch(/\/BaseFont\s*\/[A-Z]{6}\+OpenSans/);
  });
});
