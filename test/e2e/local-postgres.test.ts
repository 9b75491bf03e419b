// PostgreSQL without setting one up (docs/postgres.md, "No PostgreSQL? None needed"): where the
// WAREHOUSE connection string reaches no server, `npm start` and `npm test` start a real
// PostgreSQL from the npm registry in a folder of their own, with the connection string's role
// and database, and remove it when they stop. A server that answers is used as it is.
import { spawnSync } from "node:child_process";
import { once } from "node:events";
import { existsSync, readdirSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { join } from "node:path";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { ensureLocalPostgres, reachable } from "../../scripts/lib/local-postgres.mjs";
import { freePort, startLocalServer } from "../../scripts/lib/local-server.mjs";

const root = join(import.meta.dirname, "..", "..");
const runs = join(root, ".wrangler", "postgres");
const quiet = { log: () => {} };

/** A port nothing listens on: the next free one from a random start. */
async function unusedPort(): Promise<number> {
  for (let port = 40000 + Math.floor(Math.random() * 20000); ; port++) if (!(await reachable("localhost", port, 300))) return port;
}

async function whoAmI(connectionString: string) {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    return (await client.query("SELECT current_user AS role, current_database() AS database, version() AS version")).rows[0];
  } finally {
    await client.end();
  }
}

const runFolders = () => (existsSync(runs) ? readdirSync(runs) : []);

describe("a PostgreSQL of our own when the connection string reaches none", () => {
  it("knows a server answers even when npm start's steps block the event loop past the timeout", async () => {
    const server = createServer().listen(0, "127.0.0.1");
    await once(server, "listening");
    const { port } = server.address() as AddressInfo;
    try {
      // The check starts, then a spawnSync step holds the loop four times the timeout.
      const answered = reachable("localhost", port, 300);
      spawnSync("sleep", ["1.2"]);
      expect(await answered).toBe(true);
      // Control: where nothing listens, the same blocked check still says so.
      const nothing = reachable("localhost", await unusedPort(), 300);
      spawnSync("sleep", ["1.2"]);
      expect(await nothing).toBe(false);
    } finally {
      server.close();
    }
  });

  it("starts one on that port with the connection string's role, password and database; a second run uses it as it is; stop removes it", async () => {
    const port = await unusedPort();
    const connectionString = `postgresql://probe_role:${encodeURIComponent("pa ss'word")}@localhost:${port}/probe_db`;
    const before = runFolders();
    let folder = "";
    const ours = await ensureLocalPostgres(connectionString, quiet);
    try {
      expect(ours.started).toBe(true);
      expect(ours.connectionString).toBe(connectionString);
      expect(await whoAmI(connectionString)).toMatchObject({
        role: "probe_role",
        database: "probe_db",
        version: expect.stringMatching(/^PostgreSQL \d+/),
      });
      // The wrong password is refused (the server checks passwords: scram-sha-256).
      await expect(whoAmI(connectionString.replace("pa%20ss", "wrong"))).rejects.toThrow(/password authentication failed/);
      const added = runFolders().filter((name) => !before.includes(name));
      expect(added).toHaveLength(1);
      folder = join(runs, added[0]);

      // Control: a server answering there is used, not started again.
      const again = await ensureLocalPostgres(connectionString, quiet);
      expect(again.started).toBe(false);
    } finally {
      await ours.stop();
    }
    expect(await reachable("localhost", port)).toBe(false);
    expect(folder).not.toBe("");
    expect(existsSync(folder)).toBe(false);
  }, 60_000);

  it("beside a server that refuses the login, npm test's mode starts one on a free port and says where", async () => {
    const port = await unusedPort();
    const first = await ensureLocalPostgres(`postgresql://someone:secret@localhost:${port}/theirs`, quiet);
    try {
      const refused = `postgresql://warehouse:warehouse_local@localhost:${port}/warehouse`;
      // Without the option the answering server is used as it is (and refuses us).
      expect((await ensureLocalPostgres(refused, quiet)).started).toBe(false);
      const ours = await ensureLocalPostgres(refused, { ...quiet, ownPortIfRefused: true });
      try {
        expect(ours.started).toBe(true);
        expect(new URL(ours.connectionString).port).not.toBe(String(port));
        expect(await whoAmI(ours.connectionString)).toMatchObject({ role: "warehouse", database: "warehouse" });
      } finally {
        await ours.stop();
      }
    } finally {
      await first.stop();
    }
  }, 60_000);

  it("npm start serves PostgreSQL dashboards after demo:postgres on a port nothing listened on, and stops that server with itself", async () => {
    const pgPort = await unusedPort();
    const connectionString = `postgresql://warehouse:warehouse_local@localhost:${pgPort}/warehouse`;
    const env = { CLOUDFLARE_HYPERDRIVE_LOCAL_CONNECTION_STRING_WAREHOUSE: connectionString };
    const server = await startLocalServer({ port: await freePort(), env });
    try {
      expect(server.output()).toContain(`started PostgreSQL`);
      expect(await reachable("localhost", pgPort)).toBe(true);
      const run = spawnSync(process.execPath, [join(root, "scripts", "demo-postgres.mjs"), "--base", server.base], {
        cwd: root,
        encoding: "utf8",
        env: { ...process.env, ...env },
      });
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout).toContain("table orders with 288 demo rows");
      const link = /Demo dashboard: (\S+)/.exec(run.stdout)![1].replace("http://localhost", "http://127.0.0.1");
      const page = await fetch(link);
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).not.toContain('class="message message-failed"');
      expect(page.headers.get("X-Data-Round-Trips-By-Source")).toMatch(/^\d+=8$/);
    } finally {
      await server.stop();
    }
    expect(await reachable("localhost", pgPort)).toBe(false);
  }, 240_000);
});
