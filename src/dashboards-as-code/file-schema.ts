import { z } from "@hono/zod-openapi";
import { DashboardDefinition, jsonSchemaRules } from "../dashboards/definition";
import { EmbedId, plainText } from "../http/fields";

/**
 * A dashboard kept as a file in the vendor's repository: what `dashboards push` sends,
 * `dashboards pull` writes, and `GET /schemas/dashboard.json` describes. `definition` is the
 * very zod schema that validates saved versions.
 */
export const DashboardFile = z
  .object({
    $schema: z.string().optional().meta({ description: "This schema's URL, so that editors complete and check the file." }),
    embed_id: EmbedId.meta({ description: "The dashboard's embed id (1–64 letters, digits, '_' or '-'): created on the first push." }),
    name: plainText(1, 200).meta({ description: "The dashboard's name (shown when the definition has no title)." }),
    definition: DashboardDefinition.meta({ description: "Saved as the dashboard's next version by `dashboards push`." }),
  })
  .meta({
    title: "Dashboard file",
    description: "A dashboard as code: push it, pull it back, validate and preview it (docs/dashboards-as-code.md).",
  });

export const DASHBOARD_SCHEMA_PATH = "/schemas/dashboard.json";

let generated: Record<string, unknown> | undefined;

/**
 * The JSON Schema (2020-12) of a dashboard file, generated from the zod schema (input side:
 * fields with defaults are optional). What a refinement checks is added where JSON Schema
 * can say it (`jsonSchemaRules`); the rest (unique panel ids, read-only SQL beyond its first
 * keyword, existing schemas) only `dashboards validate` and the API can tell.
 */
export function dashboardJsonSchema(baseUrl: string): Record<string, unknown> {
  generated ??= z.toJSONSchema(DashboardFile, {
    target: "draft-2020-12",
    io: "input",
    unrepresentable: "any",
    override: (ctx) => jsonSchemaRules.get(ctx.zodSchema as unknown as z.ZodType)?.(ctx.jsonSchema as Record<string, unknown>),
  }) as Record<string, unknown>;
  const { $schema, ...rest } = generated;
  return { $schema, $id: `${baseUrl}${DASHBOARD_SCHEMA_PATH}`, ...rest };
}
