// ISO 8601 durations (what the API stores) as an amount and a unit (what a person picks).
export const UNITS = [
  { unit: "S", label: "seconds", time: true },
  { unit: "M", label: "minutes", time: true },
  { unit: "H", label: "hours", time: true },
  { unit: "D", label: "days", time: false },
  { unit: "W", label: "weeks", time: false },
] as const;
export type Unit = (typeof UNITS)[number]["unit"];

/** `PT15M` → 15 minutes; null for a duration with more than one part (`P1DT2H`), which stays as text. */
export function splitDuration(iso: string): { amount: number; unit: Unit } | null {
  const match = /^P(T?)(\d+)([SMHDW])$/.exec(iso);
  if (!match) return null;
  const [, t, amount, unit] = match;
  const spec = UNITS.find((u) => u.unit === unit && u.time === (t === "T"));
  return spec ? { amount: Number(amount), unit: spec.unit } : null;
}

export function joinDuration(amount: number, unit: Unit): string {
  const spec = UNITS.find((u) => u.unit === unit);
  return `P${spec?.time ? "T" : ""}${Math.max(0, Math.trunc(amount))}${unit}`;
}
