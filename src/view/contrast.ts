// WCAG 2.2 contrast (success criteria 1.4.3 and 1.4.11): relative luminance of sRGB colors
// and the ratio (L1 + 0.05) / (L2 + 0.05). A theme a reader could not read is refused.

/** Relative luminance of `#rrggbb`. */
export function luminance(hex: string): number {
  const channel = (offset: number) => {
    const c = Number.parseInt(hex.slice(offset, offset + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}

/** The contrast ratio of two `#rrggbb` colors, 1 to 21. */
export function contrastRatio(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

/** The rules a theme's colors must pass: a color, against which, at least which ratio. */
export const CONTRAST_RULES = [
  { color: "text", on: "background", minimum: 4.5 },
  { color: "text", on: "surface", minimum: 4.5 },
  { color: "muted_text", on: "surface", minimum: 3 },
] as const;

/**
 * The first rule the colors break, with the ratio they reach, or null. The ratio is compared
 * unrounded: 4.49 fails 4.5 (WCAG does not round up).
 */
export function firstContrastFailure(colors: { text: string; muted_text: string; background: string; surface: string }) {
  for (const rule of CONTRAST_RULES) {
    const ratio = contrastRatio(colors[rule.color], colors[rule.on]);
    if (ratio < rule.minimum) return { ...rule, ratio };
  }
  return null;
}
