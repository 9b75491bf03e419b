// The built-in palettes: what a theme's `mode` fills missing colors from, and what a view
// without any theme wears (the light one). Both pass the contrast rules of ./contrast.ts
// (test/themes/themes.test.ts checks it through create_theme).

export interface ThemeColors {
  background: string;
  surface: string;
  text: string;
  muted_text: string;
  border: string;
  accent: string;
  series: string[];
}

export type ThemeMode = "light" | "dark";

export const BUILTIN_FONT_FAMILY = 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif';
export const BUILTIN_RADIUS = 12;

export const PALETTES: Record<ThemeMode, ThemeColors> = {
  light: {
    background: "#f4f6fb",
    surface: "#ffffff",
    text: "#0f172a",
    muted_text: "#64748b",
    border: "#e5e9f2",
    accent: "#4f46e5",
    series: ["#4f46e5", "#0ea5e9", "#10b981", "#f59e0b", "#ef4444", "#8b5cf6", "#14b8a6", "#f97316", "#64748b", "#ec4899"],
  },
  dark: {
    background: "#0b1020",
    surface: "#141a2e",
    text: "#e8ecf8",
    muted_text: "#a5b0cc",
    border: "#26304d",
    accent: "#7c9cff",
    series: ["#7c9cff", "#ff9f6e", "#3ddc97", "#f7c948", "#f472b6", "#38bdf8", "#a78bfa", "#fb7185", "#94a3b8", "#2dd4bf"],
  },
};
