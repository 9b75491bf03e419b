/** A small MIME reader for tests: top-level headers and every leaf part. */
export interface Part {
  headers: Record<string, string>;
  body: string;
}

function headersOf(block: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of block.replace(/\r?\n[ \t]+/g, " ").split(/\r?\n/)) {
    const at = line.indexOf(":");
    if (at > 0) headers[line.slice(0, at).trim().toLowerCase()] = line.slice(at + 1).trim();
  }
  return headers;
}

function decodeWord(value: string): string {
  return value.replace(/=\?utf-8\?B\?([^?]*)\?=/gi, (_, b64: string) =>
    new TextDecoder().decode(Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))),
  );
}

export function parseMime(raw: string): { subject: string; to: string; from: string; parts: Part[] } {
  const split = raw.search(/\r?\n\r?\n/);
  const top = headersOf(raw.slice(0, split));
  const parts: Part[] = [];
  const walk = (headers: Record<string, string>, body: string) => {
    const boundary = /boundary="?([^";]+)"?/.exec(headers["content-type"] ?? "")?.[1];
    if (!boundary) {
      parts.push({ headers, body: body.trim() });
      return;
    }
    for (const chunk of body.split(`--${boundary}`).slice(1)) {
      if (chunk.startsWith("--")) break;
      const at = chunk.search(/\r?\n\r?\n/);
      walk(headersOf(chunk.slice(0, at)), chunk.slice(at).replace(/^\r?\n\r?\n/, ""));
    }
  };
  walk(top, raw.slice(split));
  return { subject: decodeWord(top.subject ?? ""), to: top.to ?? "", from: top.from ?? "", parts };
}

export function base64Bytes(body: string): Uint8Array {
  return Uint8Array.from(atob(body.replace(/\s+/g, "")), (c) => c.charCodeAt(0));
}
