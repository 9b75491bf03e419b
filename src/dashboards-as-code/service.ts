import type { z } from "@hono/zod-openapi";
import { customerNotFound } from "../customers/not-found";
import type { CustomerViewRow } from "../customers/repository";
import type { Database } from "../db/client";
import { describePanels, type PanelColumns } from "../data/query-runner";
import type { Definition, PanelDefinition } from "../dashboards/definition";
import { customerTokenFingerprint, fingerprintMatches } from "../tokens/signed";
import { definitionForCustomer, type LoadedDashboard } from "../dashboards/customer-dashboard";
import { missingTranslations } from "../dashboards/translations";
import { definitionRuleErrors, openedDashboardsOf, schemaIdsOf } from "../dashboards/versions";
import type { Env } from "../env";
import { ApiError } from "../http/errors";
import { describeIssue } from "../http/validation";
import { randomHex } from "../lib/crypto";
import { DashboardFile } from "./file-schema";
import { signPreviewToken, verifyPreviewToken } from "../tokens/preview";
import { knownTheme } from "../themes/service";
import { computedPresentation, DEFAULT_LOCALE, resolvePresentation } from "../view/presentation";
import { translationsFor } from "../view/translations";
import * as repo from "./repository";

/** The theme of that name (case-insensitive, as tokens name them), as a list of none or one. */
function themeNamed<T extends { name: string }>(themes: T[], name: string): T[] {
  return themes.filter((t) => t.name.toLowerCase() === name.toLowerCase());
}

// ---- checks: what `dashboards validate` reports -------------------------------------------

/** One thing wrong with a dashboard file; `panel_index`/`panel_id` when a panel is to blame. */
export interface FileProblem {
  /** Dotted path in the file, e.g. `definition.panels.2.y_columns.0`. */
  field: string;
  panel_index: number | null;
  panel_id: string | null;
  message: string;
}

export interface FileCheck {
  valid: boolean;
  problems: FileProblem[];
  /** With a customer: each data panel whose query was prepared, with its result columns. */
  panels?: { id: string; columns: string[] }[];
}

function problem(file: unknown, field: (string | number)[], message: string): FileProblem {
  const [root, list, index] = field;
  const inPanel = root === "definition" && list === "panels" && typeof index === "number";
  const panels = (file as { definition?: { panels?: unknown } } | null)?.definition?.panels;
  const id = inPanel && Array.isArray(panels) ? (panels[index] as { id?: unknown } | undefined)?.id : undefined;
  return {
    field: field.join("."),
    panel_index: inPanel ? (index as number) : null,
    panel_id: typeof id === "string" ? id : null,
    message,
  };
}

/**
 * Every problem of a dashboard file, not just the first: the zod schema of the file (the one
 * saving a version applies to `definition`), the schemas its panels name, and — with a
 * customer — each data panel's query prepared on the data source that customer's computed
 * mapping assigns, when the customer's access group may use it (no row fetched), and the columns each chart names looked up in the
 * query's result columns. One D1 round trip, then one statement per panel on its source.
 */
export async function checkFile(
  db: Database,
  env: object,
  file: unknown,
  providedId?: string,
  asked: string[] = [],
  customerLocale = false,
): Promise<FileCheck> {
  const parsed = DashboardFile.safeParse(file);
  const definition = parsed.success ? parsed.data.definition : undefined;
  const [chain, schemas, sources, opened] = await db.batch([
    repo.chainByProvidedId(db, providedId ?? ""),
    repo.existingSchemas(db, definition ? schemaIdsOf(definition) : []),
    repo.dataSources(db),
    repo.existingDashboards(db, definition ? openedDashboardsOf(definition) : []),
  ]);
  if (providedId !== undefined && chain.length === 0) throw customerNotFound(providedId);
  const own = fileProblems(file, schemas, opened, asked);
  if (providedId === undefined || !own.ready) return { valid: own.problems.length === 0, problems: own.problems };
  return checkForCustomer(env, file, own.ready, chain, sources, asked, customerLocale);
}

/** A file's own problems (its schema, the rules of a saved version, the locales asked about); `ready` when it has none. */
export interface OwnProblems {
  problems: FileProblem[];
  /** The valid file's definition and name, to check for customers. */
  ready?: { definition: Definition; name: string };
}

