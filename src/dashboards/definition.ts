import { z } from "@hono/zod-openapi";
import { MAX_CACHE_TTL_SECONDS } from "../data/query-cache";
import { placeholderProblem } from "../data/placeholders";
import { COLUMN_STYLES } from "../view/format";
import { bindParameterProblem } from "../lib/sql-bind-parameters";
import { plainText } from "../http/fields";
import { canonicalLocaleKey, LOCALE_KEY_PATTERN, translationKeyProblem } from "../view/translations";
import { PdfPageFields } from "../view/paper";

/**
 * For the JSON Schema only (the API runs the real checks): a read statement starts, after
 * blanks and comments, with SELECT, WITH or VALUES; and a placeholder names something the
 * renderer can resolve. Both say no more than the API does, so an editor never flags a
 * definition the API accepts.
 */
const READ_STATEMENT_START =
  "^(?:\\s|--[^\\n]*(?:\\n|$)|/\\*[\\s\\S]*?\\*/)*(?:[Ss][Ee][Ll][Ee][Cc][Tt]|[Ww][Ii][Tt][Hh]|[Vv][Aa][Ll][Uu][Ee][Ss])(?![A-Za-z0-9_])";
const PATH_TAIL = "(?:\\.[A-Za-z0-9_-]+)";
const UNKNOWN_PLACEHOLDER = `\\{\\{\\s*(?!(?:customer\\.provided_id|customer\\.name|viewer\\.locale|viewer\\.timezone|customer\\.properties${PATH_TAIL}+|variables${PATH_TAIL}+)\\s*\\}\\})[A-Za-z_][A-Za-z0-9_]*${PATH_TAIL}*\\s*\\}\\}`;

export const PANEL_TYPES = ["kpi", "table", "bar", "line", "area", "pie", "text"] as const;
export type PanelType = (typeof PANEL_TYPES)[number];

export const GRID_COLUMNS = 12;

/**
 * What the JSON Schema of dashboard files says that zod does not write by itself, by the zod
 * schema it belongs to, applied when the file schema is generated: a refinement's rule that
 * JSON Schema can say too, and the shape editors show best for a panel.
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
  .openapi("PanelLayout")
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
  .openapi("PanelFormat")
  .optional();

/** How result columns are shown, by column name (otherwise each value's kind decides). */
const ColumnFormats = z
  .record(
    z.string().min(1).max(200),
    z.object({
      style: z
        .enum(COLUMN_STYLES)
        .meta({ description: "text, number, currency, percent, date, datetime (in the view's time zone) or month." }),
      currency: z.string().max(100).optional().meta({ description: "currency: an ISO 4217 code, or a placeholder giving one." }),
      decimals: z.number().int().min(0).max(6).optional(),
    }),
  )
  .openapi("PanelColumnFormats")
  .meta({ description: "Formatting of result columns in the view's locale (tables, chart axes); CSV keeps raw values." })
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

// ---- panels: one object type per panel type ------------------------------------------------
//
// Every panel has an id, a type and a layout (a title and a format if it likes), and may
// carry another type's fields too, checked the same way whatever its type (other extra
// fields are kept for styling). Each type requires its own fields: `kpi` and `table` a
// schema and SQL, `bar`/`line`/`area` also x_column and y_columns, `pie` label_column and
// value_column, `text` its text. These object types are the one table of what each type
// needs: the API checks with them, the JSON Schema of dashboard files says the same
// (`jsonSchemaRules` below), and code reads a panel's fields once its `type` is known.

const PANEL_TYPE_DESCRIPTION =
  "kpi (the first row's `value`), table (every column), bar/line/area (x_column, y_columns), pie (label_column, value_column) or text.";

const SchemaId = z
  .number()
  .int()
  .positive()
  .meta({ description: "Data panels: the schema whose data source (per the viewing customer's mapping) runs `sql`." });
const Sql = z.string().max(20_000).meta({
  description:
    "Data panels: one read-only SELECT / WITH … SELECT / VALUES; placeholders such as {{customer.provided_id}} are bound as parameters (bind parameters of its own — ?, $1, :name, @name — are refused).",
});
const Text = z
  .string()
  .max(20_000)
  .meta({ description: "Text panels: paragraphs separated by blank lines; placeholders interpolated, HTML-escaped." });
