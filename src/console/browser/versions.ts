import { admin, AdminError } from "./api";
import { button, el, field, fill, input, selectOf, when } from "./dom";
import { compareInWords } from "./compare";
import { canonical, type Definition, type EditorState } from "./state";

// Versions, publishing and code (docs/console.md): the list "Versions", "Compare",
// "Publish" (a tag on the shown version, confirmed when its last check found problems or none
// ran) and "Revert", "Download file" (what `dashboards pull` writes) and "Embed code".

export interface VersionRow {
  version_number: number;
  draft: boolean;
  created_at: string;
  tags: string[];
}

interface Stored {
  dashboard: { embed_id: string; name: string };
  version: { version_number: number; draft: boolean; definition: Definition };
}

export interface VersionsView {
  element: HTMLElement;
  reload(): Promise<void>;
}

const read = (embedId: string, version: number) =>
  admin<Stored & { success: 1 }>(
    "GET",
    `/admin/dashboard_versions/?${new URLSearchParams({ embed_id: embedId, version_number: String(version) })}`,
  );

/** Exactly what `dashboards pull` writes for a version (scripts/lib/dashboard-files.mjs fileText). */
export function pulledFileText(stored: Stored): string {
  const file = {
    $schema: `${location.origin}/schemas/dashboard.json`,
    embed_id: stored.dashboard.embed_id,
    name: stored.dashboard.name,
    definition: stored.version.definition,
  };
  return `${JSON.stringify(file, null, 2)}\n`;
}

/** A confirmation in the page (a modal dialog): resolves true when the user goes ahead. */
function confirmInPage(title: string, text: string, yes: string): Promise<boolean> {
  return new Promise((resolve) => {
    const dialog = el("dialog", { "aria-labelledby": "confirm-title" });
    const done = (answer: boolean) => () => {
      dialog.close();
      dialog.remove();
      resolve(answer);
    };
    dialog.append(
      el("h2", { id: "confirm-title", text: title }),
      el("p", { text }),
      el("div", { class: "toolbar" }, [button(yes, done(true), { class: "primary" }), button("Cancel", done(false))]),
    );
    dialog.addEventListener("cancel", () => resolve(false));
    document.body.append(dialog);
    dialog.showModal();
  });
}

