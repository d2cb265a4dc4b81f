import { describe, expect, it } from "vitest";
import { isAllowedInAppUrl, isRefusedUrlTemplate, withoutUnsafeUrls } from "../../src/engine/in-app-urls";

describe("isAllowedInAppUrl", () => {
  it.each([
    "https://shop.example.com/o/1",
    "HTTP://shop.example.com",
    "/orders/1",
    "orders/1",
    "?tab=2",
    "#top",
    "//cdn.example.com/a.png",
    " https://shop.example.com ",
  ])("serves %j", (url) => {
    expect(isAllowedInAppUrl(url)).toBe(true);
  });

  it.each([
    "javascript:alert(1)",
    "JavaScript:alert(1)",
    " javascript:alert(1)",
    "\u0001javascript:alert(1)",
    "java\tscript:alert(1)",
    "java\nscript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "vbscript:msgbox(1)",
    "file:///etc/passwd",
    "mailto:someone@example.com",
  ])("refuses %j", (url) => {
    expect(isAllowedInAppUrl(url)).toBe(false);
  });
});

describe("isRefusedUrlTemplate", () => {
  it.each([
    ["javascript:alert(1)", true],
    ["javascript:{{ payload.code }}", true],
    ["  data:{% if x %}a{% endif %}", true],
    ["{{ payload.url }}", false],
    ["https://shop.example.com/o/{{ payload.id }}", false],
    ["/orders/{{ payload.id }}", false],
    ["{{ payload.scheme }}:alert(1)", false],
  ])("%j → %s", (template, refused) => {
    expect(isRefusedUrlTemplate(template)).toBe(refused);
  });
});

describe("withoutUnsafeUrls", () => {
  it("leaves out each unsafe URL, keeps the action's label, and names what it left out", () => {
    const { content, dropped } = withoutUnsafeUrls({
      body: "Hi",
      avatar: "javascript:alert(1)",
      redirect: { url: "javascript:alert(2)" },
      primaryAction: { label: "Open", redirect: { url: "data:text/html,x", target: "_blank" } },
      secondaryAction: { label: "Later", redirect: { url: "/later" } },
    });
    expect(content).toEqual({
      body: "Hi",
      primaryAction: { label: "Open" },
      secondaryAction: { label: "Later", redirect: { url: "/later" } },
    });
    expect(dropped).toEqual(["avatar", "redirect.url", "primaryAction.redirect.url"]);
  });

  it("returns safe content as it is", () => {
    const safe = { body: "Hi", redirect: { url: "https://a.example" } };
    expect(withoutUnsafeUrls(safe)).toEqual({ content: safe, dropped: [] });
  });
});
