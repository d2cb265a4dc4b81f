import { base64ToBytes, bytesToBase64 } from "../lib/base64";
import { timingSafeEqual } from "../lib/crypto";
import { hex } from "../lib/hex";
import { basicAuth } from "./http";

/** Web Crypto helpers shared by status-webhook verifiers (HMAC, ECDSA, RSA over X.509, header secrets). */
const encoder = new TextEncoder();

export { timingSafeEqual };

export async function hmacHex(hash: "SHA-1" | "SHA-256" | "SHA-512", key: string, content: string): Promise<string> {
  const cryptoKey = await crypto.subtle.importKey("raw", encoder.encode(key), { name: "HMAC", hash }, false, ["sign"]);
  return hex(await crypto.subtle.sign("HMAC", cryptoKey, encoder.encode(content)));
}

/**
 * A webhook that the provider protects with a fixed Authorization header (Basic credentials in the
 * URL, or a bearer token) rather than a signature: compare the header with the expected value.
 */
export function verifyAuthorization(headers: Headers, expected: { username: string; password: string } | { token: string }): boolean {
  const actual = headers.get("authorization") ?? "";
  const wanted = "token" in expected ? `Bearer ${expected.token}` : basicAuth(expected.username, expected.password);
  return timingSafeEqual(actual, wanted);
}

/** Minimal DER reader: the tag, and where an element's content and the whole element start and end. */
interface DerElement {
  tag: number;
  start: number;
  contentStart: number;
  end: number;
}

function readDer(bytes: Uint8Array, offset: number): DerElement {
  const tag = bytes[offset]!;
  let length = bytes[offset + 1]!;
  let contentStart = offset + 2;
  if (length & 0x80) {
    const count = length & 0x7f;
    if (count < 1 || count > 4) throw new Error("unsupported DER length");
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + bytes[contentStart + i]!;
    contentStart += count;
  }
  const end = contentStart + length;
  if (end > bytes.length) throw new Error("truncated DER");
  return { tag, start: offset, contentStart, end };
}

/** A DER ECDSA signature (SEQUENCE of two INTEGERs) as the raw r||s that Web Crypto verifies. */
export function derToRawEcdsa(der: Uint8Array, size = 32): Uint8Array<ArrayBuffer> {
  const sequence = readDer(der, 0);
  if (sequence.tag !== 0x30) throw new Error("not a DER signature");
  const r = readDer(der, sequence.contentStart);
  const s = readDer(der, r.end);
  if (r.tag !== 0x02 || s.tag !== 0x02) throw new Error("not a DER signature");
  const raw = new Uint8Array(size * 2);
  const place = (element: DerElement, at: number) => {
    let value = der.subarray(element.contentStart, element.end);
    while (value.length > size && value[0] === 0) value = value.subarray(1);
    if (value.length > size) throw new Error("integer too long");
    raw.set(value, at + size - value.length);
  };
  place(r, 0);
  place(s, size);
  return raw;
}

/**
 * The SubjectPublicKeyInfo of an X.509 certificate (DER), which Web Crypto can import as "spki".
 * Certificate → tbsCertificate → [version] serial, signature, issuer, validity, subject, SPKI.
 */
export function spkiFromCertificate(der: Uint8Array): Uint8Array<ArrayBuffer> {
  const certificate = readDer(der, 0);
  const tbs = readDer(der, certificate.contentStart);
  let element = readDer(der, tbs.contentStart);
  if (element.tag === 0xa0) element = readDer(der, element.end);
  // From serialNumber, step over signature, issuer, validity and subject to the SPKI.
  for (let i = 0; i < 5; i++) element = readDer(der, element.end);
  if (element.tag !== 0x30) throw new Error("no SubjectPublicKeyInfo");
  return new Uint8Array(der.subarray(element.start, element.end));
}

export const pemToDer = (pem: string) => base64ToBytes(pem.replace(/-----(BEGIN|END) [A-Z ]+-----/g, "").replace(/\s+/g, ""));

/** HMAC of UTF-8 `content` under a UTF-8 `key`, base64 (Twilio and Plivo sign their callbacks so). */
export async function hmacBase64(hash: "SHA-1" | "SHA-256", key: string, content: string): Promise<string> {
  const cryptoKey = await crypto.subtle.importKey("raw", encoder.encode(key), { name: "HMAC", hash }, false, ["sign"]);
  return bytesToBase64(await crypto.subtle.sign("HMAC", cryptoKey, encoder.encode(content)));
}
