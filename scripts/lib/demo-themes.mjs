// The demo's themes (examples/themes/): a light brand and a dark one with its own font (Open
// Sans, Apache 2.0, as "Acme Sans") and logo. `npm start` creates them through the public API,
// as a vendor would; the e2e tests and docs/theming.md's screenshots use them.
import { readFileSync } from "node:fs";
import { join } from "node:path";

const dir = join(import.meta.dirname, "..", "..", "examples", "themes");
const base64 = (file) => readFileSync(join(dir, file)).toString("base64");

export const DARK_THEME = "Acme night";
export const LIGHT_THEME = "Acme light";

/** The `create_theme` bodies of the demo's two themes. */
export function demoThemes() {
  const logo_base64 = base64("acme-logo.png");
  return [
    {
      name: LIGHT_THEME,
      theme: {
        mode: "light",
        colors: { accent: "#0f766e", series: ["#0f766e", "#f59e0b", "#6366f1", "#e11d48"] },
        radius: 4,
        logo_base64,
      },
    },
    {
      name: DARK_THEME,
      theme: {
        mode: "dark",
        colors: {
          background: "#0b1020",
          surface: "#141a2e",
          text: "#e8ecf8",
          muted_text: "#a5b0cc",
          border: "#26304d",
          accent: "#7c9cff",
          series: ["#7c9cff", "#ff9f6e", "#3ddc97", "#f7c948"],
        },
        font_family: '"Acme Sans", system-ui, sans-serif',
        radius: 12,
        fonts: [{ family: "Acme Sans", weight: 400, style: "normal", woff2_base64: base64("open-sans-regular.woff2") }],
        logo_base64,
      },
    },
  ];
}
