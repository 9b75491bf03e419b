// Report schedules run by themselves under the real `npm start`: no manual step, no test
// hook — the every-minute trigger of scripts/start.mjs fires the Worker's `scheduled` handler.
import { afterAll, describe, expect, it } from "vitest";
import { freePort, startLocalServer, type LocalServer } from "../../scripts/lib/local-server.mjs";

const port = await freePort();
let server: LocalServer | undefined;

afterAll(async () => {
  await server?.stop();
});

describe("scheduled reports under npm start", () => {
  it("sends a schedule's e-mail at its slot, with the trigger of npm start alone", async () => {
    server = await startLocalServer({ port });
    const headers = { "Service-Authorization": `Token ${server.vars.DEV_API_TOKEN}`, "Content-Type": "application/json" };
    const api = async (path: string, body: unknown) =>
      (await (await fetch(`${server!.base}${path}`, { method: "POST", headers, body: JSON.stringify(body) })).json()) as any;

    // The next minute at least 15 s away, by the real clock.
    const slot = new Date(Math.ceil((Date.now() + 15_000) / 60_000) * 60_000);
    const created = await api("/api/create_report_schedule/", {
      dashboard_embed_id: "sales-overview",
      provided_id: "globex",
      cron: `${slot.getUTCMinutes()} ${slot.getUTCHours()} * * *`,
      subject: "Scheduled by npm start",
    });
    expect(created.success, JSON.stringify(created)).toBe(1);
    expect(created.schedule.next_run_at).toBe(slot.toISOString().replace(".000Z", "Z"));

    let run: any;
    while (Date.now() < slot.getTime() + 120_000) {
      run = (await api("/api/get_report_schedule/", { id: created.schedule.id })).runs[0];
      if (run && run.status !== "running") break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(run).toMatchObject({ slot: created.schedule.next_run_at, trigger: "schedule", status: "done", skipped: 0 });
    expect(run.job_ids).toHaveLength(1); // globex's one address
    const outbox = await (await fetch(`${server.base}/_dev/outbox`)).text();
    expect(outbox).toContain("it@globex.example");
    expect(outbox).toContain("Scheduled by npm start");
  });
});
