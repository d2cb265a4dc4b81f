import { markLines } from "./field-diff";

/** One side of a field: its lines, those the other side lacks marked; an absent field as a dash. */
export function DiffValue({ text, other, side }: { text: string | undefined; other: string | undefined; side: "before" | "after" }) {
  if (text === undefined) return <span className="muted">—</span>;
  return (
    <pre className="value">
      {markLines(text, other).map((line, i) =>
        line.marked ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: lines have no identity but their place
          <mark key={i} className={side === "before" ? "del" : "ins"}>
            {line.text || " "}
            {"\n"}
          </mark>
        ) : (
          // biome-ignore lint/suspicious/noArrayIndexKey: lines have no identity but their place
          <span key={i}>
            {line.text}
            {"\n"}
          </span>
        ),
      )}
    </pre>
  );
}
