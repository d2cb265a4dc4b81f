/**
 * Base64 and base64url (RFC 4648 §4 and §5), the one implementation: keys, signatures, tokens,
 * JWTs and list cursors all go through these. Decoders throw on input that is not base64.
 */

/**
 * The TC39 base64 methods of Uint8Array (V8 in the Workers runtime has them; TypeScript's ES2024
 * lib does not declare them yet). Encoding natively is about 18 times faster than building a
 * binary string for `btoa`: a link token per recipient of every delivery is encoded here.
 */
declare global {
  interface Uint8Array {
    toBase64(options?: { alphabet?: "base64" | "base64url"; omitPadding?: boolean }): string;
  }
}

const view = (bytes: ArrayBuffer | Uint8Array) => (bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes));

/** Bytes per `String.fromCharCode` call: spreading a whole buffer overflows the stack past ~100 KB. */
const CHUNK = 0x8000;

/**
 * Without the native methods (Node 22, which runs the provider conformance suite over src/providers): a
 * binary string for `btoa`, the same text.
 */
const NATIVE = typeof Uint8Array.prototype.toBase64 === "function";
function viaBtoa(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += CHUNK) binary += String.fromCharCode(...bytes.subarray(i, i + CHUNK));
  return btoa(binary);
}

const encoder = new TextEncoder();
const strictDecoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

/** Standard base64 of any number of bytes, padded. */
export const bytesToBase64 = (bytes: ArrayBuffer | Uint8Array): string => (NATIVE ? view(bytes).toBase64() : viaBtoa(view(bytes)));

/** The bytes of standard base64 (padding optional). */
export const base64ToBytes = (b64: string): Uint8Array<ArrayBuffer> => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));

/** Base64url of the bytes, unpadded (JWTs, Web Push keys, link tokens, cursors). */
export const bytesToBase64Url = (bytes: ArrayBuffer | Uint8Array): string =>
  NATIVE
    ? view(bytes).toBase64({ alphabet: "base64url", omitPadding: true })
    : viaBtoa(view(bytes)).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");

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
