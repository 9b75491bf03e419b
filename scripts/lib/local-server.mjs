import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { readDevVars } from "./dev-vars.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Resolves whether something may listen on `port` of 127.0.0.1 now (the port is let go at once). */
function canListen(port) {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/** Where the system's own port picks begin (Linux's ip_local_port_range; 32768 elsewhere, below macOS's and Windows' 49152). */
function ephemeralStart() {
  try {
    return Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]) || 32768;
  } catch {
    return 32768;
  }
}

/** The lowest port freePort draws from. */
const FIRST_PORT = 20000;

/**
 * A TCP port on 127.0.0.1 that nothing listens on, drawn at random below the system's own
 * picks and checked free. Not a port the system picks (listen on port 0): between the check
 * and `wrangler dev` binding it, the system may hand that same port to anything that asks for
 * one — each server's workerd opens several, and outbound connections take them too; with
 * e2e files starting servers side by side, one once lost its port that way ("Address already
 * in use"). Ports below the system's range are only ever taken by name; two files drawing the
 * same one within seconds is a chance of about one in ten thousand.
 */
export async function freePort() {
  const below = ephemeralStart();
  for (let tries = 0; below > FIRST_PORT + 100 && tries < 50; tries++) {
    const port = FIRST_PORT + Math.floor(Math.random() * (below - FIRST_PORT));
    if (await canListen(port)) return port;
  }
  // No room below the system's range (or every draw taken): a port the system picks.
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * Runs `npm start` (scripts/start.mjs) on `port`, with its state in `stateDir` (a fresh
 * temporary one by default), and resolves once it prints its banner. `args` go to
 * `wrangler dev`; `onOutput` sees everything the server prints; `env` is added to the
 * server's environment. `command` (e.g. `["unshare", "-m", …]`) is put before the Node
 * that runs start.mjs.
 */
export async function startLocalServer({ port, stateDir, args = [], onOutput, env = {}, command = [] } = {}) {
  const ownState = stateDir === undefined;
  const state = stateDir ?? mkdtempSync(join(tmpdir(), "customer-api-state-"));
  const argv = [...command, process.execPath, join(root, "scripts", "start.mjs"), ...args];
  const inspectorPort = env.INSPECTOR_PORT ?? (await freePort());
  // STOP_WITH_PID: the server stops itself when this process is gone without calling stop()
  // (start.mjs); the group it stops is its own (a SERVER_GROUP inherited from elsewhere is not).
  const childEnv = {
    ...process.env,
    PORT: String(port),
    STATE_DIR: state,
    INSPECTOR_PORT: String(inspectorPort),
    STOP_WITH_PID: String(process.pid),
    ...env,
  };
  delete childEnv.SERVER_GROUP;
  const child = spawn(argv[0], argv.slice(1), {
    cwd: root,
    // A devtools port of its own too: wrangler's default (9229, else the next free one) is
    // checked and bound later, so two servers starting at once both took 9229 (start.mjs).
    env: childEnv,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let output = "";
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start did not come up:\n${output}`)), 150_000);
    const collect = (chunk) => {
      output += chunk;
      onOutput?.(String(chunk));
      if (output.includes("Customer API running at")) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on("data", collect);
    child.stderr.on("data", (chunk) => (output += chunk));
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`npm start exited with ${code}:\n${output}`));
    });
  });

  async function stop({ keepState = false } = {}) {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      try {
        process.kill(-child.pid, "SIGTERM");
      } catch {}
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
      if (child.exitCode === null) {
        try {
          process.kill(-child.pid, "SIGKILL");
        } catch {}
      }
    }
    if (ownState && !keepState) rmSync(state, { recursive: true, force: true });
  }

  return {
    base: `http://127.0.0.1:${port}`,
    pid: child.pid,
    inspectorPort: Number(inspectorPort),
    stateDir: state,
    vars: readDevVars(join(root, ".dev.vars")),
    output: () => output,
    stop,
  };
}
