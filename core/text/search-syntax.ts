/**
 * What a search query written in search-engine syntax is taken as, in words: said under the app's
 * search hits and on the CLI's stderr, so a user who typed quotes, OR or -word is not misled.
 */

/**
 * The note for `query` (null for plain words): the search finds messages holding every word (the
 * last one also as the start of a word); OR, AND and NOT are words like the others, and quotes,
 * * and a - before a word (which excludes nothing: the word is searched) are left out
 * (main/store/repos/search.ts toFtsQuery).
 */
export function searchSyntaxNote(query: string): string | null {
  const tokens = query.split(/\s+/u);
  const operator = tokens.some((token) => token === "OR" || token === "AND" || token === "NOT");
  const exclusion = tokens.some((token) => /^-[\p{L}\p{N}]/u.test(token));
  if (!operator && !exclusion && !/["*]/.test(query)) return null;
  return "OR, AND and NOT are searched as words, and quotes, * and a - before a word are left out: a message matches when it holds every word (the last one also as the start of a word).";
}
