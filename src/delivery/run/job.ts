import { eq, lt, lte, sql, type SQL } from "drizzle-orm";
import { byId } from "../../customers/repository";
import {
  dashboardFromReads,
  panelTables,
  readDashboard,
  renderLoaded,
  type DashboardReadRows,
  type RenderRequest,
} from "../../dashboards/customer-dashboard";
import type { Database } from "../../db/client";
import { jobs } from "../../db/schema";
import { sqlSecondsAgo } from "../../db/time";
import type { Env } from "../../env";
import { XLSX_CONTENT_TYPE } from "../../lib/xlsx";
import { errorDetail, log } from "../../lib/log";
import { QueryCacheReport } from "../../data/query-cache";
import { goneFailure } from "../gone";
import { sqlNow } from "../../db/time";
import { JobFailure, transition, type JobRow } from "../job-state";
import { reportMail, screenshotMail, withUnsubscribe } from "../mail/messages";
import * as repo from "../repository";
import type { JobRequest } from "../schemas";
import type { DeliveryEffects } from "./effects";
import type { JobMessage, JobPage } from "./message";
import { dashboardWorkbook } from "./spreadsheet";
import { config } from "../../config";
import { jobEnded, takenFromBoard, type JobEnding } from "./job-endings";
import { reportJobFile, reportJobPage } from "./saved-report";
import { jobViewReads, storedJobView, type ViewRows, viewOfReads } from "./mail-view";
import { storedTarget } from "../target";
import { allOf } from "../../db/conditions";
import type { Presentation } from "../../view/presentation";
import { inlineThemeAssets } from "../../themes/inline-assets";
import { paperPageWidth } from "../../dashboards/paper-layout";
import { type Paper, type PaperPrint, paperOf, paperPrint } from "../../view/paper";

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
 * The R2 custom metadata of a captured file: where its panels' results came from. The job
 * writes it with the file; the download answers it as `X-Query-Cache`.
 */
export const QUERY_CACHE_METADATA = "query-cache";
/** …and how many Cache API reads its render made, answered as `X-Cache-Reads` (absent when none). */
export const CACHE_READS_METADATA = "cache-reads";

/** A job's first attempt, run by the call that created it: the job as born (claimed), its dashboard's rows already read. */
export interface FirstAttempt {
  job: JobRow;
  /** A dashboard's job: what its render reads (a saved report's job reads its report when it runs). */
  dashboard?: DashboardRead;
  /** The e-mail's view, read with the job's creation, for an attempt that draws no page (mail-view.ts). */
  viewRows?: ViewRows;
}

/** What the render of a job reads, read already: the request and the rows of `dashboardReads`. */
export interface DashboardRead {
  render: RenderRequest;
  rows: DashboardReadRows;
}

/**
 * What a backstop may claim: a first attempt that died (`rendering` with one attempt,
 * untouched past the first attempt's lifetime). Anything else has another owner — a
 * `queued` job waits for its retry message, whose loss the stuck-job sweep covers — or
 * has ended.
 */
function backstopClaimable(): SQL {
  return allOf(eq(jobs.status, "rendering"), lte(jobs.attempts, 1), lt(jobs.updatedAt, sqlSecondsAgo(FIRST_ATTEMPT_LIFETIME_SECONDS)));
}

