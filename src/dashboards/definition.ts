import { z } from "@hono/zod-openapi";
import { MAX_CACHE_TTL_SECONDS } from "../data/query-cache";
import { placeholderProblem } from "../data/placeholders";

/**
 * For the JSON Schema only (the API runs the real checks): a read statement starts, after
 * blanks and comments, with SELECT, WITH or VALUES; and a placeholder names something the
 * renderer can resolve. Both say no more than the API does, so an editor never flags a
 * definition the API accepts.
 */
const READ_STATEMENT_START =
  "^(?:\\s|--[^\\n]*(?:\\n|$)|/\\*[\\s\\S]*?\\*/)*(?:[Ss][Ee][Ll][Ee][Cc][Tt]|[Ww][Ii][Tt][Hh]|[Vv][Aa][Ll][Uu][Ee][Ss])(?![A-Za-z0-9_])";
const PATH_TAIL = "(?:\\.[A-Za-z0-9_-]+)";
const UNKNOWN_PLACEHOLDER = `\\{\\{\\s*(?!(?:customer\\.provided_id|customer\\.name|customer\\.properties${PATH_TAIL}+|variables${PATH_TAIL}+)\\s*\\}\\})[A-Za-z_][A-Za-z0-9_]*${PATH_TAIL}*\\s*\\}\\}`;

export const PANEL_TYPES = ["kpi", "table", "bar", "line", "area", "pie", "text"] as const;
export type PanelType = (typeof PANEL_TYPES)[number];

/**
 * The fields each panel type needs besides id, type and layout: one table for the API's
 * check and for the JSON Schema of dashboard files (src/dashboards-as-code), so an editor
 * asks for exactly what a save would.
 */
export const PANEL_NEEDS: Record<PanelType, readonly string[]> = {
  text: ["text"],
  kpi: ["schema_id", "sql"],
  table: ["schema_id", "sql"],
  bar: ["schema_id", "sql", "x_column", "y_columns"],
  line: ["schema_id", "sql", "x_column", "y_columns"],
  area: ["schema_id", "sql", "x_column", "y_columns"],
  pie: ["schema_id", "sql", "label_column", "value_column"],
};

export const GRID_COLUMNS = 12;

/**
 * What a refinement checks that a JSON Schema can say too, by the zod schema it belongs to:
 * added to that schema's JSON Schema when the file schema is generated (zod cannot turn a
 * refinement into JSON Schema by itself).
 */
export const jsonSchemaRules = new Map<z.ZodType, (json: Record<string, unknown>) => void>();

const Layout = z
  .object({
    x: z
      .number()
      .int()
      .min(0)
      .max(GRID_COLUMNS - 1)
      .meta({ description: "Column of the left edge, 0–11." }),
    y: z.number().int().min(0).max(500).meta({ description: "Row of the top edge (rows are 64 px)." }),
    w: z.number().int().min(1).max(GRID_COLUMNS).meta({ description: "Width in columns, 1–12; x + w is at most 12." }),
    h: z.number().int().min(1).max(40).meta({ description: "Height in rows, 1–40." }),
  })
  .refine((l) => l.x + l.w <= GRID_COLUMNS, { message: "x + w must be at most 12 (the grid has 12 columns)", path: ["w"] })
  .meta({ description: "Place on the 12-column grid." });
jsonSchemaRules.set(Layout, (json) => {
  // x + w ≤ 12 without arithmetic: for each x, the widest w.
  json.allOf = Array.from({ length: GRID_COLUMNS }, (_, x) => ({
    if: { properties: { x: { const: x } }, required: ["x"] },
    then: { properties: { w: { maximum: GRID_COLUMNS - x } } },
  }));
});

const Format = z
  .looseObject({
    style: z.enum(["number", "currency", "percent"]).optional(),
    currency: z.string().max(100).optional(),
    decimals: z.number().int().min(0).max(6).optional(),
    prefix: z.string().max(20).optional(),
    suffix: z.string().max(20).optional(),
  })
  .optional();

/** A filter control shown above the panels (a `var_<name>` field of a GET form). */
const Control = z
  .object({
    type: z.enum(["date", "text", "select"]),
    label: z.string().max(100).optional(),
    options: z.array(z.string().max(200)).min(1).max(200).optional(),
  })
  .superRefine((control, ctx) => {
    if (control.type === "select" && control.options === undefined) {
      ctx.addIssue({ code: "custom", path: ["options"], message: "a select control needs options" });
    }
  });
jsonSchemaRules.set(Control, (json) => {
  json.if = { properties: { type: { const: "select" } }, required: ["type"] };
  json.then = { required: ["options"] };
});

