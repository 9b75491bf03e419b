// A TrueType font as a WOFF2 file (the only font format a theme takes), written the simplest way
// the W3C format allows: every table as it is ("null transform"), all of them in one Brotli
// stream. The PDF tests give a theme a font no machine has installed (pdfjs-dist's own
// Liberation Sans, installed with the test dependencies), so a PDF naming it shows that the
// theme's file drew the text, not a system font standing in.
import { brotliCompressSync } from "node:zlib";

/** WOFF2's known table tags: a table's index here is written instead of its tag. */
const KNOWN_TAGS =
  "cmap head hhea hmtx maxp name OS/2 post cvt_ fpgm glyf loca prep CFF_ VORG EBDT EBLC gasp hdmx kern LTSH PCLT VDMX vhea vmtx BASE GDEF GPOS GSUB EBSC JSTF MATH CBDT CBLC COLR CPAL SVG_ sbix acnt avar bdat bloc bsln cvar fdsc feat fmtx fvar gvar hsty just lcar mort morx opbd prop trak Zapf Silf Glat Gloc Feat Sill"
    .split(" ")
    .map((tag) => tag.replace("_", " "));

/** A UIntBase128: 7 bits a byte, most significant first, the high bit set on all but the last. */
function base128(value: number): number[] {
  const bytes = [value & 0x7f];
  for (let rest = Math.floor(value / 128); rest > 0; rest = Math.floor(rest / 128)) bytes.unshift((rest & 0x7f) | 0x80);
  return bytes;
}

export function ttfToWoff2(ttf: Buffer): Buffer {
  const numTables = ttf.readUInt16BE(4);
  const tables = Array.from({ length: numTables }, (_, i) => {
    const at = 12 + 16 * i;
    const offset = ttf.readUInt32BE(at + 8);
    return { tag: ttf.toString("latin1", at, at + 4), data: ttf.subarray(offset, offset + ttf.readUInt32BE(at + 12)) };
  }).sort((a, b) => (a.tag < b.tag ? -1 : 1));
  const directory: number[] = [];
  for (const { tag, data } of tables) {
    const index = KNOWN_TAGS.indexOf(tag);
    // Transform version 3 is glyf's and loca's null transform; 0 is every other table's.
    const version = tag === "glyf" || tag === "loca" ? 3 : 0;
    directory.push((version << 6) | (index >= 0 ? index : 63));
    if (index < 0) directory.push(...Buffer.from(tag, "latin1"));
    directory.push(...base128(data.length));
  }
  const compressed = brotliCompressSync(Buffer.concat(tables.map((t) => t.data)));
  const sfntSize = 12 + 16 * numTables + tables.reduce((sum, t) => sum + ((t.data.length + 3) & ~3), 0);
  const unpadded = 48 + directory.length + compressed.length;
  const length = (unpadded + 3) & ~3;
  const header = Buffer.alloc(48);
  header.write("wOF2", 0, "latin1");
  header.writeUInt32BE(ttf.readUInt32BE(0), 4);
  header.writeUInt32BE(length, 8);
  header.writeUInt16BE(numTables, 12);
  header.writeUInt32BE(sfntSize, 16);
  header.writeUInt32BE(compressed.length, 20);
  header.writeUInt16BE(1, 24);
  return Buffer.concat([header, Buffer.from(directory), compressed, Buffer.alloc(length - unpadded)]);
}