/**
 * Runs one attempt of a job. Returns the job when this attempt finished it (done), or
 * nothing when there was nothing to do (already finished, or another delivery holds it);
 * throws when the attempt failed (see `recordFailure`, run/outcome.ts).
 *
 * D1 round trips: start, render, finish — plus, for an e-mail, the mail's lookups and the
 * claim (the view of an e-mail that draws no page is read with the start, or with the job's
 * creation); a first attempt has neither the start (its job was born claimed) nor the render's
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
  const earlyHtml =
    page && !backstop && !isFileExport(page.request) ? renderJobPage(db, env, page, earlyReport, firstAttempt?.dashboard) : undefined;
  earlyHtml?.catch(() => undefined);
  const early = earlyHtml && { html: earlyHtml, cacheReport: earlyReport };
  const claim = () =>
    transition(db, jobId, ["queued", "rendering"], "rendering", {
      set: { attempts: sql`max(${jobs.attempts}, ${attempt})` },
      error: null,
      where: backstop ? backstopClaimable() : undefined,
    });
  // An e-mail this attempt may send without drawing a page reads its view with the claim, not
  // in a round trip of its own before the send (storedJobView).
  let viewRows: ViewRows | undefined;
  let job: JobRow | undefined;
  if (firstAttempt) {
    job = firstAttempt.job;
    viewRows = firstAttempt.viewRows;
  } else if (mayMailWithoutPage(page, attempt)) {
    const [claimed, chain, themes] = await db.batch([claim(), ...jobViewReads(db, jobId)]);
    job = claimed[0];
    viewRows = [chain, themes];
  } else {
    [job] = await claim();
  }
  if (!job) return undefined; // finished, being sent by another delivery, or gone
  if (job.customerId === null) throw new JobFailure("customer_deleted", true);
  const request = job.request;

  // A retry after a failed send finds the file stored by the earlier attempt.
  let file: { bytes: Uint8Array<ArrayBuffer>; contentType: string; key: string };
  let metadata: Record<string, string> = {};
  // The view the page was drawn in: the e-mail wears its colors (when nothing is drawn here, the
  // same view is resolved for the e-mail alone: storedJobView).
  let view: Presentation | undefined;
  if (job.fileKey) {
    const object = await env.FILES.get(job.fileKey);
    if (!object) throw new JobFailure("render_failed", false, "stored file missing");
    file = { bytes: new Uint8Array(await object.arrayBuffer()), contentType: job.contentType ?? "image/png", key: job.fileKey };
  } else {
    const cacheReport = early?.cacheReport ?? new QueryCacheReport();
    const jobPage: JobPage = { customerId: job.customerId, target: storedTarget(job), request };
    let captured: { bytes: Uint8Array<ArrayBuffer>; contentType: string };
    if (isFileExport(request)) {
      captured = await jobFile(db, env, jobPage, cacheReport);
    } else {
      const rendered = await (early?.html ?? renderJobPage(db, env, jobPage, cacheReport));
      view = rendered.view;
      const { html, paper } = rendered;
      const format =
        request.exportType === "pdf" ? "pdf" : job.kind === "report" && config(env).REPORT_IMAGE_FORMAT === "jpeg" ? "jpeg" : "png";
      const width = paper?.width ?? request.width;
      captured = await effects.capture(
        html,
        { width, scale: request.scale ?? 1, format, deadline: captureBy, paper: paper?.print },
        job.id,
      );
    }
    const key = `jobs/${job.id}/${request.fileName}`;
    // Where the captured panels' results came from, for the download's X-Query-Cache and X-Cache-Reads.
    metadata = { [QUERY_CACHE_METADATA]: cacheReport.status };
    if (cacheReport.reads > 0) metadata[CACHE_READS_METADATA] = String(cacheReport.reads);
    // A file nobody is mailed goes to the downloads waiting in this isolate now, while it is
    // stored and the job recorded: the R2 write and the D1 transition are off their path. The
    // row stays the authority: downloads elsewhere, and any that comes later, see the job end
    // only once it is recorded. Should storing or recording fail, the attempt fails and is
    // retried as before; a download served here already holds a capture of the same page.
    // The store waits until those downloads have taken the file, and then gives their answers
    // a head start (takenFromBoard): started first, its work holds the thread and the
    // machine while their answers are still on their way.
    if (!request.email && jobEnded(job.id, doneWith(captured, metadata))) await takenFromBoard(job.id);
    await effects.store(key, captured.bytes, { httpMetadata: { contentType: captured.contentType }, customMetadata: metadata });
    file = { ...captured, key };
  }
  const fileColumns = { fileKey: file.key, contentType: file.contentType };

  // This isolate's waiting downloads get the file with the ending (job-endings.ts).
  const ended = (row: JobRow | undefined) => {
    if (row) jobEnded(job.id, doneWith(file, metadata));
    return row;
  };
  if (!request.email) {
    const [done] = await transition(db, job.id, ["rendering"], "done", { set: fileColumns });
    return ended(done);
  }

  // A file export or a stored file drew no page here: the e-mail still wears the theme and
  // speaks the locale the capture was made in (read with the start, or the job's creation; on
  // its own only where the message did not foresee it).
  view ??= viewRows ? viewOfReads(request, viewRows) : await storedJobView(db, job.customerId, request);
  const mail = await withUnsubscribe(
    env,
    request,
    job.kind === "report" ? reportMail(request, file, await reportRecipient(db, job, request), view) : screenshotMail(request, file, view),
    view,
  );
  // The claim: of all deliveries of this job, exactly one moves it to `sending`.
  const [claimed] = await transition(db, job.id, ["rendering"], "sending", { set: { ...fileColumns, emailClaimedAt: sqlNow } });
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
      const [sent] = await transition(db, job.id, ["sending"], "done", { set: { sentAt: sqlNow }, error: null });
      return ended(sent);
    } catch (error) {
      log("error", "e-mail sent but not recorded", { job_id: job.id, try: tries, detail: errorDetail(error) });
    }
  }
  return undefined;
}

/** A job's page as captured, and the view it was drawn in (theme, locale, time zone). */
interface RenderedPage {
  html: string;
  view?: Presentation;
  /** A PDF on paper: drawn at the paper's printable width, printed on its pages (absent: one page from the width). */
  paper?: { width: number; print: PaperPrint };
}

/**
 * The dashboard as the job asked for it, from rows `read` already when given, in the job's own
 * theme, locale and time zone where it names them (else its customer's); a customer or
 * dashboard gone meanwhile is final. The theme's fonts and logo are inlined: the capture's
 * tab has no origin to load `/theme-assets/…` from.
 */
