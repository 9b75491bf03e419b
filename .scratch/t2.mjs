import { launchBrowser } from "../scripts/lib/chromium.mjs";
const b = await launchBrowser();
const p = await b.newPage();
await p.setViewport({ width: 500, height: 200 });
await p.setContent('<div style="font:20px system-ui">system-ui Revenue 12,345 ▲ €</div><div style="font:20px Arial,sans-serif">Arial Revenue</div><div style="font:20px serif">serif Revenue</div><div style="font:20px monospace">mono Revenue</div><div style="font:20px Georgia">no-generic Georgia</div>');
await p.screenshot({ path: process.argv[2] });
await b.close();
