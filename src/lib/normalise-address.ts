/**
 * The one spelling of an address that the suppression list stores and compares: emails are
 * case-insensitive in practice, phones lose their formatting (a callback's `14155552671` is the
 * subscriber's `+14155552671`), push tokens and chat webhook URLs are kept as given.
 */
export function normaliseAddress(channel: string, address: string): string {
  const trimmed = address.trim();
  switch (channel) {
    case "email":
      return trimmed.toLowerCase();
    case "sms": {
      const digits = trimmed.replace(/[\s().-]/g, "");
      return digits.startsWith("+") ? digits : `+${digits}`;
    }
    default:
      return trimmed;
  }
}
