import { PANEL_STYLE } from "../dashboards/panel-style";
import { BUILTIN_PRESENTATION, type Presentation } from "../view/presentation";
import { logoImg, presentationCss } from "../view/style";
import { errorPage } from "../http/pages";
import { translator, wordsFor } from "../view/messages";
import type { Wording } from "../view/fill";
import { html, renderPage } from "../view/page-shell";

/**
 * The report builder page (docs/report-builder.md): a shell its script fills
 * (src/report-builder/browser/builder.ts, served at BUILDER_SCRIPT_PATH). What the script needs to start — the blueprint's datasets, its saved reports,
 * whether saving is allowed, the locked filters to name — rides in the page as JSON, so the
 * first result is one request away. Everything is inline CSS or served by the Worker; nothing comes from
 * another origin.
 */
export const BUILDER_SCRIPT_PATH = "/report-builder.js";

export interface BuilderDataset {
  name: string;
  /** In the view's locale (the table's translations), else `name`. */
  display_name?: string;
  description: string | null;
  columns: { name: string; display_name: string; type: string; can_be_grouped: boolean }[];
}

export interface BuilderPageInput {
  /** Theme, locale and time zone of the view (built-in when absent). */
  view?: Presentation;
  embedId: string;
  blueprintName: string;
  customerName: string;
  datasets: BuilderDataset[];
  canSave: boolean;
  lockedFilters: unknown[];
  /** The blueprint's saved reports, newest first (the list the page starts with). */
  reports: unknown[];
  /** `?report=<id>`: the saved report to open first. */
  report?: string;
}

/**
 * The `builder.*` words in the view's language, without their prefix: all the script needs of
 * it. Count messages keep their plural forms (the script picks one with Intl.PluralRules).
 */
export function builderWords(locale: string): Record<string, Wording> {
  const words: Record<string, Wording> = {};
  for (const [key, text] of Object.entries(wordsFor(locale))) if (key.startsWith("builder.")) words[key.slice(8)] = text;
  return words;
}

export function builderPage(input: BuilderPageInput): string {
  const view = input.view ?? BUILTIN_PRESENTATION;
  const words = builderWords(view.locale);
  const t = translator(view.locale);
  const boot = {
    locale: view.locale,
    words,
    base: `/report-builder/${encodeURIComponent(input.embedId)}`,
    can_save: input.canSave,
    datasets: input.datasets,
    locked_filters: input.lockedFilters,
    reports: input.reports,
    report: input.report ?? null,
  };
  return renderPage({
    root: view,
    title: `${input.blueprintName} – ${t("builder.title")}`,
    style: `${PANEL_STYLE}${STYLE}${input.view ? presentationCss(input.view, "swap") : ""}`,
    bodyAttributes: { "data-status": 200 },
    body: html`<main class="rb">
<header class="rb-head">${input.view ? logoImg(input.view) : ""}<h1>${input.blueprintName}</h1><p>${input.customerName}</p></header>
<div class="rb-layout">
<form id="rb-controls" class="rb-controls" aria-label="${t("builder.controls")}" novalidate></form>
<section id="rb-result" class="rb-result" aria-label="${t("builder.result")}" aria-busy="true">
<div class="rb-bar"><p id="rb-status" class="rb-status" role="status" aria-live="polite">${t("builder.loading")}</p>
<div id="rb-downloads" class="rb-downloads" hidden><button type="button" id="rb-csv">${t("builder.download_csv")}</button><button type="button" id="rb-xlsx">${t("builder.download_xlsx")}</button><span id="rb-download-status" class="hint" role="status"></span></div></div>
<div id="rb-message" class="rb-message" role="alert" hidden></div>
<div id="rb-chart-area" class="rb-chart-area"></div>
<div id="rb-table-area" class="rb-table-area"></div>
</section>
</div></main>
`,
    scripts: [{ json: boot, id: "rb-boot" }, { src: BUILDER_SCRIPT_PATH }],
  });
}

/** A page that is not a builder (401, 404): no data; the script only reports its status. */
export function builderErrorPage(title: string, text: string, status: number): string {
  return errorPage(title, text, status, { src: BUILDER_SCRIPT_PATH });
}

