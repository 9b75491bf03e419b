import { html, renderPage } from "../view/page-shell";
import { CONSOLE_STYLE } from "./style";

// The console's one HTML page (docs/console.md), on the page shell. Signed out it
// is the sign-in form; signed in, the landmarks the console's script (browser/console.ts)
// fills from the /admin/ API. The admin token never reaches the page: the form posts it as
// JSON from the script and only the HttpOnly cookie comes back.

function signInForm() {
  return html`<main id="main" class="sign-in">
  <h1>Dashboards console</h1>
  <form id="sign-in" method="post" action="/console/session" novalidate>
    <label for="admin-token">Admin token</label>
    <input id="admin-token" name="admin_token" type="password" autocomplete="current-password" required aria-describedby="sign-in-error">
    <p id="sign-in-error" class="error" role="alert"></p>
    <button type="submit">Sign in</button>
  </form>
</main>`;
}

function consoleShell() {
  return html`<header class="bar">
  <a class="skip" href="#main">Skip to content</a>
  <h1><a href="#">Dashboards console</a></h1>
  <button type="button" id="sign-out">Sign out</button>
</header>
<main id="main" tabindex="-1" aria-live="polite"><p>Loading…</p></main>`;
}

export function consolePage(options: { signedIn: boolean; script: string }): string {
  return renderPage({
    root: { lang: "en" },
    title: "Dashboards console",
    style: CONSOLE_STYLE,
    bodyAttributes: { "data-signed-in": options.signedIn ? "true" : "false" },
    body: options.signedIn ? consoleShell() : signInForm(),
    scripts: [{ src: options.script }],
  });
}
