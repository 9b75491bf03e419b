import { z, type OpenAPIHono } from "@hono/zod-openapi";
import { LockedFilter } from "../data/filters";
import type { AppEnv } from "../http/context";
import { Email, EmbedId, plainText } from "../http/fields";
import { apiOperation, exactlyOneOf, successSchema } from "../http/openapi";
import { presentationFields } from "../view/presentation";
import { type BuilderTokenRequest, mintBuilderToken } from "./builder-token";
import { type EmbedTokenRequest, mintEmbedToken } from "./dashboard-token";

// Minting signed tokens: one operation hands the browser a short-lived token that opens one
// dashboard (./dashboard-token.ts) or one blueprint's report builder (./builder-token.ts) for
// one customer. The pages those tokens open are the dashboards' and the report builder's.

const tags = ["Embedding"];

/** `scheme://host[:port]` exactly as a browser serialises it: what `frame-ancestors` takes. */
export function isOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === "https:" || url.protocol === "http:") && url.origin === value;
  } catch {
    return false;
  }
}

const Origin = z
  .string()
  .max(300)
  .refine(isOrigin, "must be an origin such as https://app.example.com (scheme://host[:port], lowercase host, no path or trailing slash)");

/** Locked variables travel inside the token, so they stay small enough for a URL. */
const MAX_LOCKED_VARIABLES_BYTES = 4096;

export const EmbedTokenBody = z
  .object({
    provided_id: plainText(1, 256).openapi({ description: "The customer the dashboard shows (of the token's access group)." }),
    dashboard_embed_id: EmbedId.optional().openapi({
      description: "The dashboard the token opens (and no other). Exactly one of this and `blueprint_id`.",
    }),
    blueprint_id: z.number().int().positive().optional().openapi({
      description:
        "A blueprint of this customer: the token opens its report builder (`/report-builder/<embed_id>`) instead of a dashboard.",
    }),
    filters: z
      .array(LockedFilter)
      .max(20)
      .refine((v) => JSON.stringify(v).length <= MAX_LOCKED_VARIABLES_BYTES, `must be at most ${MAX_LOCKED_VARIABLES_BYTES} bytes as JSON`)
      .optional()
      .openapi({
        description:
          "Builder only: locked filters, each with its `dataset`; added to every query on that dataset, never removed or widened.",
      }),
    user_id: plainText(1, 256)
      .optional()
      .openapi({ description: "Builder only: the end user, recorded as `created_by` on the reports they save." }),
    can_save: z
      .boolean()
      .optional()
      .openapi({ description: "Builder only: may save, change and delete reports (default true; minting true needs a write token)." }),
    environment: plainText(1, 64).optional().openapi({ description: "Pins the version tag (e.g. `production`)." }),
    variables: z
      .record(z.string(), z.unknown())
      .refine((v) => JSON.stringify(v).length <= MAX_LOCKED_VARIABLES_BYTES, `must be at most ${MAX_LOCKED_VARIABLES_BYTES} bytes as JSON`)
      .optional()
      .openapi({ description: "Locked variable values: `var_` parameters and filter controls cannot change them." }),
    expires_in: z.number().int().min(10).max(86_400).optional().openapi({ description: "Lifetime in seconds (10–86400, default 900)." }),
    allowed_origins: z
      .array(Origin)
      .min(1)
      .max(10)
      .optional()
      .openapi({ description: "Origins that may frame the page (`frame-ancestors`); replaces FRAME_ANCESTORS for this token." }),
    ...presentationFields,
    user_email: Email.optional().openapi({
      description:
        "The viewer's own address: lets them subscribe to this dashboard by e-mail from the embed page (always to this address only). Needs a write token to mint.",
    }),
  })
  .superRefine((body, ctx) => {
    if (body.dashboard_embed_id === undefined && body.blueprint_id === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["dashboard_embed_id"],
        message: "give dashboard_embed_id (a dashboard) or blueprint_id (a report builder)",
      });
    } else if (body.dashboard_embed_id !== undefined && body.blueprint_id !== undefined) {
      ctx.addIssue({ code: "custom", path: ["blueprint_id"], message: "give either dashboard_embed_id or blueprint_id, not both" });
    }
  })
  .openapi("EmbedTokenRequest", exactlyOneOf("dashboard_embed_id", "blueprint_id"));

const generateEmbedToken = apiOperation({
  method: "post",
  path: "/api/generate_embed_token/",
  operationId: "generateEmbedToken",
  tags,
  summary: "Mint a short-lived signed embed token (a dashboard, or a report builder)",
  description:
    "Call this from your backend and hand only the token (or `embed_url`) to the browser. The token opens one dashboard (`dashboard_embed_id`) " +
    "or one blueprint's report builder (`blueprint_id`) for one customer until `expires_at`; refreshing the customer token or deleting the customer revokes it. " +
    "A read token mints only view-only tokens: a dashboard token with `user_email` or a builder token whose `can_save` is not false answers 403 `read_only_token`.",
  access: "read",
  database: "session",
  notFound: "retry on primary",
  body: EmbedTokenBody,
  response: successSchema({
    token: z.string().openapi({ description: "A compact JWS (HS256)." }),
    expires_at: z.string().openapi({ description: "ISO 8601 UTC." }),
    embed_url: z.string().openapi({
      description: "`<base>/embed/<dashboard_embed_id>?token=<token>`, or `<base>/report-builder/<blueprint embed_id>?token=<token>`",
    }),
  }),
});

/**
 * What a token opens, from a body the schema accepted: exactly one of a dashboard and a report
 * builder (the refinement above refuses neither and both, on the field).
 */
type TokenTarget = { opens: "dashboard"; request: EmbedTokenRequest } | { opens: "report builder"; request: BuilderTokenRequest };

function targetOf(body: z.infer<typeof EmbedTokenBody>): TokenTarget {
  const { dashboard_embed_id, blueprint_id, ...rest } = body;
  if (blueprint_id !== undefined) return { opens: "report builder", request: { ...rest, blueprint_id } };
  if (dashboard_embed_id !== undefined) return { opens: "dashboard", request: { ...rest, dashboard_embed_id } };
  throw new Error("EmbedTokenBody accepted a body that names neither a dashboard nor a blueprint");
}

export function registerEmbedTokenRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(generateEmbedToken, async (c) => {
    const { accessGroupId, permission } = c.get("principal");
    const scope = { accessGroupId, permission, baseUrl: new URL(c.req.url).origin };
    const target = targetOf(c.req.valid("json"));
    const minted =
      target.opens === "dashboard"
        ? await mintEmbedToken(c.get("db"), c.env, scope, target.request)
        : await mintBuilderToken(c.get("db"), c.env, scope, target.request);
    return c.json({ success: 1 as const, ...minted }, 200);
  });
}
