import { and, eq, exists, gte, lt, lte, or, sql, type SQL } from "drizzle-orm";
import { customerNotFound } from "../customers/not-found";
import { byId, customerChain, visibleByProvidedId, visibleCustomerId } from "../customers/repository";
import * as dashboards from "../dashboards/repository";
import {
  dashboardReads,
  loadedDashboard,
  newest,
  panelTables,
  renderForCustomer,
  renderLoaded,
  versionToRender,
  type DashboardReadRows,
  type RenderRequest,
  type RenderRun,
  type VersionPolicy,
} from "../dashboards/service";
import { QueryCacheReport } from "../query-cache/cache";
import type { Presentation } from "../dashboards/render";
import type { Database } from "../db/client";
import { jobs } from "../db/schema";
import { sqlSecondsAgo } from "../db/time";
import { config } from "../config";
import type { Env } from "../env";
import { ApiError } from "../http/errors";
import { HEX_TOKEN } from "../http/fields";
import { escapeHtml } from "../lib/html";
import { constantTimeEqual, randomAlphanumeric, randomHex, sha256Hex } from "../lib/crypto";
import { customerTokenFingerprint } from "../dashboards/embed-token";
import { errorDetail, log } from "../lib/log";
import { stage } from "../lib/stages";
import { sanitizeHtml } from "../lib/sanitize-html";
import * as webhooks from "../webhooks/repository";
import { checkCallbackUrl, deliverWebhook, webhookSecretMissing, type AlertWebhookMessage, type WebhookBody, type WebhookMessage } from "../webhooks/service";
import type { DeliveryEffects } from "./effects";
import { FAILURE_REASONS, JobFailure, now, transition, transitionWhere, type FailureReason, type JobRow } from "./job-state";
import * as repo from "./repository";
import type { JobExtras, JobRequest, ReportInput, ScreenshotInput } from "./schemas";
import { unsubscribeToken, unsubscribeUrl } from "../unsubscribe/tokens";
import type { Mail } from "./email";
import { dashboardWorkbook } from "./spreadsheet";
import { XLSX_CONTENT_TYPE } from "../lib/xlsx";

export const MAX_ATTEMPTS = 3;
const REPORT_VERSIONS: VersionPolicy = { tags: ["email", "production"], fallBackToNewest: true };
/** The report e-mail's image width in CSS pixels (its layout's max-width). */
const REPORT_WIDTH = 720;

export interface DeliveryScope {
  db: Database;
  env: Env;
  accessGroupId: number;
  /** Where links point, e.g. https://api.example.com */
  baseUrl: string;
  /**
   * Set where someone waits for the job (the API): runs its first attempt in the
   * background of this call (delivery/attempt.ts) instead of behind a queue hand-over.
   * Without it (scheduled runs) the job is queued, and the queue paces the work.
   */
  runFirstAttempt?: (first: FirstAttempt, page: JobPage) => void;
}

/** `name` made safe for Content-Disposition, with the extension added once. */
export function downloadFileName(name: string | undefined, exportType: "image" | "pdf" | "xlsx"): string {
  const extension = exportType === "image" ? "png" : exportType;
  const safe = (name ?? "dashboard_screenshot_download").replace(/[^A-Za-z0-9._ -]+/g, "_").replace(/^[.\s]+/, "").trim().slice(0, 200) || "dashboard_screenshot_download";
  return safe.toLowerCase().endsWith(`.${extension}`) ? safe : `${safe}.${extension}`;
}

/** What a new job needs checked before it may exist. */
interface NewJob {
  kind: "screenshot" | "report";
  providedId: string;
  embedId: string;
  callbackUrl: string | undefined;
  request: JobRequest;
}

/**
 * Checks and inserts a job in one batch (one D1 round trip): the customer is visible to the
 * token, the dashboard exists and has a version to render, and a callback_url has a
 * webhook secret to sign with. The insert's own condition repeats the checks, so a refused
 * request inserts nothing; the errors come in the contract's order (400 callback scheme,
 * 404 customer, 404 dashboard, 422 no version, 422 no secret). Both delivery policies fall
 * back to the newest version, so "a version to render" is "any version". The same batch
 * reads what the render needs (dashboards' `dashboardReads`). Answers what the job renders
 * and, when the scope runs the first attempt, that attempt: the job is then born claimed.
 */
