// The search box's state (library slice search, against a scripted contract): a query longer
// than the API takes is refused in words, without a request, instead of with the API's input rule;
// a search answered while the index catches up keeps how far it is and asks again until done.
import { describe, expect, it, vi } from "vitest";

const channels: string[] = [];
/** What the next searches answer (then: nothing found, nothing left to index). */
const answers: unknown[] = [];

vi.mock("../../renderer/src/api.ts", async () => {
  const { scriptedApi } = await import("../helpers/scripted-api.ts");
  return scriptedApi(
    {
      "library:search": () => {
        const answer = answers.shift() ?? { hits: [], indexing: null };
        if (answer instanceof Error) throw answer;
        return answer;
      },
    },
    { record: (channel) => channels.push(channel) },
  );
});

interface SearchState {
  searchHits: unknown[] | null;
  searchIndexing: { indexed: number; total: number } | null;
  searchError: string | null;
  searching: boolean;
  search(query: string): Promise<void>;
}
// Imported through a variable so the node type-check (no DOM lib) does not follow the store.
const storeModule = "../../renderer/src/store/index.ts";
const { useCanopy } = (await import(storeModule)) as {
  useCanopy: { getState(): SearchState; subscribe(listener: (state: SearchState) => void): () => void };
};
const sliceModule = "../../renderer/src/store/library-slice.ts";
const { SEARCH_REFRESH_MS } = (await import(sliceModule)) as { SEARCH_REFRESH_MS: number };

describe("searching from the sidebar", () => {
  it("a pasted query over 1,000 characters says how long a search may be, without asking the API", async () => {
    await useCanopy.getState().search("x".repeat(5000));
    expect(useCanopy.getState().searchError).toBe(
      "A search is at most 1,000 characters long (this one has 5,000): shorten it.",
    );
    expect(useCanopy.getState().searching).toBe(false);
    expect(channels).not.toContain("library:search");

    await useCanopy.getState().search("x".repeat(1000));
    expect(useCanopy.getState().searchError).toBeNull();
    expect(useCanopy.getState().searchHits).toEqual([]);
  });

  it("a refused query reads as what to do, a search that could not run as a failure", async () => {
    await useCanopy.getState().search("x".repeat(1001));
    expect(useCanopy.getState().searchError).not.toMatch(/failed/i);
    answers.push(new Error("the library could not be read"));
    await useCanopy.getState().search("parser");
    expect(useCanopy.getState().searchError).toBe("Search failed: the library could not be read");
  });

  it("while the index catches up, the hits say how far it is and the search is asked again", async () => {
    vi.useFakeTimers();
    try {
      const hit = (entryId: string) => ({ sessionId: "s", entryId, sessionTitle: null, role: "user", snippet: "x" });
      answers.push({ hits: [hit("a")], indexing: { indexed: 10, total: 40 } });
      answers.push({ hits: [hit("a"), hit("b")], indexing: { indexed: 30, total: 40 } });
      answers.push({ hits: [hit("a"), hit("b"), hit("c")], indexing: null });
      const before = channels.length;
      await useCanopy.getState().search("wombat");
      expect(useCanopy.getState().searchIndexing).toEqual({ indexed: 10, total: 40 });
      expect(useCanopy.getState().searchHits).toHaveLength(1);
      // The refreshes replace the hits without a "Searching…" in between.
      const searching: boolean[] = [];
      const stop = useCanopy.subscribe((state) => searching.push(state.searching));
      await vi.advanceTimersByTimeAsync(SEARCH_REFRESH_MS);
      expect(useCanopy.getState().searchIndexing).toEqual({ indexed: 30, total: 40 });
      await vi.advanceTimersByTimeAsync(SEARCH_REFRESH_MS);
      expect(useCanopy.getState().searchIndexing).toBeNull();
      expect(useCanopy.getState().searchHits).toHaveLength(3);
      // Done: no more asking.
      await vi.advanceTimersByTimeAsync(SEARCH_REFRESH_MS * 3);
      stop();
      expect(channels.length - before).toBe(3);
      expect(searching).not.toContain(true);
    } finally {
      vi.useRealTimers();
    }
  });
});
