import { sql } from "drizzle-orm";
import { customerChain, visibleByProvidedId } from "../customers/repository";
import * as dashboards from "../dashboards/repository";
import { newest, renderForCustomer, type VersionPolicy } from "../dashboards/service";
import type { Database } from "../db/client";
import { numberVar, type Env } from "../env";
import { ApiError } from "../http/errors";
import { escapeHtml } from "../lib/html";
import { randomAlphanumeric, randomHex, sha256Hex } from "../lib/crypto";
import { log } from "../lib/log";
import { sanitizeHtml } from "../lib/sanitize-html";
import { capture } from "./browser";
import { sendMail } from "./email";
import * as repo from "./repository";
import type { JobRequest, ReportInput, ScreenshotInput } from "./schemas";

export const MAX_ATTEMPTS = 3;
const REPORT_VERSIONS: VersionPolicy = { tags: ["email", "production"], fallBackToNewest: true };

export interface DeliveryScope {
  db: Database;
  env: Env;
  accessGroupId: number;
  /** Where links point, e.g. https://api.example.com */
  baseUrl: string;
}

/** `name` made safe for Content-Disposition, with the extension added once. */
export function downloadFileName(name: string | undefined, exportType: "image" | "pdf"): string {
  const extension = exportType === "pdf" ? "pdf" : "png";
  const safe = (name ?? "dashboard_screenshot_download").replace(/[^A-Za-z0-9._ -]+/g, "_").replace(/^[.\s]+/, "").trim().slice(0, 200) || "dashboard_screenshot_download";
  return safe.toLowerCase().endsWith(`.${extension}`) ? safe : `${safe}.${extension}`;
}

/** Customer visible, dashboard known, a version to render — all before any job exists. */
async function checkRenderable(scope: DeliveryScope, providedId: string, embedId: string, versions: VersionPolicy): Promise<number> {
  const [chain, choice] = await scope.db.batch([
    customerChain(scope.db, visibleByProvidedId(providedId, scope.accessGroupId)),
    dashboards.chooseVersion(scope.db, embedId, versions.tags, versions.fallBackToNewest),
  ]);
  if (chain.length === 0) throw new ApiError("customer_not_found", `Customer '${providedId}' does not exist.`, "provided_id");
  if (choice.length === 0) throw new ApiError("dashboard_not_found", `Dashboard '${embedId}' does not exist.`, "dashboard_embed_id");
  if (choice[0].definition === null) {
    throw new ApiError("no_dashboard_version", `Dashboard '${embedId}' has no version or draft to render.`, "dashboard_embed_id");
  }
  return chain[0].id;
}

/** Inserts the job, stores its link token and enqueues it; a failure to enqueue fails the job. */
async function startJob(scope: DeliveryScope, kind: "screenshot" | "report", customerId: number, embedId: string, request: JobRequest) {
  const id = `job_${randomAlphanumeric(24)}`;
  await repo.insertJob(scope.db, { id, kind, customerId, accessGroupId: scope.accessGroupId, embedId, request: JSON.stringify(request) });
  try {
    await scope.env.DELIVERY_QUEUE.send({ jobId: id });
  } catch (error) {
    await repo.setStatus(scope.db, id, "failed", "could not be queued");
    throw error;
  }
  return id;
}

export async function requestScreenshot(scope: DeliveryScope, input: ScreenshotInput): Promise<{ job_id: string; url?: string }> {
  const customerId = await checkRenderable(scope, input.provided_id, input.dashboard_embed_id, newest);
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
  };
  // The download token exists before the job runs, so the link answers 202 at once.
  let url: string | undefined;
  let tokenHash: string | undefined;
  if (!input.email) {
    const token = randomHex(32);
    tokenHash = await sha256Hex(token);
    url = `${scope.baseUrl}/api/downloads/${token}`;
  }
  const jobId = await startJob(scope, "screenshot", customerId, input.dashboard_embed_id, request);
  if (tokenHash) {
    const ttl = Math.max(60, numberVar(scope.env.DOWNLOAD_TTL_SECONDS, 900));
    await scope.env.DOWNLOADS.put(`download:${tokenHash}`, jobId, { expirationTtl: ttl });
  }
  return { job_id: jobId, ...(url ? { url } : {}) };
}

export interface ShareLink {
  customerId: number;
  embedId: string;
  variables: Record<string, unknown>;
}

