import { call } from "../helpers/api";

/** Bytes that pass the WOFF2 signature check (`wOF2` + a header's length); not a drawable font. */
export function woff2Bytes(extra = 0): Uint8Array {
  const bytes = new Uint8Array(48 + extra);
  bytes.set([0x77, 0x4f, 0x46, 0x32, 0x00, 0x01, 0x00, 0x00]);
  for (let i = 8; i < bytes.length; i++) bytes[i] = i % 251;
  return bytes;
}

/** A 1×1 PNG (a real one). */
export const PNG_1PX = Uint8Array.from(
  atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="),
  (c) => c.charCodeAt(0),
);

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
