import { describe, expect, it } from "vitest";
import { addressProblem, destinationProblem } from "../../src/lib/destination-policy";

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
  // Section 26: the third review's targets, then every added range and wildcard-DNS service.
  ["localtest.me (wildcard DNS to loopback)", "https://localtest.me:8951/"],
  ["a nip.io name", "https://127.0.0.1.nip.io/"],
  ["benchmarking 198.18/15", "https://198.18.0.1/"],
  ["benchmarking, upper half", "https://198.19.255.254/"],
  ["documentation 192.0.2/24", "https://192.0.2.1/"],
  ["IPv4-translated loopback", "https://[::ffff:0:127.0.0.1]/"],
  ["local-use NAT64 of loopback", "https://[64:ff9b:1::7f00:1]/"],
  ["IPv6 documentation", "https://[2001:db8::1]/"],
  ["IETF 192.0.0/24", "https://192.0.0.8/"],
  ["documentation 198.51.100/24", "https://198.51.100.7/"],
  ["documentation 203.0.113/24", "https://203.0.113.9/"],
  ["reserved 240/4", "https://240.1.2.3/"],
  ["multicast", "https://239.255.255.250/"],
  ["broadcast", "https://255.255.255.255/"],
  ["IPv4-translated of a public address", "https://[::ffff:0:8.8.8.8]/"],
  ["discard-only 100::/64", "https://[100::1]/"],
  ["a sslip.io name", "https://10-0-0-1.sslip.io/"],
  ["xip.io itself", "https://xip.io/"],
  ["an lvh.me subdomain, upper case", "https://API.LVH.ME/"],
  ["a nip.io name with a trailing dot", "https://10.0.0.1.nip.io./"],
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
    ["198.20 (outside 198.18/15)", "https://198.20.0.1/hook"],
    ["192.0.3 (outside TEST-NET-1)", "https://192.0.3.1/hook"],
    ["2001:db9:: (outside 2001:db8::/32)", "https://[2001:db9::1]/hook"],
    ["64:ff9b:2:: (outside local-use NAT64)", "https://[64:ff9b:2::1]/hook"],
    ["a name that only ends like a wildcard service", "https://notnip.io/hook"],
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

describe("addressProblem: the addresses a name resolves to", () => {
  it.each(["10.0.0.7", "127.0.0.1", "::1", "::ffff:169.254.169.254", "fe80::1", "198.18.0.1", "2001:db8::5", "64:ff9b::a00:1"])(
    "refuses %s",
    (address) => expect(addressProblem(address)).not.toBeNull(),
  );
  it.each(["93.184.215.14", "2606:4700:4700::1111", "::ffff:8.8.8.8"])("accepts %s (control)", (address) =>
    expect(addressProblem(address)).toBeNull(),
  );
  it("refuses what is not an address", () => expect(addressProblem("example.com")).toBe("not an address"));
});
