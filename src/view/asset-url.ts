// Where a theme's font or logo is served from this service's origin: one immutable URL per
// content (the SHA-256 of its bytes), so a changed file is a new URL and caches never go stale.
// Pages name these URLs (style.ts, the report e-mail); the themes capability stores the bytes
// under the matching R2 key (src/themes/asset-path.ts) and serves them at this prefix.

export const ASSET_PREFIX = "/theme-assets/";

/** `/theme-assets/<sha256>`: the path of a stored font or logo. */
export function assetPath(sha256: string): string {
  return `${ASSET_PREFIX}${sha256}`;
}
