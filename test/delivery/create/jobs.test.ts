import { describe, expect, it } from "vitest";
import { downloadFileName } from "../../../src/delivery/create/jobs";

describe("download file names", () => {
  it.each([
    [undefined, "image", "dashboard_screenshot_download.png"],
    [undefined, "pdf", "dashboard_screenshot_download.pdf"],
    ["report.png", "image", "report.png"],
    ["REPORT.PDF", "pdf", "REPORT.PDF"],
    ["report.png", "pdf", "report.png.pdf"],
    ['evil"; filename=x.exe\r\n', "image", "evil_ filename_x.exe_.png"],
    ["../../etc/passwd", "pdf", "_.._etc_passwd.pdf"],
    ["Übersicht März", "image", "_bersicht M_rz.png"],
  ] as const)("%s as %s → %s", (name, type, expected) => {
    expect(downloadFileName(name, type)).toBe(expected);
  });
});
