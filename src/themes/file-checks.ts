import { brotliDecompressSync } from "node:zlib";
import { crc32 } from "../lib/crc32";

// A theme's files are read to their end before they are stored (docs/theming.md): a file
// that only begins like a font or image (wOF2 or a PNG signature followed by HTML, a
// polyglot) is refused. Each check answers why the bytes are not that format, or null.

const u16 = (b: Uint8Array, at: number) => (b[at] << 8) | b[at + 1];
const u32 = (b: Uint8Array, at: number) => ((b[at] << 24) | (b[at + 1] << 16) | (b[at + 2] << 8) | b[at + 3]) >>> 0;
const u32le = (b: Uint8Array, at: number) => (b[at] | (b[at + 1] << 8) | (b[at + 2] << 16) | (b[at + 3] << 24)) >>> 0;
const ascii = (b: Uint8Array, at: number, length: number) => String.fromCharCode(...b.subarray(at, at + length));
const pad4 = (n: number) => (n + 3) & ~3;

const WOFF2_HEADER = 48;
/** Known-table indexes of glyf and loca, whose transform version 0 means "transformed". */
const GLYF = 10;
const LOCA = 11;

/** A WOFF2 UIntBase128 at `at`: its value and the next offset, or null when malformed. */
function base128(b: Uint8Array, at: number): [number, number] | null {
  let value = 0;
  for (let i = 0; i < 5; i++) {
    if (at + i >= b.length) return null;
    const byte = b[at + i];
    if (i === 0 && byte === 0x80) return null; // no leading zeros
    if (value > 0x01ffffff) return null; // would overflow 32 bits
    value = value * 128 + (byte & 0x7f);
    if ((byte & 0x80) === 0) return [value, at + i + 1];
  }
  return null;
}

/**
 * A WOFF2 file as the W3C format states it: the header's `length` equal to the file's size, a
 * table directory of `numTables` entries inside it, the Brotli-compressed font data
 * decompressing to exactly the tables' size, then only the optional metadata and private
 * blocks where the header puts them — and nothing after the last (3 bytes of padding at most).
 */
