import { z } from "@hono/zod-openapi";
import { MAX_CACHE_TTL_SECONDS } from "../query-cache/cache";
import { placeholderProblem } from "./sql";

export const PANEL_TYPES = ["kpi", "table", "bar", "line", "area", "pie", "text"] as const;
export type PanelType = (typeof PANEL_TYPES)[number];

const Layout = z
  .object({
    x: z.number().int().min(0).max(11),
    y: z.number().int().min(0).max(500),
    w: z.number().int().min(1).max(12),
    h: z.number().int().min(1).max(40),
  })
  .refine((l) => l.x + l.w <= 12, { message: "x + w must be at most 12 (the grid has 12 columns)", path: ["w"] });

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

const Panel = z
  .looseObject({
    id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "panel ids are 1–64 letters, digits, '_' or '-'"),
    type: z.string(),
    title: z.string().max(200).default(""),
    layout: Layout,
    schema_id: z.number().int().positive().optional(),
    sql: z.string().max(20_000).optional(),
    text: z.string().max(20_000).optional(),
    x_column: z.string().min(1).optional(),
    y_columns: z.array(z.string().min(1)).min(1).max(12).optional(),
    label_column: z.string().min(1).optional(),
    value_column: z.string().min(1).optional(),
    format: Format,
  })
  .superRefine((panel, ctx) => {
    const need = (key: string, what: string) => {
      if ((panel as Record<string, unknown>)[key] === undefined) ctx.addIssue({ code: "custom", path: [key], message: `a ${panel.type} panel needs ${what}` });
    };
    if (!(PANEL_TYPES as readonly string[]).includes(panel.type)) {
      ctx.addIssue({ code: "custom", path: ["type"], message: `unknown panel type '${panel.type}'; use one of ${PANEL_TYPES.join(", ")}` });
      return;
    }
    if (panel.type === "text") {
      need("text", "text");
      const problem = panel.text === undefined ? null : placeholderProblem(panel.text);
      if (problem) ctx.addIssue({ code: "custom", path: ["text"], message: problem });
      return;
    }
    need("schema_id", "schema_id");
    if (panel.sql === undefined || panel.sql.trim() === "") {
      ctx.addIssue({ code: "custom", path: ["sql"], message: `a ${panel.type} panel needs sql` });
    } else {
      // The read-only rule is checked by the service (422 query_not_read_only), after existence.
      const problem = placeholderProblem(panel.sql);
      if (problem) ctx.addIssue({ code: "custom", path: ["sql"], message: problem });
    }
    if (panel.type === "bar" || panel.type === "line" || panel.type === "area") {
      need("x_column", "x_column");
      need("y_columns", "y_columns");
    }
    if (panel.type === "pie") {
      need("label_column", "label_column");
      need("value_column", "value_column");
    }
  });

export const DashboardDefinition = z
  .looseObject({
    title: z.string().max(200).optional(),
    variables: z
      .array(
        z.object({
          name: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/),
          default: z.unknown().optional(),
          label: z.string().max(100).optional(),
          control: Control.optional(),
        }),
      )
      .max(50)
      .default([]),
    panels: z.array(Panel).min(1).max(100),
    cache_ttl_seconds: z
      .number()
      .int()
      .min(0)
      .max(MAX_CACHE_TTL_SECONDS)
      .optional()
      .openapi({ description: "Seconds a panel's result is served from the cache near the viewer (0–86400; 0 or absent: never cached)." }),
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
export type PanelDefinition = Definition["panels"][number];
export type VariableDefinition = Definition["variables"][number];
