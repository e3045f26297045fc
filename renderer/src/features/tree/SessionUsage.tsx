/**
 * The open session's usage statistics under its bar, as the agent's footer shows them (SPEC §2.1):
 * replies, input, output, cache reads and writes and cost, summed over every reply in the file,
 * all branches. Asked again when the tree on screen changes (a reply, the agent appending); the
 * main side keeps the totals and reads only what was appended. Asked only once the tree and the
 * LLM view have answered: one thread answers the requests in turn, and the line must never hold
 * up what the user opened the session for.
 */
import { useEffect, useRef, useState } from "react";
import { type UsageTotals, usageParts } from "../../../../core/session/usage-totals.ts";
import { call } from "../../api.ts";
import { useCanopy } from "../../store/index.ts";
import { formatTokens } from "../llm-view/message-parts.ts";

/** Token counts as the list reads them: millions (cache reads of a long session) as "54.7M". */
const count = (tokens: number) =>
  tokens >= 1_000_000 ? `${(tokens / 1_000_000).toFixed(tokens >= 100_000_000 ? 0 : 1)}M` : formatTokens(tokens);

const TOOLTIP =
  "Tokens and cost the agent recorded for this session's replies (and sub-agent tasks), " +
  "over every branch of the file, as its own usage statistics count them";

export function SessionUsage() {
  const sessionId = useCanopy((state) => state.selectedSessionId);
  // A new version of the tree: entries were added or changed, the totals may have too.
  const version = useCanopy((state) =>
    state.tree !== null && state.tree.sessionId === sessionId ? (state.tree.version ?? null) : null,
  );
  const viewLoading = useCanopy((state) => state.contextLoading);
  const [usage, setUsage] = useState<{ sessionId: string; totals: UsageTotals } | null>(null);
  /** The session and tree version last asked for: only its answer is shown. */
  const asked = useRef<string | null>(null);

  useEffect(() => {
    if (sessionId === null || version === null) {
      // Another session opening (or this one again later): its totals are asked for anew.
      asked.current = null;
      return;
    }
    if (viewLoading) return;
    const key = `${sessionId}\u0000${version}`;
    // The LLM view loading again (another entry selected) asks nothing new.
    if (asked.current === key) return;
    asked.current = key;
    call("session:usage", { sessionId }).then(
      (totals) => {
        if (asked.current === key) setUsage({ sessionId, totals });
      },
      // The figures are a convenience: a failure (the session deleted meanwhile) shows none.
      () => {
        if (asked.current === key) setUsage(null);
      },
    );
  }, [sessionId, version, viewLoading]);

  if (usage === null || usage.sessionId !== sessionId) return null;
  const parts = usageParts(usage.totals, count);
  if (parts.length === 0) return null;
  return (
    <p className="session-usage" data-testid="session-usage" title={TOOLTIP}>
      {parts.join(" · ")}
    </p>
  );
}