/** What is wrong with the file whatever the customer: `schemas` and `opened` are what exists of those it names. */
export function fileProblems(
  file: unknown,
  schemas: Parameters<typeof definitionRuleErrors>[1],
  opened: Parameters<typeof definitionRuleErrors>[2],
  asked: string[],
): OwnProblems {
  const parsed = DashboardFile.safeParse(file);
  if (!parsed.success) return { problems: parsed.error.issues.map((issue) => issueProblem(file, issue)) };
  const { definition, name } = parsed.data;
  const problems: FileProblem[] = [];
  for (const error of definitionRuleErrors(definition, schemas, opened)) {
    problems.push(
      problem(
        file,
        (error.field ?? "").split(".").map((k) => (/^\d+$/.test(k) ? Number(k) : k)),
        error.message,
      ),
    );
  }
  // Texts with no translation for the locales asked about (`dashboards validate --locales de,fr`).
  for (const locale of asked) {
    for (const key of missingTranslations(definition, locale))
      problems.push(problem(file, ["definition", "translations", locale, key], `no ${locale} translation`));
  }
  return problems.length > 0 ? { problems } : { problems, ready: { definition, name } };
}

/**
 * A valid file checked for one customer (`chain`: the customer, then its ancestors): each data panel's query
 * prepared on its data source, the columns it names, and with `customerLocale` the customer's own locale.
 */
export async function checkForCustomer(
  env: object,
  file: unknown,
  ready: { definition: Definition; name: string },
  chain: CustomerViewRow[],
  sources: Parameters<typeof definitionForCustomer>[3],
  asked: string[],
  customerLocale: boolean,
): Promise<FileCheck> {
  const { definition } = ready;
  const providedId = chain[0].providedId;
  const problems: FileProblem[] = [];
  const loaded = definitionForCustomer(definition, ready.name, chain, sources, {}, []);
  // Only the sources the customer's access group may use: a mapping to any other is no data source, as on the page.
  const described = await describePanels(env, definition, loaded.mapping, loaded.sources, loaded.context);
  const panels: { id: string; columns: string[] }[] = [];
  definition.panels.forEach((panel, index) => {
    const result = described.get(panel.id);
    if (!result) return; // a text panel
    if (result.status === "ok") panels.push({ id: panel.id, columns: result.columns });
    for (const [field, message] of panelColumnProblems(panel, result, providedId))
      problems.push(problem(file, ["definition", "panels", index, ...field], message));
  });
  // With `customer_locale`, the customer's computed locale too — when the definition is translated into it (or
  // its language) at all: what such a translation lacks shows in the definition's own words. A locale the
  // definition has no translation for speaks the definition's own language, by design.
  const own = computedPresentation(chain).locale ?? DEFAULT_LOCALE;
  if (customerLocale && !asked.includes(own) && Object.keys(translationsFor(definition.translations, own)).length > 0) {
    for (const key of missingTranslations(definition, own))
      problems.push(problem(file, ["definition", "translations", own, key], `no ${own} translation (the customer's locale)`));
  }
  return { valid: problems.length === 0, problems, panels };
}

function issueProblem(file: unknown, issue: z.core.$ZodIssue): FileProblem {
  const { message } = describeIssue(issue, file);
  return problem(file, issue.path as (string | number)[], message);
}

/** What is wrong with one prepared data panel: no data source, a failing query, or a column it names that its query lacks. */
function panelColumnProblems(panel: PanelDefinition, result: PanelColumns, providedId: string): [(string | number)[], string][] {
  if (result.status === "no_mapping") return [[["schema_id"], `customer '${providedId}' has no data source for schema ${result.schemaId}`]];
  if (result.status === "failed") return [[["sql"], result.message.replace(/^The query failed/, "the query failed")]];
  const named: [(string | number)[], string][] =
    panel.type === "pie"
      ? [
          [["label_column"], panel.label_column],
          [["value_column"], panel.value_column],
        ]
      : panel.type === "bar" || panel.type === "line" || panel.type === "area"
        ? [[["x_column"], panel.x_column], ...panel.y_columns.map((c, i): [(string | number)[], string] => [["y_columns", i], c])]
        : [];
  // The columns a click takes its values from.
  const click = panel.on_click;
  if (click?.action === "filter" && click.column !== undefined) named.push([["on_click", "column"], click.column]);
  if (click?.action === "open")
    for (const [variable, column] of Object.entries(click.variables)) named.push([["on_click", "variables", variable], column]);
  const columns = new Set(result.columns);
  return named
    .filter(([, column]) => !columns.has(column))
    .map(([field, column]) => [field, `column '${column}' is not in the query's result (${result.columns.join(", ") || "no columns"})`]);
}

