/**
 * Version 10, CJK characters as words of the full-text search (core/text/cjk.ts). Entries
 * indexed before held a run of them as one word: they are to be re-checked, in the background
 * (indexSearchSlice), and those with CJK text indexed again. No schema change; the library opens at once.
 */
import type { Migration } from "./types.ts";

export const cjkSearchWords: Migration = {
  version: 10,
  name: "search: CJK characters as words, entries indexed before re-checked",
  up(db) {
    // Literal keys on purpose: a shipped migration never changes, whatever the repos do later.
    db.exec(`
      INSERT INTO store_meta (key, value)
        SELECT 'search.cjk_recheck_upto_pk', value FROM store_meta
         WHERE key = 'search.indexed_upto_pk' AND value > 0;
      INSERT INTO store_meta (key, value)
        SELECT 'search.cjk_recheck_after_pk', 0 FROM store_meta
         WHERE key = 'search.cjk_recheck_upto_pk';
    `);
  },
};
