import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call, workspace } from "../helpers/api";
import { base64, createTheme, DARK, PNG_1PX, pngOfSize, woff2Bytes } from "../helpers/themes";
import { contrastRatio } from "../../src/view/contrast";
import { PALETTES } from "../../src/view/palette";

describe("create_theme, update_theme, delete_theme, GET /api/themes/", () => {
  it("creates a theme with the mode's palette filling what was left out, lists it, renames, makes default, deletes", async () => {
    const { write, read } = await workspace();
    const created = await createTheme(write, { name: "Acme dark", theme: DARK, is_default: true });
    expect(created.status).toBe(200);
    expect(created.body.theme).toMatchObject({
      name: "Acme dark",
      is_default: true,
      theme: {
        mode: "dark",
        colors: {
          background: "#0b1020",
          muted_text: PALETTES.dark.muted_text,
          border: PALETTES.dark.border,
          series: ["#7c9cff", "#ff9f6e"],
        },
        radius: 12,
        fonts: [],
        logo_url: null,
      },
    });
    expect(created.body.theme.created_at).toMatch(/Z$/);

    // The same name in another case is taken.
    const again = await createTheme(write, { name: "ACME DARK", theme: {} });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: "theme_exists", field: "name" });

    // A second default takes the default from the first.
    const light = await createTheme(write, { name: "Light brand", theme: { colors: { accent: "#b91c1c" } }, is_default: true });
    expect(light.status).toBe(200);
    expect(light.body.theme.theme.colors).toMatchObject({ background: PALETTES.light.background, accent: "#b91c1c" });
    const list = await call("GET", "/api/themes/", { token: read });
    expect(list.status).toBe(200);
    expect(list.body.themes.map((t: { name: string; is_default: boolean }) => [t.name, t.is_default])).toEqual([
      ["Acme dark", false],
      ["Light brand", true],
    ]);

    const renamed2 = await call("POST", "/api/update_theme/", {
      token: write,
      body: { name: "acme dark", new_name: "Night", is_default: true },
    });
    expect(renamed2.status).toBe(200);
    expect(renamed2.body.theme).toMatchObject({ name: "Night", is_default: true });
    const taken = await call("POST", "/api/update_theme/", { token: write, body: { name: "Night", new_name: "light BRAND" } });
    expect(taken.status).toBe(409);
    expect(taken.body.error).toMatchObject({ code: "theme_exists", field: "new_name" });
    const replaced = await call("POST", "/api/update_theme/", { token: write, body: { name: "Night", theme: { radius: 0 } } });
    expect(replaced.body.theme.theme).toMatchObject({ mode: "light", radius: 0, colors: { background: PALETTES.light.background } });

    const missing = await call("POST", "/api/update_theme/", { token: write, body: { name: "Nope", is_default: true } });
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatchObject({ code: "theme_not_found", field: "name" });
    // The refused update moved no default.
    const after = await call("GET", "/api/themes/", { token: read });
    expect(after.body.themes.find((t: { name: string }) => t.name === "Night").is_default).toBe(true);

    expect((await call("POST", "/api/delete_theme/", { token: write, body: { name: "night" } })).status).toBe(200);
    const gone = await call("POST", "/api/delete_theme/", { token: write, body: { name: "night" } });
    expect(gone.status).toBe(404);
    expect(gone.body.error.code).toBe("theme_not_found");
    // A read token may list, not write.
    expect((await createTheme(read, { name: "x", theme: {} })).status).toBe(403);
  });

  it("refuses a theme a reader could not read, at the WCAG boundary (4.49 refused, 4.5 accepted), with the ratio", async () => {
    const { write } = await workspace();
    // Grey text on near-white: 4.49:1 (refused) and 4.50:1 (accepted).
    const refusedPair = { text: "#757575", background: "#fcfcfc", surface: "#fcfcfc", muted_text: "#767676" };
    const acceptedPair = { text: "#767676", background: "#fefefe", surface: "#fefefe", muted_text: "#767676" };
    expect(contrastRatio(refusedPair.text, refusedPair.background)).toBeCloseTo(4.49, 2);
    expect(contrastRatio(acceptedPair.text, acceptedPair.background)).toBeCloseTo(4.5, 2);
    const refused = await createTheme(write, { name: "grey", theme: { colors: refusedPair } });
    expect(refused.status).toBe(422);
    expect(refused.body.error).toMatchObject({ code: "theme_contrast_too_low", field: "theme.colors.text" });
    // The ratio is shown cut (not rounded) to two decimals: a refused ratio never reads 4.50.
    expect(refused.body.error.message).toContain("4.49:1");
    const accepted = await createTheme(write, { name: "grey", theme: { colors: acceptedPair } });
    expect(accepted.status).toBe(200);

    // text on surface, checked after text on background.
    const onSurface = await createTheme(write, {
      name: "s",
      theme: { colors: { background: "#ffffff", surface: "#999999", text: "#767676" } },
    });
    expect(onSurface.status).toBe(422);
    expect(onSurface.body.error.field).toBe("theme.colors.text");
    expect(onSurface.body.error.message).toContain("surface");
    // muted_text on surface needs 3: #959595 on white is 2.99, #949494 3.03.
    const muted = await createTheme(write, { name: "m", theme: { colors: { muted_text: "#959595" } } });
    expect(muted.status).toBe(422);
    expect(muted.body.error).toMatchObject({ code: "theme_contrast_too_low", field: "theme.colors.muted_text" });
    expect((await createTheme(write, { name: "m", theme: { colors: { muted_text: "#949494" } } })).status).toBe(200);
    // The built-in palettes pass.
    for (const mode of ["light", "dark"]) expect((await createTheme(write, { name: `builtin ${mode}`, theme: { mode } })).status).toBe(200);
  });

  it("checks every shape rule with a passing control", async () => {
    const { write } = await workspace();
    const cases: [string, Record<string, unknown>, string][] = [
      ["a color that is not #rrggbb", { name: "t", theme: { colors: { accent: "#abc" } } }, "theme.colors.accent"],
      ["a 13th series color", { name: "t", theme: { colors: { series: Array(13).fill("#4f46e5") } } }, "theme.colors.series"],
      [
        "a bad series color",
        { name: "t", theme: { colors: { series: ["#4f46e5", "#4f46e5", "#4f46e5", "red"] } } },
        "theme.colors.series.3",
      ],
      ["no series color", { name: "t", theme: { colors: { series: [] } } }, "theme.colors.series"],
      ["a font family with a semicolon", { name: "t", theme: { font_family: "Acme; color:red" } }, "theme.font_family"],
      ["a font family of 201 characters", { name: "t", theme: { font_family: "a".repeat(201) } }, "theme.font_family"],
      ["a radius of 25", { name: "t", theme: { radius: 25 } }, "theme.radius"],
      ["a mode that is neither", { name: "t", theme: { mode: "sepia" } }, "theme.mode"],
      ["five fonts", { name: "t", theme: { fonts: Array(5).fill({ family: "A", woff2_base64: base64(woff2Bytes()) }) } }, "theme.fonts"],
      [
        "a weight of 950",
        { name: "t", theme: { fonts: [{ family: "A", weight: 950, woff2_base64: base64(woff2Bytes()) }] } },
        "theme.fonts.0.weight",
      ],
      [
        "a style of oblique",
        { name: "t", theme: { fonts: [{ family: "A", style: "oblique", woff2_base64: base64(woff2Bytes()) }] } },
        "theme.fonts.0.style",
      ],
      [
        "a font over 300 KB",
        { name: "t", theme: { fonts: [{ family: "A", woff2_base64: base64(woff2Bytes(300 * 1024)) }] } },
        "theme.fonts.0.woff2_base64",
      ],
      [
        "a logo over 100 KB",
        { name: "t", theme: { logo_base64: base64(new Uint8Array([...PNG_1PX, ...new Uint8Array(100 * 1024)])) } },
        "theme.logo_base64",
      ],
      // The base64 the OpenAPI document's pattern refuses (test/e2e/openapi-strict.test.ts), refused here too.
      ["a logo of base64 with a lone last character", { name: "t", theme: { logo_base64: "iVBORw0KG" } }, "theme.logo_base64"],
      ["a logo of URL-safe base64", { name: "t", theme: { logo_base64: "iVBO-w0K" } }, "theme.logo_base64"],
      [
        "a font with padding in the middle",
        { name: "t", theme: { fonts: [{ family: "A", woff2_base64: "d09G=gAB" }] } },
        "theme.fonts.0.woff2_base64",
      ],
      ["a name of 65 characters", { name: "n".repeat(65), theme: {} }, "name"],
      ["a name with a slash", { name: "a/b", theme: {} }, "name"],
      ["an unknown color", { name: "t", theme: { colors: { link: "#000000" } } }, "theme.colors"],
    ];
    for (const [what, body, field] of cases) {
      const res = await createTheme(write, body);
      expect(res.status, what).toBe(400);
      expect(res.body.error.code, what).toBe("validation_error");
      expect(res.body.error.field, what).toBe(field);
    }
    // Controls: each rule's edge accepted.
    const controls: Record<string, unknown>[] = [
      { name: "c1", theme: { colors: { accent: "#ABCDEF", series: Array(12).fill("#4f46e5") }, radius: 24 } },
      { name: "c2", theme: { font_family: `"Acme Sans", 'Other', system-ui, sans-serif`, radius: 0 } },
      {
        name: "c3",
        theme: { fonts: Array(4).fill({ family: "Acme Sans", weight: 900, style: "italic", woff2_base64: base64(woff2Bytes()) }) },
      },
      { name: "c4", theme: { fonts: [{ family: "Acme Sans", woff2_base64: base64(woff2Bytes(300 * 1024 - 48)) }] } },
      {
        name: "n".repeat(64),
        theme: { logo_base64: base64(pngOfSize(100 * 1024)) },
      },
      { name: "Brand_2.0 - ok", theme: {} },
    ];
    for (const body of controls) {
      const res = await call("POST", "/api/create_theme/", { token: write, body });
      expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(200);
    }
    const c1 = (await call("GET", "/api/themes/", { token: write })).body.themes.find((t: { name: string }) => t.name === "c1");
    expect(c1.theme.colors.accent).toBe("#abcdef");
  });

  it("refuses fonts and logos by their signature (422), and stores accepted ones once by content, served immutable", async () => {
    const { write } = await workspace();
    const notFont = await createTheme(write, { name: "f", theme: { fonts: [{ family: "A", woff2_base64: base64(PNG_1PX) }] } });
    expect(notFont.status).toBe(422);
    expect(notFont.body.error).toMatchObject({ code: "invalid_font", field: "theme.fonts.0.woff2_base64" });
    const gif = Uint8Array.from("GIF89a\u0001\u0000\u0001\u0000\u0000\u0000\u0000;", (c) => c.charCodeAt(0));
    const notImage = await createTheme(write, { name: "f", theme: { logo_base64: base64(gif) } });
    expect(notImage.status).toBe(422);
    expect(notImage.body.error).toMatchObject({ code: "invalid_image", field: "theme.logo_base64" });
    const notBase64 = await createTheme(write, { name: "f", theme: { logo_base64: "not base64!" } });
    expect(notBase64.status).toBe(400);

    const font = woff2Bytes(100);
    const body = { family: "Acme Sans", woff2_base64: base64(font) };
    const a = await createTheme(write, { name: "a", theme: { fonts: [body], logo_base64: base64(PNG_1PX) } });
    const b = await createTheme(write, { name: "b", theme: { fonts: [{ ...body, weight: 700 }] } });
    expect(a.status).toBe(200);
    const url = a.body.theme.theme.fonts[0].url as string;
    expect(url).toMatch(/^http:\/\/api\.test\/theme-assets\/[0-9a-f]{64}$/);
    expect(b.body.theme.theme.fonts[0]).toMatchObject({ url, weight: 700, style: "normal" });
    const sha = url.split("/").pop() as string;
    const listed = await env.FILES.list({ prefix: "theme-assets/" });
    expect(listed.objects.filter((o) => o.key === `theme-assets/${sha}`)).toHaveLength(1);

    const served = await call("GET", new URL(url).pathname);
    expect(served.status).toBe(200);
    expect(served.headers.get("Content-Type")).toBe("font/woff2");
    expect(served.headers.get("Cache-Control")).toBe("public, max-age=31536000, immutable");
    const logo = await call("GET", new URL(a.body.theme.theme.logo_url).pathname);
    expect(logo.headers.get("Content-Type")).toBe("image/png");
    expect((await call("GET", `/theme-assets/${"0".repeat(64)}`)).status).toBe(404);
  });

  it("keeps themes to their access group: another group neither sees nor names them", async () => {
    const one = await workspace();
    const two = await workspace();
    expect((await createTheme(one.write, { name: "Mine", theme: DARK })).status).toBe(200);
    expect((await call("GET", "/api/themes/", { token: two.read })).body.themes).toEqual([]);
    // The same name is free in the other group.
    expect((await createTheme(two.write, { name: "mine", theme: {} })).status).toBe(200);
    const update = await call("POST", "/api/update_theme/", { token: two.write, body: { name: "Other", is_default: true } });
    expect(update.body.error.code).toBe("theme_not_found");
    const customer = await call("POST", "/api/create_customer/", {
      token: two.write,
      body: { provided_id: `c-${crypto.randomUUID()}`, theme: "Mine2" },
    });
    expect(customer.status).toBe(422);
    expect(customer.body.error).toMatchObject({ code: "unknown_theme", field: "theme" });
  });
});
