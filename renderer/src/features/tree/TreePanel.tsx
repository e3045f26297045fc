/**
 * The center pane: the session tree. Until the graphical canvas lands, the branch tips.
 */
import { BranchList } from "../navigation/BranchList.tsx";

export function TreePanel() {
  return (
    <section className="tree-panel" aria-label="Session tree">
      <BranchList />
    </section>
  );
}
