import { markNotFound } from "./request-state";

/**
 * The one error envelope of the service (docs/api-contract.md, "Errors"). Services throw ApiError
 * with a code from this table; the HTTP status follows from the code, never from the
 * place that threw it.
 */
export const errorStatus = {
  invalid_json: 400,
  validation_error: 400,
  missing_api_token: 401,
  invalid_api_token: 401,
  invalid_admin_token: 401,
  invalid_embed_token: 401,
  read_only_token: 403,
  // The console's session cookie on an /admin/ call from another site's page (docs/console.md).
  cross_site_request: 403,
  saving_not_allowed: 403,
  // Changing or deleting a saved report from a token of another user or with other locked filters.
  report_read_only: 403,
  subscriptions_not_allowed: 403,
  paid_customer_limit_reached: 403,
  customer_not_found: 404,
  parent_not_found: 404,
  blueprint_not_found: 404,
  dashboard_not_found: 404,
  // The dashboard exists, but not the version, environment tag or draft asked for.
  dashboard_version_not_found: 404,
  group_tag_not_found: 404,
  job_not_found: 404,
  panel_not_found: 404,
  report_not_found: 404,
  schedule_not_found: 404,
  alert_not_found: 404,
  access_group_not_found: 404,
  api_token_not_found: 404,
  data_source_not_found: 404,
  route_not_found: 404,
  theme_not_found: 404,
  method_not_allowed: 405,
  provided_id_taken: 409,
  access_group_exists: 409,
  hierarchy_level_in_use: 409,
  group_tag_exists: 409,
  // Renaming or deleting a tag that customers, schedules or alerts of another access group use.
  group_tag_in_use_elsewhere: 409,
  customer_has_children: 409,
  data_source_exists: 409,
  theme_exists: 409,
  // A customer, schedule, alert or subscription names the theme.
  theme_in_use: 409,
  // An access group has at most 50 themes (docs/theming.md).
  theme_limit_reached: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  unknown_group_tag: 422,
  unknown_hierarchy_level: 422,
  parent_access_group_mismatch: 422,
  parent_not_higher_level: 422,
  unknown_schema: 422,
  unknown_data_source: 422,
  no_dashboard_version: 422,
  // Panel SQL or a blueprint table's query that is not one read-only statement.
  query_not_read_only: 422,
  panel_data_unavailable: 422,
  webhook_secret_missing: 422,
  unknown_dataset: 422,
  unknown_column: 422,
  column_not_groupable: 422,
  bucket_not_allowed: 422,
  aggregate_not_allowed: 422,
  filter_not_allowed: 422,
  dataset_data_unavailable: 422,
  // A viewer's self-service subscriptions to one dashboard are capped (src/subscriptions/).
  subscription_limit_reached: 422,
  // Themes (src/themes/): a name that is not a theme of the access group, a file that is not
  // what it claims, colors a reader could not read.
  unknown_theme: 422,
  invalid_font: 422,
  invalid_image: 422,
  theme_contrast_too_low: 422,
  rate_limited: 429,
  internal_error: 500,
  render_failed: 500,
  // A ClickHouse data source's password is sealed under DATA_SOURCE_KEY: without the secret nothing is stored.
  data_source_key_missing: 503,
} as const;

export type ErrorCode = keyof typeof errorStatus;
export type ErrorStatus = (typeof errorStatus)[ErrorCode];

export class ApiError extends Error {
  readonly status: ErrorStatus;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly field?: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.status = errorStatus[code];
  }
}

/**
 * Call where a "not found" becomes the answer (the JSON error, an embed's or share link's
 * error page): a replica's not-found is then retried once on the primary. A missing route
 * is not data, so it is never retried; an error built but handled is not an answer.
 */
export function answeringNotFound(code: ErrorCode): void {
  if (code.endsWith("_not_found") && code !== "route_not_found") markNotFound();
}

export interface ErrorBody {
  success: 0;
  error: { code: ErrorCode; message: string; field?: string; request_id: string };
}

export function errorBody(error: ApiError, requestId: string): ErrorBody {
  return {
    success: 0,
    error: {
      code: error.code,
      message: error.message,
      ...(error.field !== undefined ? { field: error.field } : {}),
      request_id: requestId,
    },
  };
}
