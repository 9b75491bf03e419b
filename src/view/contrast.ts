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

/** `a` mixed with `b` as CSS `color-mix(in srgb, a (1-weight), b weight)` mixes them: each channel's sRGB value, rounded. */
export function mixColors(a: string, b: string, weight: number): string {
  const channel = (hex: string, offset: number) => Number.parseInt(hex.slice(offset, offset + 2), 16);
  const mixed = [1, 3, 5].map((offset) => Math.round(channel(a, offset) * (1 - weight) + channel(b, offset) * weight));
  return `#${mixed.map((c) => c.toString(16).padStart(2, "0")).join("")}`;
}

/**
 * `color` as a page may draw it on every one of `grounds` with at least `minimum` contrast:
 * itself when it reaches that already, else mixed toward `toward` (a theme's text color,
 * which reads on them) in steps of 5 % until it does. A theme's muted text may be 3:1 against
 * its surface (CONTRAST_RULES), but small text needs 4.5:1 (WCAG 1.4.3); an accent used as a
 * focus ring needs 3:1 against what it surrounds (WCAG 1.4.11).
 */
export function readableColor(color: string, grounds: readonly string[], minimum: number, toward: string): string {
  // Past `toward`, black or white (whichever reads on the first ground): a text color at the edge of its own rule.
  const extreme = contrastRatio("#000000", grounds[0]) >= contrastRatio("#ffffff", grounds[0]) ? "#000000" : "#ffffff";
  for (const [from, to] of [
    [color, toward],
    [toward, extreme],
  ]) {
    for (let step = 0; step <= 20; step++) {
      const candidate = mixColors(from, to, step / 20);
      if (grounds.every((ground) => contrastRatio(candidate, ground) >= minimum)) return candidate;
    }
  }
  return extreme;
}