async function insertCheckedJob(scope: DeliveryScope, id: string, job: NewJob, versions: VersionPolicy): Promise<InsertedJob> {
  if (job.callbackUrl !== undefined) checkCallbackUrl(scope.env, job.callbackUrl);
  const { db, accessGroupId } = scope;
  const renderable = and(
    exists(dashboards.anyVersion(db, job.embedId)),
    job.callbackUrl === undefined ? undefined : exists(webhooks.secretExists(db, accessGroupId)),
  )!;
  const render: RenderRequest = { embedId: job.embedId, customer: visibleByProvidedId(job.providedId, accessGroupId), versions, variables: job.request.variables };
  // A job someone waits for is born claimed by its first attempt, which this call runs.
  const born = scope.runFirstAttempt !== undefined;
  const [chain, choice, sources, secret, inserted, [row]] = await db.batch([
    ...dashboardReads(db, render),
    webhooks.secretExists(db, accessGroupId),
    repo.insertJobWhen(
      db,
      {
        id,
        kind: job.kind,
        status: born ? "rendering" : "queued",
        attempts: born ? 1 : 0,
        accessGroupId,
        dashboardEmbedId: job.embedId,
        request: JSON.stringify(job.request),
      },
      visibleCustomerId(db, job.providedId, accessGroupId),
      renderable,
    ),
    repo.jobById(db, id),
  ]);
  if (chain.length === 0) throw customerNotFound(job.providedId);
  versionToRender(choice, job.embedId, versions);
  if (job.callbackUrl !== undefined && secret.length === 0) throw webhookSecretMissing();
  if (inserted.length !== 1 || !row) throw new Error(`job ${id} passed its checks but was not inserted`);
  const page: JobPage = { customerId: chain[0].id, embedId: job.embedId, request: job.request };
  // The batch read what the render needs: the first attempt goes straight to the panels.
  return { id, page, customerTokenHash: chain[0].tokenHash, firstAttempt: born ? { job: row, dashboard: { render, rows: [chain, choice, sources] } } : undefined };
}

/** A job just inserted: what it renders, and its first attempt when this call runs it. */
interface InsertedJob {
  id: string;
  page: JobPage;
  /** The customer's token hash when the job was made: a share link lives only as long as that token. */
  customerTokenHash: string;
  firstAttempt?: FirstAttempt;
}

/** A job's first attempt, run by the call that created it: the job as born (claimed), its dashboard's rows already read. */
export interface FirstAttempt {
  job: JobRow;
  dashboard: DashboardRead;
}

/** What the render of a job reads, read already: the request and the rows of `dashboardReads`. */
interface DashboardRead {
  render: RenderRequest;
  rows: DashboardReadRows;
}

/**
 * Starts an inserted job, after `first` (e.g. storing the link its e-mail carries): its
 * first attempt at once where the scope runs it, with a held-back backstop message;
 * otherwise a queue message. If `first` fails, or the queue refuses a job nothing runs
 * yet, the job is failed at once — never left for the sweep to send later.
 */
async function startJob(scope: DeliveryScope, { id, page, firstAttempt }: InsertedJob, first?: () => Promise<void>): Promise<void> {
  try {
    await first?.();
    if (scope.runFirstAttempt && firstAttempt) {
      scope.runFirstAttempt(firstAttempt, page);
      await scope.env.DELIVERY_QUEUE.send({ jobId: id, after: 1, page, backstop: true } satisfies DeliveryMessage, { delaySeconds: BACKSTOP_DELAY_SECONDS }).catch((error) => {
        // The attempt runs; were it to die too, the stuck-job sweep queues the job again.
        log("warn", "backstop message not queued", { job_id: id, detail: errorDetail(error) });
      });
      return;
    }
    await scope.env.DELIVERY_QUEUE.send({ jobId: id, page } satisfies DeliveryMessage);
  } catch (error) {
    await transition(scope.db, id, ["queued", "rendering"], "failed", { error: FAILURE_REASONS.not_started });
    throw error;
  }
}

const newJobId = () => `job_${randomAlphanumeric(24)}`;

/**
 * Creates and starts a screenshot job (plain objects in and out: callable from any
 * module, e.g. scheduled reports).
 */
