import { knownTheme } from "../themes/service";

/**
 * The presentation a token names, as claims: the theme by its name as stored (422
 * unknown_theme when the access group has none of that name), the locale and time zone as
 * the schema canonicalised them. Left out, the view takes the customer's computed values.
 */
export function presentationClaims(
  input: { theme?: string; locale?: string; timezone?: string },
  found: { id: number; name: string }[],
): { thm?: string; loc?: string; tz?: string } {
  return {
    ...(input.theme !== undefined ? { thm: knownTheme(found, input.theme).name } : {}),
    ...(input.locale !== undefined ? { loc: input.locale } : {}),
    ...(input.timezone !== undefined ? { tz: input.timezone } : {}),
  };
}
