import { ApiError } from "../http/errors";
import { toHex } from "../lib/crypto";
import { assetKey } from "./asset-path";

// A theme's fonts and logo: decoded, read to their end (file-checks.ts), stored once by content in R2
// (FILES, `theme-assets/<sha256>`). Two themes with the same font share one object.

export const MAX_FONT_BYTES = 300 * 1024;
export const MAX_LOGO_BYTES = 100 * 1024;

/** The decoded bytes of base64 text the schema accepted, or 400 on `field`. */
export function decodeBase64(text: string, field: string, maxBytes: number): Uint8Array {
  let binary: string;
  try {
    binary = atob(text);
  } catch {
    throw new ApiError("validation_error", "must be base64", field);
  }
  if (binary.length > maxBytes) {
    throw new ApiError(
      "validation_error",
      `must be at most ${Math.round(maxBytes / 1024)} KB decoded (it is ${binary.length} bytes)`,
      field,
    );
  }
  return Uint8Array.from(binary, (ch) => ch.charCodeAt(0));
}

export interface CheckedAsset {
  sha256: string;
  bytes: Uint8Array;
  contentType: string;
}

export async function checkedAsset(bytes: Uint8Array, contentType: string): Promise<CheckedAsset> {
  return { sha256: toHex(await crypto.subtle.digest("SHA-256", bytes)), bytes, contentType };
}

/** Stores what is not stored yet (content-addressed: an existing key holds the same bytes). */
export async function storeAssets(files: R2Bucket, assets: CheckedAsset[]): Promise<void> {
  const unique = [...new Map(assets.map((a) => [a.sha256, a])).values()];
  await Promise.all(
    unique.map(async (asset) => {
      const key = assetKey(asset.sha256);
      if (await files.head(key)) return;
      await files.put(key, asset.bytes, { httpMetadata: { contentType: asset.contentType } });
    }),
  );
}
