import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import mysql from "mysql2/promise";
import { reachable } from "./local-postgres.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
/** Each run's server lives in a folder of its own under here, removed when it stops. */
const runsDir = join(root, ".wrangler", "mysql");

/** The one line that says how to give the MySQL tests a server, where none could be had. */
export const HOW_TO_PROVIDE_MYSQL =
  "set MYSQL_TEST_URL=mysql://user:password@host:port/database (an account that may create databases), or install a MariaDB or MySQL server (Debian: apt-get install mariadb-server-core)";

/**
 * A MySQL-protocol server for one test run (docs/mysql.md): the one at MYSQL_TEST_URL when
 * set; else a MariaDB or MySQL server program on this machine, started in a fresh data
 * directory under .wrangler/mysql/ on a free port and removed by `stop()`; else, on a
 * Debian-like machine as root, Debian's `mariadb-server-core` is installed first. Resolves
 * with `{ connectionString, adminConnectionString, stop }`: the read-only account panels run
 * as (SELECT and EXECUTE on the `warehouse%` databases) and a writing one for the tests'
 * set-up — or with `{ skipped }`, the reason none could be had.
 */
export async function ensureLocalMysql({ log = console.log, install = true } = {}) {
  const none = { stop: async () => {} };
  if (process.env.MYSQL_TEST_URL) {
    const url = process.env.MYSQL_TEST_URL;
    await withConnection(url, (c) => c.query(`CREATE DATABASE IF NOT EXISTS ${quoted(databaseOf(url))}`));
    return { ...none, connectionString: url, adminConnectionString: url };
  }
  let server = serverProgram();
  if (!server && install) server = installDebianServer(log);
  if (!server) return { ...none, skipped: `no MySQL or MariaDB server on this machine: ${HOW_TO_PROVIDE_MYSQL}` };

  removeLeftRuns();
  const started = Date.now();
  const dir = join(runsDir, `run-${process.pid}-${Date.now()}`);
  const instance = await startServer(server, dir, await freePort());
  const stop = async () => {
    await instance.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  const { port } = instance;
  const password = randomBytes(12).toString("hex");
  const adminPassword = randomBytes(12).toString("hex");
  try {
    await withConnection(instance.rootUrl, async (c) => {
      for (const statement of [
        "CREATE DATABASE warehouse",
        // The account panels run as reads only; EXECUTE lets a test call a function that
        // writes, which the READ ONLY transaction itself must refuse.
        `CREATE USER 'warehouse'@'%' IDENTIFIED BY '${password}'`,
        "GRANT SELECT, EXECUTE, SHOW VIEW ON `warehouse%`.* TO 'warehouse'@'%'",
        `CREATE USER 'warehouse_admin'@'%' IDENTIFIED BY '${adminPassword}'`,
        "GRANT ALL PRIVILEGES ON `warehouse%`.* TO 'warehouse_admin'@'%'",
      ])
        await c.query(statement);
    });
  } catch (error) {
    await stop();
    throw error;
  }
  log(`local-mysql: started ${instance.name} on 127.0.0.1:${port} for this run (${((Date.now() - started) / 1000).toFixed(1)} s).`);
  return {
    stop,
    connectionString: `mysql://warehouse:${password}@127.0.0.1:${port}/warehouse`,
    adminConnectionString: `mysql://warehouse_admin:${adminPassword}@127.0.0.1:${port}/warehouse`,
  };
}

/**
 * The MySQL of the WAREHOUSE_MYSQL binding for `npm start` (docs/mysql.md): a server that
 * answers at the connection string's host and port is used as it is; when nothing answers
 * on a local host and a MariaDB or MySQL server program is installed, one is started there
 * from a data directory kept in .wrangler/mysql/dev/ (so `npm run demo:mysql`'s rows stay),
 * with the connection string's account reading its database (`<database>%`). Without either,
 * nothing starts and MySQL panels show a message. Resolves with `{ started, stop, rootUrl? }`:
 * `rootUrl` (root on the loopback, no password) only for a server started here.
 */
export async function ensureDevMysql(connectionString, { log = console.log } = {}) {
  const none = { started: false, stop: async () => {} };
  const url = new URL(connectionString);
  const port = Number(url.port || 3306);
  if (!["localhost", "127.0.0.1", "::1", "[::1]"].includes(url.hostname)) return none;
  if (await reachable(url.hostname, port)) return none;
  const server = serverProgram();
  if (!server) {
    log("local-mysql: no MySQL at the WAREHOUSE_MYSQL connection string and no MariaDB/MySQL server here; MySQL panels will say so.");
    return none;
  }
  const started = Date.now();
  const instance = await startServer(server, join(runsDir, "dev"), port);
  try {
    const user = decodeURIComponent(url.username);
    const password = decodeURIComponent(url.password);
    const database = databaseOf(connectionString);
    await withConnection(instance.rootUrl, async (c) => {
      await c.query(`CREATE DATABASE IF NOT EXISTS ${quoted(database)}`);
      // The demo's own local account, as wrangler.toml names it: reads only.
      await c.query("CREATE USER IF NOT EXISTS ?@'%' IDENTIFIED BY ?", [user, password]);
      await c.query(`GRANT SELECT, SHOW VIEW ON ${quoted(`${database.replace(/[_%]/g, "\\$&")}%`)}.* TO ?@'%'`, [user]);
    });
  } catch (error) {
    await instance.stop();
    throw error;
  }
  log(
    `local-mysql: started ${instance.name} on 127.0.0.1:${port} for this server (${((Date.now() - started) / 1000).toFixed(1)} s; data in .wrangler/mysql/dev).`,
  );
  return { started: true, stop: instance.stop, rootUrl: instance.rootUrl };
}

/**
 * A server from `dir` (initialised first when empty) on 127.0.0.1:port, root without a
 * password on the loopback; resolves once root can connect.
 */
async function startServer(server, dir, port) {
  const data = join(dir, "data");
  const fresh = !existsSync(data) || readdirSync(data).length === 0;
  mkdirSync(data, { recursive: true });
  const logFile = join(dir, "server.log");
  const readLog = () => (existsSync(logFile) ? readFileSync(logFile, "utf8").slice(-4000) : "");
  const mariadb = /mariadb/i.test(spawnSync(server, ["--version"], { encoding: "utf8" }).stdout ?? "");
  // Small files: a test server holds a few rows (MariaDB's defaults write ~100 MB of logs).
  const common = ["--no-defaults", `--datadir=${data}`, "--innodb-log-file-size=8M", "--innodb-buffer-pool-size=32M", "--skip-log-bin"];
  const asRoot = process.getuid?.() === 0 ? ["--user=root"] : [];
  if (fresh) initialise(server, mariadb, [...common, ...asRoot], logFile, readLog);

  const logFd = openSync(logFile, "a");
  const child = spawn(
    server,
    [...common, ...asRoot, `--port=${port}`, "--bind-address=127.0.0.1", `--socket=${join(dir, "s.sock")}`, "--skip-name-resolve"],
    { stdio: ["ignore", logFd, logFd] },
  );
  closeSync(logFd);
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const killAtExit = () => child.kill("SIGKILL");
  process.once("exit", killAtExit);
  async function stop() {
    process.off("exit", killAtExit);
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    }
  }
  const rootUrl = `mysql://root@127.0.0.1:${port}/mysql`;
  const deadline = Date.now() + 30_000;
  while (!(await withConnection(rootUrl, () => true).catch(() => false))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`the server did not start: ${readLog()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const version = /Version: '([^']+)'/.exec(readLog())?.[1] ?? "";
  return { port, rootUrl, stop, name: `${mariadb ? "MariaDB" : "MySQL"} ${version}` };
}

/** A server program on PATH or in the usual folders, or null. */
function serverProgram() {
  const folders = [...(process.env.PATH ?? "").split(":"), "/usr/sbin", "/usr/local/sbin", "/usr/local/mysql/bin", "/usr/local/bin"];
  for (const name of ["mariadbd", "mysqld"]) {
    for (const folder of folders) {
      const file = join(folder, name);
      if (folder && existsSync(file)) return file;
    }
  }
  return null;
}

/** Debian's MariaDB server (no client, no service started), on a Debian-like machine as root; else null. */
function installDebianServer(log) {
  if (process.getuid?.() !== 0 || !existsSync("/etc/debian_version") || spawnSync("which", ["apt-get"]).status !== 0) return null;
  log("local-mysql: no MySQL or MariaDB server here; installing Debian's mariadb-server-core.");
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  const install = () =>
    spawnSync("apt-get", ["install", "-y", "--no-install-recommends", "mariadb-server-core"], { stdio: "ignore", env }).status === 0;
  if (!install()) {
    spawnSync("apt-get", ["update"], { stdio: "ignore", env });
    if (!install()) return null;
  }
  return serverProgram();
}

/**
 * The system tables in an empty data directory. MariaDB: its own bootstrap scripts fed to
 * `--bootstrap` (what mariadb-install-db does; that script needs a client package too), root
 * without a password on the loopback. MySQL: `--initialize-insecure`.
 */
function initialise(server, mariadb, args, logFile, readLog) {
  const logFd = openSync(logFile, "a");
  try {
    if (!mariadb) {
      const result = spawnSync(server, [...args, "--initialize-insecure"], { stdio: ["ignore", logFd, logFd] });
      if (result.status !== 0) throw new Error(`mysqld --initialize-insecure failed: ${readLog()}`);
      return;
    }
    const share = ["/usr/share/mysql", "/usr/share/mariadb", "/usr/local/mysql/share"].find((d) =>
      existsSync(join(d, "mysql_system_tables.sql")),
    );
    if (!share) throw new Error("MariaDB's mysql_system_tables.sql was not found");
    const script = [
      "CREATE DATABASE IF NOT EXISTS mysql;",
      "USE mysql;",
      "SET @auth_root_socket=NULL;",
      readFileSync(join(share, "mysql_system_tables.sql"), "utf8"),
      readFileSync(join(share, "mysql_system_tables_data.sql"), "utf8"),
    ].join("\n");
    const result = spawnSync(server, [...args, "--bootstrap", "--log-warnings=0", "--enforce-storage-engine="], {
      input: script,
      stdio: ["pipe", logFd, logFd],
    });
    if (result.status !== 0) throw new Error(`mariadbd --bootstrap failed: ${readLog()}`);
  } finally {
    closeSync(logFd);
  }
}

async function withConnection(url, work) {
  const connection = await mysql.createConnection({ uri: url, connectTimeout: 2000 });
  try {
    return await work(connection);
  } finally {
    await connection.end().catch(() => {});
  }
}

function databaseOf(url) {
  return decodeURIComponent(new URL(url).pathname.slice(1)) || "warehouse";
}

function quoted(name) {
  return `\`${name.replaceAll("`", "``")}\``;
}

/** A TCP port nothing listens on at the moment. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Folders of runs whose process is gone (killed before it could clean up). */
function removeLeftRuns() {
  if (!existsSync(runsDir)) return;
  for (const name of readdirSync(runsDir)) {
    const pid = Number(/^run-(\d+)-/.exec(name)?.[1]);
    // `dev` is npm start's server, kept between runs.
    if (!pid) continue;
    let alive = false;
    try {
      process.kill(pid, 0);
      alive = true;
    } catch {}
    if (!alive) rmSync(join(runsDir, name), { recursive: true, force: true });
  }
}
