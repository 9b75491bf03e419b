import { ApiError } from "../http/errors";
import type { FailureReason } from "./job-state";

/**
 * Errors from rendering that say the customer or dashboard is gone (or never had a
 * version): a job fails at once with its reason, a share link shows "not available".
 */
const permanentRenderErrors: Partial<Record<string, FailureReason>> = {
  customer_not_found: "customer_deleted",
  dashboard_not_found: "dashboard_deleted",
  dashboard_version_not_found: "no_dashboard_version",
  no_dashboard_version: "no_dashboard_version",
  report_not_found: "report_deleted",
};

export function isGoneError(error: unknown): error is ApiError {
  return goneFailure(error) !== undefined;
}

/** The job's failure when the error says the customer, dashboard or report is gone. */
export function goneFailure(error: unknown): { reason: FailureReason; message: string } | undefined {
  if (!(error instanceof ApiError)) return undefined;
  const reason = permanentRenderErrors[error.code];
  return reason === undefined ? undefined : { reason, message: error.message };
}
