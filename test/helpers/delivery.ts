import { env, runInDurableObject } from "cloudflare:test";
import { config } from "../../src/config";
import { type CaptureStation, captureStationName } from "../../src/delivery/run/capture-station";
import { admin, call, callWithEnv, createCustomer, sha256, unique, workspace } from "./api";
import { dashboard, kpi, seedOrders, sources } from "./dashboards";

export const bindings = env as unknown as { DB: D1Database; LINKS: KVNamespace; FILES: R2Bucket; BROWSER: Fetcher };

/** A workspace with a customer mapped to the demo data and a dashboard with a chart. */
export async function deliverySetup() {
  await seedOrders();
  const { group, write, read } = await workspace();
  const { schema, demo } = await sources();
  const customer = await createCustomer(write, { provided_id: unique("alpha-d"), name: "Alpha GmbH", mapping: { [schema]: demo } });
  const q = "SELECT month, SUM(amount) AS revenue FROM orders GROUP BY month ORDER BY month";
  const embedId = await dashboard(
    {
      title: "Delivery test",
      panels: [
        kpi("total", schema, "SELECT SUM(amount) AS value FROM orders"),
        {
          id: "chart",
          type: "bar",
          title: "By month",
          schema_id: schema,
          sql: q,
          x_column: "month",
          y_columns: ["revenue"],
          layout: { x: 3, y: 0, w: 9, h: 4 },
        },
      ],
    },
    ["production"],
  );
  return { group, write, read, customer, embedId, schema, demo };
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
  const mine: string[] = [];
  let cursor: string | undefined;
  do {
    const listed = await bindings.FILES.list({ prefix: "outbox/", include: ["customMetadata"], cursor });
    mine.push(...listed.objects.filter((o) => o.customMetadata?.job_id === jobId).map((o) => o.key));
    cursor = listed.truncated ? listed.cursor : undefined;
  } while (cursor);
  return Promise.all(mine.map(async (key) => (await bindings.FILES.get(key))!.text()));
}

export async function jobCount(): Promise<number> {
  return (await bindings.DB.prepare("SELECT count(*) AS n FROM jobs").first<{ n: number }>())!.n;
}

export { admin, call, callWithEnv, createCustomer, dashboard, kpi, sha256, unique, workspace };

/** A job row as the API creates it (its request's fields replaced by `requestOverrides`), but not enqueued: the test delivers it by hand. */
export async function unqueuedJob(
  providedId: string,
  embedId: string,
  email: string | null,
  status = "queued",
  requestOverrides: Record<string, unknown> = {},
): Promise<string> {
  const id = `job_${unique("manual").replace(/[^a-z0-9]/g, "")}`;
  const customer = await bindings.DB.prepare("SELECT id, access_group_id FROM customers WHERE provided_id = ?")
    .bind(providedId)
    .first<{ id: number; access_group_id: number }>();
  const request = {
    email,
    fileName: "manual.png",
    exportType: "image",
    subject: "Manual",
    variables: {},
    width: 640,
    linkUrl: null,
    versionTags: [],
    ...requestOverrides,
  };
  await bindings.DB.prepare(
    "INSERT INTO jobs (id, kind, status, customer_id, access_group_id, dashboard_embed_id, request) VALUES (?, 'screenshot', ?, ?, ?, ?, ?)",
  )
    .bind(id, status, customer!.id, customer!.access_group_id, embedId, JSON.stringify(request))
    .run();
  return id;
}

/**
 * Gives job `jobId` a download link, as the API does (the token's SHA-256 on the job's row,
 * answering for `ttlSeconds`; negative: expired that long ago). Answers the link's URL.
 */
export async function giveDownloadLink(jobId: string, ttlSeconds = 900, token = randomToken()): Promise<string> {
  await bindings.DB.prepare(
    "UPDATE jobs SET download_token_hash = ?, download_expires_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now', ?) WHERE id = ?",
  )
    .bind(await sha256(token), `${ttlSeconds >= 0 ? "+" : ""}${ttlSeconds} seconds`, jobId)
    .run();
  return `http://api.test/api/downloads/${token}`;
}

const randomToken = () => [...crypto.getRandomValues(new Uint8Array(32))].map((b) => b.toString(16).padStart(2, "0")).join("");

/** Hands the queue consumer a batch with `copies` deliveries of the job's message. */
export async function deliverByHand(jobId: string, attempts: number, copies = 1, body: Record<string, unknown> = { jobId }) {
  const { createExecutionContext, createMessageBatch, getQueueResult, waitOnExecutionContext } = await import("cloudflare:test");
  const { default: worker } = await import("../../src/index");
  const batch = createMessageBatch(
    "customer-dashboard-delivery",
    Array.from({ length: copies }, (_, i) => ({ id: `${jobId}-${attempts}-${i}-${Math.random()}`, timestamp: new Date(), attempts, body })),
  );
  const executionContext = createExecutionContext();
  await worker.queue(batch as MessageBatch<never>, bindings as never, executionContext);
  await waitOnExecutionContext(executionContext);
  return getQueueResult(batch, executionContext);
}

export async function jobRow(jobId: string) {
  return bindings.DB.prepare("SELECT status, attempts, error, customer_id, email_claimed_at, sent_at FROM jobs WHERE id = ?")
    .bind(jobId)
    .first<{
      status: string;
      attempts: number;
      error: string | null;
      customer_id: number | null;
      email_claimed_at: string | null;
      sent_at: string | null;
    }>();
}

/** Moves a job's last update into the past, as if its consumer had died that long ago. */
export async function age(jobId: string, seconds: number) {
  await bindings.DB.prepare("UPDATE jobs SET updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now', ?) WHERE id = ?")
    .bind(`-${seconds} seconds`, jobId)
    .run();
}

/**
 * Takes the tab of every capture station, as a long capture would: attempts started meanwhile
 * wait in the stations' lines (their jobs stay `rendering`) until the returned `release` hands
 * the tabs over. Lets a test act while an attempt is certainly still running.
 */
export async function holdCaptureStations(): Promise<{ release: () => Promise<void> }> {
  const namespace = (env as unknown as { CAPTURE_STATION: DurableObjectNamespace<CaptureStation> }).CAPTURE_STATION;
  const stations = Array.from({ length: config(env as never).CAPTURE_STATIONS }, (_, i) =>
    namespace.get(namespace.idFromName(captureStationName(i))),
  );
  const inside = (instance: unknown) => instance as { busy: boolean; handOver: () => void };
  for (const station of stations)
    await runInDurableObject(station, (instance) => {
      if (inside(instance).busy) throw new Error("a capture station is busy: the test cannot hold it");
      inside(instance).busy = true;
    });
  let released = false;
  return {
    release: async () => {
      if (released) return;
      released = true;
      for (const station of stations) await runInDurableObject(station, (instance) => inside(instance).handOver());
    },
  };
}