// ---- previews: an unsaved file drawn for one customer -------------------------------------

export const DEFAULT_PREVIEW_SECONDS = 900;

export interface PreviewRequest {
  provided_id: string;
  embed_id?: string;
  name?: string;
  definition: Definition;
  expires_in?: number;
  /** The view to draw it in (theme of the customer's access group by name, locale, time zone); each absent: the customer's own. */
  theme?: string;
  locale?: string;
  timezone?: string;
}

/** The embed id a preview link shows when the file names none. */
const UNSAVED_EMBED_ID = "unsaved";

/**
 * A signed, short-lived link that draws an unsaved definition for one customer exactly as
 * the embed page would, without saving a version: the definition waits in KV (keyed by the
 * hash of a random id) until the link expires. One D1 round trip and one KV write.
 */
export async function createPreview(db: Database, env: Env, baseUrl: string, input: PreviewRequest) {
  const [chain, schemas, opened, themes] = await db.batch([
    repo.chainByProvidedId(db, input.provided_id),
    repo.existingSchemas(db, schemaIdsOf(input.definition)),
    repo.existingDashboards(db, openedDashboardsOf(input.definition)),
    repo.themesOfProvidedId(db, input.provided_id),
  ]);
  if (chain.length === 0) throw customerNotFound(input.provided_id);
  const [unknown] = definitionRuleErrors(input.definition, schemas, opened);
  if (unknown) throw unknown;
  const presentation = {
    ...(input.theme !== undefined ? { theme: knownTheme(themeNamed(themes, input.theme), input.theme).name } : {}),
    ...(input.locale !== undefined ? { locale: input.locale } : {}),
    ...(input.timezone !== undefined ? { timezone: input.timezone } : {}),
  };
  const view = resolvePresentation(presentation, chain, themes);

  const embedId = input.embed_id ?? UNSAVED_EMBED_ID;
  const seconds = input.expires_in ?? DEFAULT_PREVIEW_SECONDS;
  const previewId = randomHex(16);
  await repo.storePreview(
    env.LINKS,
    previewId,
    { embed_id: embedId, name: input.name ?? input.definition.title ?? embedId, definition: input.definition, presentation },
    seconds,
  );
  const iat = Math.floor(Date.now() / 1000);
  const exp = iat + seconds;
  const token = await signPreviewToken(env, {
    pvw: previewId,
    cid: chain[0].id,
    ctv: await customerTokenFingerprint(chain[0].tokenHash),
    iat,
    exp,
  });
  return {
    token,
    expires_at: new Date(exp * 1000).toISOString(),
    preview_url: `${baseUrl}/preview/${encodeURIComponent(embedId)}?token=${token}`,
    // What the page is drawn in: the choice above, else the customer's computed values.
    view: { theme: view.theme?.name ?? null, locale: view.locale, timezone: view.timezone },
    themes: themes.map((t) => t.name),
  };
}

/**
 * The previewed dashboard, loaded for its customer; an ApiError `invalid_embed_token` when
 * the token is bad or expired, its preview gone, it was issued for another embed id, or the
 * customer's token was refreshed (or the customer deleted) since.
 */
export async function loadPreview(
  db: Database,
  env: Env,
  embedId: string,
  token: string,
  variables: Record<string, unknown>,
): Promise<LoadedDashboard> {
  const claims = await verifyPreviewToken(env, token);
  const preview = claims ? await repo.storedPreview(env.LINKS, claims.pvw) : null;
  if (!claims || !preview) throw new ApiError("invalid_embed_token", "This preview link is not valid or has expired.");
  if (preview.embed_id !== embedId) throw new ApiError("invalid_embed_token", "This preview link was issued for another dashboard.");
  const [chain, sources, themes] = await db.batch([
    repo.chainById(db, claims.cid),
    repo.dataSources(db),
    repo.themesOfCustomerId(db, claims.cid),
  ]);
  if (chain.length === 0 || !(await fingerprintMatches(claims, chain[0].tokenHash))) {
    throw new ApiError("invalid_embed_token", "This preview link is no longer valid (the customer token may have been refreshed).");
  }
  // A preview always reads fresh data, and leaves nothing in the query cache.
  const loaded = definitionForCustomer({ ...preview.definition, cache_ttl_seconds: 0 }, preview.name, chain, sources, variables, []);
  // Drawn as the customer's embed page would be: their group's themes, their computed view, unless the preview chose.
  return { ...loaded, view: resolvePresentation(preview.presentation ?? {}, chain, themes) };
}
