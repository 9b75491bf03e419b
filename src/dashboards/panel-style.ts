import { BUILTIN_THEME_CSS } from "../view/style";
import { GAP_PX, MAX_CONTENT_PX, PANEL_PAD_X, PANEL_PAD_Y, ROW_PX, STACK_BELOW_PX } from "./layout";

/** The CSS of dashboard pages (grid, panels, charts, tables), for pages that host `panelMarkup`. */
export const PANEL_STYLE = `${BUILTIN_THEME_CSS}
*{box-sizing:border-box}
.brand{display:flex;align-items:center;gap:10px;min-width:0}
html,body{margin:0;background:var(--cd-bg);color:var(--cd-text);font:14px/1.45 var(--cd-font)}
.dashboard{max-width:${MAX_CONTENT_PX + 32}px;margin:0 auto;padding:24px 16px 32px}
.dashboard-header{display:flex;flex-wrap:wrap;align-items:baseline;justify-content:space-between;gap:4px 16px;margin:0 0 16px}
.dashboard-header h1{font-size:22px;font-weight:650;margin:0;letter-spacing:-.01em;overflow-wrap:anywhere;min-width:0}
.dashboard-header p{margin:0;color:var(--cd-muted);font-size:14px;overflow-wrap:anywhere}
.controls{display:flex;flex-wrap:wrap;align-items:flex-end;gap:8px 12px;margin:0 0 16px;padding:10px 12px;background:var(--cd-surface);border:1px solid var(--cd-border);border-radius:var(--cd-radius)}
.control{display:flex;flex-direction:column;gap:2px;font-size:12px;color:var(--cd-muted);min-width:0;max-width:100%}
.control input,.control select{font:inherit;font-size:14px;color:var(--cd-text);padding:5px 8px;border:1px solid var(--cd-border);border-radius:6px;background:var(--cd-surface);min-width:0;max-width:100%}
.control input.date{width:10em}
.control input[aria-invalid=true]{border-color:#dc2626}
.controls button{font:inherit;font-size:14px;font-weight:600;padding:6px 14px;border:0;border-radius:6px;background:var(--cd-accent);color:var(--cd-on-accent);cursor:pointer}
.grid{display:grid;grid-template-columns:repeat(12,minmax(0,1fr));grid-auto-rows:${ROW_PX}px;gap:${GAP_PX}px}
.panel{position:relative;display:flex;flex-direction:column;min-width:0;background:var(--cd-surface);border:1px solid var(--cd-border);border-radius:var(--cd-radius);padding:${PANEL_PAD_Y}px ${PANEL_PAD_X}px;box-shadow:0 1px 2px rgba(15,23,42,.04);overflow:hidden;break-inside:avoid;page-break-inside:avoid}
.panel-head{display:flex;flex-wrap:wrap;align-items:flex-start;gap:4px 8px;margin:0 0 8px;min-width:0}
.panel h2{flex:1 1 9em;margin:0;font-size:13px;line-height:1.45;font-weight:600;color:var(--cd-muted);overflow-wrap:anywhere;min-width:0}
.body{flex:1;min-height:0;min-width:0;display:flex;flex-direction:column}
.chart{display:block;flex:1;min-height:0;width:100%;height:100%}
.kpi-value{margin-top:auto;margin-bottom:auto;font-size:34px;line-height:1.3;font-weight:700;letter-spacing:-.02em;color:var(--cd-text);font-variant-numeric:tabular-nums;overflow-wrap:anywhere}
.panel-text .body{color:var(--cd-text);font-size:15px;overflow-wrap:anywhere}.panel-text p{margin:0 0 8px}
h1,h2,.dashboard-header p,.panel-text p{unicode-bidi:plaintext}[dir=rtl] h1,[dir=rtl] h2{text-align:right}
.table-wrap{flex:1;min-height:0;min-width:0;overflow:auto}
table{width:100%;border-collapse:collapse;font-size:13px;font-variant-numeric:tabular-nums}
th{position:sticky;top:0;background:color-mix(in srgb,var(--cd-surface) 94%,var(--cd-text));color:var(--cd-muted);font-weight:600;text-align:start;padding:6px 10px;border-bottom:1px solid var(--cd-border);white-space:nowrap}
td{padding:6px 10px;border-bottom:1px solid color-mix(in srgb,var(--cd-border) 60%,var(--cd-surface));white-space:nowrap}
.still th,.still td{white-space:normal;overflow-wrap:break-word}
.num{text-align:end}
[dir=rtl] .chart{direction:ltr}
[dir=rtl] td.num{direction:ltr;text-align:left}
tbody tr:nth-child(even) td{background:color-mix(in srgb,var(--cd-surface) 98%,var(--cd-text))}
.note{margin:6px 0 0;color:var(--cd-muted);font-size:12px}
.message{margin:auto;max-width:90%;text-align:center;color:var(--cd-muted);font-size:13px;padding:12px;border:1px dashed var(--cd-border);border-radius:8px;background:var(--cd-surface);overflow-wrap:anywhere}
.message-failed{color:#b45309;border-color:#fcd34d;background:#fffbeb}
.demo-mark{flex:none;font-size:10px;font-weight:700;letter-spacing:.12em;color:var(--cd-muted);border:1px solid var(--cd-border);border-radius:4px;padding:1px 6px;background:var(--cd-surface)}
.csv{flex:none;font-size:11px;font-weight:600;color:var(--cd-link);text-decoration:none;border:1px solid color-mix(in srgb,var(--cd-accent) 35%,var(--cd-surface));border-radius:4px;padding:1px 6px}
.csv:hover{background:color-mix(in srgb,var(--cd-accent) 10%,var(--cd-surface))}
.stacked .grid{grid-template-columns:minmax(0,1fr);grid-auto-rows:auto}
.stacked .panel:not(.panel-text){min-height:${ROW_PX * 2 + GAP_PX}px}
.stacked .panel-table .body{max-height:var(--panel-h)}
@media (max-width:${STACK_BELOW_PX - 0.02}px){
.grid{grid-template-columns:minmax(0,1fr);grid-auto-rows:auto}
.panel{grid-column:1 / -1 !important;grid-row:auto !important;min-height:var(--panel-h)}
}
@media print{.panel{box-shadow:none}.controls,.csv{display:none}}
:focus-visible{outline:3px solid var(--cd-focus);outline-offset:2px}
@media (prefers-reduced-motion:reduce){*,::before,::after{animation:none !important;transition:none !important;scroll-behavior:auto !important}}
`;
