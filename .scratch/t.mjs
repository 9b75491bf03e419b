import puppeteer from "puppeteer-core";
import { chromiumArgs } from "../scripts/lib/chromium.mjs";
const b = await puppeteer.launch({ executablePath: process.argv[2], headless: true, args: chromiumArgs(), dumpio: !!process.env.DUMPIO });
const p = await b.newPage();
await p.setViewport({ width: 400, height: 120 });
await p.setContent('<h1 style="font-family:sans-serif">Hello Revenue 12,345</h1>');
await p.screenshot({ path: process.argv[3] });
await b.close();
console.log("ok");
