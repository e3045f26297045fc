/**
 * The line in the agent's file of a row stored from it. Rows read from a file's tail after
 * Canopy's own entries (or after a merged rewrite) are stored further on than their line, so
 * that every row keeps its place in seq order; sessions.line_marks records, from which seq on,
 * by how much. Problems and malformed lines name the file's line (SPEC D2, D3) from it.
 */

/** [fromSeq, shift] pairs, fromSeq ascending: rows at seq >= fromSeq are at line seq - shift. */
export type LineMarks = readonly (readonly [number, number])[];

const NO_MARKS: LineMarks = [];

export function parseLineMarks(json: string): LineMarks {
  return json === "[]" ? NO_MARKS : (JSON.parse(json) as LineMarks);
}

/** How far past its line the file's row at `seq` is stored. */
export function shiftAt(marks: LineMarks, seq: number): number {
  for (let i = marks.length - 1; i >= 0; i--) {
    const [from, shift] = marks[i] as readonly [number, number];
    if (from <= seq) return shift;
  }
  return 0;
}

/** The line in the file of the file's row stored at `seq`. */
export function fileLineAt(marks: LineMarks, seq: number): number {
  return marks.length === 0 ? seq : seq - shiftAt(marks, seq);
}

/**
 * The marks after the file's rows from `fromSeq` on (all stored after every row there is) are
 * placed at line + `shift`; null when they already say so. Marks from `fromSeq` on described rows
 * that are gone (a provisional last line read again) and are dropped.
 */
export function markFrom(marks: LineMarks, fromSeq: number, shift: number): LineMarks | null {
  const kept = marks.filter(([from]) => from < fromSeq);
  if (shiftAt(kept, fromSeq) !== shift) return [...kept, [fromSeq, shift]];
  return kept.length === marks.length ? null : kept;
}