const XColumn = z.string().min(1).meta({ description: "bar, line, area: the result column along the x axis." });
const YColumns = z
  .array(z.string().min(1))
  .min(1)
  .max(12)
  .meta({ description: "bar, line, area: the result columns drawn as series (1–12)." });
const LabelColumn = z.string().min(1).meta({ description: "pie: the result column naming each slice." });
const ValueColumn = z.string().min(1).meta({ description: "pie: the result column sizing each slice." });

/**
 * What a click on a bar, point, slice or table row of a data panel does in the live embed page
 * (docs/embedding.md "Clicks"): set a variable (`filter`), open another dashboard for the same
 * customer (`open`), or only tell the host page (`emit`). Every click is posted to the host.
 */
const OnClick = z
  .discriminatedUnion(
    "action",
    [
      z.object({
        action: z.literal("filter"),
        variable: z
          .string()
          .min(1)
          .max(64)
          .meta({ description: "A declared variable: set to the clicked row's value (again: back to its default)." }),
        column: z.string().min(1).max(200).optional().meta({
          description: "The result column whose value is taken (default x_column, a pie's label_column; required for tables and KPIs).",
        }),
      }),
      z.object({
        action: z.literal("open"),
        dashboard: z.string().min(1).max(200).meta({ description: "The embed id of the dashboard to open (it must exist)." }),
        variables: z
          .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/), z.string().min(1).max(200))
          .default({})
          .meta({ description: "The target's variables, each set from a result column of the clicked row." }),
      }),
      z.object({ action: z.literal("emit") }),
    ],
    {
      error: (issue) => (issue.code === "invalid_union" ? "on_click.action is one of filter, open, emit" : undefined),
    },
  )
  .openapi("PanelOnClick")
  .meta({ description: "Data panels: what a click on a bar, point, slice or row does (filter, open, emit); posted to the host page too." });
export type OnClickAction = z.infer<typeof OnClick>;

/** Every field a panel may have; id, type and layout are required (each type below requires its own too). */
const PanelFields = z.looseObject({
  id: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, "panel ids are 1–64 letters, digits, '_' or '-'")
    .meta({ description: "Unique within the dashboard: names the panel in CSV links, alerts and `dashboards diff`." }),
  type: z.enum(PANEL_TYPES),
  title: plainText(0, 200).default("").meta({ description: "Shown above the panel; placeholders are interpolated, HTML-escaped." }),
  layout: Layout,
  schema_id: SchemaId.optional(),
  sql: Sql.optional(),
  text: Text.optional(),
  x_column: XColumn.optional(),
  y_columns: YColumns.optional(),
  label_column: LabelColumn.optional(),
  value_column: ValueColumn.optional(),
  format: Format,
  column_formats: ColumnFormats,
  on_click: OnClick.optional(),
  page_break_before: z.boolean().optional().meta({ description: "On paper (a PDF with a page size): this panel starts a new page." }),
});

/**
 * A field a panel type needs: absent, it is reported as "a <type> panel needs <field>" at the
 * field (a custom issue: the API's `validation_error` and `dashboards validate` say so in
 * those words, not as a bare "required").
 */
function needed<T extends z.ZodType>(type: PanelType, field: string, schema: T) {
  return z.preprocess((value, ctx) => {
    if (value === undefined) ctx.addIssue({ code: "custom", message: `a ${type} panel needs ${field}`, input: value });
    return value;
  }, schema);
}

/** A text's placeholders must name something the renderer can resolve. */
const PanelText = Text.superRefine((text, ctx) => {
  const problem = placeholderProblem(text);
  if (problem) ctx.addIssue({ code: "custom", message: problem, input: text });
});

/** A data panel's schema and query: SQL that is not blank, whose placeholders resolve and that binds nothing itself. */
function dataFields(type: Exclude<PanelType, "text">) {
  const query = Sql.superRefine((sql, ctx) => {
    if (sql.trim() === "") {
      ctx.addIssue({ code: "custom", message: `a ${type} panel needs sql`, input: sql });
      return;
    }
    // The read-only rule is checked by the service (422 query_not_read_only), after existence.
    const problem = placeholderProblem(sql) ?? bindParameterProblem(sql);
    if (problem) ctx.addIssue({ code: "custom", message: problem, input: sql });
  });
  return { schema_id: needed(type, "schema_id", SchemaId), sql: needed(type, "sql", query) };
}

