import { describe, expect, it } from "vitest";
import { base64ToBytes, base64UrlToBytes, bytesToBase64, bytesToBase64Url, textToBase64 } from "../../src/lib/base64";

/** RFC 4648's encoding through `btoa`, as the encoders wrote it before they used Uint8Array's own. */
function viaBtoa(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

describe("base64", () => {
  it("encodes every length and byte as btoa does, padded and as unpadded base64url", () => {
    for (let n = 0; n <= 70; n++) {
      const bytes = crypto.getRandomValues(new Uint8Array(n));
      // Bytes that map to `+` and `/` (62, 63) in every position of a group.
      if (n >= 3) bytes.set([0xfb, 0xff, 0xbf]);
      const standard = viaBtoa(bytes);
      expect(bytesToBase64(bytes)).toBe(standard);
      expect(bytesToBase64(bytes.buffer)).toBe(standard);
      expect(bytesToBase64Url(bytes)).toBe(standard.replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, ""));
      expect([...base64UrlToBytes(bytesToBase64Url(bytes))]).toEqual([...bytes]);
      expect([...base64ToBytes(bytesToBase64(bytes))]).toEqual([...bytes]);
    }
  });

  it("encodes a large buffer and a string's UTF-8", () => {
    const big = crypto.getRandomValues(new Uint8Array(60_000));
    expect(bytesToBase64(big)).toBe(viaBtoa(big));
    expect([...base64ToBytes(bytesToBase64(big))]).toEqual([...big]);
    expect(textToBase64("Grüße ✉")).toBe("R3LDvMOfZSDinIk=");
    // The RFC 4648 test vectors.
    expect(["", "f", "fo", "foo", "foob", "fooba", "foobar"].map(textToBase64)).toEqual([
      "",
      "Zg==",
      "Zm8=",
      "Zm9v",
      "Zm9vYg==",
      "Zm9vYmE=",
      "Zm9vYmFy",
    ]);
  });
});
