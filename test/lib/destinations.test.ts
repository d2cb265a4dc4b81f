import { describe, expect, it } from "vitest";
import { checkDestination, webhookDestinationOptions } from "../../src/lib/destinations";

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

  it.each([
    ["https://localhost../", "loopback"],
    ["https://localhost.../", "loopback"],
    ["https://127.0.0.1../", "loopback"],
    ["https://10.0.0.1.../", "private"],
    ["https://metadata.google.internal../", "cloud metadata"],
    ["https://db.internal/", "private"],
    ["https://redis.default.svc/", "Kubernetes service"],
    ["https://redis.default.svc./", "Kubernetes service"],
    ["https://redis.default.svc.cluster.local/", "Kubernetes service"],
    ["https://api..example.com/", "empty label"],
    ["https://.example.com/", "empty label"],
  ])("refuses %s in strict mode (%s)", (url) => {
    expect(checkDestination(url, strict)).toMatchObject({ ok: false, reason: expect.any(String) });
  });

  it("names an empty label as the reason", () => {
    expect(checkDestination("https://api..example.com/", strict)).toMatchObject({
      ok: false,
      reason: expect.stringContaining("empty label"),
    });
  });

  describe("webhook endpoint ports", () => {
    const webhooks = webhookDestinationOptions({});
    it.each(["https://example.com/", "https://example.com:443/", "https://example.com:8443/"])("allows %s", (url) => {
      expect(checkDestination(url, webhooks)).toMatchObject({ ok: true });
    });
    it.each(["https://example.com:8080/", "https://example.com:22/", "https://example.com:6379/"])("refuses %s", (url) => {
      expect(checkDestination(url, webhooks)).toMatchObject({ ok: false, reason: expect.stringContaining("port") });
    });
    it("leaves other destinations' ports alone", () => {
      expect(checkDestination("https://example.com:8080/", strict)).toMatchObject({ ok: true });
    });
    it("allows any port where private destinations are allowed", () => {
      expect(checkDestination("http://127.0.0.1:8787/", webhookDestinationOptions({ ALLOW_PRIVATE_DESTINATIONS: "true" }))).toMatchObject({
        ok: true,
      });
    });
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

  describe("IPv6 forms that carry an IPv4 address", () => {
    // 169.254.169.254 = a9fe:a9fe, 127.0.0.1 = 7f00:1, 10.0.0.1 = a00:1, 8.8.8.8 = 808:808
    it.each([
      ["https://[2002:a9fe:a9fe::]/", "6to4 of metadata", "link-local"],
      ["https://[2002:7f00:1::1]/", "6to4 of loopback", "loopback"],
      ["https://[::ffff:0:a9fe:a9fe]/", "IPv4-translated metadata", "link-local"],
      ["https://[::ffff:0:7f00:1]/", "IPv4-translated loopback", "loopback"],
      ["https://[64:ff9b::a9fe:a9fe]/", "NAT64 of metadata", "link-local"],
      ["https://[64:ff9b:1::a9fe:a9fe]/", "local-use NAT64 (/96) of metadata", "link-local"],
      ["https://[64:ff9b:1:a9fe:a9:fe00::]/", "local-use NAT64 (/48) of metadata", "link-local"],
      ["https://[::a9fe:a9fe]/", "IPv4-compatible metadata", "link-local"],
      ["https://[2001:0:a9fe:a9fe::]/", "Teredo server at metadata", "link-local"],
      ["https://[2001:0:808:808::5601:5601]/", "Teredo client at metadata (inverted)", "link-local"],
      ["https://[2002:a00:1::]/", "6to4 of a private address", "private"],
    ])("refuses %s (%s)", (url, _label, why) => {
      const verdict = checkDestination(url, strict);
      expect(verdict).toMatchObject({ ok: false });
      const reason = (verdict as { reason: string }).reason;
      expect(reason).toContain({ "link-local": "link-local", loopback: "loopback", private: "private-network" }[why]);
    });

    it.each(["https://[2002:a9fe:a9fe::]/", "https://[::ffff:0:a9fe:a9fe]/", "https://[64:ff9b:1::a9fe:a9fe]/"])(
      "refuses %s even under the opt-in",
      (url) => {
        expect(checkDestination(url, optIn)).toMatchObject({ ok: false });
      },
    );

    it.each([
      "https://[2002:808:808::1]/",
      "https://[::ffff:0:808:808]/",
      "https://[64:ff9b::808:808]/",
      "https://[64:ff9b:1::808:808]/",
      "https://[2001:0:808:808::f7f7:f7f7]/",
    ])("allows %s, which carries the public 8.8.8.8", (url) => {
      expect(checkDestination(url, strict)).toMatchObject({ ok: true });
    });
  });
});
