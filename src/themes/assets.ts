import { ApiError } from "../http/errors";
import { toHex } from "../lib/crypto";
import { assetKey } from "./asset-path";

// A theme's fonts and logo: decoded, checked by their signature, stored once by content in R2
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

const startsWith = (bytes: Uint8Array, signature: number[], at = 0) => signature.every((b, i) => bytes[at + i] === b);

/** A WOFF2 file begins with `wOF2`. */
export function isWoff2(bytes: Uint8Array): boolean {
  return bytes.length >= 48 && startsWith(bytes, [0x77, 0x4f, 0x46, 0x32]);
}

/** The image type by signature: PNG, JPEG or WebP (RIFF….WEBP), else null. */
export function imageType(bytes: Uint8Array): "image/png" | "image/jpeg" | "image/webp" | null {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png";
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return "image/jpeg";
  if (startsWith(bytes, [0x52, 0x49, 0x46, 0x46]) && startsWith(bytes, [0x57, 0x45, 0x42, 0x50], 8)) return "image/webp";
  return null;
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
