// Limits on what ends up in an email header. They sit with the API vocabulary because subscribers,
// triggers and workflows all check them.

/** RFC 5321 §4.5.3.1: a local part of at most 64 octets, a path of at most 256 (254 for the address). */
export const MAX_LOCAL_PART = 64;
export const MAX_ADDRESS = 254;

const ANGLE_ADDRESS = /<([^<>]*)>\s*$/;

/** What is wrong with the address in `value` (`a@b.c` or `Name <a@b.c>`) for RFC 5321; null when nothing. */
export function addressLengthProblem(value: string): string | null {
  const address = (ANGLE_ADDRESS.exec(value)?.[1] ?? value).trim();
  const at = address.lastIndexOf("@");
  if (at > MAX_LOCAL_PART) return `The part before @ takes at most ${MAX_LOCAL_PART} characters (RFC 5321).`;
  if (address.length > MAX_ADDRESS) return `An email address takes at most ${MAX_ADDRESS} characters (RFC 5321).`;
  return null;
}

/** CR or LF would end a header line and start another: header injection. */
export const hasLineBreak = (value: string) => /[\r\n]/.test(value);
export const LINE_BREAK_MESSAGE = "Must not contain a line break (CR or LF): it is sent as an email header.";
