import { batchLists } from "../db/batch";
import type { Database } from "../db/client";
import { isUniqueViolation } from "../db/errors";
import { ApiError } from "../http/errors";
import { checkedAsset, type CheckedAsset, decodeBase64, MAX_FONT_BYTES, MAX_LOGO_BYTES, storeAssets } from "./assets";
import { checkImage, woff2Problem } from "./file-checks";
import { assetPath } from "../view/asset-url";
import { firstContrastFailure } from "../view/contrast";
import { BUILTIN_FONT_FAMILY, BUILTIN_RADIUS, PALETTES } from "../view/palette";
import type { ThemeDocument } from "../view/presentation";
import { assetKey } from "./asset-path";
import * as repo from "./repository";
import type { Theme, ThemeInput } from "./schemas";

// The theme operations' rules: colors resolved from the mode's palette, readable or refused
// (WCAG contrast), fonts and logo read to their end and stored once by content.

export interface ThemeScope {
  db: Database;
  files: R2Bucket;
  accessGroupId: number;
  /** This service's origin: the answer's font and logo URLs are absolute. */
  baseUrl: string;
}

export function themeNotFound(name: string, field = "name"): ApiError {
  return new ApiError("theme_not_found", `Theme '${name}' does not exist.`, field);
}

function themeExists(name: string, field: string): ApiError {
  return new ApiError("theme_exists", `A theme named '${name}' already exists.`, field);
}

