// Two checkouts of the project on one machine (docs/getting-started.md, "One browser wrapper
// per checkout"): each one's wrangler runs with its own cache folder, so installing a second
// checkout does not repoint the first one's Browser Rendering, and deleting it does not take
// the browser away: a capture in the remaining checkout still works and still shows text.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalServer } from "../../scripts/lib/local-server.mjs";
import { darkPixels, decodePng } from "./pixels";
import { capturedFile } from "./service-api";

const root = join(import.meta.dirname, "..", "..");
const work = mkdtempSync(join(tmpdir(), "two-checkouts-"));
const first = join(work, "first");
const second = join(work, "second");
let server: LocalServer | undefined;

/** A clone with this checkout's installed packages (hard links, no download), but none of its caches. */
function checkout(dir: string) {
  expect(spawnSync("git", ["clone", "--quiet", "--no-hardlinks", root, dir]).status).toBe(0);
  expect(spawnSync("cp", ["-al", join(root, "node_modules"), join(dir, "node_modules")]).status).toBe(0);
  rmSync(join(dir, "node_modules", ".cache"), { recursive: true, force: true });
  // What `npm install` runs last (postinstall): the Chromium, its fonts and the wrangler wrapper.
  const installed = spawnSync(process.execPath, [join(dir, "scripts", "ensure-chrome.mjs")], {
    encoding: "utf8",
    env: { ...process.env, CHROMIUM_SYSTEM: "none", CHROMIUM_PATH: "" },
  });
  expect(installed.status, installed.stderr).toBe(0);
}

const wrapperOf = (dir: string) =>
  spawnSync("sh", ["-c", `cat "${dir}"/.wrangler/xdg-cache/.wrangler/chrome/*/chrome-linux64/chrome`], { encoding: "utf8" }).stdout;

beforeAll(async () => {
  checkout(first);
  // The first checkout serves; the second one is installed after it, then deleted.
  const { freePort, startLocalServer } = await import(join(first, "scripts", "lib", "local-server.mjs"));
  server = (await startLocalServer({ port: await freePort(), env: { CHROMIUM_SYSTEM: "none", CHROMIUM_PATH: undefined } })) as LocalServer;
  checkout(second);
}, 300_000);

afterAll(async () => {
  await server?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe("two checkouts on one machine", () => {
  it("each checkout's Browser Rendering wrapper points at its own Chromium", () => {
    expect(wrapperOf(first)).toContain(join(first, "node_modules", ".cache", "registry-chromium", "chrome"));
    expect(wrapperOf(second)).toContain(join(second, "node_modules", ".cache", "registry-chromium", "chrome"));
  });

  it("deleting one checkout leaves the other's captures working, with text", async () => {
    rmSync(second, { recursive: true, force: true });
    expect(existsSync(second)).toBe(false);
    const bytes = await capturedFile(server!.base, server!.vars.DEV_API_TOKEN, {
      provided_id: "acme-berlin",
      dashboard_embed_id: "sales-overview",
      width: 800,
    });
    const png = decodePng(bytes);
    expect(png.width).toBe(800);
    // The demo's title sits in the top band (24 px padding, 22 px type): glyphs there.
    expect(darkPixels(png, { x: 0, y: 16, width: 400, height: 40 })).toBeGreaterThan(150);
    expect(readFileSync(join(first, "node_modules", ".cache", "registry-chromium", "chrome"), "utf8")).toContain(first);
  });
});
