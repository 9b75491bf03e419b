// ECharts' SVG renderer writes every label's whole font into that `<text>`'s own style
// (`font-size:12px;font-family:…;`) and `dominant-baseline="central"` on each: with every
// category labelled (docs/accessibility.md) that repetition was the largest part of what the
// accessible page added in bytes. What all labels share is written once on the chart's `<svg>`
// and inherited (font-family, font-size and dominant-baseline are inherited properties); a
// label that differs (a larger size, another baseline) keeps its own, which wins over the
// inherited value. The family is the one ECharts was given, already escaped for an attribute
// (charts.ts), so it reaches the page exactly as it reached each label before.

/** The label size ECharts writes unless an option says otherwise. */
const LABEL_SIZE = "font-size:12px;";

/** `svg` (as ECharts' renderer wrote it, drawn in `font`) with the labels' shared style written once on its root. */
export function sharedTextStyle(svg: string, font: string): string {
  const family = `font-family:${font};`;
  const texts = svg.replace(/<text ([^>]*)>/g, (_, attributes: string) => {
    const kept = attributes
      .replace(/(^| )dominant-baseline="central"/, "")
      .replace(/ style="([^"]*)"/, (_whole, style: string) => {
        const own = style.replace(LABEL_SIZE, "").replace(family, "");
        return own === "" ? "" : ` style="${own}"`;
      })
      .trim();
    return `<text ${kept}>`;
  });
  // xmlns:xlink, version and baseProfile mean nothing to an SVG inside HTML (the parser gives
  // its elements and xlink: attributes their namespaces); xmlns stays for the SVG read alone.
  return texts.replace(/^<svg ([^>]*)>/, (_, attributes: string) => {
    const root = attributes.replace(/ xmlns:xlink="[^"]*"| version="1\.1"| baseProfile="full"/g, "");
    // Before a style ECharts gave the root itself (a background), which then still applies.
    const styled = / style="/.test(root)
      ? root.replace(/ style="/, ` style="${LABEL_SIZE}${family}`)
      : `${root} style="${LABEL_SIZE}${family}"`;
    return `<svg ${styled} dominant-baseline="central">`;
  });
}
