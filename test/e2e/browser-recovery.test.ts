// The browser dies under load: the real `npm start`, the real Chromium processes of its local
// Browser Rendering killed by pid while a dozen screenshots and reports run. Every job ends
// (done, or failed with its reason) within 60 s, no report is mailed twice, and a job
// requested after the kill is delivered by a new browser. Three times in a row, one server.
import { readdirSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, startLocalServer, type LocalServer } from "../../scripts/lib/local-server.mjs";

const port = await freePort();
let server: LocalServer;
const measured: { round: number; lastEndMs: number; firstCaptureMs: number }[] = [];

interface Proc {
  pid: number;
  ppid: number;
  args: string[];
}

function processes(): Proc[] {
  const found: Proc[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      // Fields after the command (which may hold spaces) in parentheses: state, ppid, …
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const args = readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0").filter(Boolean);
      found.push({ pid: Number(name), ppid, args });
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/**
 * The Chromium processes this server runs: below `root` (npm start → wrangler), each browser
 * that wrangler's local Browser Rendering launched (its profile lives in a `browser-rendering`
 * folder) and everything below it (zygotes, renderers, GPU and network processes).
 */
function chromiumBelow(root: number): Proc[] {
  const all = processes();
  const children = new Map<number, Proc[]>();
  for (const p of all) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p]);
  const found: Proc[] = [];
  const walk = (pid: number, inBrowser: boolean) => {
    for (const child of children.get(pid) ?? []) {
      const browser = inBrowser || child.args.some((a) => a.startsWith("--user-data-dir=") && a.includes("browser-rendering"));
      if (browser) found.push(child);
      walk(child.pid, browser);
    }
  };
  walk(root, false);
  return found;
}

