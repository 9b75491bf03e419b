// What every bench shares: its options (`--runs 20`), the local server (`npm start`'s runtime
// on the bench's own port and state, with the vars it needs), the callers of its API, the
// vendor's page with a browser (bench:embed, bench:report-builder), timing (one call, rounds
// of several measurements taking turns, requests per second), medians, and the pieces of
// the lines they print (ratios, rounds, sizes). Each bench keeps its own measurements and
// its own output.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import { launchBrowser } from "../../scripts/lib/chromium.mjs";
import { startEmbedHost } from "../../scripts/lib/embed-host.mjs";
import { startLocalServer } from "../../scripts/lib/local-server.mjs";

/** The checkout's root. */
export const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The number after `--name` on the command line, else `fallback`. */
export function numberArg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

/** The middle value (the mean of the two middle ones for an even count); NaN if any value is. */
export function median(values) {
  if (values.some(Number.isNaN)) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return (sorted[Math.floor((sorted.length - 1) / 2)] + sorted[Math.ceil((sorted.length - 1) / 2)]) / 2;
}

/**
 * `npm start`'s runtime on `port` with its own fresh state, each of `vars` passed as
 * `--var NAME:value` (e.g. a rate limit high enough for the load), then `flags`.
 */
export function startServer({ port, vars = {}, flags = [], onOutput } = {}) {
  const args = [...Object.entries(vars).flatMap(([name, value]) => ["--var", `${name}:${value}`]), ...flags];
  return startLocalServer({ port, args, onOutput });
}

/** The headers of an /api/ call with the server's development API token. */
export const apiHeaders = (server) => ({
  "Service-Authorization": `Token ${server.vars.DEV_API_TOKEN}`,
  "Content-Type": "application/json",
});

/** The headers of an /admin/ (or /_dev/) call with the server's admin token. */
export const adminHeaders = (server) => ({ Authorization: `Bearer ${server.vars.ADMIN_TOKEN}`, "Content-Type": "application/json" });

/** POSTs `body` as JSON to `path` of the server with `headers` (the API token's by default) and answers the parsed JSON. */
export const postJson = (server, path, body, headers = apiHeaders(server)) =>
  fetch(`${server.base}${path}`, { method: "POST", headers, body: JSON.stringify(body) }).then((r) => r.json());

/**
 * The vendor's side of an embed: the server, the local embed host (its token endpoint mints
 * with the server's development token) and the local Chromium. `stop` ends all three.
 */
export async function startEmbedBench(port) {
  const server = await startServer({ port });
  const host = await startEmbedHost({ apiBase: server.base, apiToken: server.vars.DEV_API_TOKEN });
  const browser = await launchBrowser();
  return {
    server,
    host,
    browser,
    stop: async () => {
      await browser.close();
      await host.stop();
      await server.stop();
    },
  };
}

/** Maps `customer`'s schema to D1 (as seeded) or to PostgreSQL (scripts/demo-postgres.mjs loads the same rows there). */
export function mapCustomerData(base, customer, kind) {
  const result = spawnSync(
    process.execPath,
    [join(root, "scripts", "demo-postgres.mjs"), "--base", base, "--customer", customer, ...(kind === "d1" ? ["--d1"] : [])],
    { cwd: root, encoding: "utf8" },
  );
  if (result.status !== 0) throw new Error(`demo-postgres failed:\n${result.stdout}\n${result.stderr}`);
}

/**
 * The module at `entry` (a path under the root) bundled for Node and imported, to time the
 * Worker's code in process (where the clock measures CPU work; inside workerd timers do not
 * advance during compute). The browser's scripts are imported as text, as the Worker does.
 * The runtime's own modules (`cloudflare:workers`, `cloudflare:email`) do not exist in Node: a
 * module that only names their classes (a Durable Object declared on the way, an e-mail sender
 * next to the code timed) gets stand-ins that load, and throw when the timed code would use them.
 */