export async function requestReport(scope: DeliveryScope, input: ReportInput): Promise<{ job_id: string }> {
  const customerId = await checkRenderable(scope, input.provided_id, input.dashboard_embed_id, REPORT_VERSIONS);
  let linkUrl = input.custom_url ?? null;
  if (!linkUrl) {
    const token = randomHex(32);
    const share: ShareLink = { customerId, embedId: input.dashboard_embed_id, variables: input.variables ?? {} };
    const ttl = Math.max(60, numberVar(scope.env.SHARE_TTL_SECONDS, 604_800));
    await scope.env.DOWNLOADS.put(`share:${await sha256Hex(token)}`, JSON.stringify(share), { expirationTtl: ttl });
    linkUrl = `${scope.baseUrl}/share/${token}`;
  }
  const request: JobRequest = {
    email: input.email,
    fileName: `dashboard_report.${scope.env.REPORT_IMAGE_FORMAT === "jpeg" ? "jpg" : "png"}`,
    exportType: "image",
    subject: input.subject ?? "Dashboard Email Report",
    variables: input.variables ?? {},
    width: 1280,
    linkUrl,
    versionTags: REPORT_VERSIONS.tags,
  };
  return { job_id: await startJob(scope, "report", customerId, input.dashboard_embed_id, request) };
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
    created_at: job.created_at,
    updated_at: job.updated_at,
  };
}

export type DownloadState =
  | { state: "pending"; status: string }
  | { state: "ready"; file: R2ObjectBody; fileName: string; contentType: string }
  | { state: "failed"; error: string };

/** What a download link gives now; unknown and expired tokens are 404. */
export async function download(db: Database, env: Env, token: string): Promise<DownloadState> {
  const jobId = /^[0-9a-f]{64}$/.test(token) ? await env.DOWNLOADS.get(`download:${await sha256Hex(token)}`) : null;
  const [job] = jobId ? await repo.jobById(db, jobId) : [];
  if (!job) throw new ApiError("job_not_found", "This download link is unknown or has expired.");
  if (job.status === "failed") return { state: "failed", error: job.error ?? "rendering failed" };
  if (job.status !== "done" || !job.file_key) return { state: "pending", status: job.status };
  const file = await env.FILES.get(job.file_key);
  if (!file) throw new ApiError("job_not_found", "The file of this download is gone.");
  const request = JSON.parse(job.request) as JobRequest;
  return { state: "ready", file, fileName: request.fileName, contentType: job.content_type ?? "application/octet-stream" };
}

/** The dashboard behind a report's share link, rendered for that customer. */
export async function renderShare(db: Database, env: Env, token: string): Promise<string> {
  const value = /^[0-9a-f]{64}$/.test(token) ? await env.DOWNLOADS.get(`share:${await sha256Hex(token)}`) : null;
  if (!value) throw new ApiError("dashboard_not_found", "This share link is unknown or has expired.");
  const share = JSON.parse(value) as ShareLink;
  return renderForCustomer(db, env, { embedId: share.embedId, customer: sql`c0.id = ${share.customerId}`, versions: REPORT_VERSIONS, variables: share.variables });
}

// ---- the queue consumer's work ------------------------------------------------------------

/** Test hook outside production: `fault:browser` in KV makes that many browser attempts fail. */
async function injectedFault(env: Env): Promise<void> {
  if (env.ENVIRONMENT === "production") return;
  const remaining = Number((await env.DOWNLOADS.get("fault:browser")) ?? "0");
  if (remaining > 0) {
    await env.DOWNLOADS.put("fault:browser", String(remaining - 1));
    throw new Error("injected browser failure");
  }
}

/**
 * Runs one attempt of a job. Returns normally when the job is finished (done, or already
 * finished by an earlier delivery); throws when the attempt failed and may be retried.
 */
