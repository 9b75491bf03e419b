// The README's two commands on a machine with Node 20 and no Chromium: a clean clone,
// a PATH whose `node` is the machine's old one, the system Chromium hidden
// (CHROMIUM_SYSTEM=none, see docs/getting-started.md). `npm install && npm start` must
// serve the demo with no other step; Node 22 and Chromium come from the npm registry.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");
// The machine's own Node (Debian's is 20); BARE_NODE picks another one, and a machine
// without /usr/bin/node plays it with the Node running this test.
const machineNode = process.env.BARE_NODE ?? (existsSync("/usr/bin/node") ? "/usr/bin/node" : process.execPath);
const work = mkdtempSync(join(tmpdir(), "bare-machine-"));
const clone = join(work, "clone");
const port = 19787 + Math.floor(Math.random() * 1000);
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

describe("a bare machine (Node 20, no Chromium)", () => {
  it("serves the demo after `npm install && npm start` in a clean clone, with Node 22 and Chromium from the npm registry", async () => {
    const machineVersion = spawnSync(machineNode, ["--version"], { encoding: "utf8" }).stdout.trim();
    expect(machineVersion).toMatch(/^v\d+\./);

    expect(spawnSync("git", ["clone", "--quiet", "--no-hardlinks", root, clone]).status).toBe(0);
    // Only the machine's node (and its npm) ahead of the system directories.
    const bin = join(work, "bin");
    mkdirSync(bin);
    symlinkSync(machineNode, join(bin, "node"));
    const env: Record<string, string> = {
      PATH: `${bin}:/usr/local/bin:/usr/bin:/bin`,
      HOME: process.env.HOME ?? work,
      XDG_CACHE_HOME: join(work, "cache"),
      CHROMIUM_SYSTEM: "none",
      CHROMIUM_PATH: "/nonexistent",
      PORT: String(port),
      LANG: "C.UTF-8",
    };
    // BARE_NPM_CACHE=<empty folder> measures a cold npm cache (every package downloaded).
    if (process.env.BARE_NPM_CACHE) env.npm_config_cache = process.env.BARE_NPM_CACHE;
    if (process.env.CLOUDFLARE_HYPERDRIVE_LOCAL_CONNECTION_STRING_WAREHOUSE) {
      env.CLOUDFLARE_HYPERDRIVE_LOCAL_CONNECTION_STRING_WAREHOUSE = process.env.CLOUDFLARE_HYPERDRIVE_LOCAL_CONNECTION_STRING_WAREHOUSE;
    }

    const started = Date.now();
    let output = "";
    child = spawn("sh", ["-c", "npm install --no-audit --no-fund && npm start"], { cwd: clone, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    child.stdout!.on("data", (chunk) => (output += chunk));
    child.stderr!.on("data", (chunk) => (output += chunk));

    try {
      await until("the first served request", 540_000, async () => ((await fetch(`http://127.0.0.1:${port}/health`)).ok ? true : undefined));
      const firstRequest = Date.now() - started;
      const demoUrl = await until("the banner", 120_000, async () => /\/embed\/sales-overview\?customer_token=\S+/.exec(output)?.[0]);
      const ready = Date.now() - started;
      console.log(`bare machine (${machineVersion}): npm install && npm start → first served request ${(firstRequest / 1000).toFixed(1)} s, demo ready ${(ready / 1000).toFixed(1)} s`);

      const page = await fetch(`http://127.0.0.1:${port}${demoUrl}`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain("<html");
      // The API explorer's Swagger UI was copied into the static assets by npm install.
      const explorer = await fetch(`http://127.0.0.1:${port}/docs/explorer/vendor/swagger-ui-bundle.js`);
      expect(explorer.status).toBe(200);
      expect((await explorer.text()).length).toBeGreaterThan(100_000);
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
