// The search box's state (library slice search, against a scripted contract): a query longer
// than the API takes is refused in words, without a request, instead of with the API's input rule.
import { describe, expect, it, vi } from "vitest";

const channels: string[] = [];

vi.mock("../../renderer/src/api.ts", () => ({
  ApiCallError: class extends Error {},
  transport: "browser",
  onEvent: () => () => undefined,
  call: async (channel: string) => {
    channels.push(channel);
    if (channel === "library:search") return [];
    throw new Error(`unexpected ${channel}`);
  },
}));

interface SearchState {
  searchHits: unknown[] | null;
  searchError: string | null;
  searching: boolean;
  search(query: string): Promise<void>;
}
// Imported through a variable so the node type-check (no DOM lib) does not follow the store.
const storeModule = "../../renderer/src/store/index.ts";
const { useCanopy } = (await import(storeModule)) as { useCanopy: { getState(): SearchState } };

describe("searching from the sidebar", () => {
  it("a pasted query over 1,000 characters says how long a search may be, without asking the API", async () => {
    await useCanopy.getState().search("x".repeat(5000));
    expect(useCanopy.getState().searchError).toBe(
      "a search is at most 1,000 characters long (this one has 5,000); shorten it",
    );
    expect(useCanopy.getState().searching).toBe(false);
    expect(channels).not.toContain("library:search");

    await useCanopy.getState().search("x".repeat(1000));
    expect(useCanopy.getState().searchError).toBeNull();
    expect(useCanopy.getState().searchHits).toEqual([]);
  });
});
