import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { crc32 } from "../../src/lib/crc32";
import { call, workspace } from "../helpers/api";
import { base64, createTheme, PNG_1PX, pngOfSize, woff2Bytes } from "../helpers/themes";

// docs/theming.md: theme files are what they say. A font or logo is read to its end — a file
// that only begins like one (a polyglot: a PNG or a WOFF2 with an HTML page behind it) is
// refused —, files are served as files that never run, an access group keeps at most 50
// themes, and a file no theme names any more is deleted.

const bytesOf = (text: string) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
/** A real WOFF2 (Open Sans, examples/themes/). */
const FONT = bytesOf((env as unknown as { TEST_THEME_FONT_BASE64: string }).TEST_THEME_FONT_BASE64);
/** A real 2×2 JPEG and lossy WebP (encoded by libvips), and a 1×1 lossless WebP. */
const JPEG = bytesOf(
  "/9j/2wBDAAYEBQYFBAYGBQYHBwYIChAKCgkJChQODwwQFxQYGBcUFhYaHSUfGhsjHBYWICwgIyYnKSopGR8tMC0oMCUoKSj/2wBDAQcHBwoIChMKChMoGhYaKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCj/wAARCAACAAIDASIAAhEBAxEB/8QAFQABAQAAAAAAAAAAAAAAAAAAAAb/xAAUEAEAAAAAAAAAAAAAAAAAAAAA/8QAFQEBAQAAAAAAAAAAAAAAAAAABgf/xAAUEQEAAAAAAAAAAAAAAAAAAAAA/9oADAMBAAIRAxEAPwCAAHlhf//Z",
);
const WEBP = bytesOf("UklGRjoAAABXRUJQVlA4IC4AAACwAQCdASoCAAIAAUAmJaACdLoABDAAAP7x3I/4DdfFtMv/vYL/3YL/3YL/WwAA");
const WEBP_LOSSLESS = bytesOf("UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==");
const HTML = new TextEncoder().encode("<!doctype html><script>alert(document.domain)</script>");
const join = (...parts: Uint8Array[]) => new Uint8Array(parts.flatMap((p) => [...p]));

/** `bytes` with the big-endian 32-bit word at `at` set to `value`. */
function withWord(bytes: Uint8Array, at: number, value: number, littleEndian = false): Uint8Array {
  const copy = bytes.slice();
  new DataView(copy.buffer).setUint32(at, value, littleEndian);
  return copy;
}

/** `bytes` with the byte at `at` set to `value`. */
function withByte(bytes: Uint8Array, at: number, value: number): Uint8Array {
  const copy = bytes.slice();
  copy[at] = value;
  return copy;
}

/** A PNG chunk of `type` with its data and a valid CRC. */
function pngChunk(type: string, data: Uint8Array): Uint8Array {
  const chunk = new Uint8Array(12 + data.length);
  new DataView(chunk.buffer).setUint32(0, data.length);
  chunk.set(new TextEncoder().encode(type), 4);
  chunk.set(data, 8);
  new DataView(chunk.buffer).setUint32(8 + data.length, crc32(chunk, 4, 8 + data.length));
  return chunk;
}

const asLogo = (bytes: Uint8Array) => ({ logo_base64: base64(bytes) });
const asFont = (bytes: Uint8Array) => ({ fonts: [{ family: "Acme Sans", woff2_base64: base64(bytes) }] });

describe("theme files are read to their end", () => {
  it.each([
    ["a PNG with an HTML page after its IEND", asLogo(join(PNG_1PX, HTML)), "invalid_image", "theme.logo_base64"],
    ["a PNG signature followed by HTML", asLogo(join(PNG_1PX.subarray(0, 8), HTML)), "invalid_image", "theme.logo_base64"],
    [
      "a PNG whose first chunk is not IHDR",
      asLogo(join(PNG_1PX.subarray(0, 8), pngChunk("tEXt", HTML), PNG_1PX.subarray(8))),
      "invalid_image",
      "theme.logo_base64",
    ],
    ["a PNG with a chunk's CRC wrong", asLogo(withWord(PNG_1PX, 29, 0x12345678)), "invalid_image", "theme.logo_base64"],
    ["a PNG without IEND", asLogo(PNG_1PX.subarray(0, PNG_1PX.length - 12)), "invalid_image", "theme.logo_base64"],
    ["a JPEG with an HTML page after its EOI", asLogo(join(JPEG, HTML)), "invalid_image", "theme.logo_base64"],
    ["a JPEG signature followed by HTML", asLogo(join(JPEG.subarray(0, 3), HTML)), "invalid_image", "theme.logo_base64"],
    ["a WebP with HTML after its RIFF", asLogo(join(WEBP, HTML)), "invalid_image", "theme.logo_base64"],
    [
      "a WebP whose RIFF size covers HTML in place of image data",
      asLogo(withWord(join(WEBP.subarray(0, 12), HTML), 4, 4 + HTML.length, true)),
      "invalid_image",
      "theme.logo_base64",
    ],
    ["a real WOFF2 with an HTML page behind it", asFont(join(FONT, HTML)), "invalid_font", "theme.fonts.0.woff2_base64"],
    [
      "a real WOFF2 with HTML behind it and its length field raised to match",
      asFont(withWord(join(FONT, HTML), 8, FONT.length + HTML.length)),
      "invalid_font",
      "theme.fonts.0.woff2_base64",
    ],
    ["wOF2 followed by HTML", asFont(join(FONT.subarray(0, 4), HTML)), "invalid_font", "theme.fonts.0.woff2_base64"],
    [
      "a WOFF2 header whose font data does not decompress",
      asFont(withByte(woff2Bytes(), 54, 0xff)),
      "invalid_font",
      "theme.fonts.0.woff2_base64",
    ],
  ])("refuses %s (422)", async (_name, theme, code, field) => {
    const { write } = await workspace();
    const res = await createTheme(write, { name: "Polyglot", theme });
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.body.error).toMatchObject({ code, field });
    expect((await call("GET", "/api/themes/", { token: write })).body.themes).toEqual([]);
  });

  it.each([
    ["a real PNG", asLogo(PNG_1PX), "image/png"],
    ["a real JPEG", asLogo(JPEG), "image/jpeg"],
    ["a real lossy WebP", asLogo(WEBP), "image/webp"],
    ["a real lossless WebP", asLogo(WEBP_LOSSLESS), "image/webp"],
    ["a real WOFF2 font", asFont(FONT), "font/woff2"],
  ])("accepts %s (control) and serves it as a file that never runs", async (_name, theme, contentType) => {
    const { write } = await workspace();
    const res = await createTheme(write, { name: "Real", theme });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const url = (res.body.theme.theme.logo_url ?? res.body.theme.theme.fonts[0].url) as string;
    const served = await call("GET", new URL(url).pathname);
    expect(served.status).toBe(200);
    expect(served.headers.get("Content-Type")).toBe(contentType);
    expect(served.headers.get("Content-Security-Policy")).toBe("default-src 'none'; sandbox");
    expect(served.headers.get("X-Content-Type-Options")).toBe("nosniff");
    expect(served.headers.get("Cross-Origin-Resource-Policy")).toBe("same-site");
  });
});