export async function importBundled(entry) {
  const { build } = await import("esbuild");
  const { browserScriptsAsText, buildBrowserScripts } = await import("../../scripts/lib/browser-build.mjs");
  const work = mkdtempSync(join(tmpdir(), "bench-bundle-"));
  try {
    const bundle = join(work, "entry.mjs");
    await buildBrowserScripts();
    await build({
      entryPoints: [join(root, entry)],
      bundle: true,
      platform: "node",
      format: "esm",
      outfile: bundle,
      logLevel: "error",
      // Libraries (pg, the XLSX writer) require Node built-ins; Node provides them to the bundle.
      banner: { js: 'import { createRequire as bannerRequire } from "node:module"; const require = bannerRequire(import.meta.url);' },
      plugins: [browserScriptsAsText, runtimeModulesStandIn],
    });
    return await import(pathToFileURL(bundle).href);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** What `cloudflare:*` modules export that our code names, as classes whose construction says they are not in Node. */
const runtimeModulesStandIn = {
  name: "runtime-modules-stand-in",
  setup(build) {
    build.onResolve({ filter: /^cloudflare:/ }, (args) => ({ path: args.path, namespace: "runtime-stand-in" }));
    build.onLoad({ filter: /.*/, namespace: "runtime-stand-in" }, (args) => {
      const names = { "cloudflare:workers": ["DurableObject", "WorkerEntrypoint", "RpcTarget"], "cloudflare:email": ["EmailMessage"] }[
        args.path
      ];
      if (!names) return { errors: [{ text: `${args.path} has no stand-in in Node: add the names the bundled code imports from it` }] };
      const standIn = (name) =>
        `export class ${name} { constructor() { throw new Error("${args.path}'s ${name} exists only inside the Workers runtime"); } }`;
      return { contents: names.map(standIn).join("\n"), loader: "js" };
    });
  },
};

/**
 * Milliseconds `work` took, and what it answered: at once for synchronous work (no await
 * inside the measurement), when its promise settles for asynchronous work.
 */
export function timed(work) {
  const started = performance.now();
  const value = work();
  if (value instanceof Promise) return value.then((settled) => ({ ms: performance.now() - started, value: settled }));
  return { ms: performance.now() - started, value };
}

/**
 * Measurements taking turns: `warmup` rounds (not kept), then `rounds` rounds, each calling
 * every step in order with the round's index. Answers each step's values, by step name.
 */
export async function interleave(rounds, steps, { warmup = 0 } = {}) {
  const values = Object.fromEntries(Object.keys(steps).map((name) => [name, []]));
  for (let i = 0; i < warmup + rounds; i++) {
    for (const [name, step] of Object.entries(steps)) {
      const value = await step(i);
      if (i >= warmup) values[name].push(value);
    }
  }
  return values;
}

/** Requests/s of `url` with `concurrency` requests in flight for `ms`; any answer but 2xx fails. */
export async function throughput(url, ms, concurrency) {
  const end = Date.now() + ms;
  let done = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < end) {
        const response = await fetch(url);
        await response.arrayBuffer();
        if (!response.ok) throw new Error(`${url} answered ${response.status}`);
        done++;
      }
    }),
  );
  return done / (ms / 1000);
}

/** `a / b` with `digits` decimals: a figure against its floor. */
export const ratio = (a, b, digits = 2) => (a / b).toFixed(digits);

/** Each round's ratio, as the rounds list of a line: "0.51, 0.49, 0.50". */
export const roundsText = (ratios) => ratios.map((x) => x.toFixed(2)).join(", ");

/** Bytes as KiB, one decimal: "41.4 KiB". */
export const kib = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`;

/** A text's size and its gzipped size: "41.4 KiB (8.8 KiB gzip)". */
export const sizeWithGzip = (text) => `${kib(Buffer.byteLength(text))} (${kib(gzipSync(text).length)} gzip)`;