export async function requestScreenshot(scope: DeliveryScope, input: ScreenshotInput, extras: JobExtras = {}): Promise<{ job_id: string; url?: string }> {
  const fileName = downloadFileName(input.download_file_name, input.export_type);
  const request: JobRequest = {
    email: input.email ?? null,
    fileName,
    exportType: input.export_type,
    subject: input.subject ?? `Requested Data Export: ${fileName} (${input.export_type})`,
    variables: input.variables ?? {},
    width: input.width,
    linkUrl: null,
    versionTags: [],
    callbackUrl: input.callback_url ?? null,
    ...extras,
  };
  const jobId = newJobId();
  // Without e-mail, the answer is a download link (its token in KV, hashed).
  const token = input.email ? undefined : randomHex(32);
  const url = token && `${scope.baseUrl}/api/downloads/${token}`;
  // The webhook reports the link, so it is kept with the job only when a webhook asks for it.
  if (url && request.callbackUrl) request.downloadUrl = url;
  const job = { kind: "screenshot", providedId: input.provided_id, embedId: input.dashboard_embed_id, callbackUrl: input.callback_url, request } as const;
  const inserted = await insertCheckedJob(scope, jobId, job, newest);
  const ttl = config(scope.env).DOWNLOAD_TTL_SECONDS;
  // The link is stored while the job starts: nobody has it before this call answers.
  await Promise.all([
    startJob(scope, inserted),
    token && sha256Hex(token).then((hash) => scope.env.DOWNLOADS.put(`download:${hash}`, jobId, { expirationTtl: ttl })),
  ]);
  return { job_id: jobId, ...(url ? { url } : {}) };
}

export interface ShareLink {
  customerId: number;
  embedId: string;
  variables: Record<string, unknown>;
  /**
   * Fingerprint of the customer token the link was made under (as in signed embed tokens):
   * refresh_customer_token revokes the link. A link stored without one is not honoured.
   */
  ctv?: string;
}

/** Creates and starts a report job (plain objects in and out, like requestScreenshot). */
export async function requestReport(scope: DeliveryScope, input: ReportInput, extras: JobExtras = {}): Promise<{ job_id: string }> {
  // Without custom_url, the e-mail links to a share link (its token in KV, hashed).
  const shareToken = input.custom_url ? undefined : randomHex(32);
  const request: JobRequest = {
    email: input.email,
    fileName: `dashboard_report.${scope.env.REPORT_IMAGE_FORMAT === "jpeg" ? "jpg" : "png"}`,
    exportType: "image",
    subject: input.subject ?? "Dashboard Email Report",
    variables: input.variables ?? {},
    // Drawn for the width the e-mail shows it at, at twice the pixels: text stays legible.
    width: REPORT_WIDTH,
    scale: 2,
    linkUrl: input.custom_url ?? `${scope.baseUrl}/share/${shareToken}`,
    versionTags: REPORT_VERSIONS.tags,
    callbackUrl: input.callback_url ?? null,
    ...extras,
  };
  const jobId = newJobId();
  const job = { kind: "report", providedId: input.provided_id, embedId: input.dashboard_embed_id, callbackUrl: input.callback_url, request } as const;
  const inserted = await insertCheckedJob(scope, jobId, job, REPORT_VERSIONS);
  // The share link exists before the job may send the e-mail that carries it.
  const storeShare = async () => {
    if (!shareToken) return;
    const share: ShareLink = {
      customerId: inserted.page.customerId,
      embedId: job.embedId,
      variables: request.variables,
      ctv: await customerTokenFingerprint(inserted.customerTokenHash),
    };
    const ttl = config(scope.env).SHARE_TTL_SECONDS;
    await scope.env.DOWNLOADS.put(`share:${await sha256Hex(shareToken)}`, JSON.stringify(share), { expirationTtl: ttl });
  };
  await startJob(scope, inserted, storeShare);
  return { job_id: jobId };
}

export async function jobStatus(db: Database, accessGroupId: number, jobId: string) {
  const [job] = await repo.visibleJob(db, jobId, accessGroupId);
  if (!job) throw new ApiError("job_not_found", `Job '${jobId}' does not exist.`, "job_id");
  return {
    id: job.id,
    kind: job.kind,
    status: job.status,
    attempts: job.attempts,
    error: job.error,
    created_at: job.createdAt,
    updated_at: job.updatedAt,
  };
}

export type DownloadState =
  | { state: "pending"; status: string }
  | { state: "ready"; body: ReadableStream; fileName: string; contentType: string; queryCache?: string }
  | { state: "failed"; error: string };

