import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/**
 * Wrangler's and miniflare's cache folder for this checkout (XDG_CACHE_HOME). Browser
 * Rendering starts Chrome from `<cache>/.wrangler/chrome/…`, where scripts/ensure-chrome.mjs
 * puts a wrapper that points at this checkout's Chromium. With the machine-wide
 * ~/.cache every checkout (a second clone, a git worktree, the clones tests make) rewrote
 * the one wrapper to its own node_modules, and deleting that checkout took the browser away
 * from all the others.
 */
export const projectCacheHome = join(root, ".wrangler", "xdg-cache");

/** `env` with XDG_CACHE_HOME set to this checkout's cache folder: for every wrangler/miniflare run. */
export function withProjectCacheHome(env = process.env) {
  return { ...env, XDG_CACHE_HOME: projectCacheHome };
}
