import { describe, expect, it } from "vitest";
import { destinationProblem } from "../../src/lib/destination-policy";

const production = { development: false };
const development = { development: true };

/** The review's targets and every notation and range of section 21: refused everywhere, development included. */
const INTERNAL: [string, string][] = [
  ["cloud metadata (link-local)", "https://169.254.169.254/latest/meta-data/"],
  ["private 10/8", "https://10.0.0.1/hook"],
  ["private 172.16/12", "https://172.31.255.1/hook"],
  ["private 192.168/16", "https://192.168.1.10/hook"],
  ["CGNAT 100.64/10", "https://100.100.1.1/hook"],
  ["unspecified 0.0.0.0", "https://0.0.0.0/hook"],
  ["loopback, another port of 127/8", "https://127.0.0.2:8443/hook"],
  ["IPv6 loopback", "https://[::1]/hook"],
  ["IPv6 unspecified", "https://[::]/hook"],
  ["IPv6 unique-local", "https://[fd12:3456::1]/hook"],
  ["IPv6 link-local", "https://[fe80::1]/hook"],
  ["IPv4-mapped IPv6 loopback", "https://[::ffff:127.0.0.1]/hook"],
  ["IPv4-mapped IPv6 metadata", "https://[::ffff:169.254.169.254]/hook"],
  ["IPv4-compatible IPv6", "https://[::10.0.0.1]/hook"],
  ["NAT64 of a private address", "https://[64:ff9b::10.0.0.1]/hook"],
  ["6to4 of loopback", "https://[2002:7f00:1::]/hook"],
  ["hex", "https://0x7f000001/hook"],
  ["decimal", "https://2130706433/hook"],
  ["octal", "https://0177.0.0.1/hook"],
  ["short dotted", "https://127.1/hook"],
  ["hex octets", "https://0xa9.0xfe.0xa9.0xfe/hook"],
  ["localhost over https", "https://localhost/hook"],
  ["a localhost subdomain", "https://api.localhost/hook"],
  ["localhost with a trailing dot", "https://localhost./hook"],
  ["mDNS .local", "https://printer.local/hook"],
  ["*.internal", "https://metadata.google.internal/computeMetadata/v1/"],
  ["upper-case *.INTERNAL", "https://SERVICE.Internal/hook"],
];

describe("destinationProblem: one policy for every outgoing URL", () => {
  it.each(INTERNAL)("refuses %s (%s), also in development", (_name, url) => {
    expect(destinationProblem(url, production)).not.toBeNull();
    expect(destinationProblem(url, development)).not.toBeNull();
  });

  it.each([
    ["a public name", "https://webhook.test/hook"],
    ["a public name with a port", "https://hooks.example.com:8443/x?y=1"],
    ["a public IPv4 address", "https://8.8.8.8/hook"],
    ["a public IPv6 address", "https://[2606:4700:4700::1111]/hook"],
    ["a public IPv4-mapped IPv6 address", "https://[::ffff:8.8.8.8]/hook"],
    ["a name that only starts like a private one", "https://internal.example.com/hook"],
    ["172.32 (outside 172.16/12)", "https://172.32.0.1/hook"],
    ["100.128 (outside CGNAT)", "https://100.128.0.1/hook"],
  ])("accepts %s (control)", (_name, url) => {
    expect(destinationProblem(url, production)).toBeNull();
  });

  it("allows http://127.0.0.1:<port> and http://localhost:<port> only in development", () => {
    for (const url of ["http://127.0.0.1:8787/hook", "http://localhost:9/hook"]) {
      expect(destinationProblem(url, development)).toBeNull();
      expect(destinationProblem(url, production)).toContain("https");
    }
    // Nothing else local, not even in development.
    expect(destinationProblem("http://[::1]:9/hook", development)).not.toBeNull();
    expect(destinationProblem("http://api.localhost:9/hook", development)).not.toBeNull();
    expect(destinationProblem("http://10.0.0.1:9/hook", development)).not.toBeNull();
  });

  it("refuses plain http to a public host and credentials in the URL", () => {
    expect(destinationProblem("http://webhook.test/hook", production)).toContain("https");
    expect(destinationProblem("https://user:secret@webhook.test/hook", production)).toContain("password");
    expect(destinationProblem("not a url", production)).toBe("it is not a URL");
  });
});
