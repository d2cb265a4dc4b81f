/**
 * A provider's error text as a group's name: what varies between messages (addresses, phone
 * numbers, ids, numbers) is masked, so "550 mailbox a@x.com full" and the same for b@y.com are one
 * group, and a group keeps no one's address after their erasure.
 */
export function errorGroupText(message: string | null): string {
  if (!message) return "";
  return message
    .replace(/[\w.+-]+@[\w-]+(\.[\w-]+)+/g, "<email>")
    .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, "<id>")
    .replace(/\b[0-9a-f]{16,}\b/gi, "<id>")
    .replace(/\+\d[\d\s-]{6,}\d/g, "<number>")
    .replace(/\d+/g, (digits) => (digits.length <= 3 ? digits : "<n>"))
    .slice(0, 300);
}