export function versionsSection(state: EditorState, hooks: { saved(): void; customer(): { provided_id: string } | null }): VersionsView {
  let versions: VersionRow[] = [];
  let shown: number | null = null;
  const list = el("ol", { "aria-label": "Versions", class: "panels" });
  const message = el("p", { role: "status" });
  const tag = selectOf(["production", "email"], "production");
  const newTag = input({ pattern: "[A-Za-z0-9_-]{1,64}", placeholder: "or a new tag" });
  const from = selectOf([], "");
  const to = selectOf([], "");
  const comparison = el("ul", { "aria-label": "Comparison" });
  // A named region (focusable: its lines may scroll) that screen readers can find again.
  const code = el("pre", { role: "region", "aria-label": "Embed code", tabindex: 0, hidden: true });

  const tagName = () => newTag.value.trim() || tag.value;

  const publish = async (version: number, ask: boolean) => {
    const stored = await read(state.embedId, version);
    const problems = state.checks.get(canonical(stored.version.definition));
    const name = tagName();
    if (ask && problems !== 0) {
      const text =
        problems === undefined
          ? `No check of all customers was run for version ${version}.`
          : `The last check of version ${version} found ${problems} problem${problems === 1 ? "" : "s"}.`;
      if (!(await confirmInPage(`Publish version ${version} as ${name}?`, text, "Publish anyway"))) return;
    }
    try {
      await admin("POST", "/admin/dashboard_tags/", { embed_id: state.embedId, tag: name, version_number: version });
      message.textContent = `Version ${version} is now ${name}.`;
      await reload();
    } catch (error) {
      message.textContent = error instanceof AdminError ? error.message : String(error);
    }
  };

  const download = async () => {
    if (shown === null) return;
    const text = pulledFileText(await read(state.embedId, shown));
    const link = el("a", { href: URL.createObjectURL(new Blob([text], { type: "application/json" })), download: `${state.embedId}.json` });
    document.body.append(link);
    link.click();
    link.remove();
    message.textContent = `Downloaded version ${shown} as ${state.embedId}.json.`;
  };

  const embedCode = () => {
    const who = hooks.customer();
    const origin = location.origin;
    const providedId = who?.provided_id ?? "<the customer's provided_id>";
    code.textContent = [
      "<!-- Your page -->",
      `<script src="${origin}/embed.js" defer></script>`,
      `<dashboard-embed embed-id="${state.embedId}" token-url="/dashboard-token" environment="${tagName()}"></dashboard-embed>`,
      "",
      "// Your server's /dashboard-token (your API token stays on your server):",
      `POST ${origin}/api/generate_embed_token/`,
      "Service-Authorization: Token <YOUR_API_TOKEN>",
      "Content-Type: application/json",
      "",
      JSON.stringify({ provided_id: providedId, dashboard_embed_id: state.embedId }),
    ].join("\n");
    code.hidden = false;
  };

  const compare = async () => {
    const a = Number(from.value);
    const b = Number(to.value);
    if (!a || !b) return;
    const [first, second] = await Promise.all([read(state.embedId, a), read(state.embedId, b)]);
    fill(
      comparison,
      ...compareInWords(first.version.definition, second.version.definition, [a, b]).map((line) => el("li", { text: line })),
    );
  };

  const draw = () => {
    fill(
      list,
      ...versions.map((v) =>
        el("li", { "aria-current": v.version_number === shown ? "true" : undefined }, [
          el("span", {
            text: `Version ${v.version_number}${v.draft ? " (draft)" : ""} · ${when(v.created_at)}${v.tags.length ? ` · ${v.tags.join(", ")}` : ""}`,
          }),
          " ",
          button(
            "Show",
            () => {
              shown = v.version_number;
              draw();
            },
            { "aria-label": `Show version ${v.version_number}` },
          ),
          v.version_number !== versions[0]?.version_number
            ? button("Revert", () => void publish(v.version_number, false), { "aria-label": `Revert to version ${v.version_number}` })
            : null,
        ]),
      ),
    );
    const others = [...new Set(versions.flatMap((v) => v.tags))].filter((t) => t !== "production" && t !== "email");
    const chosen = tag.value;
    fill(tag, ...["production", "email", ...others].map((t) => el("option", { value: t, text: t })));
    tag.value = chosen;
    for (const select of [from, to]) {
      const value = select.value;
      fill(select, ...versions.map((v) => el("option", { value: String(v.version_number), text: `Version ${v.version_number}` })));
      if (value) select.value = value;
    }
    if (!from.value && versions[1]) from.value = String(versions[1].version_number);
    publishButton.disabled = shown === null;
    publishButton.textContent = "Publish";
    shownNote.textContent = shown === null ? "No version saved yet." : `Shown version: ${shown}`;
  };

  const reload = async () => {
    versions = (
      await admin<{ versions: VersionRow[] }>("GET", `/admin/dashboard_version_history/?embed_id=${encodeURIComponent(state.embedId)}`)
    ).versions;
    if (shown === null || !versions.some((v) => v.version_number === shown)) shown = versions[0]?.version_number ?? null;
    draw();
  };

  const save = async () => {
    message.textContent = "";
    try {
      const { version } = await admin<{ version: { version_number: number } }>("POST", "/admin/dashboard_versions/", {
        embed_id: state.embedId,
        definition: state.definition,
        draft: true,
      });
      state.saved = JSON.parse(JSON.stringify(state.definition));
      state.savedVersion = version.version_number;
      shown = version.version_number;
      message.textContent = `Saved draft version ${version.version_number}.`;
      await reload();
      hooks.saved();
    } catch (error) {
      if (error instanceof AdminError && error.failure.field) {
        state.problems = [{ field: error.failure.field, panel_index: null, panel_id: null, message: error.message }];
        hooks.saved();
      }
      message.textContent = `Not saved: ${error instanceof AdminError ? `${error.failure.field ? `${error.failure.field.replace(/^definition\./, "")}: ` : ""}${error.message}` : String(error)}`;
    }
  };

  const saveButton = button("Save draft", () => void save(), { class: "primary" });
  const publishButton = button("Publish", () => shown !== null && void publish(shown, true));
  const shownNote = el("p", { class: "note" });
  const element = el("section", { class: "card", "aria-label": "Versions and publishing" }, [
    el("h2", { text: "Versions" }),
    el("div", { class: "toolbar" }, [saveButton]),
    message,
    list,
    shownNote,
    el("div", { class: "toolbar" }, [field("Tag", tag), field("New tag", newTag), publishButton]),
    el("h3", { text: "Compare" }),
    el("div", { class: "toolbar" }, [field("From version", from), field("To version", to), button("Compare", () => void compare())]),
    comparison,
    el("h3", { text: "Code" }),
    el("div", { class: "toolbar" }, [button("Download file", () => void download()), button("Embed code", embedCode)]),
    code,
  ]);
  return {
    element,
    reload,
    get saveButton() {
      return saveButton;
    },
  } as VersionsView & { saveButton: HTMLButtonElement };
}
