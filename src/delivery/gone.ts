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
  return error instanceof ApiError && permanentRenderErrors[error.code] !== undefined;
}

/** The job's failure reason for an error that `isGoneError` recognised. */
export function goneReason(error: ApiError): FailureReason {
  return permanentRenderErrors[error.code]!;
}
