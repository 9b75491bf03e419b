/**
 * Where a framed page's messages may go (docs/embedding.md): the origins in its `<meta
 * name="host-origins">` — the `frame-ancestors` the page was served with (src/http/host-origins.ts),
 * so the token's `allowed_origins`, else FRAME_ANCESTORS. A source that names no single origin
 * (`*`, `https:`, `https://*.example.com`) leaves it to the framing page's origin as the browser
 * reports it: `location.ancestorOrigins`, else the referrer's origin (the browser has already
 * checked it against the same list). A page that cannot tell posts nothing: never `"*"`.
 */

const EXACT_ORIGIN = /^https?:\/\/[^/*\s]+$/;

/** The framing page's origin as the browser reports it, or null. */
function framerOrigin(): string | null {
  const ancestors = window.location.ancestorOrigins;
  if (ancestors && ancestors.length > 0) return ancestors[0] === "null" ? null : ancestors[0];
  try {
    return document.referrer ? new URL(document.referrer).origin : null;
  } catch {
    return null;
  }
}

/** The origins this page may post to (and take messages from). */
export function hostOrigins(): string[] {
  const listed = document.querySelector('meta[name="host-origins"]')?.getAttribute("content") ?? "*";
  const sources = listed.split(/\s+/).filter(Boolean);
  const origins = new Set<string>();
  for (const source of sources) {
    if (source === "'none'") continue;
    if (source === "'self'") origins.add(window.location.origin);
    else if (EXACT_ORIGIN.test(source)) origins.add(source.toLowerCase());
    else {
      const framer = framerOrigin();
      if (framer) origins.add(framer);
    }
  }
  return [...origins];
}

/** Posts `message` to the parent window, for each allowed host origin (the browser delivers it only to the one the parent has). */
export function postToHost(message: unknown): void {
  if (window.parent === window) return;
  for (const origin of hostOrigins()) window.parent.postMessage(message, origin);
}

/** Whether a message event comes from the parent window at an allowed host origin. */
export function fromHost(event: MessageEvent): boolean {
  return event.source === window.parent && hostOrigins().includes(event.origin);
}
