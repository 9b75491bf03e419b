import { exists } from "drizzle-orm";
import { customerNotFound } from "../../customers/not-found";
import { visibleByProvidedId, visibleCustomerId } from "../../customers/repository";
import * as dashboards from "../../dashboards/repository";
import { dashboardReads, newest, versionToRender, type RenderRequest, type VersionPolicy } from "../../dashboards/customer-dashboard";
import type { Env } from "../../env";
import { randomAlphanumeric, randomHex, sha256Hex } from "../../lib/crypto";
import * as webhooks from "../../webhooks/repository";
import { checkCallbackUrl, webhookSecretMissing } from "../../webhooks/service";
import { storeShareLink } from "../links/share";
import { pinnedVersions, REPORT_VERSIONS, REPORT_WIDTH } from "../report-defaults";
import * as repo from "../repository";
import type { JobPage } from "../run/message";
import { failUnstarted, startJob, type NewJob, type StartScope } from "../run/start";
import type { JobExtras, JobRequest, ReportInput, ScreenshotInput } from "../schemas";
import { config } from "../../config";
import { insertSavedReportJob, type SavedReportJobToCheck } from "./saved-report";
import { allOf } from "../../db/conditions";
import { checkNamedTheme, jobPresentation, namedThemeExists } from "./named-theme";

/** Where jobs are made: the access group they belong to, and where their links point. */
export interface DeliveryScope extends StartScope {
  env: Env;
  accessGroupId: number;
  /** Where links point, e.g. https://api.example.com */
  baseUrl: string;
}

/** `name` made safe for Content-Disposition, with the extension added once. */
export function downloadFileName(name: string | undefined, exportType: JobRequest["exportType"]): string {
  const extension = exportType === "image" ? "png" : exportType;
  const safe =
    (name ?? "dashboard_screenshot_download")
      .replace(/[^A-Za-z0-9._ -]+/g, "_")
      .replace(/^[.\s]+/, "")
      .trim()
      .slice(0, 200) || "dashboard_screenshot_download";
  return safe.toLowerCase().endsWith(`.${extension}`) ? safe : `${safe}.${extension}`;
}

/** What a new dashboard job needs checked before it may exist. */
interface JobToCheck {
  kind: "screenshot" | "report";
  providedId: string;
  embedId: string;
  callbackUrl: string | undefined;
  request: JobRequest;
  /** The download link the job answers (none for an e-mail). */
  download?: repo.DownloadLink;
}

/** A job just inserted, and the customer's token hash when it was made: a share link lives only as long as that token. */
interface InsertedJob extends NewJob {
  customerTokenHash: string;
}

/**
 * Checks and inserts a job in one batch (one D1 round trip): the customer is visible to the
 * token, the dashboard exists and has a version to render, and a callback_url has a
 * webhook secret to sign with. The insert's own condition repeats the checks, so a refused
 * request inserts nothing; the errors come in the contract's order (400 callback scheme,
 * 404 customer, 404 dashboard, 422 no version, 422 no secret). A policy that falls back to
 * the newest version renders "any version"; one pinned to an environment needs a version
 * with that tag (else 404 dashboard_version_not_found, nothing inserted). The same batch
 * reads what the render needs (dashboards' `dashboardReads`). Answers what the job renders
 * and, when the scope runs the first attempt, that attempt: the job is then born claimed.
 */
async function insertCheckedJob(scope: DeliveryScope, id: string, job: JobToCheck, versions: VersionPolicy): Promise<InsertedJob> {
  if (job.callbackUrl !== undefined) await checkCallbackUrl(scope.env, job.callbackUrl);
  const { db, accessGroupId } = scope;
  const renderable = allOf(
    exists(versions.fallBackToNewest ? dashboards.anyVersion(db, job.embedId) : dashboards.taggedVersion(db, job.embedId, versions.tags)),
    job.callbackUrl === undefined ? undefined : exists(webhooks.secretExists(db, accessGroupId)),
    namedThemeExists(db, accessGroupId, job.request.presentation?.theme),
  );
  const render: RenderRequest = {
    embedId: job.embedId,
    customer: visibleByProvidedId(job.providedId, accessGroupId),
    versions,
    variables: job.request.variables,
    presentation: job.request.presentation,
  };
  // A job someone waits for is born claimed by its first attempt, which this call runs.
  const born = scope.background !== undefined;
  const [chain, choice, sources, themes, secret, inserted, [row]] = await db.batch([
    ...dashboardReads(db, render),
    webhooks.secretExists(db, accessGroupId),
    repo.insertJobWhen(
      db,
      {
        id,
        kind: job.kind,
        born,
        accessGroupId,
        target: { kind: "dashboard", embedId: job.embedId },
        request: job.request,
        download: job.download,
      },
      visibleCustomerId(db, job.providedId, accessGroupId),
      renderable,
    ),
    repo.jobById(db, id),
  ]);
  if (chain.length === 0) throw customerNotFound(job.providedId);
  versionToRender(choice, job.embedId, versions);
  // The access group's themes were read with the render's rows (the customer is the group's).
  checkNamedTheme(themes, job.request.presentation?.theme);
  if (job.callbackUrl !== undefined && secret.length === 0) throw webhookSecretMissing();
  if (inserted.length !== 1 || !row) throw new Error(`job ${id} passed its checks but was not inserted`);
  const page: JobPage = { customerId: chain[0].id, target: { kind: "dashboard", embedId: job.embedId }, request: job.request };
  // The batch read what the render needs: the first attempt goes straight to the panels.
  return {
    id,
    page,
    customerTokenHash: chain[0].tokenHash,
    firstAttempt: born ? { job: row, dashboard: { render, rows: [chain, choice, sources, themes] }, viewRows: [chain, themes] } : undefined,
  };
}

