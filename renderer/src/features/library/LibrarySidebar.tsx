/**
 * The library sidebar: import, search across sessions, and the sessions grouped by project,
 * kept up to date while agents write (live refresh).
 */
import { useCanopy } from "../../store/index.ts";
import { ImportForm } from "./ImportForm.tsx";
import { LibrarySearch } from "./LibrarySearch.tsx";
import { SessionList } from "./SessionList.tsx";
import { useLiveRefresh } from "./use-live-refresh.ts";
import "./library.css";

export function LibrarySidebar() {
  const error = useCanopy((state) => state.libraryError);
  const loadLibrary = useCanopy((state) => state.loadLibrary);
  useLiveRefresh();
  return (
    <div className="library">
      <ImportForm />
      <LibrarySearch />
      {error && (
        <div className="library-error">
          <p className="error" role="alert">
            Could not load the library: {error}
          </p>
          <button type="button" onClick={() => void loadLibrary()}>
            Retry
          </button>
        </div>
      )}
      <SessionList />
    </div>
  );
}