function alive(pid: number): boolean {
  try {
    // A killed process not yet reaped by its parent is a zombie: dead.
    return !/^\S+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

async function api(path: string, body: unknown): Promise<any> {
  const response = await fetch(`${server.base}${path}`, {
    method: "POST",
    headers: { "Service-Authorization": `Token ${server.vars.DEV_API_TOKEN}`, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  const json = (await response.json()) as any;
  if (response.status !== 200) throw new Error(`${path}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

/** How many e-mails the local outbox holds for each job (every page of it). */
async function mailsPerJob(): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  let page: string | undefined = "/_dev/outbox";
  while (page) {
    const html = await (await fetch(`${server.base}${page}`)).text();
    for (const [, jobId] of html.matchAll(/\/_dev\/outbox\/\d+-(job_[a-z0-9]+)\.eml/g)) counts.set(jobId, (counts.get(jobId) ?? 0) + 1);
    const older = html.match(/href="(\/_dev\/outbox\?cursor=[^"]+)"/);
    page = older ? older[1].replace(/&amp;/g, "&") : undefined;
  }
  return counts;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

beforeAll(async () => {
  // Rounds of 15 deliveries, and a look at each job twice a second: far above the per-token limits.
  server = await startLocalServer({ port, args: ["--var", "DELIVERY_LIMIT_PER_MINUTE:1000", "--var", "RATE_LIMIT_PER_MINUTE:100000"] });
  // A browser is running before the first round: a warm capture.
  const warm = await api("/api/dashboard/screenshot", { provided_id: "acme-berlin", dashboard_embed_id: "sales-overview" });
  expect((await fetch(`${warm.url}?wait=30`)).status).toBe(200);
}, 180_000);

afterAll(async () => {
  if (measured.length > 0) {
    console.log(
      `browser killed, ${measured.length} rounds: ${JSON.stringify(measured)}; median kill → last job ended ${median(measured.map((m) => m.lastEndMs))} ms, ` +
        `kill → first successful capture ${median(measured.map((m) => m.firstCaptureMs))} ms`,
    );
  }
  // Stopping npm start leaves the browsers wrangler launched running (their own process
  // group): the ones this server has now go with it.
  if (server) for (const browser of chromiumBelow(server.pid)) process.kill(browser.pid, "SIGKILL");
  await server?.stop();
});

/**
 * Starts 14 deliveries, sends `signal` to every Chromium process of the server while they run,
 * requests one more screenshot, and checks how every job ended. Answers the times from the
 * signal to the last job's end and to the first capture that came back after it.
 */
async function deliveriesWhenTheBrowser(signal: "SIGKILL" | "SIGSTOP", round: number) {
  // 9 screenshots (wide PNGs and PDFs: captures that take a while) and 5 reports.
  const requests = Array.from({ length: 14 }, (_, i) =>
    i % 3 === 0
      ? api("/api/dashboard/report", {
          provided_id: "acme-berlin",
          dashboard_embed_id: "monthly-report",
          email: `round${round}-${i}@recovery.example`,
        })
      : api("/api/dashboard/screenshot", {
          provided_id: i % 2 ? "acme-paris" : "globex",
          dashboard_embed_id: "sales-overview",
          ...(i % 4 === 1 ? { export_type: "pdf" } : { width: 2400 }),
        }),
  );
  const jobs: { job_id: string }[] = await Promise.all(requests);
  const reports = new Set(jobs.filter((_, i) => i % 3 === 0).map((j) => j.job_id));

  const victims = chromiumBelow(server.pid);
  expect(victims.length).toBeGreaterThan(0);
  const killedAt = Date.now();
  for (const victim of victims) process.kill(victim.pid, signal);
  try {
    // Killed processes go within moments (a loaded machine may take a while to reap them).
    for (let waited = 0; signal === "SIGKILL" && waited < 5_000 && victims.some((v) => alive(v.pid)); waited += 100) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    if (signal === "SIGKILL") expect(victims.filter((v) => alive(v.pid))).toEqual([]);

    // Requested after the kill: needs a browser that is not there any more.
    const after = await api("/api/dashboard/screenshot", { provided_id: "acme-berlin", dashboard_embed_id: "sales-overview" });
    const ids = [...jobs.map((j) => j.job_id), after.job_id];

    let statuses: any[] = [];
    while (Date.now() - killedAt < 90_000) {
      statuses = await Promise.all(ids.map(async (id) => (await api("/api/dashboard/job_status/", { job_id: id })).job));
      if (statuses.every((job) => job.status === "done" || job.status === "failed")) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const endedAt = (job: any) => Date.parse(job.updated_at) - killedAt;

    // The kill came while at least 10 of the jobs were still running.
    expect(statuses.slice(0, jobs.length).filter((job) => endedAt(job) > 0).length).toBeGreaterThanOrEqual(10);
    for (const job of statuses) {
      expect(["done", "failed"], JSON.stringify(job)).toContain(job.status);
      if (job.status === "failed") expect(job.error, JSON.stringify(job)).toMatch(/\w/);
      expect(endedAt(job), JSON.stringify(job)).toBeLessThanOrEqual(60_000);
    }
    expect(statuses.at(-1)).toMatchObject({ id: after.job_id, status: "done", error: null });
    const afterFile = await fetch(`${after.url}?wait=0`);
    expect(afterFile.status).toBe(200);
    const png = new Uint8Array(await afterFile.arrayBuffer());
    // A 1280 px wide page with the dashboard on it (a blank page would compress to a few KB).
    expect(new DataView(png.buffer).getUint32(16)).toBe(1280);
    expect(png.byteLength).toBeGreaterThan(30_000);

    // At most one e-mail per report; a report that ended done sent exactly one.
    const mails = await mailsPerJob();
    for (const job of statuses.filter((j) => reports.has(j.id))) {
      expect(mails.get(job.id) ?? 0, job.id).toBeLessThanOrEqual(1);
      if (job.status === "done") expect(mails.get(job.id), job.id).toBe(1);
    }

    // When the captures of the delivered jobs came back: their last attempt's stage clock, or,
    // where the isolate that ran it no longer has it, the moment the job was done (a bound).
    const captures: number[] = [];
    for (const job of statuses.filter((j) => j.status === "done")) {
      const timing = (await (
        await fetch(`${server.base}/_dev/delivery-stages/${job.id}`, { headers: { Authorization: `Bearer ${server.vars.ADMIN_TOKEN}` } })
      ).json()) as any;
      const back = timing.stage_ends?.browser_connect ?? Date.parse(job.updated_at);
      if (back > killedAt) captures.push(back - killedAt);
    }
    expect(captures.length).toBeGreaterThan(0);
    return { round, lastEndMs: Math.max(...statuses.map(endedAt)), firstCaptureMs: Math.min(...captures) };
  } finally {
    // A stopped browser is never woken: it goes now, as a killed one went at once.
    if (signal === "SIGSTOP") for (const victim of victims.filter((v) => alive(v.pid))) process.kill(victim.pid, "SIGKILL");
  }
}

describe("delivery when the browser dies (npm start, Chromium killed by pid)", () => {
  it.each([1, 2, 3])(
    "round %i: every job ends done or failed with a reason within 60 s, no report mailed twice, a job requested after the kill is delivered",
    async (round) => {
      measured.push(await deliveriesWhenTheBrowser("SIGKILL", round));
    },
    150_000,
  );

  it("a browser that stops answering (its processes stopped, the connection left open) holds no job past 60 s either", async () => {
    const stopped = await deliveriesWhenTheBrowser("SIGSTOP", 4);
    console.log(`browser stopped: ${JSON.stringify(stopped)}`);
  }, 150_000);
});
