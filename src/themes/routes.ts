import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppContext, AppEnv } from "../http/context";
import { ApiError } from "../http/errors";
import { apiOperation, declaredRoute, ErrorSchema, successSchema } from "../http/openapi";
import { ASSET_PREFIX } from "../view/asset-url";
import { assetKey } from "./asset-path";
import { CreateThemeBody, DeleteThemeBody, ThemeSchema, UpdateThemeBody } from "./schemas";
import * as themes from "./service";

const tags = ["Themes"];

const create = apiOperation({
  method: "post",
  path: "/api/create_theme/",
  operationId: "createTheme",
  tags,
  summary: "Create a theme (colors, font, corner radius, fonts, logo)",
  description:
    "Names are unique in the access group case-insensitively (409 `theme_exists`). Colors left out come from the `mode`'s built-in palette. " +
    "Refused when text would be hard to read: WCAG 2.2 contrast of `text` on `background` and on `surface` at least 4.5, of `muted_text` on `surface` at least 3 " +
    "(422 `theme_contrast_too_low`, the ratio in the message). Fonts must be WOFF2 (422 `invalid_font`), the logo a PNG, JPEG or WebP (422 `invalid_image`); " +
    "both are stored once by content and served from this service. `is_default` makes it the access group's default (taken from any other).",
  access: "write",
  database: "primary",
  body: CreateThemeBody,
  response: successSchema({ theme: ThemeSchema }),
});

const update = apiOperation({
  method: "post",
  path: "/api/update_theme/",
  operationId: "updateTheme",
  tags,
  summary: "Rename a theme, replace it, or make it the default",
  description: "`theme` replaces the whole theme (same rules as create). Customers, schedules and alerts naming it follow a rename.",
  access: "write",
  database: "primary",
  body: UpdateThemeBody,
  response: successSchema({ theme: ThemeSchema }),
});

const remove = apiOperation({
  method: "post",
  path: "/api/delete_theme/",
  operationId: "deleteTheme",
  tags,
  summary: "Delete a theme",
  description: "Refused (409 `theme_in_use`) while a customer, schedule, alert or subscription names it.",
  access: "write",
  database: "primary",
  body: DeleteThemeBody,
  response: successSchema({}),
});

const list = apiOperation({
  method: "get",
  path: "/api/themes/",
  operationId: "listThemes",
  tags,
  summary: "The access group's themes, by name",
  access: "read",
  database: "session",
  response: successSchema({ themes: z.array(ThemeSchema) }),
});

/** What a stored theme file is served as: a font (WOFF2) or a logo; nothing else is stored (./file-checks.ts). */
const assetContent = Object.fromEntries(
  ["font/woff2", "image/png", "image/jpeg", "image/webp"].map((type) => [type, { schema: z.string().openapi({ format: "binary" }) }]),
);

const asset = declaredRoute({
  method: "get",
  path: `${ASSET_PREFIX}{sha256}`,
  operationId: "themeAsset",
  tags,
  summary: "A theme's font or logo (immutable: its URL is its content's SHA-256)",
  access: "public",
  request: {
    params: z.object({
      sha256: z
        .string()
        .regex(/^[0-9a-f]{64}$/, "the SHA-256 of the file: 64 lower-case hex characters")
        .openapi({ description: "The SHA-256 of the file, 64 lower-case hex characters." }),
    }),
  },
  responses: {
    200: { description: "The file as stored, `Cache-Control: public, max-age=31536000, immutable`.", content: assetContent },
    400: {
      description: "`validation_error`: `sha256` is not 64 lower-case hex characters.",
      content: { "application/json": { schema: ErrorSchema } },
    },
    404: { description: "`route_not_found`: no theme file has this SHA-256.", content: { "application/json": { schema: ErrorSchema } } },
  },
});

export function registerThemeRoutes(app: OpenAPIHono<AppEnv>): void {
  const scope = (c: AppContext) => ({
    db: c.get("db"),
    files: c.env.FILES,
    accessGroupId: c.get("principal").accessGroupId,
    baseUrl: new URL(c.req.url).origin,
  });
  app.openapi(create, async (c) => {
    const theme = await themes.createTheme(scope(c), c.req.valid("json"));
    return c.json({ success: 1 as const, theme }, 200);
  });
  app.openapi(update, async (c) => {
    const theme = await themes.updateTheme(scope(c), c.req.valid("json"));
    return c.json({ success: 1 as const, theme }, 200);
  });
  app.openapi(remove, async (c) => {
    await themes.deleteTheme(scope(c), c.req.valid("json").name);
    return c.json({ success: 1 as const }, 200);
  });
  app.openapi(list, async (c) => {
    return c.json({ success: 1 as const, themes: await themes.listThemes(scope(c)) }, 200);
  });
  // Served from R2 as stored; the key is the content's hash, so it can be cached for good.
  app.openapi(asset, async (c) => {
    const object = await c.env.FILES.get(assetKey(c.req.valid("param").sha256));
    if (!object) throw new ApiError("route_not_found", "No theme file has this SHA-256.");
    c.header("Content-Type", object.httpMetadata?.contentType ?? "application/octet-stream");
    c.header("Cache-Control", "public, max-age=31536000, immutable");
    c.header("X-Content-Type-Options", "nosniff");
    // Never a document: opened on its own, nothing in it may run or load, and other sites may not embed it.
    c.header("Content-Security-Policy", "default-src 'none'; sandbox");
    c.header("Cross-Origin-Resource-Policy", "same-site");
    c.header("Access-Control-Allow-Origin", "*");
    return c.body(object.body, 200) as never;
  });
}