export function woff2Problem(b: Uint8Array): string | null {
  if (b.length < WOFF2_HEADER || ascii(b, 0, 4) !== "wOF2") return "it does not begin with the signature wOF2";
  if (u32(b, 8) !== b.length) return `its header says ${u32(b, 8)} bytes but the file has ${b.length}`;
  if (ascii(b, 4, 4) === "ttcf") return "font collections are not accepted";
  const numTables = u16(b, 12);
  if (numTables === 0 || u16(b, 14) !== 0) return "its header is malformed (no tables, or reserved bits set)";
  let at = WOFF2_HEADER;
  let tablesSize = 0;
  for (let i = 0; i < numTables; i++) {
    if (at >= b.length) return "its table directory runs past the end of the file";
    const flags = b[at++];
    const tag = flags & 0x3f;
    if (tag === 0x3f) at += 4;
    const version = flags >> 6;
    const orig = base128(b, at);
    if (!orig) return "its table directory is malformed";
    at = orig[1];
    const transformed = tag === GLYF || tag === LOCA ? version === 0 : version !== 0;
    let size = orig[0];
    if (transformed) {
      const length = base128(b, at);
      if (!length) return "its table directory is malformed";
      [size, at] = length;
      if (tag === LOCA && size !== 0) return "its table directory is malformed (a transformed loca has data)";
    }
    tablesSize += size;
  }
  const compressed = u32(b, 20);
  const dataEnd = at + compressed;
  if (dataEnd > b.length) return "its font data runs past the end of the file";
  let decompressed: Uint8Array;
  try {
    decompressed = brotliDecompressSync(b.subarray(at, dataEnd));
  } catch {
    return "its font data does not decompress (Brotli)";
  }
  if (decompressed.length !== tablesSize)
    return `its font data decompresses to ${decompressed.length} bytes, not the tables' ${tablesSize}`;
  let end = dataEnd;
  for (const [offset, length, name] of [
    [u32(b, 28), u32(b, 32), "metadata"],
    [u32(b, 40), u32(b, 44), "private data"],
  ] as const) {
    if (offset === 0 && length === 0) continue;
    if (offset !== pad4(end) || offset + length > b.length) return `its ${name} block is not where the format puts it`;
    end = offset + length;
  }
  if (b.length - end > 3 || b.subarray(end).some((byte) => byte !== 0)) return `${b.length - end} bytes follow the end of the font`;
  return null;
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** A PNG: its signature, IHDR first, every chunk inside the file with a valid CRC, image data, IEND last and nothing after it. */
function pngProblem(b: Uint8Array): string | null {
  let at = PNG_SIGNATURE.length;
  let first = true;
  let sawData = false;
  while (at + 12 <= b.length) {
    const length = u32(b, at);
    const type = ascii(b, at + 4, 4);
    const end = at + 12 + length;
    if (length > 0x7fffffff || end > b.length) return `its ${type} chunk runs past the end of the file`;
    if (crc32(b, at + 4, at + 8 + length) !== u32(b, at + 8 + length)) return `its ${type} chunk's CRC is wrong`;
    if (first && (type !== "IHDR" || length !== 13)) return "it does not begin with an IHDR chunk";
    first = false;
    if (type === "IDAT") sawData = true;
    if (type === "IEND") {
      if (!sawData) return "it has no image data";
      return end === b.length ? null : `${b.length - end} bytes follow its IEND chunk`;
    }
    at = end;
  }
  return "it does not end with an IEND chunk";
}

/**
 * A JPEG: SOI, then marker segments each inside the file (entropy-coded data after each
 * start of scan, where a 0xFF byte is only stuffed or a restart marker), up to EOI — the file's last two bytes.
 */
function jpegProblem(b: Uint8Array): string | null {
  let at = 2;
  let sawScan = false;
  while (at + 2 <= b.length) {
    if (b[at] !== 0xff) return "its segments are malformed";
    const marker = b[at + 1];
    if (marker === 0xff) {
      at++; // fill byte
      continue;
    }
    if (marker === 0xd9) {
      if (!sawScan) return "it has no image data";
      return at + 2 === b.length ? null : `${b.length - at - 2} bytes follow its end marker`;
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      at += 2;
      continue;
    }
    if (at + 4 > b.length) return "a segment runs past the end of the file";
    const length = u16(b, at + 2);
    if (length < 2 || at + 2 + length > b.length) return "a segment runs past the end of the file";
    at += 2 + length;
    if (marker === 0xda) {
      sawScan = true;
      // Entropy-coded data: up to the next marker that is neither stuffing (FF 00) nor a restart (FF D0–D7).
      while (at + 1 < b.length && !(b[at] === 0xff && b[at + 1] !== 0x00 && !(b[at + 1] >= 0xd0 && b[at + 1] <= 0xd7))) at++;
    }
  }
  return "it does not end with an end-of-image marker";
}

/** A WebP: RIFF whose size is the file's, WEBP, then chunks (VP8, VP8L or VP8X first) that tile it exactly. */
function webpProblem(b: Uint8Array): string | null {
  if (b.length < 20 || u32le(b, 4) + 8 !== b.length) return "its RIFF size is not the file's";
  let at = 12;
  let first = true;
  while (at < b.length) {
    if (at + 8 > b.length) return "a chunk runs past the end of the file";
    const type = ascii(b, at, 4);
    const size = u32le(b, at + 4);
    if (first && !["VP8 ", "VP8L", "VP8X"].includes(type)) return "its first chunk is not VP8, VP8L or VP8X";
    first = false;
    at += 8 + size + (size & 1);
    if (at > b.length) return `its ${type.trim()} chunk runs past the end of the file`;
  }
  return first ? "it has no image data" : null;
}

export type ImageType = "image/png" | "image/jpeg" | "image/webp";

/** The image's type when it is a whole PNG, JPEG or WebP, else why not. */
export function checkImage(b: Uint8Array): { type: ImageType } | { problem: string } {
  const startsWith = (signature: number[], at = 0) => signature.every((byte, i) => b[at + i] === byte);
  const judged = (type: ImageType, problem: string | null) => (problem ? { problem } : { type });
  if (startsWith(PNG_SIGNATURE)) return judged("image/png", pngProblem(b));
  if (startsWith([0xff, 0xd8, 0xff])) return judged("image/jpeg", jpegProblem(b));
  if (startsWith([0x52, 0x49, 0x46, 0x46]) && startsWith([0x57, 0x45, 0x42, 0x50], 8)) return judged("image/webp", webpProblem(b));
  return { problem: "it is not a PNG, JPEG or WebP image" };
}
