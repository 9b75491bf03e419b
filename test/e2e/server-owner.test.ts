// A server started for a script (scripts/lib/local-server.mjs) stops when that script is gone
// without stopping it — killed by a timeout or a signal it cannot catch — instead of holding
// the machine's CPU and ports until someone notices.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");
const stateDir = mkdtempSync(join(tmpdir(), "customer-api-state-"));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether any process of a process group is left (the server's: start.mjs, wrangler, workerd, PostgreSQL; or its Chromium's). */
function groupAlive(group: number): boolean {
  try {
    process.kill(-group, 0);
    return true;
  } catch {
    return false;
  }
}

async function answers(port: number): Promise<boolean> {
  try {
    return (await fetch(`http://127.0.0.1:${port}/health`)).ok;
  } catch {
    return false;
  }
}

let leader = 0;
let browserGroup = 0;

afterAll(() => {
  for (const group of [leader, browserGroup]) if (group > 0 && groupAlive(group)) process.kill(-group, "SIGKILL");
  rmSync(stateDir, { recursive: true, force: true });
});

describe("a local server started for a script", () => {
  it("stops with everything it started once the script is killed without stopping it; stays while the script lives", async () => {
    // The owner (fixtures/server-owner.mjs): starts a server, has it capture a PDF, says where, and waits.
    const owner = spawn(process.execPath, [join(import.meta.dirname, "fixtures", "server-owner.mjs"), stateDir], {
      cwd: root,
      stdio: ["ignore", "pipe", "inherit"],
    });
    const started = await new Promise<{ pid: number; port: number; browserGroup: number }>((resolve, reject) => {
      let output = "";
      owner.stdout.on("data", (chunk) => {
        output += chunk;
        const line = output.split("\n").find((l) => l.startsWith("{"));
        if (line) resolve(JSON.parse(line));
      });
      owner.once("exit", (code) => reject(new Error(`the owner exited with ${code} before its server was up`)));
    });
    leader = started.pid;
    browserGroup = started.browserGroup;

    // Control: while its owner lives, the server stays (it looks for its owner every second).
    await sleep(3_000);
    expect(await answers(started.port)).toBe(true);
    expect(groupAlive(leader)).toBe(true);
    expect(browserGroup).toBeGreaterThan(0);
    expect(groupAlive(browserGroup)).toBe(true);

    // The owner killed outright: no stop() runs. The server and everything it started go.
    owner.kill("SIGKILL");
    const goneBy = Date.now() + 30_000;
    const left = async () => groupAlive(leader) || groupAlive(browserGroup) || (await answers(started.port));
    while ((await left()) && Date.now() < goneBy) await sleep(250);
    expect(await answers(started.port)).toBe(false);
    expect(groupAlive(leader)).toBe(false);
    // Its Chromium (a process group of its own) closed by wrangler as it stopped.
    expect(groupAlive(browserGroup)).toBe(false);
  }, 180_000);
});
