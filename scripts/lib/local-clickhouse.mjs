import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
/** Each run's engine data lives in a folder of its own under here, removed when it stops. */
const runsDir = join(root, ".wrangler", "clickhouse");

/**
 * The ClickHouse server of one test run (docs/clickhouse.md): the one at CLICKHOUSE_TEST_URL
 * when set (`https://user:password@host:port`, an account that may create databases: the
 * tests set their data up with it, and their panels run as it, with the service's
 * `readonly=1` on every request); else the tests' own server (clickhouse-test-server.mjs:
 * the real engine from the `chdb` package behind ClickHouse's HTTP interface) on a free port,
 * stopped and removed by `stop()`. Resolves with `{ url, user, password, adminUser,
 * adminPassword, stop }`, or `{ skipped }` when neither can be had.
 */
export async function ensureLocalClickhouse() {
  const none = { stop: async () => {} };
  if (process.env.CLICKHOUSE_TEST_URL) {
    const given = new URL(process.env.CLICKHOUSE_TEST_URL);
    const user = decodeURIComponent(given.username || "default");
    const password = decodeURIComponent(given.password);
    return { ...none, url: given.origin, user, password, adminUser: user, adminPassword: password };
  }
  try {
    await import("chdb");
  } catch (error) {
    return {
      ...none,
      skipped: `the chdb package cannot load here (${error.message.split("\n")[0]}): set CLICKHOUSE_TEST_URL=https://user:password@host:port`,
    };
  }
  removeLeftRuns();
  const dir = join(runsDir, `run-${process.pid}-${Date.now()}`);
  mkdirSync(dir, { recursive: true });
  const users = {
    reader: { password: randomBytes(12).toString("hex") },
    setup: { password: randomBytes(12).toString("hex") },
  };
  const child = spawn(process.execPath, [join(root, "scripts", "lib", "clickhouse-test-server.mjs"), dir, JSON.stringify(users)], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const killAtExit = () => child.kill("SIGKILL");
  process.once("exit", killAtExit);
  const exited = new Promise((resolve) => child.once("exit", resolve));
  async function stop() {
    process.off("exit", killAtExit);
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    }
    rmSync(dir, { recursive: true, force: true });
  }
  const port = await new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error("the ClickHouse test server did not start within 30 s")), 30_000);
    child.stdout.on("data", (chunk) => {
      out += chunk;
      const line = out.split("\n")[0];
      if (out.includes("\n")) {
        clearTimeout(timer);
        resolve(JSON.parse(line).port);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the ClickHouse test server exited (${code})`));
    });
  }).catch(async (error) => {
    await stop();
    throw error;
  });
  return {
    url: `http://127.0.0.1:${port}`,
    user: "reader",
    password: users.reader.password,
    adminUser: "setup",
    adminPassword: users.setup.password,
    stop,
  };
}

/** Data folders of runs that ended without stopping (a killed run). */
function removeLeftRuns() {
  let entries = [];
  try {
    entries = readdirSync(runsDir);
  } catch {
    return;
  }
  for (const entry of entries) {
    const pid = Number(/^run-(\d+)-/.exec(entry)?.[1]);
    let alive = false;
    try {
      process.kill(pid, 0);
      alive = true;
    } catch {}
    if (!alive) rmSync(join(runsDir, entry), { recursive: true, force: true });
  }
}

/** The environment vitest (and the servers it starts) reads the ClickHouse of this run from. */
export function clickhouseTestEnv(server) {
  return {
    CLICKHOUSE_TEST_SERVER: server.url,
    CLICKHOUSE_TEST_USER: server.user,
    CLICKHOUSE_TEST_PASSWORD: server.password,
    CLICKHOUSE_TEST_ADMIN_USER: server.adminUser,
    CLICKHOUSE_TEST_ADMIN_PASSWORD: server.adminPassword,
  };
}