function cartesianFields(type: "bar" | "line" | "area") {
  return { ...dataFields(type), x_column: needed(type, "x_column", XColumn), y_columns: needed(type, "y_columns", YColumns) };
}

const KpiPanel = PanelFields.extend({ type: z.literal("kpi"), ...dataFields("kpi") }).openapi("KpiPanel");
const TablePanel = PanelFields.extend({ type: z.literal("table"), ...dataFields("table") }).openapi("TablePanel");
const BarPanel = PanelFields.extend({ type: z.literal("bar"), ...cartesianFields("bar") }).openapi("BarPanel");
const LinePanel = PanelFields.extend({ type: z.literal("line"), ...cartesianFields("line") }).openapi("LinePanel");
const AreaPanel = PanelFields.extend({ type: z.literal("area"), ...cartesianFields("area") }).openapi("AreaPanel");
const PiePanel = PanelFields.extend({
  type: z.literal("pie"),
  ...dataFields("pie"),
  label_column: needed("pie", "label_column", LabelColumn),
  value_column: needed("pie", "value_column", ValueColumn),
}).openapi("PiePanel");
const TextPanel = PanelFields.extend({ type: z.literal("text"), text: needed("text", "text", PanelText) }).openapi("TextPanel");

const Panel = z
  .discriminatedUnion("type", [KpiPanel, TablePanel, BarPanel, LinePanel, AreaPanel, PiePanel, TextPanel], {
    error: (issue) =>
      issue.code === "invalid_union"
        ? `unknown panel type '${String((issue.input as { type?: unknown }).type)}'; use one of ${PANEL_TYPES.join(", ")}`
        : undefined,
  })
  .meta({ description: "A panel: its type decides which other fields it needs (extra fields are kept for styling)." });

/** A panel type's object as zod writes it in JSON Schema. */
interface PanelTypeJson {
  properties: Record<string, { const?: unknown }>;
  required: string[];
  additionalProperties?: unknown;
}

/**
 * A panel in JSON Schema as editors show it best: one object with every field (`type` one of
 * PANEL_TYPES) and, per type, an if/then with the fields it needs and what its SQL or text
 * must look like — made from the `oneOf` of the panel types' objects that zod writes (for
 * which an editor would report a mistake once per panel type).
 */
jsonSchemaRules.set(Panel, (json) => {
  const types = json.oneOf as PanelTypeJson[];
  const common = types.map((t) => t.required).reduce((all, required) => all.filter((field) => required.includes(field)));
  const placeholders = { not: { pattern: UNKNOWN_PLACEHOLDER } };
  const { description } = json;
  for (const key of Object.keys(json)) delete json[key];
  Object.assign(json, {
    type: "object",
    properties: { ...types[0].properties, type: { type: "string", enum: [...PANEL_TYPES], description: PANEL_TYPE_DESCRIPTION } },
    required: common,
    additionalProperties: types[0].additionalProperties,
    description,
    allOf: types.map(({ properties, required }) => ({
      if: { properties: { type: { const: properties.type.const } }, required: ["type"] },
      then: {
        required: required.filter((field) => !common.includes(field)),
        properties:
          properties.type.const === "text" ? { text: placeholders } : { sql: { allOf: [{ pattern: READ_STATEMENT_START }, placeholders] } },
      },
    })),
  });
});

