// Where a theme's font or logo is stored: one R2 object per content (the SHA-256 of its bytes).
// The URL pages name it by is the view's (src/view/asset-url.ts): pages are drawn below the
// capabilities, the bytes are this capability's.

/** The R2 key (binding FILES) of a stored font or logo. */
export function assetKey(sha256: string): string {
  return `theme-assets/${sha256}`;
}
