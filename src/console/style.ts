// The console's stylesheet: plain CSS, system fonts, no asset from anywhere. Contrast of
// every text and control meets WCAG 2.2 AA on its background; focus is always visible.
export const CONSOLE_STYLE = `
:root{--ink:#1f2937;--muted:#4b5563;--line:#d1d5db;--paper:#fff;--ground:#f3f4f6;--accent:#1d4ed8;--danger:#b91c1c;--ok:#166534;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--ink);background:var(--ground)}
*{box-sizing:border-box}body{margin:0}
a{color:var(--accent)}
:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
.skip{position:absolute;left:-999px}.skip:focus{left:8px;top:8px;background:var(--paper);padding:4px 8px;z-index:10}
.bar{display:flex;align-items:center;gap:12px;padding:8px 16px;background:var(--paper);border-bottom:1px solid var(--line)}
.bar h1{font-size:17px;margin:0;flex:1}.bar h1 a{color:var(--ink);text-decoration:none}
main{padding:16px;max-width:1440px;margin:0 auto}
h2{font-size:18px;margin:0 0 12px}h3{font-size:15px;margin:16px 0 8px}
button,input,select,textarea{font:inherit;color:inherit}
button{background:var(--paper);border:1px solid #6b7280;border-radius:6px;padding:6px 12px;cursor:pointer;min-height:32px}
button.primary{background:var(--accent);border-color:var(--accent);color:#fff}
button.danger{border-color:var(--danger);color:var(--danger)}
button:disabled{opacity:.6;cursor:default}
input,select,textarea{border:1px solid #6b7280;border-radius:6px;padding:6px 8px;background:var(--paper);min-height:32px;max-width:100%}
textarea{width:100%;font-family:ui-monospace,Menlo,Consolas,monospace;font-size:13px}
label{display:block;font-weight:600;margin:8px 0 2px}
.error{color:var(--danger);margin:4px 0;min-height:0}.error:empty{display:none}
.note{color:var(--muted)}
.sign-in{max-width:380px;width:calc(100% - 24px);margin:12vh auto;background:var(--paper);padding:24px;border:1px solid var(--line);border-radius:12px}
.sign-in h1{font-size:20px;margin:0 0 12px}.sign-in input{width:100%}.sign-in button{margin-top:12px}
table{border-collapse:collapse;width:100%;background:var(--paper)}
th,td{text-align:left;padding:6px 8px;border-bottom:1px solid var(--line);vertical-align:top;overflow-wrap:anywhere}
th{font-weight:600;background:#e5e7eb}
.scroll{overflow-x:auto;margin:0 0 12px}.scroll th,.scroll td{overflow-wrap:normal}.scroll td{min-width:6em}
tbody tr.open{cursor:pointer}tbody tr.open:hover{background:#eef2ff}
.toolbar{display:flex;flex-wrap:wrap;gap:8px;align-items:end;margin:0 0 12px}
.toolbar label{margin:0 0 2px}
.card{background:var(--paper);border:1px solid var(--line);border-radius:10px;padding:12px;margin:0 0 12px;min-width:0}
.editor{display:grid;grid-template-columns:minmax(0,5fr) minmax(0,7fr);gap:12px}
@media (max-width:900px){.editor{grid-template-columns:minmax(0,1fr)}}
[role=tablist]{display:flex;gap:4px;margin:0 0 8px}
[role=tab][aria-selected=true]{background:var(--accent);border-color:var(--accent);color:#fff}
.panels{list-style:none;margin:0 0 8px;padding:0;border:1px solid var(--line);border-radius:6px;max-height:220px;overflow:auto}
.panels li{padding:6px 8px;cursor:pointer;border-bottom:1px solid var(--line)}
.panels li[aria-selected=true]{background:#dbeafe;font-weight:600}
.field{margin:0 0 6px}.field input,.field select,.field textarea{width:100%}
.field .error{font-size:13px}
fieldset{border:1px solid var(--line);border-radius:6px;margin:8px 0;padding:4px 8px 8px}legend{font-weight:600;padding:0 4px}
.grid{position:relative;display:grid;grid-template-columns:repeat(12,minmax(0,1fr));grid-auto-rows:36px;gap:4px;background:#e5e7eb;padding:4px;border-radius:6px;touch-action:none}
.cell{position:relative;background:var(--paper);border:1px solid #6b7280;border-radius:4px;overflow:hidden;font-size:13px;display:flex;flex-direction:column}
.cell .head{background:#e0e7ff;padding:1px 6px;line-height:1.3;cursor:move;font-weight:600;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.cell .size{position:absolute;right:0;bottom:0;width:14px;height:14px;cursor:nwse-resize;background:linear-gradient(135deg,transparent 50%,#374151 50%)}
.cell[aria-current=true]{border:2px solid var(--accent)}
.cell .where{padding:0 6px;color:var(--muted);font-size:12px;line-height:1.2;white-space:nowrap;overflow:hidden}
.preview-status{margin:4px 0 8px}
.preview-frame{width:100%;height:640px;border:1px solid var(--line);border-radius:6px;background:var(--paper)}
[role=progressbar]{height:14px;background:#e5e7eb;border-radius:7px;overflow:hidden;margin:6px 0}
[role=progressbar] span{display:block;height:100%;background:var(--accent)}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f9fafb;border:1px solid var(--line);border-radius:6px;padding:8px;font-size:13px}
.combobox{position:relative}
.combobox [role=listbox]{position:absolute;z-index:5;left:0;right:0;margin:0;padding:0;list-style:none;background:var(--paper);border:1px solid #6b7280;border-radius:6px;max-height:240px;overflow:auto}
.combobox [role=option]{padding:6px 8px;cursor:pointer}.combobox [role=option][aria-selected=true]{background:#dbeafe}
.row{display:flex;flex-wrap:wrap;gap:8px;align-items:end}.row .field{flex:1 1 140px}
dialog{border:1px solid var(--line);border-radius:10px;max-width:480px}
`;
