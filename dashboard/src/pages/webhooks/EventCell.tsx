/** An event as the webhook tables show it: its type, and its id below. */
export function EventCell({ type, id }: { type: string; id: string }) {
  return (
    <td>
      <code>{type}</code>
      <div className="muted small">
        <code>{id}</code>
      </div>
    </td>
  );
}
