// The README's two commands on a machine with Node 20 and no Chromium: a clean clone,
// a PATH whose `node` is the machine's old one, the system Chromium hidden
// (CHROMIUM_SYSTEM=none, see docs/getting-started.md). `npm install && npm start` must
// serve the demo with no other step; Node 22 and Chromium come from the npm registry.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { launchBrowser } from "../../scripts/lib/chromium.mjs";
import { readDevVars } from "../../scripts/lib/dev-vars.mjs";
import { reachable } from "../../scripts/lib/local-postgres.mjs";
import { freePort } from "../../scripts/lib/local-server.mjs";
import { darkPixels, decodePng, textBoxes } from "./pixels";
import { capturedFile } from "./service-api";

const root = join(import.meta.dirname, "..", "..");
// The machine's own Node (Debian's is 20); BARE_NODE picks another one, and a machine
// without /usr/bin/node plays it with the Node running this test.
const machineNode = process.env.BARE_NODE ?? (existsSync("/usr/bin/node") ? "/usr/bin/node" : process.execPath);
const work = mkdtempSync(join(tmpdir(), "bare-machine-"));
const clone = join(work, "clone");
const port = await freePort();
const results = join(root, "test-results");

/**
 * What a real user's machine keeps besides PATH and HOME: its certificate authorities and
 * proxy (behind a TLS-intercepting proxy `npm install` cannot reach the registry without
 * them) and npm's own settings. Not the npm_config_* that `npm test` itself set for this run
 * (its prefix and user agent would point npm at this checkout instead of the clone).
 */
const machineVariables = /^(NODE_EXTRA_CA_CERTS|SSL_CERT_FILE|SSL_CERT_DIR|(HTTPS?|ALL|NO)_PROXY|(https?|all|no)_proxy|npm_config_.+)$/;
const setByNpmRun = new Set([
  "npm_config_local_prefix",
  "npm_config_prefix",
  "npm_config_global_prefix",
  "npm_config_user_agent",
  "npm_config_npm_version",
  "npm_config_node_gyp",
  "npm_config_call",
  "npm_config_yes",
  "npm_config_argv",
  "npm_config_init_module",
]);
const passedThrough = Object.fromEntries(
  Object.entries(process.env).filter(([name, value]) => value !== undefined && machineVariables.test(name) && !setByNpmRun.has(name)),
) as Record<string, string>;
let child: ReturnType<typeof spawn> | undefined;

afterAll(async () => {
  if (child?.exitCode === null) {
    const exited = new Promise((resolve) => child!.once("exit", resolve));
    try {
      process.kill(-child.pid!, "SIGTERM");
    } catch {}
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
  }
  rmSync(work, { recursive: true, force: true });
});

