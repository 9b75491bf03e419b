/**
 * A path without its trailing slash ("/" stays "/"): routes are declared and matched in
 * this form (the app is not strict, so `/api/x/` and `/api/x` reach one handler).
 */
export function withoutTrailingSlash(path: string): string {
  return path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
}
