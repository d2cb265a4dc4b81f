import { type FormEvent, useState } from "react";
import { ApiError } from "../api/problem";
import { ProblemView } from "../ui/ProblemView";
import { useSession } from "./session";
import { Button } from "../ui/Button";
import { Input } from "../ui/Input";
import { Card } from "../ui/Card";

/** The API checks the credential before the dashboard keeps a session, so a typo is said at once. */
export function SignIn() {
  const { signIn } = useSession();
  const [value, setValue] = useState("");
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await signIn(value.trim());
    } catch (e) {
      setError(e instanceof ApiError ? e : new Error(String(e)));
    } finally {
      setBusy(false);
    }
  }

  return (
    <main className="sign-in">
      <Card as="form" onSubmit={submit}>
        <h1>Sign in to Clarion</h1>
        <p className="muted">
          Use the admin credential (<code>clarion_admin_…</code>) to work in every environment, or an environment's API key for that one.{" "}
          <code>npm start</code> prints them and saves them in <code>.clarion/keys.json</code>.
        </p>
        <label htmlFor="credential">Admin credential or API key</label>
        <Input
          id="credential"
          type="password"
          autoComplete="off"
          spellCheck={false}
          placeholder="clarion_admin_… or ck_dev_…"
          value={value}
          onChange={(e) => setValue(e.target.value)}
          required
        />
        <Button type="submit" variant="primary" disabled={busy || !value.trim()}>
          {busy ? "Checking…" : "Sign in"}
        </Button>
        {error ? <ProblemView error={error} /> : null}
      </Card>
    </main>
  );
}