async function until<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (child?.exitCode !== null) throw new Error(`npm stopped (${child?.exitCode}) before ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe("a bare machine (Node 20, no Chromium, no PostgreSQL)", () => {
  it("serves the demo after `npm install && npm start` in a clean clone, with Node 22, Chromium and PostgreSQL from the npm registry, and captures it with its text", async () => {
    let pgPort = 45000 + Math.floor(Math.random() * 10000);
    while (await reachable("localhost", pgPort, 300)) pgPort++;
    const machineVersion = spawnSync(machineNode, ["--version"], { encoding: "utf8" }).stdout.trim();
    expect(machineVersion).toMatch(/^v\d+\./);

    expect(spawnSync("git", ["clone", "--quiet", "--no-hardlinks", root, clone]).status).toBe(0);
    // Only the machine's node (and its npm) ahead of the system directories.
    const bin = join(work, "bin");
    mkdirSync(bin);
    symlinkSync(machineNode, join(bin, "node"));
    const env: Record<string, string> = {
      ...passedThrough,
      PATH: `${bin}:/usr/local/bin:/usr/bin:/bin`,
      HOME: process.env.HOME ?? work,
      XDG_CACHE_HOME: join(work, "cache"),
      CHROMIUM_SYSTEM: "none",
      CHROMIUM_PATH: "/nonexistent",
      PORT: String(port),
      // wrangler's own devtools port pick races with other e2e files' servers (start.mjs).
      INSPECTOR_PORT: String(await freePort()),
      LANG: "C.UTF-8",
    };
    // BARE_NPM_CACHE=<empty folder> measures a cold npm cache (every package downloaded).
    if (process.env.BARE_NPM_CACHE) env.npm_config_cache = process.env.BARE_NPM_CACHE;
    // No PostgreSQL either: the WAREHOUSE connection string names a port nothing listens on,
    // so npm start runs one from the npm registry.
    env.CLOUDFLARE_HYPERDRIVE_LOCAL_CONNECTION_STRING_WAREHOUSE = `postgresql://warehouse:warehouse_local@localhost:${pgPort}/warehouse`;

    const started = Date.now();
    let output = "";
    // (worker-configuration.d.ts types process.env as the Worker sees it; this is a plain Node child.)
    child = spawn("sh", ["-c", "npm install --no-audit --no-fund && npm start"], {
      cwd: clone,
      env: env as NodeJS.ProcessEnv,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    child.stdout!.on("data", (chunk) => (output += chunk));
    child.stderr!.on("data", (chunk) => (output += chunk));

    try {
      await until("the first served request", 540_000, async () =>
        (await fetch(`http://127.0.0.1:${port}/health`)).ok ? true : undefined,
      );
      const firstRequest = Date.now() - started;
      const demoUrl = await until("the banner", 120_000, async () => /\/embed\/sales-overview\?customer_token=\S+/.exec(output)?.[0]);
      const ready = Date.now() - started;
      expect(output).toContain(`started PostgreSQL`);
      expect(await reachable("localhost", pgPort)).toBe(true);
      console.log(
        `bare machine (${machineVersion}): npm install && npm start → first served request ${(firstRequest / 1000).toFixed(1)} s, demo ready ${(ready / 1000).toFixed(1)} s`,
      );

      const page = await fetch(`http://127.0.0.1:${port}${demoUrl}`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain("<html");
      // The API explorer's Swagger UI was copied into the static assets by npm install.
      const explorer = await fetch(`http://127.0.0.1:${port}/docs/explorer/vendor/swagger-ui-bundle.js`);
      expect(explorer.status).toBe(200);
      expect((await explorer.text()).length).toBeGreaterThan(100_000);

      // The demo dashboard captured by Browser Rendering has its text: dark glyph pixels where
      // the title and the first KPI value are (measured on the same page in a real browser).
      mkdirSync(results, { recursive: true });
      const vars = readDevVars(join(clone, ".dev.vars"));
      const browser = await launchBrowser();
      try {
        for (const width of [1280, 360]) {
          const bytes = await capturedFile(`http://127.0.0.1:${port}`, vars.DEV_API_TOKEN, {
            provided_id: "acme-berlin",
            dashboard_embed_id: "sales-overview",
            width,
          });
          writeFileSync(join(results, `bare-machine-demo-${width}.png`), bytes);
          const png = decodePng(bytes);
          expect(png.width).toBe(width);
          const boxes = await textBoxes(browser, `http://127.0.0.1:${port}${demoUrl}&width=${width}`, width);
          expect(darkPixels(png, boxes.title), `title at ${width} px`).toBeGreaterThan(150);
          expect(darkPixels(png, boxes.kpi), `KPI at ${width} px`).toBeGreaterThan(150);
          expect(darkPixels(png, { x: 0, y: png.height - 16, width: png.width, height: 16 })).toBe(0);
        }
      } finally {
        await browser.close();
      }
    } catch (error) {
      throw new Error(`${(error as Error).message}\n${output.slice(-4000)}`);
    }

    // Node 22 came from the registry, and wrangler's Browser Rendering got the registry's Chromium.
    expect(existsSync(join(clone, "node_modules", "node", "bin", "node"))).toBe(true);
    // …in the clone's own wrangler cache, not the XDG_CACHE_HOME the machine gave.
    const chromeDir = join(clone, ".wrangler", "xdg-cache", ".wrangler", "chrome");
    expect(existsSync(join(env.XDG_CACHE_HOME, ".wrangler", "chrome"))).toBe(false);
    const wrapper = spawnSync("sh", ["-c", `cat "${chromeDir}"/*/chrome-linux64/chrome`], { encoding: "utf8" }).stdout;
    expect(wrapper).toContain(join(clone, "node_modules", ".cache", "registry-chromium", "chrome"));
    expect(readFileSync(join(clone, "node_modules", ".cache", "registry-chromium", "chrome"), "utf8")).toContain("chromium");
  }, 720_000);
});
