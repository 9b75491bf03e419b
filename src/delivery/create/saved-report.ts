import { exists } from "drizzle-orm";
import { customerNotFound } from "../../customers/not-found";
import { visibleByProvidedId, visibleCustomerId, visibleCustomerTokenHash } from "../../customers/repository";
import type { Database } from "../../db/client";
import { ApiError } from "../../http/errors";
import { reportOfVisibleCustomer } from "../../report-builder/repository";
import * as webhooks from "../../webhooks/repository";
import { checkCallbackUrl, webhookSecretMissing } from "../../webhooks/service";
import type { Env } from "../../env";
import * as repo from "../repository";
import type { JobRequest } from "../schemas";
import { allOf } from "../../db/conditions";
import { customerViewReads, type ViewRows } from "../run/mail-view";
import { checkNamedTheme, namedThemeExists } from "./named-theme";

/**
 * Jobs of saved reports (the report builder's, `report_id`): made like a dashboard's job —
 * one D1 batch that checks and inserts, a refused request inserting nothing — and run by
 * the same attempts; only what is drawn differs (src/report-builder/delivered.ts).
 */

export interface SavedReportJobToCheck {
  kind: "screenshot" | "report";
  providedId: string;
  reportId: string;
  callbackUrl: string | undefined;
  request: JobRequest;
  /** The download link the job answers (none for an e-mail). */
  download?: repo.DownloadLink;
}

/**
 * Checks and inserts the job in one batch: the customer is visible to the token (404
 * customer_not_found), the report is that customer's (404 report_not_found — another
 * customer's or access group's is absent, as everywhere), a callback_url has a secret to
 * sign with (422). The insert repeats the checks in its own condition. Answers the job row
 * (born claimed when `born`), the customer's id and token hash (a share link lives as long
 * as that token), and the rows of the view its e-mail wears (run/mail-view.ts).
 */
export async function insertSavedReportJob(
  scope: { db: Database; env: Env; accessGroupId: number },
  id: string,
  job: SavedReportJobToCheck,
  born: boolean,
): Promise<{ row: repo.JobRow; customerId: number; customerTokenHash: string; viewRows: ViewRows }> {
  if (job.callbackUrl !== undefined) await checkCallbackUrl(scope.env, job.callbackUrl);
  const { db, accessGroupId } = scope;
  const condition = allOf(
    exists(reportOfVisibleCustomer(db, job.reportId, job.providedId, accessGroupId)),
    job.callbackUrl === undefined ? undefined : exists(webhooks.secretExists(db, accessGroupId)),
    namedThemeExists(db, accessGroupId, job.request.presentation?.theme),
  );
  const [customer, report, secret, chain, themes, inserted, [row]] = await db.batch([
    visibleCustomerTokenHash(db, job.providedId, accessGroupId),
    reportOfVisibleCustomer(db, job.reportId, job.providedId, accessGroupId),
    webhooks.secretExists(db, accessGroupId),
    // The view its e-mail wears, when the attempt draws no page (the named theme is among the group's themes).
    ...customerViewReads(db, visibleByProvidedId(job.providedId, accessGroupId)),
    repo.insertJobWhen(
      db,
      {
        id,
        kind: job.kind,
        born,
        accessGroupId,
        target: { kind: "saved_report", reportId: job.reportId },
        request: job.request,
        download: job.download,
      },
      visibleCustomerId(db, job.providedId, accessGroupId),
      condition,
    ),
    repo.jobById(db, id),
  ]);
  if (customer.length === 0) throw customerNotFound(job.providedId);
  if (report.length === 0)
    throw new ApiError("report_not_found", `Customer '${job.providedId}' has no saved report '${job.reportId}'.`, "report_id");
  checkNamedTheme(themes, job.request.presentation?.theme);
  if (job.callbackUrl !== undefined && secret.length === 0) throw webhookSecretMissing();
  if (inserted.length !== 1 || !row) throw new Error(`job ${id} passed its checks but was not inserted`);
  return { row, customerId: customer[0].id, customerTokenHash: customer[0].tokenHash, viewRows: [chain, themes] };
}