export async function runJob(db: Database, env: Env, jobId: string, attempt: number): Promise<void> {
  const t0 = Date.now();
  const [job] = await repo.startAttempt(db, jobId, attempt);
  const t1 = Date.now();
  if (!job) return; // unknown (customer deleted) or already finished: nothing to do
  const request = JSON.parse(job.request) as JobRequest;
  const html = await renderForCustomer(db, env, {
    embedId: job.dashboard_embed_id,
    customer: sql`c0.id = ${job.customer_id}`,
    versions: { tags: request.versionTags, fallBackToNewest: true },
    variables: request.variables,
  });
  const t2 = Date.now();
  // Bytes captured by this attempt are sent from memory; a retry that finds the file already
  // stored (an earlier attempt failed while sending) reads it back from R2.
  let bytes: Uint8Array | undefined;
  if (!job.file_key) {
    await injectedFault(env);
    const format = request.exportType === "pdf" ? "pdf" : job.kind === "report" && env.REPORT_IMAGE_FORMAT === "jpeg" ? "jpeg" : "png";
    const file = await capture(env.BROWSER, html, { width: request.width, format });
    const t3 = Date.now();
    const key = `jobs/${job.id}/${request.fileName}`;
    await env.FILES.put(key, file.bytes, { httpMetadata: { contentType: file.contentType } });
    await repo.setFile(db, job.id, key, file.contentType, !request.email);
    log("debug", "delivery timing", { job_id: job.id, start_ms: t1 - t0, render_ms: t2 - t1, capture_ms: t3 - t2, store_ms: Date.now() - t3 });
    job.file_key = key;
    job.content_type = file.contentType;
    bytes = file.bytes;
  } else if (!request.email) {
    await repo.setStatus(db, job.id, "done");
  }
  if (!request.email) return;
  const [claimed] = await repo.claimEmail(db, job.id);
  if (!claimed) return; // another delivery of this message is sending (or sent) it
  try {
    if (!bytes) {
      const object = await env.FILES.get(job.file_key);
      if (!object) throw new Error("rendered file missing");
      bytes = new Uint8Array(await object.arrayBuffer());
    }
    await sendMail(env, job.kind === "report" ? await reportMail(db, job, request, bytes) : screenshotMail(job, request, bytes), job.id);
    await repo.markSent(db, job.id);
  } catch (error) {
    await repo.releaseEmail(db, job.id);
    throw error;
  }
}

function screenshotMail(job: repo.JobRow, request: JobRequest, bytes: Uint8Array) {
  return {
    to: request.email as string,
    subject: request.subject,
    text: `The dashboard export you requested is attached (${request.fileName}).`,
    attachments: [{ filename: request.fileName, contentType: job.content_type ?? "image/png", bytes }],
  };
}

async function reportMail(db: Database, job: repo.JobRow, request: JobRequest, bytes: Uint8Array) {
  const [[endUser], [customer]] = await db.batch([
    repo.endUserByEmail(db, job.customer_id, request.email as string),
    repo.customerName(db, job.customer_id),
  ]);
  const attributes = endUser ? (JSON.parse(endUser.attributes) as Record<string, unknown>) : {};
  const header = typeof attributes.header === "string" ? sanitizeHtml(attributes.header) : "";
  const footer = typeof attributes.footer === "string" ? sanitizeHtml(attributes.footer) : "";
  const link = escapeHtml(request.linkUrl ?? "");
  const name = escapeHtml(customer?.name ?? "");
  const html = `<!doctype html><html><body style="margin:0;padding:24px;background:#f4f6fb;font-family:Arial,Helvetica,sans-serif;color:#0f172a">
<div style="max-width:760px;margin:0 auto">
${header ? `<div class="report-header">${header}</div>` : ""}
<a href="${link}" style="display:block;text-decoration:none"><img src="cid:dashboard" alt="Dashboard report for ${name}" width="720" style="display:block;width:100%;max-width:720px;height:auto;border:1px solid #e5e9f2;border-radius:8px"></a>
<p style="font-size:13px;color:#64748b">Open the live dashboard: <a href="${link}">${link}</a></p>
${footer ? `<div class="report-footer">${footer}</div>` : ""}
</div></body></html>`;
  const extension = job.content_type === "image/jpeg" ? "jpg" : "png";
  return {
    to: request.email as string,
    subject: request.subject,
    text: `Your dashboard report for ${customer?.name ?? "your account"}.\n\nOpen the live dashboard: ${request.linkUrl}\n`,
    html,
    attachments: [{ filename: `dashboard.${extension}`, contentType: job.content_type ?? "image/png", bytes, contentId: "dashboard" }],
  };
}

/** Records a failed attempt: back to queued while attempts remain, else failed for good. */
export async function recordFailure(db: Database, jobId: string, attempt: number, error: unknown): Promise<"retry" | "failed"> {
  const reason = error instanceof Error ? error.message : String(error);
  log("warn", "delivery attempt failed", { job_id: jobId, attempt, error: reason });
  const final = attempt >= MAX_ATTEMPTS;
  await repo.setStatus(db, jobId, final ? "failed" : "queued", reason.slice(0, 500));
  return final ? "failed" : "retry";
}
