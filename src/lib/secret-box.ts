/**
 * Secrets the service keeps for itself (a ClickHouse data source's password): sealed with
 * AES-256-GCM under a 32-byte key given as base64 (the secret DATA_SOURCE_KEY), a random
 * 96-bit nonce per value, so the same password sealed twice never reads the same. A sealed
 * value is `v1.<nonce>.<ciphertext and tag>` (base64url): the version lets a later key or
 * scheme sit beside it. The key is imported once per isolate.
 */

const encoder = new TextEncoder();
const decoder = new TextDecoder();
/** What every value is sealed for: a value sealed for another purpose does not open here. */
const PURPOSE = encoder.encode("data-source-secret");
const imported = new Map<string, Promise<CryptoKey>>();

/** Why `keyBase64` cannot be a key (not base64, not 32 bytes), or null. */
export function secretKeyProblem(keyBase64: string | undefined): string | null {
  if (!keyBase64) return "it is not set";
  const bytes = fromBase64(keyBase64);
  if (bytes?.byteLength !== 32) return "it must be 32 random bytes, base64";
  return null;
}

function key(keyBase64: string): Promise<CryptoKey> {
  let found = imported.get(keyBase64);
  if (!found) {
    const bytes = fromBase64(keyBase64);
    if (bytes?.byteLength !== 32) throw new Error("the sealing key must be 32 bytes, base64");
    found = crypto.subtle.importKey("raw", bytes, { name: "AES-GCM" }, false, ["encrypt", "decrypt"]);
    imported.set(keyBase64, found);
  }
  return found;
}

export async function seal(keyBase64: string, plain: string): Promise<string> {
  const nonce = crypto.getRandomValues(new Uint8Array(12));
  const sealed = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv: nonce, additionalData: PURPOSE },
    await key(keyBase64),
    encoder.encode(plain),
  );
  return `v1.${toBase64Url(nonce)}.${toBase64Url(new Uint8Array(sealed))}`;
}

/** The plain value, or null when it was not sealed under this key (or was changed). */
export async function open(keyBase64: string, sealed: string): Promise<string | null> {
  const [version, nonce, body] = sealed.split(".");
  const iv = nonce ? fromBase64(nonce) : null;
  const data = body ? fromBase64(body) : null;
  if (version !== "v1" || !iv || !data) return null;
  try {
    const plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv, additionalData: PURPOSE }, await key(keyBase64), data);
    return decoder.decode(plain);
  } catch {
    return null;
  }
}

function toBase64Url(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** Standard or URL-safe base64, padded or not; null when it is neither. */
function fromBase64(text: string): Uint8Array | null {
  const standard = text.trim().replaceAll("-", "+").replaceAll("_", "/");
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(standard)) return null;
  try {
    const binary = atob(standard.padEnd(Math.ceil(standard.length / 4) * 4, "="));
    return Uint8Array.from(binary, (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}
