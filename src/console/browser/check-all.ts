import { admin, AdminError } from "./api";
import { button, el, field, fill, selectOf } from "./dom";
import { canonical, type EditorState, type Problem } from "./state";

// "Check all customers" (docs/console.md): every customer of the chosen access group checked
// with the definition as it is shown, by the operation `dashboards validate --customer` calls
// (POST /admin/dashboard_checks/: each data panel's query prepared on that customer's data source
// without reading rows, the columns it names, and the customer's locale against the translations),
// a page of customers per call (`access_group`, `offset`, `limit`) so that the progress bar moves.
// Runs in the background; the result is the table "Problems".

/** Customers per call, and calls at a time (the service prepares a few customers of each call at once). */
const PAGE = 25;
const AT_ONCE = 3;

interface Found {
  customer: string;
  panel: string;
  message: string;
}

interface CheckedPage {
  customers: { provided_id: string; problems: Problem[] }[];
  total: number;
  next_offset: number | null;
}

function foundIn(page: CheckedPage): Found[] {
  return page.customers.flatMap((customer) =>
    customer.problems.map((problem) => ({
      customer: customer.provided_id,
      panel: problem.panel_id ?? (problem.field.replace(/^definition\./, "") || "the dashboard"),
      message: problem.message,
    })),
  );
}

export function checkAllSection(state: EditorState, onDone: () => void): HTMLElement {
  const group = selectOf([], "");
  const bar = el("span", { style: "width:0%" });
  const progress = el(
    "div",
    {
      role: "progressbar",
      "aria-label": "Customers checked",
      "aria-valuemin": 0,
      "aria-valuemax": 0,
      "aria-valuenow": 0,
      hidden: true,
    },
    [bar],
  );
  const summary = el("p", { role: "status" });
  const rows = el("tbody");
  const table = el("table", { role: "table", "aria-label": "Problems" }, [
    el("thead", {}, [
      el("tr", {}, [
        el("th", { scope: "col", text: "Customer" }),
        el("th", { scope: "col", text: "Panel" }),
        el("th", { scope: "col", text: "Message" }),
      ]),
    ]),
    rows,
  ]);
  void admin<{ access_groups: { name: string }[] }>("GET", "/admin/access_groups/").then(({ access_groups }) => {
    fill(group, ...access_groups.map((g) => el("option", { value: g.name, text: g.name })));
    // Nothing to check before there is a group to choose.
    start.disabled = access_groups.length === 0;
  });

  const run = async () => {
    const definition = JSON.parse(JSON.stringify(state.definition));
    const key = canonical(definition);
    const accessGroup = group.value;
    start.disabled = true;
    fill(rows);
    summary.textContent = "Checking the first customers…";
    const started = performance.now();
    const checkPage = (offset: number): Promise<CheckedPage> =>
      admin("POST", "/admin/dashboard_checks/", {
        embed_id: state.embedId,
        name: state.name,
        definition,
        access_group: accessGroup,
        offset,
        limit: PAGE,
        customer_locale: true,
      });
    try {
      const first = await checkPage(0);
      const total = first.total;
      // Each page's problems in its place: the table lists them by customer, whichever page answered first.
      const pages: Found[][] = [foundIn(first)];
      let done = first.customers.length;
      progress.hidden = false;
      progress.setAttribute("aria-valuemax", String(total));
      const mark = () => {
        progress.setAttribute("aria-valuenow", String(done));
        progress.setAttribute("aria-valuetext", `${done} of ${total} customers`);
        bar.style.width = total ? `${(100 * done) / total}%` : "100%";
        summary.textContent = `Checked ${done} of ${total} customers`;
      };
      mark();
      const offsets: number[] = [];
      for (let offset = PAGE; offset < total; offset += PAGE) offsets.push(offset);
      let next = 0;
      const worker = async () => {
        while (next < offsets.length) {
          const index = next++;
          const offset = offsets[index];
          try {
            const page = await checkPage(offset);
            pages[index + 1] = foundIn(page);
            done += page.customers.length;
          } catch (error) {
            const last = Math.min(offset + PAGE, total);
            const message = error instanceof AdminError ? error.message : String(error);
            pages[index + 1] = [{ customer: `customers ${offset + 1}–${last}`, panel: "", message }];
            done += last - offset;
          }
          mark();
        }
      };
      await Promise.all(Array.from({ length: AT_ONCE }, worker));
      const found = pages.flat();
      fill(
        rows,
        ...found.map((f) => el("tr", {}, [el("td", { text: f.customer }), el("td", { text: f.panel }), el("td", { text: f.message })])),
      );
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      summary.textContent = `Checked ${total} customers in ${seconds} s: ${found.length === 0 ? "no problems" : `${found.length} problems`}.`;
      summary.dataset.seconds = seconds;
      state.checks.set(key, found.length);
      onDone();
    } catch (error) {
      summary.textContent = `The check stopped: ${error instanceof Error ? error.message : String(error)}`;
    } finally {
      start.disabled = false;
    }
  };
  const start = button("Check all customers", () => void run(), { disabled: true });
  return el("section", { class: "card", "aria-label": "Check every customer" }, [
    el("h2", { text: "Check every customer" }),
    el("div", { class: "toolbar" }, [field("Access group", group), start]),
    progress,
    summary,
    table,
  ]);
}
