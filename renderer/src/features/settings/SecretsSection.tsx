/**
 * API keys for the configured models (their `apiKeyEnv` names): only whether each is set and
 * where from (stored encrypted by the desktop app, or the environment). A key typed here goes to
 * secrets:set and is never shown or read back; browser mode cannot store keys and says why.
 */
import { type FormEvent, useEffect, useState } from "react";
import type { SecretsStatusDto } from "../../../../core/api/dto-app.ts";
import { call } from "../../api.ts";
import { ErrorLine } from "../common/ErrorLine.tsx";

export function SecretsSection({ names }: { names: string[] }) {
  const [status, setStatus] = useState<SecretsStatusDto | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [values, setValues] = useState<Record<string, string>>({});
  const [saved, setSaved] = useState<string | null>(null);
  const key = names.join("\u0000");

  useEffect(() => {
    let live = true;
    const wanted = key === "" ? [] : key.split("\u0000");
    call("secrets:status", wanted.length > 0 ? { names: wanted } : {})
      .then((value) => {
        if (!live) return;
        setStatus(value);
        setError(null);
      })
      .catch((caught: Error) => {
        if (live) setError(caught.message);
      });
    return () => {
      live = false;
    };
  }, [key]);

  const store = async (name: string, value: string | null) => {
    setSaved(null);
    try {
      setStatus(await call("secrets:set", { name, value }));
      setValues((current) => ({ ...current, [name]: "" }));
      setError(null);
      setSaved(value === null ? `${name} removed.` : `${name} stored (encrypted).`);
    } catch (caught) {
      setError((caught as Error).message);
    }
  };

  const submit = (name: string) => (event: FormEvent) => {
    event.preventDefault();
    const value = values[name]?.trim() ?? "";
    if (value) void store(name, value);
  };

  return (
    <div className="secrets" data-testid="secrets">
      <h3>API keys</h3>
      <ErrorLine message={error} />
      {status?.note && <p className="note" data-testid="secrets-note">{status.note}</p>}
      {status && status.keys.length === 0 && <p className="note">No model is configured, so no key is needed.</p>}
      {status?.keys.map((secret) => (
        <form key={secret.name} className="row" data-secret={secret.name} onSubmit={submit(secret.name)}>
          <label htmlFor={`secret-${secret.name}`}>
            <code>{secret.name}</code>:{" "}
            <span data-testid="secret-state">
              {secret.set ? `set (${secret.source === "stored" ? "stored encrypted" : "from the environment"})` : "not set"}
            </span>
          </label>
          {status.canStore && (
            <>
              <input
                id={`secret-${secret.name}`}
                type="password"
                autoComplete="off"
                placeholder="Paste a key to store it"
                value={values[secret.name] ?? ""}
                onChange={(event) => setValues((current) => ({ ...current, [secret.name]: event.target.value }))}
              />
              <button type="submit" disabled={!(values[secret.name] ?? "").trim()}>
                Save key
              </button>
              {secret.source === "stored" && (
                <button type="button" onClick={() => void store(secret.name, null)}>
                  Remove
                </button>
              )}
            </>
          )}
        </form>
      ))}
      {saved && (
        <p className="ok" role="status">
          {saved}
        </p>
      )}
    </div>
  );
}
