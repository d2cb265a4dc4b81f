import { type ReactNode, useState } from "react";
import { Badge, type BadgeTone } from "../Badge";
import { Button } from "../Button";
import { Card } from "../Card";
import { ConfirmDialog } from "../ConfirmDialog";
import { DataList, fixedList } from "../DataList";
import { Dialog } from "../Dialog";
import { Field } from "../Field";
import { Checkbox, Input, Radio } from "../Input";
import { Select } from "../Select";
import { Table } from "../Table";
import { Textarea } from "../Textarea";
import "./gallery.css";

const TONES: { tone: BadgeTone; label: string }[] = [
  { tone: "", label: "neutral" },
  { tone: "ok", label: "delivered" },
  { tone: "warn", label: "retrying" },
  { tone: "bad", label: "failed" },
  { tone: "info", label: "scheduled" },
];

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Card as="div" className="gallery-section">
      <h2>{title}</h2>
      {children}
    </Card>
  );
}

function Buttons() {
  return (
    <Section title="Button">
      <div className="gallery-row">
        <Button>Default</Button>
        <Button variant="primary">Primary</Button>
        <Button variant="danger">Danger</Button>
        <Button variant="ghost">Ghost</Button>
      </div>
      <div className="gallery-row">
        <Button size="sm">Small</Button>
        <Button size="sm" variant="primary">
          Small primary
        </Button>
        <Button disabled>Disabled</Button>
        <Button variant="primary" loading>
          Saving…
        </Button>
      </div>
    </Section>
  );
}

function Badges() {
  return (
    <Section title="Badge">
      <div className="gallery-row">
        {TONES.map(({ tone, label }) => (
          <Badge key={label} tone={tone}>
            {label}
          </Badge>
        ))}
      </div>
    </Section>
  );
}

function Fields() {
  const [id] = useState(() => Math.random().toString(36).slice(2, 8));
  return (
    <Section title="Field, Input, Select, Textarea">
      <Field label="Name" hint="What readers see in the list.">
        <Input placeholder="Order shipped" />
      </Field>
      <Field label="Key" error="Use lowercase letters, digits and dashes.">
        <Input defaultValue="Order Shipped" />
      </Field>
      <Field label="Disabled">
        <Input value="read only" disabled readOnly />
      </Field>
      <Field label="Channel">
        <Select defaultValue="email">
          <option value="email">Email</option>
          <option value="sms">SMS</option>
        </Select>
      </Field>
      <Field label="Payload">
        <Textarea className="code" rows={3} defaultValue={'{ "order": 42 }'} />
      </Field>
      <div className="gallery-row">
        <label>
          <Checkbox defaultChecked /> Active
        </label>
        <label>
          <Radio name={`tone-${id}`} defaultChecked /> Daily
        </label>
        <label>
          <Radio name={`tone-${id}`} /> Weekly
        </label>
      </div>
    </Section>
  );
}

const ROWS = [
  { id: "welcome", channel: "email", status: "ok" as const },
  { id: "digest", channel: "in_app", status: "warn" as const },
];

function Tables() {
  return (
    <Section title="Table">
      <Table>
        <thead>
          <tr>
            <th scope="col">Workflow</th>
            <th scope="col">Channel</th>
            <th scope="col">Status</th>
          </tr>
        </thead>
        <tbody>
          {ROWS.map((r) => (
            <tr key={r.id}>
              <td>{r.id}</td>
              <td>{r.channel}</td>
              <td>
                <Badge tone={r.status}>{r.status === "ok" ? "active" : "paused"}</Badge>
              </td>
            </tr>
          ))}
        </tbody>
      </Table>
      <h3 className="gallery-subhead">Empty</h3>
      <DataList
        list={fixedList<(typeof ROWS)[number]>([])}
        what="workflows"
        empty="No workflows yet."
        compact
        columns={["Workflow"]}
        row={() => null}
      />
      <h3 className="gallery-subhead">Loading</h3>
      <DataList list={{ isPending: true, error: null }} what="workflows" empty="" columns={["Workflow"]} row={() => null} />
    </Section>
  );
}

function Dialogs() {
  const [open, setOpen] = useState<"form" | "confirm" | null>(null);
  return (
    <Section title="Dialog">
      <div className="gallery-row">
        <Button onClick={() => setOpen("form")}>Open dialog</Button>
        <Button variant="danger" onClick={() => setOpen("confirm")}>
          Delete…
        </Button>
      </div>
      <Dialog open={open === "form"} title="Rotate the signing secret?" onClose={() => setOpen(null)} className="confirm">
        <Field label="Overlap (hours)" hint="The old secret keeps working this long.">
          <Input type="number" defaultValue={24} />
        </Field>
        <div className="confirm-actions">
          <Button onClick={() => setOpen(null)}>Cancel</Button>
          <Button variant="primary" onClick={() => setOpen(null)}>
            Rotate
          </Button>
        </div>
      </Dialog>
      <ConfirmDialog
        open={open === "confirm"}
        title="Delete this endpoint?"
        confirm="Delete endpoint"
        danger
        onConfirm={() => setOpen(null)}
        onCancel={() => setOpen(null)}
      >
        <p>Its deliveries stop at once.</p>
      </ConfirmDialog>
    </Section>
  );
}

function Theme({ theme }: { theme: "light" | "dark" }) {
  return (
    <section className="gallery-theme" data-theme={theme} aria-labelledby={`gallery-${theme}`}>
      <h2 id={`gallery-${theme}`} className="gallery-theme-title">
        {theme === "light" ? "Light" : "Dark"}
      </h2>
      <Buttons />
      <Badges />
      <Fields />
      <Tables />
      {theme === "light" ? <Dialogs /> : null}
      <p className="muted">
        Muted text, and <a href="#top">a link back to the top</a>.
      </p>
      <div className="problem" role="alert">
        <strong>422 Invalid request</strong>
        <p>A problem document, as ProblemView shows it.</p>
      </div>
    </section>
  );
}

/**
 * The dashboard's components (dashboard/src/ui/) in each of their states, in the light and the
 * dark theme side by side: at /dashboard/_ui, without signing in, since it shows no data. The
 * browser suite measures its text's contrast in Chromium (test/browser/contrast.test.ts).
 */
export function UiGallery() {
  return (
    <main className="page gallery" id="main" tabIndex={-1}>
      <h1 id="top">Components</h1>
      <p className="muted">
        Every component of <code>dashboard/src/ui/</code> in each state. Tokens live in <code>ui/tokens.css</code>.
      </p>
      <div className="gallery-themes">
        <Theme theme="light" />
        <Theme theme="dark" />
      </div>
    </main>
  );
}