async function renderJobPage(
  db: Database,
  env: Env,
  { customerId, target, request }: JobPage,
  cacheReport: QueryCacheReport,
  read?: DashboardRead,
): Promise<RenderedPage> {
  try {
    if (target.kind === "saved_report") {
      // A saved report has no definition: only the request names its pages.
      const paper = request.exportType === "pdf" ? paperOf(request.pdf) : undefined;
      const width = paper ? paperPageWidth(paper) : request.width;
      const page = await reportJobPage(db, env, {
        reportId: target.reportId,
        customerId,
        width,
        paper,
        cacheReport,
        presentation: request.presentation,
      });
      return capturedPage(env, page.html, page.view, { width, paper });
    }
    const loaded = read
      ? await dashboardFromReads(read.render, read.rows)
      : await readDashboard(db, {
          embedId: target.embedId,
          customer: byId(customerId),
          versions: { tags: request.versionTags, fallBackToNewest: request.fallBackToNewest ?? true },
          variables: request.variables,
          presentation: request.presentation,
        });
    // A PDF with a page size (the request's, over the definition's default) is laid out for its pages.
    const paper = request.exportType === "pdf" ? paperOf(loaded.definition.pdf, request.pdf) : undefined;
    const width = paper ? paperPageWidth(paper) : request.width; // charts drawn for the capture's width
    const html = await renderLoaded(env, loaded, { width, capture: { paper } }, { cacheReport });
    return capturedPage(env, html, loaded.view, { width, paper });
  } catch (error) {
    const gone = goneFailure(error);
    if (gone !== undefined) throw new JobFailure(gone.reason, true, gone.message);
    throw error;
  }
}

/** A page drawn `width` wide (on `paper` when given) as the capture's tab loads it: its theme's fonts and logo inlined. */
async function capturedPage(env: Env, html: string, view: Presentation, drawn: { width: number; paper?: Paper }): Promise<RenderedPage> {
  const { width, paper } = drawn;
  return { html: await inlineThemeAssets(env.FILES, html, view), view, paper: paper && { width, print: paperPrint(paper) } };
}

/**
 * Whether this attempt may e-mail without having drawn a page (whose view the e-mail would
 * wear): a file export, a retry that may find its file stored — or a message that does not
 * say what it renders.
 */
function mayMailWithoutPage(page: JobPage | undefined, attempt: number): boolean {
  if (!page) return true;
  return Boolean(page.request.email) && (attempt > 1 || isFileExport(page.request));
}

/** A job whose file is data, not a picture: nothing is captured. */
const isFileExport = (request: JobRequest) => request.exportType === "xlsx" || request.exportType === "csv";

/**
 * The job's data as a file for its customer: a saved report's CSV or one-sheet workbook
 * (run/saved-report.ts), or the dashboard as a workbook of a sheet per data panel
 * (run/spreadsheet.ts; a dashboard has no CSV — such requests are refused before a job exists).
 */
async function jobFile(
  db: Database,
  env: Env,
  { customerId, target, request }: JobPage,
  cacheReport: QueryCacheReport,
): Promise<{ bytes: Uint8Array<ArrayBuffer>; contentType: string }> {
  const format = request.exportType === "csv" ? "csv" : "xlsx";
  try {
    if (target.kind === "saved_report")
      return await reportJobFile(db, env, {
        reportId: target.reportId,
        customerId,
        format,
        cacheReport,
        // Buckets in the job's time zone, else the customer's.
        presentation: request.presentation,
      });
    if (format === "csv") throw new JobFailure("render_failed", true, "a dashboard has no CSV export");
    const tables = await panelTables(db, env, {
      embedId: target.embedId,
      customer: byId(customerId),
      versions: { tags: request.versionTags, fallBackToNewest: request.fallBackToNewest ?? true },
      variables: request.variables,
      cacheReport,
    });
    return { bytes: await dashboardWorkbook(tables), contentType: XLSX_CONTENT_TYPE };
  } catch (error) {
    const gone = goneFailure(error);
    if (gone !== undefined) throw new JobFailure(gone.reason, true, gone.message);
    throw error;
  }
}

/**
 * Who a report e-mail goes to: the customer's name, the end user's own header and footer,
 * and for a saved report its name (two or three reads, one round trip).
 */
async function reportRecipient(db: Database, job: JobRow, request: JobRequest) {
  const customerId = job.customerId ?? 0;
  const target = storedTarget(job);
  const reads = [repo.endUserByEmail(db, customerId, request.email as string), repo.customerName(db, customerId)] as const;
  const [[endUser], [customer], report] =
    target.kind === "saved_report"
      ? await db.batch([...reads, repo.savedReportName(db, target.reportId, customerId)])
      : [...(await db.batch(reads)), undefined];
  return {
    attributes: endUser ? endUser.attributes : {},
    customerName: customer?.name,
    ...(report !== undefined ? { reportName: report[0]?.name ?? "" } : {}),
  };
}

/** A job's ending with its file, as this isolate's waiting downloads take it (job-endings.ts). */
function doneWith(file: { bytes: Uint8Array<ArrayBuffer>; contentType: string }, metadata: Record<string, string>): JobEnding {
  return {
    status: "done",
    file: {
      bytes: file.bytes,
      contentType: file.contentType,
      queryCache: metadata[QUERY_CACHE_METADATA],
      cacheReads: metadata[CACHE_READS_METADATA],
    },
  };
}
