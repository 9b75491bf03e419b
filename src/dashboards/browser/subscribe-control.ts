/**
 * The "Subscribe" control of a live embed page (its markup: src/dashboards/subscribe-control.ts).
 * It talks to this page's subscriptions API with the page's own token (kept in an
 * `input[name=token]`, so the frame script's token refresh reaches it too) and the browser's
 * time zone. Runs under the page's CSP by its hash, like the frame script. Its words' slots
 * are filled by the server's own file (src/view/fill.ts).
 */
import { fill } from "../../view/fill";

interface Subscription {
  id: string;
  cron: string;
  timezone: string;
}

type Answer = { success: 1; subscriptions?: Subscription[] } | { success: 0; error: { message: string } };

function start(root: HTMLDetailsElement): void {
  const api = root.getAttribute("data-api");
  // The page's own words (its locale's catalogue), handed over by the server as data.
  let words: Record<string, string> = {};
  try {
    words = JSON.parse(root.getAttribute("data-words") ?? "{}");
  } catch {}
  const say = (key: string, english: string, values: Record<string, string> = {}) => fill(words[key] ?? english, values);
  const form = root.querySelector("form") as HTMLFormElement;
  const list = root.querySelector("ul") as HTMLUListElement;
  const status = root.querySelector("[role=status]") as HTMLElement;
  let zone = "UTC";
  try {
    zone = Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  } catch {}
  (root.querySelector(".zone") as HTMLElement).textContent = zone;

  const token = () => (root.querySelector("input[name=token]") as HTMLInputElement).value;
  const call = (method: string, path: string, body?: unknown): Promise<Answer> => {
    const headers: Record<string, string> = { Authorization: `Bearer ${token()}` };
    if (body) headers["Content-Type"] = "application/json";
    return fetch(api + path, { method, headers, body: body ? JSON.stringify(body) : undefined }).then((r) => r.json());
  };
  const describe = (s: Subscription) => {
    const f = s.cron.split(" ");
    const values = { time: `${`0${f[1]}`.slice(-2)}:00`, zone: s.timezone };
    if (f[4] === "1") return say("subscribe.describe_weekly", "Weekly on Mondays at {time} ({zone})", values);
    if (f[2] === "1") return say("subscribe.describe_monthly", "Monthly on the 1st at {time} ({zone})", values);
    return say("subscribe.describe_daily", "Daily at {time} ({zone})", values);
  };
  const render = (items: Subscription[]) => {
    list.textContent = "";
    for (const s of items) {
      const li = document.createElement("li");
      const text = document.createElement("span");
      text.textContent = describe(s);
      const cancel = document.createElement("button");
      cancel.type = "button";
      cancel.textContent = say("subscribe.cancel", "Cancel");
      cancel.addEventListener("click", () => {
        call("DELETE", `/${encodeURIComponent(s.id)}`).then((r) => {
          status.textContent = r.success ? say("subscribe.cancelled", "Subscription cancelled.") : r.error.message;
          return load();
        });
      });
      li.appendChild(text);
      li.appendChild(cancel);
      list.appendChild(li);
    }
    if (!items.length) {
      const none = document.createElement("li");
      none.className = "none";
      none.textContent = say("subscribe.none", "No subscriptions yet.");
      list.appendChild(none);
    }
  };
  const load = (): Promise<void> =>
    call("GET", "").then((r) => {
      if (r.success) render(r.subscriptions ?? []);
      else status.textContent = r.error.message;
    });

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const field = (name: string) => (form.elements.namedItem(name) as HTMLSelectElement).value;
    call("POST", "", { frequency: field("frequency"), hour: Number(field("hour")), timezone: zone }).then((r) => {
      status.textContent = r.success ? say("subscribe.done", "Subscribed.") : r.error.message;
      return load();
    });
  });
  root.addEventListener("toggle", () => {
    if (root.open) load();
  });
}

const root = document.getElementById("subscribe");
if (root instanceof HTMLDetailsElement) start(root);
