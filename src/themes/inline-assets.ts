import { Buffer } from "node:buffer";
import { assetPath } from "../view/asset-url";
import { assetKey } from "./asset-path";
import type { Presentation } from "../view/presentation";

// A page drawn for a capture carries its theme's fonts and logo inline (data: URLs): the
// capture's tab loads the HTML without an origin, where `/theme-assets/<sha256>` resolves to
// nothing, and a capture must not depend on the browser reaching this service. The live pages
// keep the URLs (cached, immutable).

/** `html` with each of the view's fonts and its logo as a data: URL (unchanged for a theme without them). */
export async function inlineThemeAssets(files: R2Bucket, html: string, view: Presentation): Promise<string> {
  const doc = view.theme?.document;
  if (!doc) return html;
  const wanted = [...doc.fonts.map((f) => ({ sha256: f.sha256, type: "font/woff2" })), ...(doc.logo ? [doc.logo] : [])].map((a) => ({
    sha256: a.sha256,
    type: "content_type" in a ? a.content_type : a.type,
  }));
  if (wanted.length === 0) return html;
  const urls = new Map<string, string>();
  await Promise.all(
    wanted.map(async ({ sha256, type }) => {
      const object = await files.get(assetKey(sha256));
      if (!object) return; // gone from R2: the page falls back to the next font in the family list
      urls.set(assetPath(sha256), `data:${type};base64,${Buffer.from(await object.arrayBuffer()).toString("base64")}`);
    }),
  );
  let inlined = html;
  for (const [path, url] of urls) inlined = inlined.replaceAll(path, url);
  return inlined;
}