export const DashboardDefinition = z
  .looseObject({
    title: plainText(0, 200)
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
    pdf: PdfPageFields.optional().meta({ description: "The default pages of its PDFs (a request's `pdf` overrides each field)." }),
    show_filters_in_captures: z.boolean().optional().meta({ description: "false: captures do not state the filter values they show." }),
    translations: z
      .record(z.string().min(2).max(64), z.record(z.string().min(1).max(300), z.string().max(20_000)))
      .optional()
      .meta({
        // The keys' shape, as the server checks it (canonicalLocaleKey), for editors and generated clients.
        propertyNames: { type: "string", minLength: 2, maxLength: 64, pattern: LOCALE_KEY_PATTERN },
        description:
          "The definition's texts in other languages, by locale or language (`de-CH`, `de`): keys `title`, `panels.<id>.title`, `panels.<id>.text`, `variables.<name>.label`, `options.<variable>.<value>` (the label only), `columns.<name>`. A view takes its exact locale's text, else its language's, else the definition's own.",
      }),
  })
  .superRefine((definition, ctx) => {
    const seen = new Set<string>();
    const declared = new Set(definition.variables.map((v) => v.name));
    definition.panels.forEach((panel, index) => {
      if (seen.has(panel.id)) ctx.addIssue({ code: "custom", path: ["panels", index, "id"], message: `duplicate panel id '${panel.id}'` });
      seen.add(panel.id);
      for (const [field, message] of onClickProblems(panel, declared))
        ctx.addIssue({ code: "custom", path: ["panels", index, "on_click", ...field], message });
    });
    for (const [locale, texts] of Object.entries(definition.translations ?? {})) {
      if (canonicalLocaleKey(locale) === null) {
        ctx.addIssue({ code: "custom", path: ["translations", locale], message: `'${locale}' is not a BCP 47 locale or language` });
        continue;
      }
      for (const [key, text] of Object.entries(texts)) {
        const problem = translationKeyProblem(definition, key) ?? translatedTitleProblem(key, text);
        if (problem) ctx.addIssue({ code: "custom", path: ["translations", locale, key], message: problem });
      }
    }
  })
  .openapi("DashboardDefinition");

export type Definition = z.infer<typeof DashboardDefinition>;

/** A translated title follows the titles' own field rule (http/fields.ts: no controls that reorder text). */
function translatedTitleProblem(key: string, text: string): string | null {
  if (key !== "title" && !/^panels\.[^.]+\.title$/.test(key)) return null;
  const checked = TranslatedTitle.safeParse(text);
  return checked.success ? null : checked.error.issues[0].message;
}
const TranslatedTitle = plainText(0, 300);

/**
 * What a panel's `on_click` breaks that its shape does not say: a text panel has nothing to
 * click, a filter names a declared variable, and a table's or KPI's filter names its column
 * (a chart's defaults to the column along its axis or naming its slices). Whether an `open`
 * names an existing dashboard is checked where dashboards are read (versions.ts).
 */
function onClickProblems(panel: PanelDefinition, declared: Set<string>): [string[], string][] {
  const click = panel.on_click;
  if (!click) return [];
  if (panel.type === "text") return [[[], "a text panel has nothing to click; on_click is for data panels"]];
  if (click.action !== "filter") return [];
  const problems: [string[], string][] = [];
  if (!declared.has(click.variable))
    problems.push([["variable"], `variable '${click.variable}' is not declared in the definition's variables`]);
  if (click.column === undefined && (panel.type === "table" || panel.type === "kpi"))
    problems.push([["column"], `a filter on a ${panel.type} panel needs column (the result column whose value is taken)`]);
  return problems;
}

/** The result column whose value a click on `panel` reports (and a filter takes): on_click.column, else the axis or slice names. */
export function clickColumn(panel: PanelDefinition): string | undefined {
  const click = panel.on_click;
  if (click?.action === "filter" && click.column !== undefined) return click.column;
  if (panel.type === "bar" || panel.type === "line" || panel.type === "area") return panel.x_column;
  if (panel.type === "pie") return panel.label_column;
  return undefined;
}

declare module "../db/schema/columns" {
  interface JsonColumns {
    /** A definition the API validated before saving it. */
    "dashboard_versions.definition": Definition;
  }
}
/** A panel of a definition: `type` tells which fields it has (`panel.type === "pie"` gives its label_column, …). */
export type PanelDefinition = Definition["panels"][number];
/** A bar, line or area chart: x_column and y_columns. */
export type CartesianPanel = Extract<PanelDefinition, { type: "bar" | "line" | "area" }>;
export type VariableDefinition = Definition["variables"][number];
