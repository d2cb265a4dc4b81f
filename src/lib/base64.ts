/**
 * Base64 and base64url (RFC 4648 §4 and §5), the one implementation: keys, signatures, tokens,
 * JWTs and list cursors all go through these. Decoders throw on input that is not base64.
 */

/** Bytes per `String.fromCharCode` call: spreading a whole buffer overflows the stack past ~100 KB. */
const CHUNK = 0x8000;

const encoder = new TextEncoder();
const strictDecoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

/** Standard base64 of any number of bytes, padded. */
export function bytesToBase64(bytes: ArrayBuffer | Uint8Array): string {
  const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  let binary = "";
  for (let i = 0; i < view.length; i += CHUNK) binary += String.fromCharCode(...view.subarray(i, i + CHUNK));
  return btoa(binary);
}

/** The bytes of standard base64 (padding optional). */
export const base64ToBytes = (b64: string): Uint8Array<ArrayBuffer> => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));

/** Base64url of the bytes, unpadded (JWTs, Web Push keys, link tokens, cursors). */
export const bytesToBase64Url = (bytes: ArrayBuffer | Uint8Array) =>
  bytesToBase64(bytes).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");

/** The bytes of base64url, padded or not; standard base64 reads the same. */
export const base64UrlToBytes = (text: string) => base64ToBytes(text.replaceAll("-", "+").replaceAll("_", "/").replace(/=+$/, ""));

/** Standard base64 of a string's UTF-8. */
export const textToBase64 = (text: string) => bytesToBase64(encoder.encode(text));

/** Base64url of a string's UTF-8. */
export const textToBase64Url = (text: string) => bytesToBase64Url(encoder.encode(text));

/** Standard base64 of a binary string (a byte per character, as `btoa` takes it; throws past U+00FF): HTTP Basic credentials. */
export const binaryToBase64 = (binary: string) => btoa(binary);

/** Standard base64 as a binary string (a character per byte, as `btoa` took it): for what was written with `btoa`. */
export const base64ToBinary = (b64: string) => atob(b64);

/** The UTF-8 text of base64url or base64; throws when either layer does not decode. */
export const base64UrlToText = (text: string) => strictDecoder.decode(base64UrlToBytes(text));
