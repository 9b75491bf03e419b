import { z } from "@hono/zod-openapi";
import { plainText } from "../http/fields";
import { ProvidedId } from "../customers/schemas";
import { MAX_CACHE_TTL_SECONDS } from "../data/query-cache";
import { bindParameterProblem } from "../lib/sql-bind-parameters";
import { canonicalLocaleKey, localeKeyNames } from "../view/translations";

export const COLUMN_TYPES = ["INTEGER", "FLOAT", "BOOLEAN", "STRING", "DATETIME", "TIMESTAMP", "DATE"] as const;

const Column = z
  .object({
    name: plainText(1, 256),
    type: z.enum(COLUMN_TYPES),
    display_name: plainText(1, 256).nullable().optional().openapi({ description: "Defaults to name." }),
    can_be_grouped: z.boolean().nullable().optional().openapi({ description: "Defaults to true." }),
  })
  .openapi("BlueprintColumn");

/** One locale's words for a table: what the report builder shows instead of its own (names in queries never change). */
const TableTranslation = z
  .object({
    dataset_name: plainText(1, 256).optional(),
    description: z.string().max(10_000).optional(),
    columns: z.record(z.string(), plainText(1, 256)).optional().openapi({ description: "Column name → display name." }),
  })
  .strict()
  .openapi("BlueprintTableTranslation");

const Table = z
  .object({
    table_name: plainText(1, 256),
    schema_id: z.number().int().positive(),
    query: z
      .string()
      .min(1)
      .max(100_000)
      .superRefine((query, ctx) => {
        // Values reach the query through {{…}} placeholders only (the read-only rule is the service's 422).
        const problem = bindParameterProblem(query);
        if (problem) ctx.addIssue({ code: "custom", message: problem, input: query });
      })
      .nullable()
      .optional()
      .openapi({
        description: 'Defaults to SELECT * FROM "<table_name>". Values come from {{…}} placeholders, never bind parameters of its own.',
      }),
    columns: z.array(Column).min(1).max(500),
    dataset_name: plainText(1, 256).nullable().optional().openapi({ description: "Defaults to table_name." }),
    description: z.string().max(10_000).nullable().optional(),
    cache_ttl_seconds: z.number().int().min(0).max(MAX_CACHE_TTL_SECONDS).optional().openapi({
      description:
        "Seconds a report-builder query's result on this table is served from the cache near the viewer (0–86400; 0 or absent: never cached).",
    }),
    translations: z
      .record(z.string(), TableTranslation)
      .optional()
      .openapi({
        ...localeKeyNames,
        description:
          "By locale or language (`de-CH`, `de`): the dataset name, description and column display names the report builder shows. The builder takes the exact locale, then the language, then the table's own words.",
      }),
  })
  .superRefine((table, ctx) => {
    for (const [locale, texts] of Object.entries(table.translations ?? {})) {
      if (canonicalLocaleKey(locale) === null) {
        ctx.addIssue({ code: "custom", path: ["translations", locale], message: `'${locale}' is not a BCP 47 locale or language` });
      }
      for (const name of Object.keys(texts.columns ?? {})) {
        if (!table.columns.some((column) => column.name === name)) {
          ctx.addIssue({ code: "custom", path: ["translations", locale, "columns", name], message: `there is no column '${name}'` });
        }
      }
    }
    const seen = new Set<string>();
    table.columns.forEach((column, index) => {
      if (seen.has(column.name)) {
        ctx.addIssue({ code: "custom", path: ["columns", index, "name"], message: `duplicate column name '${column.name}'` });
      }
      seen.add(column.name);
    });
  })
  .openapi("BlueprintTable");

export const Tables = z.array(Table).min(1).max(100);

export const CreateBlueprintBody = z
  .object({
    customer_id: ProvidedId.openapi({ description: "The customer's provided_id." }),
    blueprint_name: plainText(1, 256),
    tables: Tables,
  })
  .openapi("CreateBlueprintRequest");

export const UpdateBlueprintBody = z
  .object({ blueprint_id: z.number().int().positive(), tables: Tables })
  .openapi("UpdateBlueprintRequest");

export const CustomerBlueprintsBody = z.object({ customer_id: ProvidedId }).openapi("CustomerBlueprintsRequest");
export const BlueprintIdBody = z.object({ blueprint_id: z.number().int().positive() }).openapi("GetBlueprintRequest");

export const StoredColumn = z.object({
  name: z.string(),
  type: z.enum(COLUMN_TYPES),
  display_name: z.string(),
  can_be_grouped: z.boolean(),
});
export const StoredTable = z
  .object({
    table_name: z.string(),
    schema_id: z.number().int(),
    query: z.string(),
    columns: z.array(StoredColumn),
    dataset_name: z.string(),
    description: z.string().nullable(),
    cache_ttl_seconds: z.number().int().optional().openapi({ description: "Present when it was given." }),
    translations: z
      .record(z.string(), TableTranslation)
      .optional()
      .openapi({ description: "Present when it was given; locale keys canonicalised." }),
  })
  .openapi("StoredBlueprintTable");

export const BlueprintSummary = z.object({ id: z.number().int(), embed_id: z.string(), name: z.string() }).openapi("BlueprintSummary");
export const BlueprintSchema = z
  .object({ id: z.number().int(), embed_id: z.string(), name: z.string(), customer_id: z.string(), tables: z.array(StoredTable) })
  .openapi("Blueprint");

export type TableInput = z.infer<typeof Table>;
export type StoredTable = z.infer<typeof StoredTable>;

declare module "../db/schema/columns" {
  interface JsonColumns {
    /** The tables as stored, defaults filled in. */
    "blueprints.tables": StoredTable[];
  }
}
