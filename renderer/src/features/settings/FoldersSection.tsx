/**
 * The agent session folders "Scan agent folders" imports and the live watcher watches: the pi
 * and oh-my-pi defaults until the user sets others here (one folder per line; `~` is the home
 * folder). Saving an empty list, or "Use the defaults", goes back to the defaults.
 */
import { type FormEvent, useEffect, useState } from "react";
import type { ConfiguredFolders } from "../../../../core/api/dto.ts";
import { call } from "../../api.ts";
import { ErrorLine } from "../common/ErrorLine.tsx";

const linesOf = (text: string) =>
  text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");

export function FoldersSection() {
  const [current, setCurrent] = useState<ConfiguredFolders | null>(null);
  const [draft, setDraft] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);

  const show = (folders: ConfiguredFolders) => {
    setCurrent(folders);
    setDraft(folders.folders.join("\n"));
    setError(null);
  };

  useEffect(() => {
    let live = true;
    call("library:get-folders", {})
      .then((folders) => {
        if (!live) return;
        setCurrent(folders);
        setDraft(folders.folders.join("\n"));
      })
      .catch((caught: Error) => {
        if (live) setError(caught.message);
      });
    return () => {
      live = false;
    };
  }, []);

  const save = async (folders: string[]) => {
    setSaved(null);
    try {
      const result = await call("library:set-folders", { folders });
      show(result);
      setSaved(result.defaults ? "Back to the default folders." : "Folders saved.");
    } catch (caught) {
      setError((caught as Error).message);
    }
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void save(linesOf(draft));
  };

  return (
    <form className="folders" data-testid="agent-folders" onSubmit={submit}>
      <h3>Agent session folders</h3>
      <p className="note">
        Scanned by "Scan agent folders" and watched for new sessions
        {current?.defaults ? " (the pi and oh-my-pi defaults)" : ""}. One folder per line.
      </p>
      <textarea
        aria-label="Agent session folders"
        rows={3}
        value={draft}
        spellCheck={false}
        onChange={(event) => {
          setDraft(event.target.value);
          setSaved(null);
        }}
      />
      <div className="row">
        <button type="submit">Save folders</button>
        <button type="button" disabled={current?.defaults === true} onClick={() => void save([])}>
          Use the defaults
        </button>
      </div>
      {current && current.missing.length > 0 && (
        <p className="note" data-testid="folders-missing">
          Not there (yet): {current.missing.join(", ")}
        </p>
      )}
      <ErrorLine message={error} />
      {saved && (
        <p className="ok" role="status">
          {saved}
        </p>
      )}
    </form>
  );
}
