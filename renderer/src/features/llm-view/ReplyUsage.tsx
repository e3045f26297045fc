/**
 * Under an assistant reply: the usage its provider reported and the agent recorded with it (the
 * tokens of the request it answered, of its answer, cache reads and writes, cost). Nothing when
 * the reply carries none, or only zeros (providers that report no usage).
 */
import { replyUsageParts } from "../../../../core/session/usage-totals.ts";
import { formatTokens } from "./message-parts.ts";

const TOOLTIP =
  "As the provider reported it for this reply and the agent recorded it: input is the request this " +
  "reply answered (uncached part), output the reply itself; the session's totals are under its title";

export function ReplyUsage({ usage }: { usage: unknown }) {
  const parts = replyUsageParts(usage, formatTokens);
  if (parts.length === 0) return null;
  return (
    <p className="reply-usage" data-testid="reply-usage" title={TOOLTIP}>
      Reply usage: {parts.join(" · ")}
    </p>
  );
}
