import { admin, AdminError } from "./api";
import { button, el, field, fill, input, when } from "./dom";

// The dashboards table (docs/console.md): name, embed id, newest version, its tags and when
// it changed, filtered by "Search dashboards"; "New dashboard" creates one; a row opens the editor.

export interface DashboardRow {
  embed_id: string;
  name: string;
  versions: number;
  newest_version?: number | null;
  changed_at?: string | null;
  tags: Record<string, number>;
}

export async function showDashboards(main: HTMLElement, open: (embedId: string) => void): Promise<void> {
  const started = performance.now();
  const { dashboards } = await admin<{ dashboards: DashboardRow[] }>("GET", "/admin/dashboards/");
  const search = input({ type: "search", id: "search-dashboards", autocomplete: "off" });
  const body = el("tbody");
  const count = el("p", { class: "note", "aria-live": "polite" });
  const table = el("table", { role: "table", "aria-label": "Dashboards" }, [
    el("thead", {}, [
      el("tr", {}, [
        el("th", { scope: "col", text: "Name" }),
        el("th", { scope: "col", text: "Embed id" }),
        el("th", { scope: "col", text: "Newest version" }),
        el("th", { scope: "col", text: "Tags" }),
        el("th", { scope: "col", text: "Changed" }),
      ]),
    ]),
    body,
  ]);
  const draw = () => {
    const words = search.value.trim().toLowerCase();
    const shown = dashboards.filter((d) => !words || d.name.toLowerCase().includes(words) || d.embed_id.toLowerCase().includes(words));
    fill(
      body,
      ...shown.map((d) => {
        const tags = Object.entries(d.tags)
          .map(([tag, version]) => `${tag} → v${version}`)
          .join(", ");
        const link = el("a", { href: `#dashboard/${encodeURIComponent(d.embed_id)}`, text: d.name });
        const row = el("tr", { class: "open" }, [
          el("td", {}, [link]),
          el("td", { text: d.embed_id }),
          el("td", { text: d.newest_version ? `v${d.newest_version}` : d.versions ? `v${d.versions}` : "none" }),
          el("td", { text: tags || "none" }),
          el("td", { text: when(d.changed_at) }),
        ]);
        row.addEventListener("click", (event) => {
          if ((event.target as Element).closest("a")) return;
          open(d.embed_id);
        });
        return row;
      }),
    );
    count.textContent = `${shown.length} of ${dashboards.length} dashboards`;
  };
  search.addEventListener("input", draw);
  draw();

  const name = input({ id: "new-name", required: true, maxlength: 200 });
  const embedId = input({ id: "new-embed-id", pattern: "[A-Za-z0-9_-]{1,64}", maxlength: 64 });
  const error = el("p", { class: "error", role: "alert" });
  const create = el(
    "form",
    {
      class: "card",
      "aria-label": "New dashboard",
      onsubmit: async (event: Event) => {
        event.preventDefault();
        error.textContent = "";
        try {
          const { dashboard } = await admin<{ dashboard: { embed_id: string } }>("POST", "/admin/dashboards/", {
            name: name.value,
            ...(embedId.value ? { embed_id: embedId.value } : {}),
          });
          open(dashboard.embed_id);
        } catch (e) {
          error.textContent = e instanceof AdminError ? `${e.failure.field ? `${e.failure.field}: ` : ""}${e.message}` : String(e);
        }
      },
    },
    [
      el("h2", { text: "New dashboard" }),
      el("div", { class: "row" }, [field("Name", name), field("Embed id", embedId)]),
      error,
      el("button", { type: "submit", class: "primary", text: "New dashboard" }),
    ],
  );
  // On a narrow screen the table scrolls sideways inside its box rather than breaking words.
  fill(
    main,
    el("h2", { text: "Dashboards" }),
    el("div", { class: "toolbar" }, [field("Search dashboards", search)]),
    count,
    el("div", { class: "scroll" }, [table]),
    create,
  );
  main.dataset.listMs = String(Math.round(performance.now() - started));
  void button;
}