const Panel = z
  .looseObject({
    id: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,64}$/, "panel ids are 1–64 letters, digits, '_' or '-'")
      .meta({ description: "Unique within the dashboard: names the panel in CSV links, alerts and `dashboards diff`." }),
    type: z
      .enum(PANEL_TYPES, { error: (issue) => `unknown panel type '${String(issue.input)}'; use one of ${PANEL_TYPES.join(", ")}` })
      .meta({
        description:
          "kpi (the first row's `value`), table (every column), bar/line/area (x_column, y_columns), pie (label_column, value_column) or text.",
      }),
    title: z.string().max(200).default("").meta({ description: "Shown above the panel; placeholders are interpolated, HTML-escaped." }),
    layout: Layout,
    schema_id: z
      .number()
      .int()
      .positive()
      .optional()
      .meta({ description: "Data panels: the schema whose data source (per the viewing customer's mapping) runs `sql`." }),
    sql: z.string().max(20_000).optional().meta({
      description:
        "Data panels: one read-only SELECT / WITH … SELECT / VALUES; placeholders such as {{customer.provided_id}} are bound as parameters.",
    }),
    text: z
      .string()
      .max(20_000)
      .optional()
      .meta({ description: "Text panels: paragraphs separated by blank lines; placeholders interpolated, HTML-escaped." }),
    x_column: z.string().min(1).optional().meta({ description: "bar, line, area: the result column along the x axis." }),
    y_columns: z
      .array(z.string().min(1))
      .min(1)
      .max(12)
      .optional()
      .meta({ description: "bar, line, area: the result columns drawn as series (1–12)." }),
    label_column: z.string().min(1).optional().meta({ description: "pie: the result column naming each slice." }),
    value_column: z.string().min(1).optional().meta({ description: "pie: the result column sizing each slice." }),
    format: Format,
  })
  .superRefine((panel, ctx) => {
    // Zod runs this only on a panel whose fields passed; the guard keeps it safe regardless.
    if (!Object.hasOwn(PANEL_NEEDS, panel.type)) return;
    for (const key of PANEL_NEEDS[panel.type]) {
      const value = (panel as Record<string, unknown>)[key];
      if (value === undefined || (key === "sql" && String(value).trim() === "")) {
        ctx.addIssue({ code: "custom", path: [key], message: `a ${panel.type} panel needs ${key}` });
      }
    }
    if (panel.type === "text") {
      const problem = panel.text === undefined ? null : placeholderProblem(panel.text);
      if (problem) ctx.addIssue({ code: "custom", path: ["text"], message: problem });
      return;
    }
    if (panel.sql !== undefined && panel.sql.trim() !== "") {
      // The read-only rule is checked by the service (422 query_not_read_only), after existence.
      const problem = placeholderProblem(panel.sql);
      if (problem) ctx.addIssue({ code: "custom", path: ["sql"], message: problem });
    }
  })
  .meta({ description: "A panel: its type decides which other fields it needs (extra fields are kept for styling)." });
jsonSchemaRules.set(Panel, (json) => {
  const placeholders = { not: { pattern: UNKNOWN_PLACEHOLDER } };
  json.allOf = PANEL_TYPES.map((type) => ({
    if: { properties: { type: { const: type } }, required: ["type"] },
    then:
      type === "text"
        ? { required: [...PANEL_NEEDS.text], properties: { text: placeholders } }
        : { required: [...PANEL_NEEDS[type]], properties: { sql: { allOf: [{ pattern: READ_STATEMENT_START }, placeholders] } } },
  }));
});

export const DashboardDefinition = z
  .looseObject({
    title: z
      .string()
      .max(200)
      .optional()
      .meta({ description: "The page's heading (default: the dashboard's name); placeholders are interpolated." }),
    variables: z
      .array(
        z.object({
          name: z
            .string()
            .regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/)
            .meta({ description: "Used as {{variables.<name>}}; set by `var_<name>` in the page's URL." }),
          default: z.unknown().optional().meta({ description: "The value when the page does not set one." }),
          label: z.string().max(100).optional(),
          control: Control.optional().meta({ description: "A filter control shown above the panels." }),
        }),
      )
      .max(50)
      .default([])
      .meta({ description: "Variables the queries and texts may use." }),
    panels: z.array(Panel).min(1).max(100).meta({ description: "1–100 panels; ids unique." }),
    cache_ttl_seconds: z
      .number()
      .int()
      .min(0)
      .max(MAX_CACHE_TTL_SECONDS)
      .optional()
      .meta({ description: "Seconds a panel's result is served from the cache near the viewer (0–86400; 0 or absent: never cached)." }),
  })
  .superRefine((definition, ctx) => {
    const seen = new Set<string>();
    definition.panels.forEach((panel, index) => {
      if (seen.has(panel.id)) ctx.addIssue({ code: "custom", path: ["panels", index, "id"], message: `duplicate panel id '${panel.id}'` });
      seen.add(panel.id);
    });
  })
  .openapi("DashboardDefinition");

export type Definition = z.infer<typeof DashboardDefinition>;

declare module "../db/schema/columns" {
  interface JsonColumns {
    /** A definition the API validated before saving it. */
    "dashboard_versions.definition": Definition;
  }
}
export type PanelDefinition = Definition["panels"][number];
export type VariableDefinition = Definition["variables"][number];
