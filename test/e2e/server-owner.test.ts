// A server started for a script (scripts/lib/local-server.mjs) stops when that script is gone
// without stopping it — killed by a timeout or a signal it cannot catch — instead of holding
// the machine's CPU and ports until someone notices.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");
const dir = mkdtempSync(join(tmpdir(), "server-owner-"));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether any process of the server's group (start.mjs, wrangler, workerd, PostgreSQL) is left. */
function groupAlive(leader: number): boolean {
  try {
    process.kill(-leader, 0);
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

afterAll(() => {
  if (leader > 0 && groupAlive(leader)) process.kill(-leader, "SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

describe("a local server started for a script", () => {
  it("stops with everything it started once the script is killed without stopping it; stays while the script lives", async () => {
    // The owner: a script that starts a server, says where, and waits.
    const script = join(dir, "owner.mjs");
    writeFileSync(
      script,
      `import { freePort, startLocalServer } from ${JSON.stringify(pathToFileURL(join(root, "scripts", "lib", "local-server.mjs")).href)};
const server = await startLocalServer({ port: await freePort() });
console.log(JSON.stringify({ pid: server.pid, port: Number(new URL(server.base).port) }));
setInterval(() => {}, 1 << 30);
`,
    );
    const owner = spawn(process.execPath, [script], { cwd: root, stdio: ["ignore", "pipe", "inherit"] });
    const started = await new Promise<{ pid: number; port: number }>((resolve, reject) => {
      let output = "";
      owner.stdout.on("data", (chunk) => {
        output += chunk;
        const line = output.split("\n").find((l) => l.startsWith("{"));
        if (line) resolve(JSON.parse(line));
      });
      owner.once("exit", (code) => reject(new Error(`the owner exited with ${code} before its server was up`)));
    });
    leader = started.pid;

    // Control: while its owner lives, the server stays (it looks for its owner every second).
    await sleep(3_000);
    expect(await answers(started.port)).toBe(true);
    expect(groupAlive(leader)).toBe(true);

    // The owner killed outright: no stop() runs. The server and everything it started go.
    owner.kill("SIGKILL");
    const goneBy = Date.now() + 30_000;
    while ((groupAlive(leader) || (await answers(started.port))) && Date.now() < goneBy) await sleep(250);
    expect(await answers(started.port)).toBe(false);
    expect(groupAlive(leader)).toBe(false);
  }, 180_000);
});
