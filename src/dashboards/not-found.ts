import { ApiError } from "../http/errors";

/** 404 dashboard_not_found: no dashboard has this embed id (`field` names where the id came from). */
export function dashboardNotFound(embedId: string, field = "embed_id"): ApiError {
  return new ApiError("dashboard_not_found", `Dashboard '${embedId}' does not exist.`, field);
}
