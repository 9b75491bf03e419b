/**
 * `embed.js` and `/embed/v<major>.<minor>.js` (src/dashboards/embed-routes.ts): the elements of
 * ./embed-element.ts, defined for the service this script came from.
 *
 * `/embed.js` is served with the service's origin written over the placeholder below (quotes
 * included). The versioned file is served as built, the same bytes on every deployment (so its
 * SRI hash can be written in the docs): the placeholder stays and the origin is the one the
 * script element loaded it from. An element's own `service-url` wins over both.
 */
import { defineEmbedElements } from "./embed-element";

const SERVED_FROM: string = "__EMBED_SERVICE_ORIGIN__";

/** The service's origin: the one written in when served as /embed.js, else the script's own URL's. */
function serviceOrigin(): string | null {
  if (!SERVED_FROM.startsWith("__")) return SERVED_FROM;
  const script = document.currentScript;
  return script instanceof HTMLScriptElement && script.src ? script.src : null;
}

defineEmbedElements({ serviceUrl: serviceOrigin() });
