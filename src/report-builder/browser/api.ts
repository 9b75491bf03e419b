/** The builder's calls to this service (`/report-builder/<embed id>/…`, docs/report-builder.md) and what their failures tell the user. */
import { t } from "./words";
import { post } from "./parent";

/** Where the calls go and the token they carry (the parent may hand over a fresh one). */
export const connection = { base: "", token: "" };

/** A call the service refused (status, error code and message), or that did not reach it (status 0). */
export class ApiProblem {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly message: string,
    readonly retryAfter: number,
  ) {}
}

/** Answers the JSON of a successful call (the Response itself with `raw`); throws an ApiProblem, or the AbortError of an aborted call. */
export function api<T>(method: string, path: string, payload?: unknown, options: { signal?: AbortSignal; raw?: boolean } = {}): Promise<T> {
  const headers: Record<string, string> = { Authorization: `Bearer ${connection.token}`, Accept: "application/json" };
  const init: RequestInit = { method, headers, signal: options.signal };
  if (payload !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(payload);
  }
  return fetch(connection.base + path, init).then(
    (response) => {
      if (response.ok && options.raw) return response as T;
      return response
        .json()
        .catch(() => null)
        .then((json) => {
          if (response.ok && json && json.success !== 0) return json as T;
          const error = json?.error ? json.error : {};
          if (response.status === 401) post({ type: "error", status: 401 });
          throw new ApiProblem(
            response.status,
            error.code || "",
            error.message || t("service_answered", { status: response.status }),
            Number(response.headers.get("Retry-After")) || 0,
          );
        });
    },
    (error) => {
      if (error && error.name === "AbortError") throw error;
      throw new ApiProblem(0, "network", t("network"), 0);
    },
  );
}

/** What to tell the user about a failed call. */
export function explain(error: unknown): string {
  if (!(error instanceof ApiProblem)) return t("went_wrong", { message: String((error instanceof Error && error.message) || error) });
  if (error.status === 401) return t("expired");
  if (error.status === 429) return t("too_many", { seconds: error.retryAfter || t("a_few") });
  if (error.code === "dataset_data_unavailable") return t("data_unavailable", { message: error.message });
  if (error.code === "saving_not_allowed") return t("saving_not_allowed");
  if (error.status >= 500) return t("server_error", { status: error.status });
  return error.message;
}