/**
 * After the dashboards' PANEL_STYLE (the chart is their panel markup), so the builder's own
 * table and controls win where both name an element. Controls beside the result from 760 px, stacked above it below. No `vh` units: the frame's
 * height follows the content, and content sized by the frame would chase itself.
 */
const STYLE = `
*{box-sizing:border-box}
html,body{margin:0;background:var(--cd-bg);color:var(--cd-text);font:14px/1.45 var(--cd-font)}
.rb{max-width:1400px;margin:0 auto;padding:16px 12px 24px}
.rb-head{display:flex;flex-wrap:wrap;align-items:baseline;justify-content:space-between;gap:4px 16px;margin:0 0 12px}
.rb-head h1{font-size:20px;font-weight:650;margin:0;overflow-wrap:anywhere;min-width:0}
.rb-head p{margin:0;color:var(--cd-muted);overflow-wrap:anywhere}
.rb-layout{display:grid;grid-template-columns:minmax(0,1fr);gap:12px}
@media (min-width:760px){.rb-layout{grid-template-columns:minmax(260px,340px) minmax(0,1fr);align-items:start}.rb{padding:20px 16px 28px}}
.rb-controls,.rb-result{background:var(--cd-surface);border:1px solid var(--cd-border);border-radius:var(--cd-radius);min-width:0}
.rb-controls{padding:4px 12px 12px}
.rb-result{padding:12px 14px;display:flex;flex-direction:column;gap:10px}
fieldset{border:0;margin:0;padding:0;min-width:0}
.group{padding:10px 0;border-bottom:1px solid var(--cd-border)}
.group:last-child{border-bottom:0}
legend{font-weight:650;font-size:13px;color:var(--cd-text);padding:0;margin:0 0 6px;float:left;width:100%}
legend+*{clear:left}
.choice{display:flex;align-items:flex-start;gap:8px;padding:3px 0;min-width:0}
.choice input{margin:3px 0 0;flex:none}
.choice label{display:flex;flex-direction:column;min-width:0;overflow-wrap:anywhere;cursor:pointer}
.choice.inline{display:inline-flex;margin-right:14px}
.choice-name{font-weight:600}
.choice-desc{color:var(--cd-muted);font-size:13px}
.row{display:flex;flex-wrap:wrap;align-items:flex-end;gap:6px 8px;margin:0 0 8px;min-width:0}
.pair{display:flex;flex-wrap:wrap;gap:6px 8px;min-width:0}
.field{display:flex;flex-direction:column;gap:2px;min-width:0;max-width:100%}
.field.grow{flex:1 1 10em}
.field label,.values legend{font-size:12px;color:var(--cd-muted);font-weight:500}
.values{flex-basis:100%}
select,input[type=text],input[type=number],input[type=date]{font:inherit;color:var(--cd-text);padding:5px 8px;border:1px solid var(--cd-border);border-radius:6px;background:var(--cd-surface);min-width:0;max-width:100%;min-height:32px}
input[type=number],input[type=date],input.date{width:10em}
input[aria-invalid=true]{border-color:#dc2626}
button{font:inherit;font-size:13px;font-weight:600;padding:5px 12px;min-height:32px;border:1px solid color-mix(in srgb,var(--cd-accent) 40%,var(--cd-surface));border-radius:6px;background:var(--cd-surface);color:var(--cd-link);cursor:pointer;max-width:100%;overflow-wrap:anywhere}
button:hover{background:color-mix(in srgb,var(--cd-accent) 8%,var(--cd-surface))}
button.primary{background:var(--cd-accent);border-color:var(--cd-accent);color:var(--cd-on-accent)}
button.primary:hover{background:color-mix(in srgb,var(--cd-accent) 85%,var(--cd-text))}
button.quiet{background:var(--cd-surface);border-color:var(--cd-border);color:var(--cd-muted)}
button.danger{background:#dc2626;border-color:#dc2626;color:#fff}
:focus-visible,input:focus,input:focus-within{outline:3px solid var(--cd-focus);outline-offset:2px}
.hint{color:var(--cd-muted);font-size:13px;margin:4px 0}
.notice{margin:0 0 8px;padding:6px 8px;background:#f0fdf4;border:1px solid #bbf7d0;border-radius:6px;color:#166534;overflow-wrap:anywhere}
.columns summary{cursor:pointer;color:var(--cd-link);font-size:13px;margin-top:6px}
.columns ul{list-style:none;margin:6px 0 0;padding:0}
.columns li{display:flex;flex-wrap:wrap;justify-content:space-between;gap:2px 8px;padding:3px 0;border-bottom:1px dashed var(--cd-border);overflow-wrap:anywhere}
.type{color:var(--cd-muted);font-size:12px}
.reports{list-style:none;margin:0 0 8px;padding:0}
.reports li{padding:6px 0;border-bottom:1px solid var(--cd-border);display:flex;flex-direction:column;gap:4px}
.report-name{display:flex;flex-wrap:wrap;align-items:center;gap:4px 8px;font-weight:600;overflow-wrap:anywhere;min-width:0}
.badge{font-size:11px;font-weight:700;text-transform:uppercase;letter-spacing:.04em;padding:0 6px;border-radius:4px;background:color-mix(in srgb,var(--cd-accent) 12%,var(--cd-surface));color:var(--cd-text)}
.badge.broken{background:#fee2e2;color:#991b1b}
.reason{color:color-mix(in srgb,#dc2626 45%,var(--cd-text));font-size:13px;overflow-wrap:anywhere}
.actions{display:flex;flex-wrap:wrap;gap:6px}
.confirm{display:flex;flex-wrap:wrap;align-items:center;gap:6px;padding:6px 8px;background:color-mix(in srgb,#dc2626 8%,var(--cd-surface));border:1px solid color-mix(in srgb,#dc2626 35%,var(--cd-surface));border-radius:6px;overflow-wrap:anywhere}
.save{margin-top:8px}
.rb-bar{display:flex;flex-wrap:wrap;align-items:center;justify-content:space-between;gap:6px 12px}
.rb-status{margin:0;font-weight:600;color:var(--cd-text)}
.rb-downloads{display:flex;flex-wrap:wrap;align-items:center;gap:6px}
.rb-downloads[hidden]{display:none}
.rb-message{padding:12px;border:1px solid #fcd34d;background:#fffbeb;color:#92400e;border-radius:8px;overflow-wrap:anywhere}
.rb-message p{margin:0 0 8px}
.rb-chart-area{min-width:0}
.chart-holder{min-width:0}
.chart-holder .panel{box-shadow:none}
.chart-holder svg{overflow:visible}
.rb-table-area{min-width:0}
.table-wrap{overflow:auto;max-height:480px;border:1px solid var(--cd-border);border-radius:8px}
table{width:100%;border-collapse:collapse;font-size:13px;font-variant-numeric:tabular-nums}
th{position:sticky;top:0;background:var(--cd-surface);text-align:left;border-bottom:1px solid var(--cd-border);padding:0}
th.num{text-align:right}
th .sort{all:unset;box-sizing:border-box;display:block;width:100%;padding:6px 10px;font-weight:600;color:var(--cd-text);cursor:pointer;white-space:nowrap}
th .sort:focus-visible{outline:3px solid var(--cd-focus);outline-offset:-3px}
td{padding:5px 10px;border-bottom:1px solid var(--cd-border);white-space:nowrap}
td.num{text-align:right}
.pick{cursor:pointer}
.chart-holder .pick:hover{opacity:.8}
.chart-holder .pick:focus-visible{outline:3px solid var(--cd-focus);outline-offset:1px;stroke:var(--cd-focus);stroke-width:3px}
.chart-holder .pick[aria-pressed=true]{stroke:var(--cd-text);stroke-width:2px}
tr.pickable{cursor:pointer}
tr.pickable:hover td{background:color-mix(in srgb,var(--cd-accent) 6%,var(--cd-surface))}
td .pick{all:unset;cursor:pointer;color:var(--cd-link);text-decoration:underline dotted;text-underline-offset:3px}
td .pick[aria-pressed=true]{font-weight:700;text-decoration-style:solid}
td .pick:focus-visible{outline:3px solid var(--cd-focus);outline-offset:2px}
.empty{color:var(--cd-muted);margin:8px 0}
[hidden]{display:none !important}
@media (prefers-reduced-motion:reduce){*,::before,::after{animation:none !important;transition:none !important;scroll-behavior:auto !important}}
`;
