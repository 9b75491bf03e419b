import { admin } from "./api";
import { showEditor } from "./editor";
import { showDashboards } from "./list";
import { startSignIn } from "./sign-in";

// The console's script (docs/console.md), served as /console/console.js. Signed
// out, the page is the sign-in form; signed in, a small router over `location.hash`: the
// dashboards table (#) and one dashboard's editor (#dashboard/<embed id>).

const main = document.getElementById("main") as HTMLElement;

function route(): void {
  const hash = decodeURIComponent(location.hash.slice(1));
  const open = (embedId: string) => {
    location.hash = `dashboard/${encodeURIComponent(embedId)}`;
  };
  if (hash.startsWith("dashboard/")) {
    void showEditor(main, hash.slice("dashboard/".length));
  } else void showDashboards(main, open);
}

if (document.body.dataset.signedIn === "true") {
  document.getElementById("sign-out")?.addEventListener("click", async () => {
    await admin("DELETE", "/console/session").catch(() => undefined);
    location.assign("/console/");
  });
  window.addEventListener("hashchange", route);
  route();
} else {
  startSignIn(document.getElementById("sign-in") as HTMLFormElement);
}
