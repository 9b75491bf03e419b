import { env } from "cloudflare:test";
import { admin, call, createCustomer, sha256, unique, workspace } from "../helpers/api";
import { dashboard, kpi, seedOrders, sources } from "../dashboards/helpers";

export const bindings = env as unknown as { DB: D1Database; DOWNLOADS: KVNamespace; FILES: R2Bucket };

/** A workspace with a customer mapped to the demo data and a dashboard with a chart. */
export async function deliverySetup() {
  await seedOrders();
  const { write, read } = await workspace();
  const { schema, demo } = await sources();
  const customer = await createCustomer(write, { provided_id: unique("alpha-d"), name: "Alpha GmbH", mapping: { [schema]: demo } });
  const q = "SELECT month, SUM(amount) AS revenue FROM orders GROUP BY month ORDER BY month";
  const embedId = await dashboard({
    title: "Delivery test",
    panels: [
      kpi("total", schema, "SELECT SUM(amount) AS value FROM orders"),
      { id: "chart", type: "bar", title: "By month", schema_id: schema, sql: q, x_column: "month", y_columns: ["revenue"], layout: { x: 3, y: 0, w: 9, h: 4 } },
    ],
  }, ["production"]);
  return { write, read, customer, embedId, schema, demo };
}

export async function waitForJob(token: string, jobId: string, until: (status: string) => boolean, timeoutMs = 60_000) {
  const started = Date.now();
  for (;;) {
    const res = await call("POST", "/api/dashboard/job_status/", { token, body: { job_id: jobId } });
    if (res.status !== 200) throw new Error(JSON.stringify(res.body));
    if (until(res.body.job.status)) return res.body.job;
    if (Date.now() - started > timeoutMs) throw new Error(`job ${jobId} still ${res.body.job.status}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

export async function fetchDownload(url: string) {
  const { exports } = await import("cloudflare:workers");
  const response = await (exports as any).default.fetch(new Request(url));
  return { status: response.status, headers: response.headers, bytes: new Uint8Array(await response.arrayBuffer()) };
}

export function pngWidth(bytes: Uint8Array): number {
  return new DataView(bytes.buffer, bytes.byteOffset).getUint32(16);
}

export const isPng = (b: Uint8Array) => [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a].every((v, i) => b[i] === v);
export const isPdf = (b: Uint8Array) => new TextDecoder().decode(b.slice(0, 5)) === "%PDF-";

/** Every e-mail sent for a job (kept in R2 under outbox/ in development). */
export async function sentMails(jobId: string): Promise<string[]> {
  const listed = await bindings.FILES.list({ prefix: "outbox/", include: ["customMetadata"] });
  const mine = listed.objects.filter((o) => o.customMetadata?.job_id === jobId);
  return Promise.all(mine.map(async (o) => (await bindings.FILES.get(o.key))!.text()));
}

export async function jobCount(): Promise<number> {
  return (await bindings.DB.prepare("SELECT count(*) AS n FROM jobs").first<{ n: number }>())!.n;
}

export { admin, call, createCustomer, dashboard, kpi, sha256, unique, workspace };
