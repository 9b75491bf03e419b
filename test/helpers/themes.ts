import { crc32 } from "../../src/lib/crc32";
import { call } from "./api";

/**
 * A whole WOFF2 file of `48 + extra` bytes (55 when `extra` < 8) that passes every check of
 * the format (section 26): its header's length is its size, one table (an empty one of an
 * arbitrary tag), Brotli font data that decompresses to that table's 0 bytes, and `extra - 8`
 * bytes of private data where the format puts them. Not a drawable font.
 */
export function woff2Bytes(extra = 0): Uint8Array {
  const privateLength = extra >= 8 ? extra - 8 : 0;
  const size = privateLength > 0 ? 56 + privateLength : 55;
  const bytes = new Uint8Array(size);
  const view = new DataView(bytes.buffer);
  bytes.set([0x77, 0x4f, 0x46, 0x32, 0x00, 0x01, 0x00, 0x00]); // wOF2, TrueType flavor
  view.setUint32(8, size);
  view.setUint16(12, 1); // one table
  view.setUint32(16, 12 + 16); // totalSfntSize: an offset table and one entry
  view.setUint32(20, 1); // totalCompressedSize
  view.setUint16(24, 1); // version 1.0
  if (privateLength > 0) {
    view.setUint32(40, 56);
    view.setUint32(44, privateLength);
  }
  // The table directory: flags 0x3f (tag follows), tag "zzzz", origLength 0; then Brotli of nothing (0x3b).
  bytes.set([0x3f, 0x7a, 0x7a, 0x7a, 0x7a, 0x00, 0x3b], 48);
  for (let i = 56; i < size; i++) bytes[i] = i % 251;
  return bytes;
}

/** A 1×1 PNG (a real one). */
export const PNG_1PX = Uint8Array.from(
  atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="),
  (c) => c.charCodeAt(0),
);

/** A whole PNG of exactly `size` bytes: the 1×1 PNG with a private ancillary chunk (valid CRC) before its IEND. */
export function pngOfSize(size: number): Uint8Array {
  const iend = PNG_1PX.length - 12;
  const dataLength = size - PNG_1PX.length - 12;
  const chunk = new Uint8Array(12 + dataLength);
  const view = new DataView(chunk.buffer);
  view.setUint32(0, dataLength);
  chunk.set([0x70, 0x72, 0x56, 0x74], 4); // "prVt": ancillary, private, safe to copy
  for (let i = 0; i < dataLength; i++) chunk[8 + i] = i % 251;
  view.setUint32(8 + dataLength, crc32(chunk, 4, 8 + dataLength));
  return new Uint8Array([...PNG_1PX.subarray(0, iend), ...chunk, ...PNG_1PX.subarray(iend)]);
}

export function base64(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

export const DARK = {
  mode: "dark",
  colors: { background: "#0b1020", surface: "#141a2e", text: "#e8ecf8", accent: "#7c9cff", series: ["#7c9cff", "#ff9f6e"] },
};

export function createTheme(token: string, body: Record<string, unknown>) {
  return call("POST", "/api/create_theme/", { token, body });
}