const newJobId = () => `job_${randomAlphanumeric(24)}`;

/** A saved report's job (create/saved-report.ts) as an inserted job: its page names the report. */
async function insertReportJob(scope: DeliveryScope, id: string, job: SavedReportJobToCheck): Promise<InsertedJob> {
  const born = scope.background !== undefined;
  const { row, customerId, customerTokenHash, viewRows } = await insertSavedReportJob(scope, id, job, born);
  return {
    id,
    page: { customerId, target: { kind: "saved_report", reportId: job.reportId }, request: job.request },
    customerTokenHash,
    firstAttempt: born ? { job: row, viewRows } : undefined,
  };
}

/**
 * Creates and starts a screenshot job (plain objects in and out: callable from any
 * module, e.g. scheduled reports).
 */
export async function requestScreenshot(
  scope: DeliveryScope,
  input: ScreenshotInput,
  extras: JobExtras = {},
): Promise<{ job_id: string; url?: string }> {
  const { environment, ...jobExtras } = extras;
  const versions = environment === undefined ? newest : pinnedVersions(environment);
  const fileName = downloadFileName(input.download_file_name, input.export_type);
  const request: JobRequest = {
    email: input.email ?? null,
    fileName,
    exportType: input.export_type,
    subject: input.subject ?? `Requested Data Export: ${fileName} (${input.export_type})`,
    variables: input.variables ?? {},
    width: input.width,
    linkUrl: null,
    versionTags: versions.tags,
    ...(versions.fallBackToNewest ? {} : { fallBackToNewest: false }),
    callbackUrl: input.callback_url ?? null,
    ...jobPresentation(input),
    ...(input.pdf && input.export_type === "pdf" ? { pdf: input.pdf } : {}),
    ...jobExtras,
  };
  const jobId = newJobId();
  // Without e-mail, the answer is a download link (its token on the job's row, hashed).
  const token = input.email ? undefined : randomHex(32);
  const url = token && `${scope.baseUrl}/api/downloads/${token}`;
  // The webhook reports the link, so it is kept with the job only when a webhook asks for it.
  if (url && request.callbackUrl) request.downloadUrl = url;
  // The link's token is kept (hashed) on the job's row, inserted in the same batch.
  const download = token ? { tokenHash: await sha256Hex(token), ttlSeconds: config(scope.env).DOWNLOAD_TTL_SECONDS } : undefined;
  const common = { kind: "screenshot", providedId: input.provided_id, callbackUrl: input.callback_url, request, download } as const;
  const { target } = input;
  const inserted =
    target.kind === "saved_report"
      ? await insertReportJob(scope, jobId, { ...common, reportId: target.reportId })
      : await insertCheckedJob(scope, jobId, { ...common, embedId: target.embedId }, versions);
  await startJob(scope, inserted);
  return { job_id: jobId, ...(url ? { url } : {}) };
}

/** Creates and starts a report job (plain objects in and out, like requestScreenshot). */
export async function requestReport(scope: DeliveryScope, input: ReportInput, extras: JobExtras = {}): Promise<{ job_id: string }> {
  const { environment, ...jobExtras } = extras;
  const versions = environment === undefined ? REPORT_VERSIONS : pinnedVersions(environment);
  // Without custom_url, the e-mail links to a share link (its token in KV, hashed).
  const shareToken = input.custom_url ? undefined : randomHex(32);
  const request: JobRequest = {
    email: input.email,
    fileName: `dashboard_report.${config(scope.env).REPORT_IMAGE_FORMAT === "jpeg" ? "jpg" : "png"}`,
    exportType: "image",
    subject: input.subject ?? "Dashboard Email Report",
    variables: input.variables ?? {},
    // Drawn for the width the e-mail shows it at, at twice the pixels: text stays legible.
    width: REPORT_WIDTH,
    scale: 2,
    linkUrl: input.custom_url ?? `${scope.baseUrl}/share/${shareToken}`,
    versionTags: versions.tags,
    ...(versions.fallBackToNewest ? {} : { fallBackToNewest: false }),
    callbackUrl: input.callback_url ?? null,
    ...jobPresentation(input),
    ...jobExtras,
  };
  const jobId = newJobId();
  const common = { kind: "report", providedId: input.provided_id, callbackUrl: input.callback_url, request } as const;
  const { target } = input;
  const inserted =
    target.kind === "saved_report"
      ? await insertReportJob(scope, jobId, { ...common, reportId: target.reportId })
      : await insertCheckedJob(scope, jobId, { ...common, embedId: target.embedId }, versions);
  // The share link exists before the job may send the e-mail that carries it; a job whose
  // link could not be stored fails at once, never sending later.
  if (shareToken) {
    const link = { customerId: inserted.page.customerId, target, variables: request.variables, ...(environment ? { environment } : {}) };
    await storeShareLink(scope.env, shareToken, link, inserted.customerTokenHash).catch(async (error) => {
      await failUnstarted(scope.db, jobId);
      throw error;
    });
  }
  await startJob(scope, inserted);
  return { job_id: jobId };
}
