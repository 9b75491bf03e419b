// `npm start` as a vendor meets it on the first day (docs/getting-started.md): its banner is
// the last thing it prints, with no wrangler noise above it; `npm run admin` follows the
// server on its port with no --url; and stopped with SIGTERM or SIGINT to its process group,
// every process it started ends within 5 s — the Chromium of Browser Rendering included
// (checked by pid, from /proc).
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { freePort, startLocalServer } from "../../scripts/lib/local-server.mjs";

const root = join(import.meta.dirname, "..", "..");

/** Every process below `pid` now (children, their children …), from /proc, with its command line. */
function descendants(pid: number): { pid: number; command: string }[] {
  const parents = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      parents.set(ppid, [...(parents.get(ppid) ?? []), Number(entry)]);
    } catch {}
  }
  const found: { pid: number; command: string }[] = [];
  const walk = (at: number) => {
    for (const child of parents.get(at) ?? []) {
      let command = "";
      try {
        command = readFileSync(`/proc/${child}/cmdline`, "utf8").replace(/\0/g, " ");
      } catch {}
      found.push({ pid: child, command });
      walk(child);
    }
  };
  walk(pid);
  return found;
}

/** Running: in /proc and not a zombie waiting to be reaped. */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

async function api(server: { base: string; vars: Record<string, string> }, path: string, body: unknown): Promise<any> {
  const res = await fetch(`${server.base}${path}`, {
    method: "POST",
    headers: { "Service-Authorization": `Token ${server.vars.DEV_API_TOKEN}`, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  return res.json();
}

/** A capture, so that Browser Rendering has started its Chromium. */
async function capture(server: { base: string; vars: Record<string, string> }): Promise<void> {
  const job = await api(server, "/api/dashboard/screenshot", { provided_id: "acme", dashboard_embed_id: "sales-overview", width: 640 });
  expect(job.success, JSON.stringify(job)).toBe(1);
  for (const deadline = Date.now() + 90_000; Date.now() < deadline; ) {
    const status = (await api(server, "/api/dashboard/job_status/", { job_id: job.job_id })).job?.status;
    if (status === "done") return;
    expect(status).not.toBe("failed");
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error("the capture did not end");
}

function admin(args: string[], env: Record<string, string>) {
  const clean = { ...process.env };
  for (const name of ["ADMIN_URL", "CUSTOMER_API_URL", "PORT", "STATE_DIR", "ADMIN_TOKEN"]) delete clean[name];
  return spawnSync(process.execPath, [join(root, "scripts", "admin.mjs"), ...args], {
    cwd: root,
    encoding: "utf8",
    env: { ...clean, ...env },
  });
}

describe("npm start on the first day", () => {
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    it(`ends every process it started, Chromium included, within 5 s of ${signal} to its process group`, async () => {
      let output = "";
      const server = await startLocalServer({ port: await freePort(), onOutput: (text) => (output += text) });
      try {
        if (signal === "SIGTERM") {
          // The banner is the last output, one origin spelling, none of wrangler's noise above it.
          await new Promise((resolve) => setTimeout(resolve, 2000));
          const lines = output.trimEnd().split("\n");
          expect(lines.at(-1)).toMatch(/^─+$/);
          const banner = output.slice(output.lastIndexOf("Customer API running at"));
          expect(banner).toContain(`Customer API running at ${server.base.replace("127.0.0.1", "localhost")}`);
          expect(banner).toContain("/embed/sales-overview?token=");
          expect(banner).not.toContain("127.0.0.1");
          for (const noise of ["ENOTFOUND", "Your Worker has access to the following bindings", "env.DB (", "Request.cf"])
            expect(output, noise).not.toContain(noise);
          expect(output.split("\n").length).toBeLessThan(60);

          // `npm run admin` with no --url: the server this checkout started, found next to its state …
          const listed = admin(["dashboards", "list", "--json"], { STATE_DIR: server.stateDir });
          expect(listed.status, listed.stderr).toBe(0);
          expect(JSON.parse(listed.stdout).dashboards.map((d: { embed_id: string }) => d.embed_id)).toContain("sales-overview");
          // … or on PORT (no server.json where it looks).
          const elsewhere = mkdtempSync(join(tmpdir(), "no-server-"));
          const byPort = admin(["dashboards", "list", "--json"], { STATE_DIR: elsewhere, PORT: new URL(server.base).port });
          rmSync(elsewhere, { recursive: true, force: true });
          expect(byPort.status, byPort.stderr).toBe(0);
          expect(JSON.parse(byPort.stdout).success).toBe(1);
        }

        await capture(server);
        const started = descendants(server.pid);
        const chromium = started.filter((p) => /chrom/i.test(p.command));
        expect(chromium.length, started.map((p) => p.command.slice(0, 80)).join("\n")).toBeGreaterThan(0);
        const pids = [server.pid, ...started.map((p) => p.pid)];

        const stoppedAt = Date.now();
        process.kill(-server.pid, signal);
        while (Date.now() - stoppedAt < 5000 && pids.some(alive)) await new Promise((resolve) => setTimeout(resolve, 100));
        const left = started.filter((p) => alive(p.pid));
        expect(
          left.map((p) => `${p.pid} ${p.command.slice(0, 120)}`),
          "still running 5 s after the signal",
        ).toEqual([]);
        expect(alive(server.pid)).toBe(false);
        // It took its server.json with it.
        expect(existsSync(join(server.stateDir, "server.json"))).toBe(false);
      } finally {
        await server.stop();
      }
    }, 240_000);
  }
});
