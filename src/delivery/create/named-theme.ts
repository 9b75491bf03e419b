import { exists } from "drizzle-orm";
import type { Database } from "../../db/client";
import { themeByName } from "../../themes/repository";
import { knownTheme } from "../../themes/service";
import type { JobRequest } from "../schemas";

// A delivery may name its own theme, locale and time zone (else its customer's are used). The
// theme is checked where the job is inserted: the insert's condition requires it (a refused
// request inserts nothing) and the batch's read of it says why (422 unknown_theme).

/** What a delivery request names for its view. */
export interface NamedPresentation {
  theme?: string;
  locale?: string;
  timezone?: string;
}

/** The job's `presentation` (absent when the request names none). */
export function jobPresentation(input: NamedPresentation): Pick<JobRequest, "presentation"> {
  const named = {
    ...(input.theme !== undefined ? { theme: input.theme } : {}),
    ...(input.locale !== undefined ? { locale: input.locale } : {}),
    ...(input.timezone !== undefined ? { timezone: input.timezone } : {}),
  };
  return Object.keys(named).length > 0 ? { presentation: named } : {};
}

/** The insert's condition: the named theme is the access group's (undefined when none is named). */
export function namedThemeExists(db: Database, accessGroupId: number, theme: string | undefined) {
  return theme === undefined ? undefined : exists(themeByName(db, accessGroupId, theme));
}

/** 422 unknown_theme when a theme was named and the access group's themes (`found`) have none of that name. */
export function checkNamedTheme(found: { id: number; name: string }[], theme: string | undefined): void {
  if (theme === undefined) return;
  knownTheme(
    found.filter((t) => t.name.toLowerCase() === theme.toLowerCase()),
    theme,
  );
}
