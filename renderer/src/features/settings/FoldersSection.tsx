/**
 * The agent session folders "Scan agent folders" imports and the live watcher watches: the pi
 * and oh-my-pi defaults until the user sets others here (one folder per line; `~` is the home
 * folder). Saving an empty list, or "Use the defaults", goes back to the defaults. Follows
 * `library:folders-changed` (another window or tab, `canopy folders set`): a list being edited
 * keeps what is typed and says what the folders became (Escape takes them). A save names the
 * folders shown: one changed elsewhere since (not heard of yet) is refused, not overwritten.
 */
import { type FormEvent, useCallback, useEffect, useRef, useState } from "react";
import type { ConfiguredFolders } from "../../../../core/api/dto.ts";
import { ApiCallError, call, onEvent } from "../../api.ts";
import { DEFAULT_FOLDERS_IN_USE } from "../../store/disabled-reasons.ts";
import { ErrorLine } from "../common/ErrorLine.tsx";
import { typedPath } from "../library/typed-path.ts";

const linesOf = (text: string) =>
  text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");

const sameList = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((item, i) => item === b[i]);

export function FoldersSection() {
  const [current, setCurrent] = useState<ConfiguredFolders | null>(null);
  const [draft, setDraft] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  /** Folders set elsewhere while the list was being edited (shown in a note, Escape takes them). */
  const [elsewhere, setElsewhere] = useState<ConfiguredFolders | null>(null);
  /** What the event handler reads: the folders shown and the text in the box, as they are now. */
  const latest = useRef({ current, draft, saving: false });
  latest.current = { ...latest.current, current, draft };

  const show = useCallback((folders: ConfiguredFolders) => {
    setCurrent(folders);
    setDraft(folders.folders.join("\n"));
    setElsewhere(null);
    setError(null);
  }, []);

  useEffect(() => {
    let live = true;
    call("library:get-folders", {})
      .then((folders) => {
        if (!live) return;
        setCurrent(folders);
        // Typed before the first answer came (a busy machine): what is typed stays.
        if (latest.current.draft === "") setDraft(folders.folders.join("\n"));
      })
      .catch((caught: Error) => {
        if (live) setError(caught.message);
      });
    return () => {
      live = false;
    };
  }, []);

  useEffect(
    () =>
      onEvent("library:folders-changed", (folders) => {
        const { current: shown, draft: typed, saving } = latest.current;
        // This window's own save: its answer shows the folders as saved.
        if (saving) return;
        const untouched = shown === null || sameList(linesOf(typed), shown.folders);
        if (untouched || sameList(linesOf(typed), folders.folders)) {
          show(folders);
          return;
        }
        // Being edited: what is typed stays; the note says what the folders are now.
        setCurrent(folders);
        setElsewhere(folders);
        setSaved(null);
      }),
    [show],
  );

  const save = async (folders: string[]) => {
    setSaved(null);
    latest.current.saving = true;
    try {
      const shown = current === null ? {} : { expected: current.folders };
      const result = await call("library:set-folders", { folders, ...shown });
      show(result);
      setSaved(result.defaults ? "Back to the default folders." : "Folders saved.");
    } catch (caught) {
      setError((caught as Error).message);
      // Changed elsewhere meanwhile (the event may still be on its way): what is typed stays,
      // the note says what the folders are now.
      if (caught instanceof ApiCallError && caught.code === "conflict") {
        const now = await call("library:get-folders", {}).catch(() => null);
        if (now !== null) {
          setCurrent(now);
          setElsewhere(now);
        }
      }
    } finally {
      latest.current.saving = false;
    }
  };

  const box = useRef<HTMLTextAreaElement>(null);
  /** Back to the defaults; the button, unavailable then, would drop the focus to the page: the list takes it. */
  const resetToDefaults = () => {
    box.current?.focus();
    void save([]);
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    // As pasted (quoted, file:// URLs); a relative folder would be taken in the app's own folder.
    const typed = linesOf(draft).map(typedPath);
    const refused = typed.find((line) => "error" in line);
    if (refused && "error" in refused) {
      setSaved(null);
      setError(refused.error);
      return;
    }
    void save(typed.flatMap((line) => ("path" in line ? [line.path] : [])));
  };

  return (
    <form className="folders" data-testid="agent-folders" onSubmit={submit}>
      <h3>Agent session folders</h3>
      <p className="note">
        Scanned by "Scan agent folders" and watched for new sessions
        {current?.defaults ? " (the pi and oh-my-pi defaults)" : ""}. One folder per line.
      </p>
      <textarea
        ref={box}
        aria-label="Agent session folders"
        rows={3}
        value={draft}
        spellCheck={false}
        onChange={(event) => {
          setDraft(event.target.value);
          setSaved(null);
        }}
        onKeyDown={(event) => {
          if (event.key === "Escape" && elsewhere !== null) {
            // The folders set elsewhere replace what was typed; the Escape goes no further.
            event.stopPropagation();
            show(elsewhere);
          }
        }}
      />
      <div className="row">
        <button type="submit">Save folders</button>
        <button
          type="button"
          disabled={current?.defaults === true}
          title={current?.defaults === true ? DEFAULT_FOLDERS_IN_USE : undefined}
          onClick={resetToDefaults}
        >
          Use the defaults
        </button>
      </div>
      {elsewhere !== null && (
        <p className="note" role="status" data-testid="folders-changed-elsewhere">
          Changed elsewhere to {elsewhere.defaults ? "the defaults" : elsewhere.folders.join(", ")} while you were
          editing: Save folders saves yours, Escape takes those.
        </p>
      )}
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
