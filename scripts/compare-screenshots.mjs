#!/usr/bin/env node
// Compares two folders of screenshots (scripts/page-screenshots.mjs) pixel by pixel: for each
// PNG of either folder, its size in each and how many pixels differ (any channel). Exits 1 when
// a file is missing on one side, the sizes differ, or any pixel differs; 0 when all are identical.
// Usage: node scripts/compare-screenshots.mjs <dirA> <dirB>
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { PNG } from "pngjs";

const [dirA, dirB] = process.argv.slice(2);
if (!dirA || !dirB) {
  console.error("usage: node scripts/compare-screenshots.mjs <dirA> <dirB>");
  process.exit(2);
}
const pngs = (dir) => readdirSync(dir).filter((f) => f.endsWith(".png"));
const files = [...new Set([...pngs(dirA), ...pngs(dirB)])].sort();
let different = 0;
for (const file of files) {
  const [a, b] = [dirA, dirB].map((dir) => (existsSync(join(dir, file)) ? PNG.sync.read(readFileSync(join(dir, file))) : undefined));
  if (!a || !b) {
    console.log(`${file}: only in ${a ? dirA : dirB}`);
    different++;
    continue;
  }
  const size = (png) => `${png.width}x${png.height}`;
  if (a.width !== b.width || a.height !== b.height) {
    console.log(`${file}: size differs, ${size(a)} vs ${size(b)}`);
    different++;
    continue;
  }
  let differing = 0;
  for (let i = 0; i < a.data.length; i += 4) {
    if (a.data[i] !== b.data[i] || a.data[i + 1] !== b.data[i + 1] || a.data[i + 2] !== b.data[i + 2] || a.data[i + 3] !== b.data[i + 3])
      differing++;
  }
  const total = a.width * a.height;
  console.log(`${file}: ${size(a)}, ${differing} of ${total} pixels differ (${((100 * differing) / total).toFixed(3)} %)`);
  if (differing > 0) different++;
}
console.log(different === 0 ? `all ${files.length} identical` : `${different} of ${files.length} differ`);
process.exit(different === 0 ? 0 : 1);
