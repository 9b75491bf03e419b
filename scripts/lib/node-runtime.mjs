// Wrangler needs Node.js >= 22.12. The machine's Node comes first; when it is older, the
// script runs again under the Node 22 that `npm install` puts in node_modules (the `node`
// package from the npm registry, pinned in package.json), so a machine with Node 20 needs
// no other step.
import { spawn } from "node:child_process";
import { existsSync, realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const pinnedNode = join(root, "node_modules", "node", "bin", "node");

/** Whether a Node.js version ("22.12.0" or "v22.12.0") runs wrangler. */
export function runsWrangler(version) {
  const [major, minor] = version.replace(/^v/, "").split(".").map(Number);
  return major > 22 || (major === 22 && minor >= 12);
}

/** The Node npm itself runs on (npm puts node_modules/.bin, and so the pinned Node, first on PATH). */
function npmsNode() {
  const path = process.env.npm_node_execpath;
  const version = /\bnode\/(v[\d.]+)/.exec(process.env.npm_config_user_agent ?? "")?.[1];
  return path && version && runsWrangler(version) ? path : null;
}

function isPinned(path) {
  try {
    return existsSync(pinnedNode) && realpathSync(path) === realpathSync(pinnedNode);
  } catch {
    return false;
  }
}

/**
 * Resolves when this process may go on; otherwise runs this same script under a Node that
 * runs wrangler and exits with its status (so it never resolves).
 */
export function ensureNode() {
  let node = null;
  if (isPinned(process.execPath)) {
    // Under npm scripts the pinned Node comes first on PATH; the machine's own wins if recent.
    const machine = npmsNode();
    if (machine && !isPinned(machine)) node = machine;
  } else if (!runsWrangler(process.versions.node)) {
    if (!existsSync(pinnedNode)) {
      console.error(`Node.js >= 22.12 is needed (this is ${process.versions.node}); run npm install first.`);
      process.exit(1);
    }
    node = pinnedNode;
  }
  if (!node) return Promise.resolve();
  const child = spawn(node, [...process.execArgv, process.argv[1], ...process.argv.slice(2)], { stdio: "inherit" });
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => child.kill(signal));
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
  return new Promise(() => {});
}