describe("an access group keeps at most 50 themes", () => {
  it("refuses the 51st with 409 theme_limit_reached; deleting one makes room; another group is not affected (control)", async () => {
    const { write } = await workspace();
    for (let i = 1; i <= 50; i++) {
      const res = await createTheme(write, { name: `Theme ${i}`, theme: {} });
      expect(res.status, `theme ${i}`).toBe(200);
    }
    const over = await createTheme(write, { name: "Theme 51", theme: {}, is_default: true });
    expect(over.status).toBe(409);
    expect(over.body.error).toMatchObject({ code: "theme_limit_reached", field: "name" });
    const listed = (await call("GET", "/api/themes/", { token: write })).body.themes;
    expect(listed).toHaveLength(50);
    expect(listed.some((t: { is_default: boolean }) => t.is_default)).toBe(false);
    expect((await call("POST", "/api/delete_theme/", { token: write, body: { name: "Theme 7" } })).status).toBe(200);
    expect((await createTheme(write, { name: "Theme 51", theme: {} })).status).toBe(200);
    const other = await workspace();
    expect((await createTheme(other.write, { name: "Theme 1", theme: {} })).status).toBe(200);
  });
});

describe("a file no theme names any more is deleted", () => {
  const stored = async (url: string) => (await env.FILES.head(`theme-assets/${url.split("/").pop()}`)) !== null;

  it("when a theme's logo is replaced, and when the last theme naming a shared font is deleted — not before (control)", async () => {
    const { write } = await workspace();
    const font = woff2Bytes(64 + Math.floor(Math.random() * 1000));
    const [logo, nextLogo] = [pngOfSize(200 + Math.floor(Math.random() * 1000)), pngOfSize(1300 + Math.floor(Math.random() * 1000))];
    const first = await createTheme(write, { name: "First", theme: { ...asFont(font), ...asLogo(logo) } });
    const second = await createTheme(write, { name: "Second", theme: asFont(font) });
    expect([first.status, second.status]).toEqual([200, 200]);
    const fontUrl = first.body.theme.theme.fonts[0].url as string;
    const oldLogo = first.body.theme.theme.logo_url as string;
    expect(await stored(fontUrl)).toBe(true);
    expect(await stored(oldLogo)).toBe(true);

    // The logo replaced: the old file goes (no theme names it), the font stays (both themes do).
    const updated = await call("POST", "/api/update_theme/", {
      token: write,
      body: { name: "First", theme: { ...asFont(font), ...asLogo(nextLogo) } },
    });
    expect(updated.status).toBe(200);
    expect(await stored(oldLogo)).toBe(false);
    expect((await call("GET", new URL(oldLogo).pathname)).status).toBe(404);
    expect(await stored(updated.body.theme.theme.logo_url)).toBe(true);
    expect(await stored(fontUrl)).toBe(true);

    // Deleting one theme keeps the font the other still names; deleting the last takes it.
    expect((await call("POST", "/api/delete_theme/", { token: write, body: { name: "First" } })).status).toBe(200);
    expect(await stored(fontUrl)).toBe(true);
    expect(await stored(updated.body.theme.theme.logo_url)).toBe(false);
    expect((await call("POST", "/api/delete_theme/", { token: write, body: { name: "Second" } })).status).toBe(200);
    expect(await stored(fontUrl)).toBe(false);
    // Repeating the delete changes nothing and fails on nothing but the theme's absence.
    expect((await call("POST", "/api/delete_theme/", { token: write, body: { name: "Second" } })).body.error.code).toBe("theme_not_found");

    // A file named by a theme of another access group is kept.
    const other = await workspace();
    const mine = await createTheme(write, { name: "Mine", theme: asLogo(WEBP) });
    const theirs = await createTheme(other.write, { name: "Theirs", theme: asLogo(WEBP) });
    expect(theirs.body.theme.theme.logo_url).toBe(mine.body.theme.theme.logo_url);
    expect((await call("POST", "/api/delete_theme/", { token: write, body: { name: "Mine" } })).status).toBe(200);
    expect(await stored(theirs.body.theme.theme.logo_url)).toBe(true);
  });
});
