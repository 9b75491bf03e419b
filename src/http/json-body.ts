import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "./context";
import { ApiError } from "./errors";

export const MAX_BODY_BYTES = 1024 * 1024;

const jsonMediaType = /^application\/([\w.-]+\+)?json$/i;

/**
 * Enforces the body conventions (docs/api-contract.md, "Conventions") before a route's validator sees
 * the body: JSON only (415), at most 1 MiB (413), a JSON object (400 invalid_json), no number
 * too large for a double (400 validation_error on its field).
 * A request without a body is validated as `{}`, so missing fields are named.
 */
export const jsonBody: MiddlewareHandler<AppEnv> = async (c, next) => {
  const declaredLength = c.req.header("Content-Length");
  if (Number(declaredLength ?? "0") > MAX_BODY_BYTES) throw payloadTooLarge();

  const bytes = c.req.raw.body ? await readBody(c.req.raw, declaredLength !== undefined) : new Uint8Array();
  // Kept for a retry of the request on the primary (see serveRequest), instead of a copy of every body.
  c.var.request.keepBody(bytes);
  const contentType = c.req.header("Content-Type");
  const mediaType = contentType?.split(";")[0].trim() ?? "";

  // An empty body reads as `{}` for a JSON request and as no body otherwise.
  let text = jsonMediaType.test(mediaType) ? "{}" : "";
  if (bytes.byteLength > 0) {
    if (!jsonMediaType.test(mediaType)) {
      throw new ApiError("unsupported_media_type", "Request bodies must be JSON (Content-Type: application/json).");
    }
    text = new TextDecoder().decode(bytes);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new ApiError("invalid_json", "The request body is not valid JSON.");
    }
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
      throw new ApiError("invalid_json", "The request body must be a JSON object.");
    }
    const tooLarge = mayHoldNonFiniteNumber(text) ? nonFiniteNumberPath(parsed) : null;
    if (tooLarge !== null) {
      throw new ApiError("validation_error", `${tooLarge}: must be a number a double can hold (at most about 1.8e308).`, tooLarge);
    }
  } else if (contentType !== undefined && mediaType !== "" && !jsonMediaType.test(mediaType)) {
    throw new ApiError("unsupported_media_type", "Request bodies must be JSON (Content-Type: application/json).");
  }
  // The route validator reads the cached text instead of the consumed stream.
  (c.req.bodyCache as Record<string, unknown>).text = Promise.resolve(text);
  await next();
};

/**
 * Whether the body's text could hold a number beyond a double (about 1.8e308): only with an
 * exponent of three digits or more, or some 210 digits before the point (JSON allows no
 * leading zeros). A cheap scan, so that the walk below runs only on such bodies — it costs
 * more than the parse.
 */
function mayHoldNonFiniteNumber(text: string): boolean {
  return /[eE][+-]?\d{3}|(?<!\d)\d{200}/.test(text);
}

/**
 * The dotted path (`definition.variables.0.default`) of the first number in the body that
 * JSON.parse turned into ±Infinity (`1e400`), or null. Such a number would otherwise pass a
 * schema that takes any value and be stored as `null` by JSON.stringify: the data would change
 * silently. Checked here once, so every route refuses it before anything runs. Iterative:
 * a deeply nested body must not exhaust the stack.
 */
export function nonFiniteNumberPath(body: unknown): string | null {
  type Entry = { value: unknown; key: string; parent: Entry | null };
  const pending: Entry[] = [{ value: body, key: "", parent: null }];
  for (let entry = pending.pop(); entry !== undefined; entry = pending.pop()) {
    const { value } = entry;
    if (typeof value === "number") {
      if (Number.isFinite(value)) continue;
      const keys: string[] = [];
      for (let at: Entry | null = entry; at?.parent; at = at.parent) keys.push(at.key);
      return keys.reverse().join(".");
    }
    if (value === null || typeof value !== "object") continue;
    // Pushed in reverse so the first offending field in document order is the one named.
    const children = Array.isArray(value) ? value.map((item, i) => [String(i), item] as const) : Object.entries(value);
    for (let i = children.length - 1; i >= 0; i--) pending.push({ value: children[i][1], key: children[i][0], parent: entry });
  }
  return null;
}

/** A declared length was checked above and bounds what is read, so the native read is used; otherwise the stream is counted as it comes. */
async function readBody(request: Request, lengthDeclared: boolean): Promise<Uint8Array> {
  if (!lengthDeclared) return request.body ? readLimited(request.body) : new Uint8Array();
  const bytes = new Uint8Array(await request.arrayBuffer());
  if (bytes.byteLength > MAX_BODY_BYTES) throw payloadTooLarge();
  return bytes;
}

const payloadTooLarge = () => new ApiError("payload_too_large", "The request body is larger than 1 MiB.");

async function readLimited(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > MAX_BODY_BYTES) {
      await reader.cancel();
      throw payloadTooLarge();
    }
    chunks.push(value);
  }
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}
