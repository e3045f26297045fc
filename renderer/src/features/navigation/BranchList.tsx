/**
 * The session's branch tips (simple form of tree navigation): move the view leaf to a tip, with
 * or without a summary of the branch being left (SPEC §2.8, D13).
 */
import { useMemo, useState } from "react";
import { entryKind, entryText, flatten } from "../../../../core/session/describe.ts";
import { buildTreeIndex } from "../../../../core/session/tree.ts";
import { useCanopy } from "../../store/index.ts";

export function BranchList() {
  const detail = useCanopy((state) => state.detail);
  const running = useCanopy((state) => state.running);
  const navigateTo = useCanopy((state) => state.navigateTo);
  const [instructions, setInstructions] = useState("");

  const tips = useMemo(() => {
    if (!detail) return [];
    const index = buildTreeIndex(detail.entries.map((stored) => stored.entry));
    return index.tips().map((entry) => ({ entry, depth: index.pathTo(entry.id).length }));
  }, [detail]);

  if (!detail || tips.length === 0) return null;
  const viewLeaf = detail.summary.viewLeafId;
  return (
    <section className="panel branch-list" aria-label="Branches">
      <h2>Branches ({tips.length})</h2>
      <label htmlFor="branch-instructions">Summary focus (optional)</label>
      <input id="branch-instructions" value={instructions} onChange={(event) => setInstructions(event.target.value)} />
      <ul>
        {tips.map(({ entry, depth }) => (
          <li key={entry.id} data-tip-id={entry.id} className={entry.id === viewLeaf ? "current" : undefined}>
            <span className="tip-text">
              <code>{entry.id}</code> {entryKind(entry)} · depth {depth} · {flatten(entryText(entry), 60)}
            </span>
            {entry.id === viewLeaf ? (
              <span className="badge">view leaf</span>
            ) : (
              <span className="row">
                <button type="button" disabled={running !== null} onClick={() => void navigateTo(entry.id, false)}>
                  Go here
                </button>
                <button
                  type="button"
                  disabled={running !== null}
                  onClick={() => void navigateTo(entry.id, true, instructions)}
                >
                  Go here + summarize
                </button>
              </span>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
