import { describe, expect, it } from "vitest";
import { checkDestination } from "../../src/lib/destinations";

const strict = { allowPrivate: false };
const optIn = { allowPrivate: true };

describe("checkDestination", () => {
  it.each([
    "https://api.resend.com/emails",
    "https://93.184.216.34/",
    "https://172.32.0.1/",
    "https://100.128.0.1/",
    "https://[2606:4700:4700::1111]/",
    "https://[::ffff:8.8.8.8]/",
    "https://hooks.slack.com./services/x",
  ])("allows %s", (url) => {
    expect(checkDestination(url, strict)).toMatchObject({ ok: true });
  });

  it.each([
    ["https://[64:ff9b::7f00:1]/", "NAT64 of loopback"],
    ["https://[::7f00:1]/", "IPv4-compatible loopback"],
    ["https://[::]/", "unspecified"],
    ["https://[ff02::1]/", "multicast"],
    ["https://[fec0::1]/", "site-local"],
    ["https://198.18.0.1/", "benchmarking"],
    ["https://224.0.0.1/", "multicast"],
    ["https://255.255.255.255/", "broadcast"],
    ["https://printer.local/", "mDNS"],
    ["https://instance-data/", "AWS metadata name"],
    ["ftp://example.com/", "not http(s)"],
    ["not a url", "unparseable"],
  ])("refuses %s (%s)", (url) => {
    expect(checkDestination(url, strict)).toMatchObject({ ok: false, reason: expect.any(String) });
  });

  it.each(["http://127.0.0.1:8787/", "http://localhost:3000/", "http://10.0.0.5/", "https://[fd00::1]/"])(
    "allows %s under the opt-in",
    (url) => {
      expect(checkDestination(url, optIn)).toMatchObject({ ok: true });
    },
  );

  it.each(["http://169.254.169.254/", "http://[fe80::1]/", "http://metadata.google.internal/", "http://[::ffff:169.254.169.254]/"])(
    "refuses %s even under the opt-in",
    (url) => {
      expect(checkDestination(url, optIn)).toMatchObject({ ok: false });
    },
  );
});
