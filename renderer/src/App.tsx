/**
 * The application shell: library sidebar on the left, the LLM view of the selected session's
 * view leaf on the right.
 */
import { useEffect } from "react";
import { onEvent } from "./api.ts";
import { ImportForm } from "./features/library/ImportForm.tsx";
import { SessionList } from "./features/library/SessionList.tsx";
import { LlmView } from "./features/llm-view/LlmView.tsx";
import { useCanopy } from "./store/index.ts";

export function App() {
  const loadLibrary = useCanopy((state) => state.loadLibrary);
  const error = useCanopy((state) => state.libraryError);

  useEffect(() => {
    void loadLibrary();
    return onEvent("library:changed", () => void loadLibrary());
  }, [loadLibrary]);

  return (
    <div className="app">
      <aside className="sidebar">
        <h1>Canopy</h1>
        <ImportForm />
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        <SessionList />
      </aside>
      <main className="content">
        <LlmView />
      </main>
    </div>
  );
}
