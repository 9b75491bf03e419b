import type { OpenAPIHono } from "@hono/zod-openapi";
import { type Html, html, renderPage } from "../view/page-shell";

/** A self-contained, readable API reference rendered from the OpenAPI document (no external assets). */

/** The document `getOpenAPI31Document` builds (its types, without importing the generator's own package). */
type OpenApiDoc = ReturnType<OpenAPIHono["getOpenAPI31Document"]>;
type PathItem = NonNullable<OpenApiDoc["paths"]>[string];
type Operation = NonNullable<PathItem["get"]>;
/** A schema, or a `$ref` to one of `components.schemas`. */
type SchemaOrRef = NonNullable<NonNullable<OpenApiDoc["components"]>["schemas"]>[string];
type Schema = Exclude<SchemaOrRef, { $ref: string }>;

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;
type Method = (typeof METHODS)[number];
const isMethod = (key: string): key is Method => (METHODS as readonly string[]).includes(key);

/** The operations of a path item, in the document's order (a path item also holds other fields). */
function operations(item: PathItem): [Method, Operation][] {
  return Object.keys(item)
    .filter(isMethod)
    .flatMap((method): [Method, Operation][] => {
      const op = item[method];
      return op ? [[method, op]] : [];
    });
}

function isRef(schema: SchemaOrRef | object): schema is { $ref: string } {
  return "$ref" in schema && typeof schema.$ref === "string";
}

/** The component a `$ref` names: its last path segment. */
const refName = (ref: string): string => ref.slice(ref.lastIndexOf("/") + 1);

function resolve(doc: OpenApiDoc, schema: SchemaOrRef | undefined): Schema | undefined {
  if (schema && isRef(schema)) {
    const target = doc.components?.schemas?.[refName(schema.$ref)];
    return target && !isRef(target) ? target : undefined;
  }
  return schema;
}

function typeOf(doc: OpenApiDoc, schema: SchemaOrRef | undefined): string {
  if (!schema) return "";
  if (isRef(schema)) return refName(schema.$ref);
  if (schema.anyOf) return schema.anyOf.map((s) => typeOf(doc, s)).join(" | ");
  if (schema.enum) return schema.enum.map((v) => JSON.stringify(v)).join(" | ");
  if (schema.type === "array") return `${typeOf(doc, schema.items)}[]`;
  return Array.isArray(schema.type) ? schema.type.join(" | ") : (schema.type ?? "any");
}

function fieldsTable(doc: OpenApiDoc, schema: SchemaOrRef | undefined): Html | "" {
  const object = resolve(doc, schema);
  if (!object?.properties) return "";
  const rows = Object.entries(object.properties).map(([name, field]) => {
    const required = object.required?.includes(name) ? "required" : "";
    return html`<tr><td><code>${name}</code></td><td>${typeOf(doc, field)}</td><td>${required}</td><td>${resolve(doc, field)?.description ?? field.description ?? ""}</td></tr>`;
  });
  return html`<table><thead><tr><th>Field</th><th>Type</th><th></th><th>Notes</th></tr></thead><tbody>${rows}</tbody></table>`;
}

export function renderDocs(doc: OpenApiDoc): string {
  const byTag = new Map<string, Html[]>();
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of operations(item)) {
      const params = (op.parameters ?? [])
        .flatMap((p) => (isRef(p) ? [] : [p]))
        .map(
          (p) =>
            html`<li><code>${p.name}</code> (${p.in}${p.required ? ", required" : ""}) ${p.description ?? (p.schema && !isRef(p.schema) ? p.schema.description : undefined) ?? ""}</li>`,
        );
      const body = op.requestBody && !isRef(op.requestBody) ? op.requestBody.content["application/json"]?.schema : undefined;
      const section = html`<section class="op${op.deprecated ? " deprecated" : ""}">
        <h3><span class="method ${method}">${method.toUpperCase()}</span> <code>${path}</code>${op.deprecated ? html` <span class="badge">deprecated</span>` : ""}</h3>
        <p><strong>${op.summary ?? ""}</strong></p>
        ${op.description ? html`<p>${op.description}</p>` : ""}
        ${params.length > 0 ? html`<ul>${params}</ul>` : ""}
        ${body ? fieldsTable(doc, body) : ""}
      </section>`;
      const tag = op.tags?.[0] ?? "Other";
      byTag.set(tag, [...(byTag.get(tag) ?? []), section]);
    }
  }
  const nav = [...byTag.keys()].map((tag, i) => html`${i > 0 ? " · " : ""}<a href="#${encodeURIComponent(tag)}">${tag}</a>`);
  const content = [...byTag.entries()].map(([tag, sections]) => html`<h2 id="${encodeURIComponent(tag)}">${tag}</h2>${sections}`);
  return renderPage({
    root: { lang: "en" },
    title: `${doc.info.title} — API reference`,
    style: STYLE,
    body: html`<main>
<h1>${doc.info.title}</h1><p>Version ${doc.info.version} · <a href="/openapi.json">openapi.json</a> · <a href="/docs/explorer/">try calls in the API explorer</a></p>
<p>${doc.info.description ?? ""}</p><nav>${nav}</nav>${content}
</main>`,
  });
}

// White on each method's color, the badge's brown on its yellow: at least 4.5:1 (WCAG AA for
// 12 px text). A deprecated operation is told by its dashed border and badge, not by opacity,
// which would take its text below that contrast.
const STYLE = `
body{font:15px/1.5 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;color:#1f2937;background:#f8fafc}
main{max-width:960px;margin:0 auto;padding:24px}
h1{margin:0 0 4px}h2{margin-top:40px;border-bottom:1px solid #e5e7eb;padding-bottom:4px}
.op{background:#fff;border:1px solid #e5e7eb;border-radius:8px;padding:12px 16px;margin:12px 0}
.op h3{margin:0 0 6px;font-size:16px}.deprecated{background:#f8fafc;border-style:dashed}
.method{display:inline-block;min-width:56px;text-align:center;border-radius:4px;color:#fff;font-size:12px;padding:2px 6px}
.get{background:#1d4ed8}.post{background:#15803d}.put{background:#b45309}.delete{background:#b91c1c}
.badge{background:#fef3c7;color:#92400e;border-radius:4px;font-size:12px;padding:2px 6px}
table{border-collapse:collapse;width:100%;font-size:14px}td,th{border-top:1px solid #f1f5f9;padding:4px 8px;text-align:left;vertical-align:top}
code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:13px}
`;