/**
 * While a download request waits, it looks at the job (one indexed read) every 5 ms for the
 * first 250 ms (a warm capture ends within it, and each pause is latency), every 20 ms up to
 * 1 s, every 50 ms up to 5 s, then every 250 ms: forty downloads waiting on a burst of
 * captures look a few hundred times a second, not thousands, and leave the database to the
 * jobs.
 */
export function downloadPollPause(waitedMs: number): number {
  return waitedMs < 250 ? 5 : waitedMs < 1000 ? 20 : waitedMs < 5000 ? 50 : 250;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * What a download link gives now, or once its job ends within `waitSeconds`; unknown and
 * expired tokens are 404. A waiting request learns that the job ended by looking at it (one
 * indexed read, see downloadPollPause), wherever the job runs: it awaits only its own reads
 * and timers, never the attempt itself (Workers run no request's code on behalf of another).
 */
export async function download(db: Database, env: Env, token: string, waitSeconds = 0): Promise<DownloadState> {
  const jobId = HEX_TOKEN.test(token) ? await env.DOWNLOADS.get(`download:${await sha256Hex(token)}`) : null;
  if (!jobId) throw new ApiError("job_not_found", "This download link is unknown or has expired.");
  const started = Date.now();
  const until = started + waitSeconds * 1000;
  for (;;) {
    const [job] = await repo.jobById(db, jobId);
    if (!job) throw new ApiError("job_not_found", "This download link is unknown or has expired.");
    if (job.status === "failed") return { state: "failed", error: job.error ?? "rendering failed" };
    if (job.status === "done" && job.fileKey) {
      const request = JSON.parse(job.request) as JobRequest;
      const file = await env.FILES.get(job.fileKey);
      if (!file) throw new ApiError("job_not_found", "The file of this download is gone.");
      return { state: "ready", body: file.body, fileName: request.fileName, contentType: job.contentType ?? "application/octet-stream", queryCache: file.customMetadata?.[QUERY_CACHE_METADATA] };
    }
    const left = until - Date.now();
    if (left <= 0) return { state: "pending", status: job.status };
    await sleep(Math.min(downloadPollPause(Date.now() - started), left));
  }
}

/** The R2 custom metadata of a captured file: where its panels' results came from (`X-Query-Cache`). */
const QUERY_CACHE_METADATA = "query-cache";

/**
 * The dashboard behind a report's share link, rendered for that customer — while the customer
 * exists and still has the token the link was made under (deleted or refreshed: not found).
 */
export async function renderShare(db: Database, env: Env, token: string, presentation: Presentation, run: RenderRun = {}): Promise<string> {
  const value = HEX_TOKEN.test(token) ? await env.DOWNLOADS.get(`share:${await sha256Hex(token)}`) : null;
  if (!value) throw new ApiError("dashboard_not_found", "This share link is unknown or has expired.");
  const share = JSON.parse(value) as ShareLink;
  const made = share.ctv;
  const request = {
    embedId: share.embedId,
    customer: byId(share.customerId),
    versions: REPORT_VERSIONS,
    variables: share.variables,
    accept: async (customer: { tokenHash: string }) => made !== undefined && constantTimeEqual(made, await customerTokenFingerprint(customer.tokenHash)),
    ...run,
  };
  return renderForCustomer(db, env, request, presentation);
}

// ---- running a job (its first attempt in the API call, later ones from the queue) --------

/**
 * A job to run (`after`: attempts already used before this message; `page`: what the job
 * renders, so the render can start alongside the claim) or a webhook to send.
 */
export type DeliveryMessage = JobMessage | WebhookMessage | AlertWebhookMessage;

/**
 * A job to run. `backstop`: held back while the API call that created the job runs its
 * first attempt; it runs the job only if that attempt died (see `backstopClaimable`).
 */
export interface JobMessage {
  jobId: string;
  after?: number;
  page?: JobPage;
  backstop?: boolean;
}

/** What a job renders: who sees which dashboard, how. */
export interface JobPage {
  customerId: number;
  embedId: string;
  request: JobRequest;
}

/** How long a job may sit in `rendering` or `sending` before the sweep takes it over. */
export const STUCK_AFTER_SECONDS = 300;

/**
 * A first attempt in the API call's background lives at most this long (Workers end
 * `waitUntil` work 30 s after the response); a job it left in `rendering` longer is dead.
 */
export const FIRST_ATTEMPT_LIFETIME_SECONDS = 30;
/** The backstop arrives once the first attempt has ended, one way or the other. */
export const BACKSTOP_DELAY_SECONDS = FIRST_ATTEMPT_LIFETIME_SECONDS + 5;
/**
 * An attempt's capture answers within this many seconds of the attempt's start, its turn at
 * the capture station included, or fails the attempt: even a first attempt then has time
 * left to record its failure and queue the retry itself, instead of being cut off with the
 * API call's background work and left to the backstop.
 */
export const CAPTURE_DEADLINE_SECONDS = FIRST_ATTEMPT_LIFETIME_SECONDS - 6;

/**
 * What a backstop may claim: a first attempt that died (`rendering` with one attempt,
 * untouched past the first attempt's lifetime). Anything else has another owner — a
 * `queued` job waits for its retry message, whose loss the stuck-job sweep covers — or
 * has ended.
 */
function backstopClaimable(): SQL {
  return and(eq(jobs.status, "rendering"), lte(jobs.attempts, 1), lt(jobs.updatedAt, sqlSecondsAgo(FIRST_ATTEMPT_LIFETIME_SECONDS)))!;
}

/**
 * An error from rendering that says the customer or dashboard is gone (or never had a
 * version): a job fails at once with its reason, a share link shows "not available".
 */
const permanentRenderErrors: Partial<Record<string, FailureReason>> = {
  customer_not_found: "customer_deleted",
  dashboard_not_found: "dashboard_deleted",
  dashboard_version_not_found: "no_dashboard_version",
  no_dashboard_version: "no_dashboard_version",
};

export function isGoneError(error: unknown): error is ApiError {
  return error instanceof ApiError && permanentRenderErrors[error.code] !== undefined;
}

/**
 * Runs one attempt of a job. Returns the job when this attempt finished it (done), or
 * nothing when there was nothing to do (already finished, or another delivery holds it);
 * throws when the attempt failed (see `recordFailure`).
 *
 * D1 round trips: start, render, finish — plus, for an e-mail, the mail's lookups and the
 * claim; a first attempt has neither the start (its job was born claimed) nor the render's
 * loading trip. Every status change is one guarded transition (src/delivery/job-state.ts).
 */
export async function runJob(
  db: Database,
  env: Env,
  effects: DeliveryEffects,
  { jobId, page, backstop }: JobMessage,
  attempt: number,
  firstAttempt?: FirstAttempt,
): Promise<JobRow | undefined> {
  const captureBy = Date.now() + CAPTURE_DEADLINE_SECONDS * 1000;
  // Known from the message, the page renders while the claim runs: one D1 round trip
  // fewer before the capture. Its outcome is used only if this attempt gets the job. A
  // backstop mostly finds the job ended, so it renders only once it has the job. A first
  // attempt has its job claimed at birth and its dashboard read: it starts at the panels.
  const earlyReport = new QueryCacheReport();
  // A spreadsheet is not a page: nothing to render early.
  const earlyHtml = page && !backstop && page.request.exportType !== "xlsx" ? renderJobPage(db, env, page, earlyReport, firstAttempt?.dashboard) : undefined;
  earlyHtml?.catch(() => undefined);
  const early = earlyHtml && { html: earlyHtml, cacheReport: earlyReport };
  const [job] = firstAttempt
    ? [firstAttempt.job]
    : await transition(db, jobId, ["queued", "rendering"], "rendering", {
        set: { attempts: sql`max(${jobs.attempts}, ${attempt})` },
        error: null,
        where: backstop ? backstopClaimable() : undefined,
      });
  if (!firstAttempt) stage("job_update");
  if (!job) return undefined; // finished, being sent by another delivery, or gone
  if (job.customerId === null) throw new JobFailure("customer_deleted", true);
  const request = JSON.parse(job.request) as JobRequest;

  // A retry after a failed send finds the file stored by the earlier attempt.
  let file: { bytes: Uint8Array<ArrayBuffer>; contentType: string; key: string };
  if (job.fileKey) {
    const object = await env.FILES.get(job.fileKey);
    if (!object) throw new JobFailure("render_failed", false, "stored file missing");
    file = { bytes: new Uint8Array(await object.arrayBuffer()), contentType: job.contentType ?? "image/png", key: job.fileKey };
  } else {
    const cacheReport = early?.cacheReport ?? new QueryCacheReport();
    const jobPage = { customerId: job.customerId, embedId: job.dashboardEmbedId, request };
    let captured: { bytes: Uint8Array<ArrayBuffer>; contentType: string };
    if (request.exportType === "xlsx") {
      captured = { bytes: await jobWorkbook(db, env, jobPage, cacheReport), contentType: XLSX_CONTENT_TYPE };
      stage("render");
    } else {
      const html = await (early?.html ?? renderJobPage(db, env, jobPage, cacheReport));
      stage("render");
      const format = request.exportType === "pdf" ? "pdf" : job.kind === "report" && env.REPORT_IMAGE_FORMAT === "jpeg" ? "jpeg" : "png";
      captured = await effects.capture(html, { width: request.width, scale: request.scale ?? 1, format, deadline: captureBy }, job.id);
    }
    const key = `jobs/${job.id}/${request.fileName}`;
    // Where the captured panels' results came from, for the download's X-Query-Cache.
    await env.FILES.put(key, captured.bytes, { httpMetadata: { contentType: captured.contentType }, customMetadata: { [QUERY_CACHE_METADATA]: cacheReport.status } });
    stage("r2");
    file = { ...captured, key };
  }
  const fileColumns = { fileKey: file.key, contentType: file.contentType };

  if (!request.email) {
    const [done] = await transition(db, job.id, ["rendering"], "done", { set: fileColumns });
    stage("job_update");
    return done;
  }

  const mail = await withUnsubscribe(env, request, job.kind === "report" ? await reportMail(db, job, request, file) : screenshotMail(request, file));
  // The claim: of all deliveries of this job, exactly one moves it to `sending`.
  const [claimed] = await transition(db, job.id, ["rendering"], "sending", { set: { ...fileColumns, emailClaimedAt: now } });
  if (!claimed) return undefined;
  try {
    await effects.send(mail, job.id);
  } catch (error) {
    // The send is known to have failed: the only way back from `sending`.
    throw new JobFailure("send_failed", false, errorDetail(error));
  }
  // The e-mail left. Whatever happens now, this job never sends again: if the outcome
  // cannot be recorded, the job stays `sending` until the sweep marks it outcome unknown.
  for (let tries = 1; tries <= 2; tries++) {
    try {
      await effects.afterSend(job.id);
      const [sent] = await transition(db, job.id, ["sending"], "done", { set: { sentAt: now }, error: null });
      return sent;
    } catch (error) {
      log("error", "e-mail sent but not recorded", { job_id: job.id, try: tries, detail: errorDetail(error) });
    }
  }
  return undefined;
}

/**
 * The dashboard as the job asked for it, from rows `read` already when given; a customer or
 * dashboard gone meanwhile is final.
 */
async function renderJobPage(db: Database, env: Env, { customerId, embedId, request }: JobPage, cacheReport: QueryCacheReport, read?: DashboardRead): Promise<string> {
  const presentation = { width: request.width }; // charts drawn for the capture's width
  try {
    if (read) return await renderLoaded(env, await loadedDashboard(read.render, read.rows), presentation, { cacheReport });
    return await renderForCustomer(db, env, {
      embedId,
      customer: byId(customerId),
      versions: { tags: request.versionTags, fallBackToNewest: true },
      variables: request.variables,
      cacheReport,
    }, presentation);
  } catch (error) {
    if (isGoneError(error)) throw new JobFailure(permanentRenderErrors[error.code]!, true, error.message);
    throw error;
  }
}

/** The dashboard as a spreadsheet for the job's customer: a sheet per data panel (delivery/spreadsheet.ts). */
async function jobWorkbook(db: Database, env: Env, { customerId, embedId, request }: JobPage, cacheReport: QueryCacheReport): Promise<Uint8Array<ArrayBuffer>> {
  try {
    const tables = await panelTables(db, env, {
      embedId,
      customer: byId(customerId),
      versions: { tags: request.versionTags, fallBackToNewest: true },
      variables: request.variables,
      cacheReport,
    });
    return await dashboardWorkbook(tables);
  } catch (error) {
    if (isGoneError(error)) throw new JobFailure(permanentRenderErrors[error.code]!, true, error.message);
    throw error;
  }
}

type StoredFile = { bytes: Uint8Array; contentType: string };

/** An alert's reason goes first, in the text and at the top of the HTML. */
const headlineText = (request: JobRequest) => (request.headline ? `${request.headline}\n\n` : "");
const headlineHtml = (request: JobRequest) =>
  request.headline ? `<p class="alert-headline" style="font-size:18px;font-weight:bold;margin:0 0 16px">${escapeHtml(request.headline)}</p>\n` : "";

function screenshotMail(request: JobRequest, file: StoredFile): Mail {
  return {
    to: request.email as string,
    subject: request.subject,
    text: `${headlineText(request)}${request.unsubscribe ? "The dashboard export is attached" : "The dashboard export you requested is attached"} (${request.fileName}).`,
    attachments: [{ filename: request.fileName, contentType: file.contentType, bytes: file.bytes }],
  };
}

async function reportMail(db: Database, job: JobRow, request: JobRequest, file: StoredFile): Promise<Mail> {
  const customerId = job.customerId ?? 0;
  const [[endUser], [customer]] = await db.batch([repo.endUserByEmail(db, customerId, request.email as string), repo.customerName(db, customerId)]);
  const attributes = endUser ? (JSON.parse(endUser.attributes) as Record<string, unknown>) : {};
  const header = typeof attributes.header === "string" ? sanitizeHtml(attributes.header) : "";
  const footer = typeof attributes.footer === "string" ? sanitizeHtml(attributes.footer) : "";
  const link = escapeHtml(request.linkUrl ?? "");
  const name = escapeHtml(customer?.name ?? "");
  const html = `<!doctype html><html><body style="margin:0;padding:24px;background:#f4f6fb;font-family:Arial,Helvetica,sans-serif;color:#0f172a">
<div style="max-width:760px;margin:0 auto">
${headlineHtml(request)}${header ? `<div class="report-header">${header}</div>` : ""}
<a href="${link}" style="display:block;text-decoration:none"><img src="cid:dashboard" alt="Dashboard report for ${name}" width="${REPORT_WIDTH}" style="display:block;width:100%;max-width:${REPORT_WIDTH}px;height:auto;border:1px solid #e5e9f2;border-radius:8px"></a>
<p style="font-size:14px;margin:16px 0"><a href="${link}" style="color:#4338ca;font-weight:bold">Open the live dashboard</a></p>
${footer ? `<div class="report-footer">${footer}</div>` : ""}
</div></body></html>`;
  const extension = file.contentType === "image/jpeg" ? "jpg" : "png";
  return {
    to: request.email as string,
    subject: request.subject,
    text: `${headlineText(request)}Your dashboard report for ${customer?.name ?? "your account"}.\n\nOpen the live dashboard: ${request.linkUrl}\n`,
    html,
    attachments: [{ filename: `dashboard.${extension}`, contentType: file.contentType, bytes: file.bytes, contentId: "dashboard" }],
  };
}

/**
 * An e-mail of a schedule or alert carries its recipient's unsubscribe link: the two header
 * fields of RFC 8058 (a mail client's one-click button POSTs to it) and a footer link.
 */
async function withUnsubscribe(env: Env, request: JobRequest, mail: Mail): Promise<Mail> {
  if (!request.unsubscribe) return mail;
  const url = unsubscribeUrl(request.unsubscribe.base, await unsubscribeToken(env, request.unsubscribe.scheduleId, mail.to));
  const footer = `<p class="unsubscribe" style="font-size:12px;color:#64748b;margin:24px 0 0">You receive this e-mail because of a scheduled delivery. <a href="${escapeHtml(url)}" style="color:#64748b">Unsubscribe</a></p>`;
  return {
    ...mail,
    headers: { ...mail.headers, "List-Unsubscribe": `<${url}>`, "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" },
    text: `${mail.text.trimEnd()}\n\n--\nUnsubscribe: ${url}\n`,
    html: mail.html
      ? mail.html.replace(/<\/div><\/body><\/html>$/, `${footer}\n</div></body></html>`)
      : `<!doctype html><html><body style="font-family:Arial,Helvetica,sans-serif;color:#0f172a"><p>${escapeHtml(mail.text)}</p>${footer}</body></html>`,
  };
}

/** The pause before a failed attempt's record is written again. */
const RECORD_AGAIN_AFTER_MS = 250;

export type FailureOutcome = { outcome: "retry" | "failed"; job: JobRow } | { outcome: "moved_on" };

/**
 * Records a failed attempt: back to `queued` while attempts remain and the failure may
 * pass, else `failed` for good. The client sees the short reason; the detail is logged.
 * A failed send leaves `sending`; any other failure leaves `rendering` — if the job is no
 * longer there (another delivery moved it on), nothing changes.
 */
export async function recordFailure(db: Database, jobId: string, attempt: number, error: unknown): Promise<FailureOutcome> {
  const failure = error instanceof JobFailure ? error : new JobFailure("render_failed", false, errorDetail(error));
  const final = failure.final || attempt >= MAX_ATTEMPTS;
  log("warn", "delivery attempt failed", { job_id: jobId, attempt, reason: failure.reason, final, detail: failure.message });
  const from = failure.reason === "send_failed" ? (["sending"] as const) : (["rendering"] as const);
  const record = () => transition(db, jobId, from, final ? "failed" : "queued", { error: FAILURE_REASONS[failure.reason] });
  // A failure seen is recorded now, not left to the sweep: a write that fails is tried once more.
  const [job] = await record().catch(async (error) => {
    log("warn", "failed attempt not recorded; trying once more", { job_id: jobId, attempt, detail: errorDetail(error) });
    await sleep(RECORD_AGAIN_AFTER_MS);
    return record();
  });
  if (!job) return { outcome: "moved_on" };
  return { outcome: final ? "failed" : "retry", job };
}

/**
 * Finds jobs stuck beyond the bound (a consumer that died mid-attempt, a lost message):
 * `sending` ones end `failed` with "delivery outcome unknown" (the e-mail may have left:
 * never resent); `rendering` ones go back to the queue, or fail when their attempts are
 * used up; `queued` ones are enqueued again. Returns the jobs it ended and re-enqueued.
 */
export async function sweepStuckJobs(db: Database, env: Env, olderThanSeconds = STUCK_AFTER_SECONDS): Promise<{ ended: JobRow[]; requeued: JobRow[] }> {
  const stale = lt(jobs.updatedAt, sqlSecondsAgo(olderThanSeconds));
  const [unknown, exhausted, stuck, lost] = await db.batch([
    transitionWhere(db, stale, ["sending"], "failed", { error: FAILURE_REASONS.outcome_unknown }),
    transitionWhere(db, stale, ["rendering"], "failed", { where: gte(jobs.attempts, MAX_ATTEMPTS), error: FAILURE_REASONS.render_failed }),
    transitionWhere(db, stale, ["rendering"], "queued", { where: lt(jobs.attempts, MAX_ATTEMPTS), error: null }),
    transitionWhere(db, stale, ["queued"], "queued"),
  ]);
  for (const job of unknown) log("error", "delivery outcome unknown: job stuck while sending", { job_id: job.id, since: job.updatedAt });
  const requeued = [...stuck, ...lost];
  for (const job of requeued) {
    log("warn", "stuck job queued again", { job_id: job.id, attempts: job.attempts });
    await env.DELIVERY_QUEUE.send({ jobId: job.id, after: job.attempts } satisfies DeliveryMessage);
  }
  return { ended: [...unknown, ...exhausted], requeued };
}

/** Enqueues the completion webhook of a job that just ended, if it asked for one; never throws. */
export async function announceEnd(env: Env, job: JobRow): Promise<void> {
  const request = JSON.parse(job.request) as JobRequest;
  if (!request.callbackUrl) return;
  try {
    await env.DELIVERY_QUEUE.send({ webhook: job.id, attempt: 1 } satisfies DeliveryMessage);
  } catch (error) {
    log("error", "webhook could not be queued", { job_id: job.id, detail: errorDetail(error) });
  }
}

/** One attempt of a job's webhook: `{job_id, status, error, url?}` to its callback URL. */
export async function sendJobWebhook(db: Database, message: WebhookMessage): Promise<"delivered" | "retry" | "gave_up"> {
  const [job] = await repo.jobById(db, message.webhook);
  if (!job || (job.status !== "done" && job.status !== "failed")) return "gave_up";
  const request = JSON.parse(job.request) as JobRequest;
  if (!request.callbackUrl) return "gave_up";
  const body: WebhookBody = { job_id: job.id, status: job.status, error: job.error, ...(job.status === "done" && request.downloadUrl ? { url: request.downloadUrl } : {}) };
  return deliverWebhook(db, { url: request.callbackUrl, accessGroupId: job.accessGroupId, body }, message.attempt);
}
