const encoder = new TextEncoder();

const hexByte = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"));

/** Lowercase hex; a table lookup because every API call hashes its token. */
export function toHex(bytes: ArrayBuffer | Uint8Array): string {
  let out = "";
  for (const b of new Uint8Array(bytes)) out += hexByte[b];
  return out;
}

/** `byteLength` random bytes as lowercase hex. */
export function randomHex(byteLength: number): string {
  return toHex(crypto.getRandomValues(new Uint8Array(byteLength)));
}

const alphanumerics = "abcdefghijklmnopqrstuvwxyz0123456789";

/** Random lowercase alphanumerics without modulo bias. */
export function randomAlphanumeric(length: number): string {
  let out = "";
  while (out.length < length) {
    for (const byte of crypto.getRandomValues(new Uint8Array(length * 2))) {
      if (byte < 252 && out.length < length) out += alphanumerics[byte % 36];
    }
  }
  return out;
}

export async function sha256Hex(value: string): Promise<string> {
  return toHex(await crypto.subtle.digest("SHA-256", encoder.encode(value)));
}

export async function hmacSha256Hex(key: CryptoKey, message: string): Promise<string> {
  return toHex(await crypto.subtle.sign("HMAC", key, encoder.encode(message)));
}

export function importHmacKey(secret: string): Promise<CryptoKey> {
  return crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
}

/** Compares two secrets without leaking where they differ. */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = encoder.encode(a);
  const right = encoder.encode(b);
  if (left.byteLength !== right.byteLength) return false;
  return crypto.subtle.timingSafeEqual(left, right);
}
