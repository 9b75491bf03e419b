import { ApiError } from "../../http/errors";
import type { QueryCacheReport } from "../../data/query-cache";
import { savedReportFile, savedReportPage } from "../../report-builder/delivered";
import type { Database } from "../../db/client";
import type { Env } from "../../env";
import { JobFailure } from "../job-state";
import type { Presentation, PresentationChoice } from "../../view/presentation";
import type { Paper } from "../../view/paper";

/**
 * A saved report's job (`report_id`) draws or writes the report instead of a dashboard
 * (src/report-builder/delivered.ts), for the job's customer. A report that cannot be run any more
 * fails its job with the report builder's own message (`job.error`), e.g. "Dataset 'orders'
 * has no column 'amount'." after update_blueprint: no retry can fix a name that is gone. Its
 * data being unavailable (no data source, a failing query) may pass, so that is retried like
 * a capture. A report deleted meanwhile is a gone error (src/delivery/gone.ts).
 */
async function asReportJob<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof ApiError && error.status === 422) {
      throw new JobFailure("report_unavailable", error.code !== "dataset_data_unavailable", error.message, error.message);
    }
    throw error;
  }
}

export interface ReportJobPage {
  reportId: string;
  customerId: number;
  cacheReport: QueryCacheReport;
  /** The job's own theme, locale and time zone, else the customer's (src/view/presentation.ts). */
  presentation?: PresentationChoice;
}

/** The page a capture of the report shows (its chart, then its table), drawn for the capture's width or on `paper`, and its view. */
export function reportJobPage(
  db: Database,
  env: Env,
  page: ReportJobPage & { width: number; paper?: Paper },
): Promise<{ html: string; view: Presentation }> {
  return asReportJob(savedReportPage(db, env, page));
}

/** The report's rows as the job's file: CSV, or a workbook of one sheet named by the report. */
export function reportJobFile(
  db: Database,
  env: Env,
  page: ReportJobPage & { format: "csv" | "xlsx" },
): Promise<{ bytes: Uint8Array<ArrayBuffer>; contentType: string }> {
  return asReportJob(savedReportFile(db, env, page));
}
