import { type FormEvent, useState } from "react";
import { api, unwrap } from "../api/client";
import { ApiError } from "../api/problem";
import { ProblemView } from "../ui/ProblemView";
import { useSession } from "./session";

/** Checks the key against the API before keeping it, so a typo is said at once. */
export function SignIn() {
  const { signIn } = useSession();
  const [value, setValue] = useState("");
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const credential = value.trim();
    setBusy(true);
    setError(null);
    try {
      await unwrap(api.GET("/v1/workflows", { params: { query: { limit: 1 } }, headers: { Authorization: `ApiKey ${credential}` } }));
      signIn(credential);
    } catch (e) {
      setError(e instanceof ApiError ? e : new Error(String(e)));
    } finally {
      setBusy(false);
    }
  }

  return (
    <main className="sign-in">
      <form onSubmit={submit} className="card">
        <h1>Sign in to Clarion</h1>
        <p className="muted">
          Use an environment's API key. <code>npm start</code> prints the keys and saves them in <code>.clarion/keys.json</code>.
        </p>
        <label htmlFor="credential">API key</label>
        <input
          id="credential"
          type="password"
          autoComplete="off"
          spellCheck={false}
          placeholder="ck_dev_…"
          value={value}
          onChange={(e) => setValue(e.target.value)}
          required
        />
        <button type="submit" className="primary" disabled={busy || !value.trim()}>
          {busy ? "Checking…" : "Sign in"}
        </button>
        {error ? <ProblemView error={error} /> : null}
      </form>
    </main>
  );
}
