import { describe, expect, it } from "vitest";
import { CATALOGUES, catalogueFor, directionOf, translator } from "../../src/view/messages";

// Our own words: one catalogue per language, each complete (every key of English, no other).
describe("message catalogues", () => {
  const english = CATALOGUES.en;
  const slots = (text: string) => [...text.matchAll(/\{([a-z_]+)\}/g)].map((m) => m[1]).sort();

  it("exist for en, de, fr, es, ja and ar", () => {
    expect(Object.keys(CATALOGUES).sort()).toEqual(["ar", "de", "en", "es", "fr", "ja"]);
  });

  for (const [language, catalogue] of Object.entries(CATALOGUES)) {
    it(`${language} has every key of English, each non-empty with the same {slots}`, () => {
      expect(Object.keys(catalogue).sort()).toEqual(Object.keys(english).sort());
      for (const [key, text] of Object.entries(english)) {
        const own = (catalogue as Record<string, string>)[key];
        expect(own.trim(), `${language}.${key}`).not.toBe("");
        expect(slots(own), `${language}.${key}`).toEqual(slots(text));
      }
    });
  }

  it("are chosen by the locale's language, else English", () => {
    expect(catalogueFor("de-CH")).toBe(CATALOGUES.de);
    expect(catalogueFor("ar-EG")).toBe(CATALOGUES.ar);
    expect(catalogueFor("ja")).toBe(CATALOGUES.ja);
    // Control: a language without a catalogue falls back to English.
    expect(catalogueFor("pt-BR")).toBe(CATALOGUES.en);
    expect(translator("fr-FR")("panel.cut", { count: "12" })).toBe(CATALOGUES.fr["panel.cut"].replace("{count}", "12"));
  });

  it("Arabic (and other right-to-left scripts) read right to left", () => {
    expect(directionOf("ar-EG")).toBe("rtl");
    expect(directionOf("he")).toBe("rtl");
    expect(directionOf("de-DE")).toBe("ltr");
  });
});
