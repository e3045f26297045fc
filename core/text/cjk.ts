/**
 * Chinese, Japanese and Korean characters as words of their own for the full-text search, whose
 * tokenizer (unicode61) would take a whole run of them (no spaces in CJK writing) as one word:
 * the indexed text gets a space around each such character, and a query word is split the same way.
 */

/** The scripts whose letters are words of their own here. Hangul too: see spaceCjk. */
const SCRIPTS = String.raw`[\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}\p{scx=Hangul}]`;
/** A Han, kana or Hangul letter or number (with the marks that follow it). */
const CJK = String.raw`[${SCRIPTS}&&[\p{L}\p{N}]]\p{M}*`;
const CJK_ONE = new RegExp(CJK, "v");
/** A run of them: spaced in one go (a replacement per character is twice as slow). */
const CJK_RUN = new RegExp(`(?:${CJK})+`, "gv");
const MARK = /\p{M}/u;
const CHAR_WITH_MARKS = /\P{M}\p{M}*/gu;
/** A letter or digit that is not CJK: what a Latin (Cyrillic, …) word is made of. */
export const NON_CJK_WORD_CHAR = String.raw`(?:(?!${SCRIPTS})[\p{L}\p{N}])`;
/** Cheap first look: every CJK letter is at or above U+1100 (Hangul Jamo). */
const MAYBE_CJK = /[\u1100-\u{10ffff}]/u;

export function hasCjk(text: string): boolean {
  return MAYBE_CJK.test(text) && CJK_ONE.test(text);
}

const CJK_FIRST = new RegExp(`^${CJK}`, "v");
const CJK_LAST = new RegExp(`${CJK}$`, "v");

/** Whether a word begins / ends with a CJK character (it then needs no word boundary there). */
export function startsWithCjk(word: string): boolean {
  return CJK_FIRST.test(word);
}

export function endsWithCjk(word: string): boolean {
  return CJK_LAST.test(word);
}

/**
 * The text as the index takes it: each CJK character a word of its own ("検索する" → " 検 索 す る ").
 * Hangul is split into syllables as well: Korean puts spaces between words, but particles and
 * endings attach to them (검색을), and compounds are written as one word (전문검색); as syllables
 * "검색" is found in both. Other text is returned as it is.
 */
export function spaceCjk(text: string): string {
  return MAYBE_CJK.test(text) ? text.replace(CJK_RUN, spaceRun) : text;
}

/** "検索する" → " 検 索 す る " (a mark stays with its letter). */
function spaceRun(run: string): string {
  const chars = MARK.test(run) ? (run.match(CHAR_WITH_MARKS) ?? []) : Array.from(run);
  return ` ${chars.join(" ")} `;
}

/** A query word as the index holds it: its CJK characters one by one, other runs whole ("Reactコンポ" → React, コ, ン, ポ). */
export function splitCjkWord(word: string): string[] {
  if (!MAYBE_CJK.test(word)) return [word];
  return spaceCjk(word)
    .split(" ")
    .filter((part) => part !== "");
}
