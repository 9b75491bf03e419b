import { z } from "@hono/zod-openapi";
import { directionOf } from "./messages";
import { BUILTIN_FONT_FAMILY, BUILTIN_RADIUS, PALETTES, type ThemeColors, type ThemeMode } from "./palette";

// The presentation of one view — theme, locale, time zone — resolved once and carried to
// every renderer (embed and share pages, the report builder, captures, e-mails, the
// subscribe control and the unsubscribe page). Where each comes from, first hit wins:
// the token's or the delivery's own value, the customer's computed value (its own, else the
// nearest ancestor's), the access group's default theme, the built-in default.

export const DEFAULT_LOCALE = "en-US";
export const DEFAULT_TIMEZONE = "UTC";
/** `data-theme` of a view in the built-in theme. */
export const BUILTIN_THEME = "builtin";

/** The theme as stored: every color resolved; fonts and logo by their SHA-256 in R2. */
export interface ThemeDocument {
  mode: ThemeMode;
  colors: ThemeColors;
  font_family: string;
  radius: number;
  /** Series drawn with patterns as well as colors (docs/accessibility.md); absent in documents stored before it: false. */
  decals?: boolean;
  fonts: { family: string; weight: number; style: "normal" | "italic"; sha256: string }[];
  logo: { sha256: string; content_type: string } | null;
}

/** A theme as the resolver reads it (one access group's). */
export interface ThemeRow {
  id: number;
  name: string;
  isDefault: boolean;
  document: ThemeDocument;
}

/** What a view is shown in. `theme` null is the built-in light theme. */
export interface Presentation {
  theme: { name: string; document: ThemeDocument } | null;
  locale: string;
  timezone: string;
  dir: "ltr" | "rtl";
}

/** What a token, a delivery or a rule may name for its views (undefined or null: not named). */
export interface PresentationChoice {
  theme?: string | null;
  locale?: string | null;
  timezone?: string | null;
}

/** A customer of a chain as far as its presentation goes (the customer first, then each ancestor). */
export interface PresentationLink {
  themeId: number | null;
  locale: string | null;
  timezone: string | null;
}

/** The built-in presentation: what a page shows before anything is known (an error page). */
export const BUILTIN_PRESENTATION: Presentation = { theme: null, locale: DEFAULT_LOCALE, timezone: DEFAULT_TIMEZONE, dir: "ltr" };

/** The built-in light theme as a document (a view without a theme is drawn with it). */
export const BUILTIN_DOCUMENT: ThemeDocument = {
  mode: "light",
  colors: PALETTES.light,
  font_family: BUILTIN_FONT_FAMILY,
  radius: BUILTIN_RADIUS,
  fonts: [],
  logo: null,
};

// ---- the fields ---------------------------------------------------------------------------

/** A BCP 47 tag, answered canonicalised as Intl.getCanonicalLocales does (`de-de` → `de-DE`). */
export const Locale = z
  .string()
  .min(2)
  .max(64)
  .transform((value, ctx) => {
    try {
      const [canonical] = Intl.getCanonicalLocales(value);
      if (canonical) return canonical;
    } catch {
      /* a RangeError: not a well-formed tag */
    }
    ctx.addIssue({ code: "custom", message: "must be a BCP 47 language tag such as de-DE" });
    return z.NEVER;
  })
  .openapi({ type: "string", description: "A BCP 47 language tag (canonicalised, e.g. `de-DE`).", example: "de-DE" });

/**
 * An IANA time zone the runtime knows, answered in its canonical spelling: the one time-zone
 * field of the API (customers, tokens, deliveries, schedules and alerts, subscriptions).
 */
export const TimeZone = z
  .string()
  .min(1)
  .max(64)
  .transform((value, ctx) => {
    const zone = canonicalTimeZone(value);
    if (zone !== null) return zone;
    ctx.addIssue({ code: "custom", message: "must be an IANA time zone such as Europe/Berlin" });
    return z.NEVER;
  })
  .openapi({ type: "string", description: "An IANA time zone name.", example: "Europe/Berlin" });

/** A theme of the caller's access group, by name (422 `unknown_theme` when there is none). */
export const ThemeReference = z
  .string()
  .min(1)
  .max(64)
  .openapi({ description: "The name of a theme of the access group (`GET /api/themes/`).", example: "Acme dark" });

/**
 * A zone's spelling when the runtime knows it by that name (`europe/berlin` → `Europe/Berlin`),
 * else null. Only the case is mended: a name the runtime resolves to another one (its older
 * alias: `Asia/Kolkata` → `Asia/Calcutta`) stays the name the caller gave, which is the IANA one.
 */
export function canonicalTimeZone(value: string): string | null {
  // Offsets (`+01:00`) are accepted by newer runtimes but are not zone names.
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(value)) return null;
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat("en-US", { timeZone: value }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
  if (resolved.toLowerCase() === value.toLowerCase()) return resolved;
  return zoneNames().get(value.toLowerCase()) ?? value;
}

let knownZones: Map<string, string> | undefined;

/** The runtime's zone names by their lower-cased spelling (read once per isolate). */
function zoneNames(): Map<string, string> {
  knownZones ??= new Map(Intl.supportedValuesOf("timeZone").map((zone) => [zone.toLowerCase(), zone]));
  return knownZones;
}

/** The presentation fields a token, a delivery, a schedule or an alert takes (all optional). */
export const presentationFields = {
  theme: ThemeReference.optional(),
  locale: Locale.optional(),
  timezone: TimeZone.optional(),
};

// ---- resolution -----------------------------------------------------------------------------

/** The nearest value of each field along a chain (the customer's own first), null when none. */
export function computedPresentation(chain: readonly PresentationLink[]): PresentationLink {
  const nearest = <K extends keyof PresentationLink>(key: K) => chain.find((link) => link[key] !== null)?.[key] ?? null;
  return { themeId: nearest("themeId"), locale: nearest("locale"), timezone: nearest("timezone") };
}

/**
 * The one resolution of a view's presentation. `choice` is the token's or the delivery's;
 * `chain` the viewing customer's; `themes` its access group's. A named theme that no longer
 * exists (renamed or deleted since the token was minted) falls through to the customer's.
 */
export function resolvePresentation(
  choice: PresentationChoice,
  chain: readonly PresentationLink[],
  themes: readonly ThemeRow[],
): Presentation {
  const computed = computedPresentation(chain);
  const named = choice.theme ? themes.find((t) => t.name.toLowerCase() === choice.theme?.toLowerCase()) : undefined;
  const theme =
    named ?? (computed.themeId !== null ? themes.find((t) => t.id === computed.themeId) : undefined) ?? themes.find((t) => t.isDefault);
  const locale = choice.locale ?? computed.locale ?? DEFAULT_LOCALE;
  return {
    theme: theme ? { name: theme.name, document: theme.document } : null,
    locale,
    timezone: choice.timezone ?? computed.timezone ?? DEFAULT_TIMEZONE,
    dir: directionOf(locale),
  };
}

/** The theme document a presentation draws with (the built-in one when it names none). */
export function documentOf(presentation: Presentation): ThemeDocument {
  return presentation.theme?.document ?? BUILTIN_DOCUMENT;
}