/** The answer's shape: colors resolved, URLs absolute. */
export function toTheme(row: repo.ThemeRecord, baseUrl: string): Theme {
  const doc = row.document;
  return {
    name: row.name,
    is_default: row.isDefault,
    theme: {
      mode: doc.mode,
      colors: doc.colors,
      font_family: doc.font_family,
      radius: doc.radius,
      decals: doc.decals === true,
      fonts: doc.fonts.map((f) => ({ family: f.family, weight: f.weight, style: f.style, url: `${baseUrl}${assetPath(f.sha256)}` })),
      logo_url: doc.logo ? `${baseUrl}${assetPath(doc.logo.sha256)}` : null,
    },
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}

/**
 * The document to store and the files it names, or the first error: shape of the bytes
 * (400), format read to its end (422 invalid_font / invalid_image), contrast (422 theme_contrast_too_low).
 */
export async function resolveTheme(input: ThemeInput): Promise<{ document: ThemeDocument; assets: CheckedAsset[] }> {
  const palette = PALETTES[input.mode];
  const colors = { ...palette, ...input.colors };
  const failure = firstContrastFailure(colors);
  if (failure) {
    throw new ApiError(
      "theme_contrast_too_low",
      `The contrast of ${failure.color} (${colors[failure.color]}) on ${failure.on} (${colors[failure.on]}) is ${
        Math.floor(failure.ratio * 100) / 100
      }:1; at least ${failure.minimum}:1 is needed (WCAG 2.2).`,
      `theme.colors.${failure.color}`,
    );
  }
  const assets: CheckedAsset[] = [];
  const fonts: ThemeDocument["fonts"] = [];
  for (const [index, font] of input.fonts.entries()) {
    const field = `theme.fonts.${index}.woff2_base64`;
    const bytes = decodeBase64(font.woff2_base64, field, MAX_FONT_BYTES);
    const problem = woff2Problem(bytes);
    if (problem) throw new ApiError("invalid_font", `This is not a whole WOFF2 font file: ${problem}.`, field);
    const asset = await checkedAsset(bytes, "font/woff2");
    assets.push(asset);
    fonts.push({ family: font.family, weight: font.weight, style: font.style, sha256: asset.sha256 });
  }
  let logo: ThemeDocument["logo"] = null;
  if (input.logo_base64 !== undefined) {
    const field = "theme.logo_base64";
    const bytes = decodeBase64(input.logo_base64, field, MAX_LOGO_BYTES);
    const image = checkImage(bytes);
    if ("problem" in image)
      throw new ApiError("invalid_image", `The logo must be a whole PNG, JPEG or WebP image: ${image.problem}.`, field);
    const type = image.type;
    const asset = await checkedAsset(bytes, type);
    assets.push(asset);
    logo = { sha256: asset.sha256, content_type: type };
  }
  return {
    document: {
      mode: input.mode,
      colors,
      font_family: input.font_family ?? BUILTIN_FONT_FAMILY,
      radius: input.radius ?? BUILTIN_RADIUS,
      ...(input.decals ? { decals: true } : {}),
      fonts,
      logo,
    },
    assets,
  };
}

export async function listThemes(scope: Omit<ThemeScope, "files">): Promise<Theme[]> {
  const rows = await repo.themesOfGroup(scope.db, scope.accessGroupId);
  return rows.map((row) => toTheme(row, scope.baseUrl));
}

function themeLimitReached(): ApiError {
  return new ApiError(
    "theme_limit_reached",
    `An access group has at most ${repo.MAX_THEMES_PER_ACCESS_GROUP} themes; delete one (or change one) instead.`,
    "name",
  );
}

/** The migration's trigger refuses the insert past the limit (two creations racing cannot both win). */
const isThemeLimit = (error: unknown) => String((error as { message?: unknown })?.message ?? "").includes("theme_limit_reached");

export async function createTheme(scope: ThemeScope, input: { name: string; theme: ThemeInput; is_default?: boolean }): Promise<Theme> {
  const { document, assets } = await resolveTheme(input.theme);
  await storeAssets(scope.files, assets);
  const { db, accessGroupId } = scope;
  const isDefault = input.is_default ?? false;
  const clear = isDefault ? [repo.clearOtherDefaults(db, accessGroupId, repo.themeKey(input.name), "new")] : [];
  let created: repo.ThemeRecord | undefined;
  try {
    [, [[created]]] = await batchLists(db, [clear, [repo.insertTheme(db, { accessGroupId, name: input.name, isDefault, document })]]);
  } catch (error) {
    if (isThemeLimit(error)) throw themeLimitReached();
    throw error;
  }
  if (!created) throw themeExists(input.name, "name");
  // Again after the write: an orphan sweep of another call may have taken a shared file between the two.
  await storeAssets(scope.files, assets);
  return toTheme(created, scope.baseUrl);
}

/** The files a theme document names. */
const assetsOf = (document: ThemeDocument) => [...document.fonts.map((f) => f.sha256), ...(document.logo ? [document.logo.sha256] : [])];

/**
 * Deletes the files among `candidates` (those a changed or deleted theme named) that no theme
 * of any access group names any more — right after the write that let go of them. Safe to
 * repeat: deleting a file already gone does nothing, and a file still named is kept.
 */
async function deleteOrphanedAssets(db: Database, files: R2Bucket, candidates: string[]): Promise<void> {
  const unique = [...new Set(candidates)];
  if (unique.length === 0) return;
  const used = new Set((await repo.assetsInUse(db, unique)).map((row) => row.sha256));
  const orphans = unique.filter((sha256) => !used.has(sha256));
  if (orphans.length > 0) await files.delete(orphans.map(assetKey));
}

export async function updateTheme(
  scope: ThemeScope,
  input: { name: string; new_name?: string; theme?: ThemeInput; is_default?: boolean },
): Promise<Theme> {
  const resolved = input.theme ? await resolveTheme(input.theme) : undefined;
  if (resolved) await storeAssets(scope.files, resolved.assets);
  const { db, accessGroupId } = scope;
  const clear = input.is_default ? [repo.clearOtherDefaults(db, accessGroupId, repo.themeKey(input.name), "existing")] : [];
  const update = repo.updateTheme(db, accessGroupId, input.name, {
    name: input.new_name,
    isDefault: input.is_default,
    document: resolved?.document,
  });
  try {
    // The document before the update, in the same batch: the files it named may be orphans now.
    const [, [before, [updated]]] = await batchLists(db, [clear, [repo.themeByName(db, accessGroupId, input.name), update]]);
    if (!updated) throw themeNotFound(input.name);
    if (resolved) {
      await storeAssets(scope.files, resolved.assets);
      await deleteOrphanedAssets(
        db,
        scope.files,
        before.flatMap((row) => assetsOf(row.document)),
      );
    }
    return toTheme(updated, scope.baseUrl);
  } catch (error) {
    if (input.new_name !== undefined && isUniqueViolation(error, "themes.access_group_id")) throw themeExists(input.new_name, "new_name");
    throw error;
  }
}

export async function deleteTheme(scope: Omit<ThemeScope, "baseUrl">, name: string): Promise<void> {
  const { db, accessGroupId } = scope;
  const [before, deleted, existing] = await db.batch([
    repo.themeByName(db, accessGroupId, name),
    repo.deleteUnusedTheme(db, accessGroupId, name),
    repo.themeByName(db, accessGroupId, name),
  ]);
  if (deleted.length > 0) {
    await deleteOrphanedAssets(
      db,
      scope.files,
      before.flatMap((row) => assetsOf(row.document)),
    );
    return;
  }
  if (existing.length === 0) throw themeNotFound(name);
  throw new ApiError(
    "theme_in_use",
    `Theme '${existing[0].name}' is used by customers, schedules, alerts or subscriptions; have them name another theme (or none) first.`,
    "name",
  );
}

/** The id of a theme of the access group named by a customer, token or delivery, or 422 unknown_theme on `field`. */
export function knownTheme<T extends { id: number; name: string }>(found: T[], name: string, field = "theme"): T {
  if (found.length === 0) throw new ApiError("unknown_theme", `Theme '${name}' does not exist in this access group.`, field);
  return found[0];
}
